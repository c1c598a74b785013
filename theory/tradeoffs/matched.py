"""SGHMC against SGLD at matched cost and matched discretisation.

SGHMC's h is its learning rate eta = eps^2 (Chen, Fox & Guestrin eq. (15)), not a Langevin time step, so the
explorer's rows (each sampler at its own optimal h under one budget: matched cost) say nothing about the two at the
same discretisation. :func:`matched_discretisation` evaluates SGLD (without replacement) at SGHMC's optimal minibatch
size n* (the same cost per step, so the same window under the budget) and at the Langevin time step matched to its
optimal eta*, h = 2 eta* / alpha (``theory.tradeoffs.langevin_equivalent_step``; docs/explorer.md derives it): the exact
MSE of both at the same cost and discretisation, or that SGLD has no stationary law there.
"""

from __future__ import annotations

from dataclasses import dataclass

from .objective import Budget, Objective
from .optimise import Optimum
from .samplers import SamplerOptions, langevin_equivalent_step, sampler_spec
from .surface import Point, stability_edge, time_average_at

#: The Langevin sampler SGHMC is compared with (its cost per step is n, as SGHMC's).
MATCHED_SAMPLER = "sgld"


@dataclass(frozen=True)
class MatchedStep:
    """SGLD at SGHMC's optimal n* and at the Langevin step matched to its optimal eta*.

    Parameters
    ----------
    n : int
        SGHMC's optimal minibatch size (the same cost per step for SGLD).
    eta : float
        SGHMC's optimal learning rate.
    alpha : float
        SGHMC's friction.
    h : float
        The matched Langevin step 2 eta / alpha.
    edge : float
        SGLD's stability edge at n.
    point : Point or None
        SGLD's exact time average at (h, n) under the same budget (None: h at or beyond the edge, or no step fits).
    sghmc_mse : float
        SGHMC's exact MSE at its optimum.
    """

    n: int
    eta: float
    alpha: float
    h: float
    edge: float
    point: Point | None
    sghmc_mse: float

    def describe(self) -> str:
        """One line for the table.

        Returns
        -------
        str
            SGLD's exact MSE at the matched cost and discretisation against SGHMC's, or why it has none.
        """
        head = (f"matched discretisation: SGLD (without replacement) at SGHMC's n = {self.n} (the same cost per step) "
                f"and h = 2 eta*/alpha = {self.h:.4g} (the Langevin step matched to eta* = {self.eta:.4g})")
        if self.point is None and self.h >= self.edge:
            return (f"{head} is beyond SGLD's stability edge {self.edge:.4g} at that n: no stationary law; at this "
                    "discretisation only SGHMC's momentum keeps the chain stable")
        if self.point is None:
            return f"{head}: the budget buys SGLD no step there"
        p = self.point
        return (f"{head}: exact MSE {p.mse:.4g} (bias^2 {p.bias2:.3g}, variance {p.variance:.3g}), "
                f"{p.mse / self.sghmc_mse:.3g}x SGHMC's {self.sghmc_mse:.4g} at the same budget")


def matched_discretisation(model, objective: Objective, budget: Budget, opt: Optimum, options: SamplerOptions,
                           theta0=None) -> MatchedStep:
    """SGLD at SGHMC's optimum's n* and at the Langevin step h = 2 eta* / alpha matched to its eta*.

    Parameters
    ----------
    model : simulate.Model
        A model with an affine gradient.
    objective : Objective
        The objective.
    budget : Budget
        The budget (the same window for both: the same cost per step).
    opt : Optimum
        SGHMC's optimum (``opt.h`` is eta*).
    options : SamplerOptions
        The settings held fixed (``alpha``).
    theta0 : array_like, optional
        The chains' start.

    Returns
    -------
    MatchedStep
        SGLD's exact time average there (None beyond its stability edge).

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15); Welling & Teh (2011), eq. (4); Vollmer, Zygalakis & Teh (2016), eq. (7)
    (the time average's MSE). The matching h = 2 eta / alpha is new (``theory.tradeoffs.langevin_equivalent_step``).
    """
    spec = sampler_spec(MATCHED_SAMPLER)
    h = langevin_equivalent_step(opt.h, options.alpha)
    edge = stability_edge(spec, model, opt.n, options)
    point = None
    if h < edge:
        point = time_average_at(spec, model, objective, budget, opt.n, h, options=options, theta0=theta0)
    return MatchedStep(opt.n, opt.h, options.alpha, h, edge, point, opt.mse)


__all__ = ["MATCHED_SAMPLER", "MatchedStep", "matched_discretisation"]
