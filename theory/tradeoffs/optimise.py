"""The optimum (h*, n*) of a surface (:mod:`.surface`): its grid minimum among the points whose stationary variance
inflation is within a limit (default: any), refined in h at that n by bounded Brent minimisation of the exact MSE on
log h between the neighbouring grid points (when the deadline leaves time for it), with the MSE's split, the
stationary law's accuracy (:mod:`.accuracy`) and the one-line explanation (:mod:`.explain`)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from simulate.validation import ParameterError

from .accuracy import LawAccuracy, law_accuracy
from .explanation import explain
from .grid_route import law_for_sampler
from .objective import Budget, Objective
from .samplers import SamplerOptions, SamplerSpec
from .surface import EDGE_RTOL, Surface, _refused

#: Evaluations a refinement in h takes, at most (to judge whether the deadline leaves time for it).
REFINE_EVALUATIONS = 20


@dataclass(frozen=True)
class Optimum:
    """The exact optimum (h, n) of one sampler, with its MSE's decomposition and why it sits where it does.

    Parameters
    ----------
    sampler : str
        The sampler's key.
    n : int
        The optimal minibatch size.
    h : float
        The optimal step size h*.
    edge : float
        The stability edge at n.
    mse, bias2, variance : float
        The exact MSE at (h*, n) and its split, MSE = bias2 + variance.
    mean : float
        The time average's exact mean.
    target : float
        The posterior expectation estimated.
    burn_in, n_steps : int
        The window the budget buys.
    grads_per_step : float
        The cost per step.
    startup_bias : float
        E(time average) - E_stationary(phi).
    stationary_bias : float
        E_stationary(phi) - target.
    slopes : tuple of float
        (d bias^2, d variance) / d log h at h*.
    at_grid_bottom : bool
        Whether h* is the grid's smallest h (extend the grid).
    explanation : str
        The one-line explanation (:func:`theory.tradeoffs.explain`).
    refined : bool
        Whether h* was refined between grid points (False: the grid's point, as the page shows).
    accuracy : LawAccuracy, optional
        The stationary law's accuracy and the ESS at h* (None on the grid route: no exact posterior covariance).
    constrained : bool
        Whether the variance-inflation limit excluded a grid point with a smaller MSE.
    mse_error : float
        The error estimate of ``mse``: the grid law's on the grid route, 0 for the exact engine's closed form.
    """

    sampler: str
    n: int
    h: float
    edge: float
    mse: float
    bias2: float
    variance: float
    mean: float
    target: float
    burn_in: int
    n_steps: int
    grads_per_step: float
    startup_bias: float
    stationary_bias: float
    slopes: tuple[float, float]
    at_grid_bottom: bool
    explanation: str = ""
    refined: bool = False
    accuracy: LawAccuracy | None = None
    constrained: bool = False
    mse_error: float = 0.0

    @property
    def position(self) -> float:
        """h* / the stability edge."""
        return self.h / self.edge


def _evaluate(spec, model, objective, budget, n, h, options, theta0):
    sampler = spec.build(model, h, n, options)
    law = law_for_sampler(sampler, theta0)
    b, L = budget.steps(sampler)
    return sampler, law, b, L, objective.exact(law, n_steps=L, burn_in=b)


def _refine(surface: Surface, i: int, j: int, f) -> float:
    """h minimising f(log h) between the grid neighbours of (i, j) (bounded Brent); the grid's h if no better."""
    J = surface.h.shape[1]
    lo = surface.h[i, j - 1] if j > 0 else surface.h[i, 0] / 2.0
    hi = surface.h[i, j + 1] if j < J - 1 else surface.edge[i] * (1.0 - 10 * EDGE_RTOL)
    res = optimize.minimize_scalar(f, bounds=(math.log(lo), math.log(hi)), method="bounded", options={"xatol": 1e-3})
    return math.exp(res.x) if res.fun < surface.mse[i, j] else float(surface.h[i, j])


def _grid_slopes(surface: Surface, i: int, j: int) -> tuple[float, float]:
    """(d bias^2, d variance) / d log h at grid point (i, j) from its finite grid neighbours."""
    J = surface.h.shape[1]
    lo = j - 1 if j > 0 and np.isfinite(surface.mse[i, j - 1]) else j
    hi = j + 1 if j < J - 1 and np.isfinite(surface.mse[i, j + 1]) else j
    if lo == hi:
        return 0.0, 0.0
    dlog = math.log(surface.h[i, hi] / surface.h[i, lo])
    b2, var = surface.bias2[i], surface.variance[i]
    return float((b2[hi] - b2[lo]) / dlog), float((var[hi] - var[lo]) / dlog)


def _accuracy(law, n: int, objective: Objective, window, gradients: float) -> LawAccuracy | None:
    if getattr(law, "posterior_cov", None) is None:
        return None
    a = objective.direction(law.d)
    return law_accuracy(law, n, a, window, gradients)


def optimum(surface: Surface, spec: SamplerSpec, model, objective: Objective, budget: Budget, *,
            options: SamplerOptions | None = None, theta0=None, refine: bool = True,
            max_inflation: float = math.inf, deadline: float | None = None) -> Optimum | None:
    """The optimum of a surface: its grid minimum (among the points whose stationary variance inflation is at most
    ``max_inflation``), refined in h by bounded Brent minimisation of the exact MSE on log h between the neighbouring
    grid points.

    Parameters
    ----------
    surface : Surface
        The surface.
    spec : SamplerSpec
        Its sampler.
    model : simulate.Model
        Its model.
    objective : Objective
        Its objective.
    budget : Budget
        Its budget.
    options : SamplerOptions, optional
        The settings held fixed.
    theta0 : array_like, optional
        The chains' start (default 0).
    refine : bool
        Refine in h; False keeps the grid point, with slopes from its grid neighbours.
    max_inflation : float
        The largest stationary variance inflation max_i C_ii / Sigma_ii an optimum may have (inf: no limit); the
        refinement keeps the grid point when the refined one exceeds it.
    deadline : float, optional
        A ``time.time()``; the refinement is skipped (``refined`` False) when it would run past it.

    Returns
    -------
    Optimum or None
        The optimum with its explanation and accuracy, or None when no grid point is feasible.
    """
    options = options or SamplerOptions()
    ij = surface.grid_optimum(max_inflation)
    if ij is None:
        return None
    i, j = ij
    n = int(surface.n[i])
    free = surface.grid_optimum()
    constrained = free is not None and tuple(free) != (i, j)

    def ev(h: float):
        return _evaluate(spec, model, objective, budget, n, h, options, theta0)

    t0 = time.time()
    h = float(surface.h[i, j])
    sampler, law, b, L, ta = ev(h)
    cost = time.time() - t0
    refined = refine and (deadline is None or time.time() + REFINE_EVALUATIONS * cost < deadline)
    grid_point = h, (sampler, law, b, L, ta)
    slopes = None
    try:
        if refined:
            h_ref = _refine(surface, i, j, lambda lh: ev(math.exp(lh))[-1].mse)
            out = ev(h_ref)
            acc = _accuracy(out[1], n, objective, out[2:4], budget.gradients(model.n_data))
            if h_ref != h and (acc is None or not acc.inflation > max_inflation):
                h, (sampler, law, b, L, ta) = h_ref, out
            refined = h == h_ref
        if refined:
            up, down = min(h * 1.01, surface.edge[i] * (1 - 10 * EDGE_RTOL)), h / 1.01
            hi, lo = ev(up)[-1], ev(down)[-1]
            dlog = math.log(up / down)
            slopes = (((hi.mean - hi.target) ** 2 - (lo.mean - lo.target) ** 2) / dlog,
                      (hi.variance - lo.variance) / dlog)
    except ParameterError as e:  # the grid law refused an h of the refinement: the grid point stands
        if not _refused(e):
            raise
        (h, (sampler, law, b, L, ta)), refined = grid_point, False
    if slopes is None:
        slopes = _grid_slopes(surface, i, j)
    stat = objective.stationary_value(law)
    acc = _accuracy(law, n, objective, (b, L), budget.gradients(model.n_data))
    opt = Optimum(spec.key, n, h, float(surface.edge[i]), float(ta.mse), float((ta.mean - ta.target) ** 2),
                  float(ta.variance), float(ta.mean), float(ta.target), b, L, sampler.grads_per_step(),
                  float(ta.mean - stat), float(stat - ta.target), slopes,
                  at_grid_bottom=(j == 0 and h <= surface.h[i, 0]), refined=refined, accuracy=acc,
                  constrained=constrained, mse_error=float(getattr(ta, "mse_error", 0.0)))
    return Optimum(**{**opt.__dict__, "explanation": explain(opt)})


__all__ = ["REFINE_EVALUATIONS", "Optimum", "optimum"]
