"""A simulation spot-check of an exact optimum: many independent chains of the same sampler at (h*, n*), each
chain's squared error of its time average, their mean against the exact MSE, with the s.e. across chains.

Each chain m gives e_m = (avg_m - target)^2, independent across chains, so the MSE estimate mean(e) has s.e.
sd(e)/sqrt(M) and z = (mean(e) - MSE_exact)/s.e. is approximately standard normal when the engine is right. The
work (chains x steps) is capped (``max_work``): fewer chains first (at least ``min_chains``), else the check is
skipped with the reason.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from simulate.runtime.runner import run

from .objective import Objective

#: Largest chains x steps of one spot-check by default.
MAX_WORK = 2e8


@dataclass(frozen=True)
class SpotCheck:
    """A simulation's MSE at an optimum against the exact MSE.

    Parameters
    ----------
    chains : int
        Chains run (0 when skipped).
    mse : float
        The simulated MSE, the mean over chains of each chain's squared error.
    se : float
        Its standard error across chains.
    exact : float
        The exact MSE.
    z : float
        (mse - exact) / se.
    seconds : float
        Time taken.
    skipped : str, optional
        Why it was not run (the work cap, or the time allowed).
    steps : int
        Steps simulated per chain (burn-in and window).
    asked : int
        Chains asked for (``chains`` < ``asked`` when the work cap applied).
    """

    chains: int
    mse: float
    se: float
    exact: float
    z: float
    seconds: float
    skipped: str | None = None
    steps: int = 0
    asked: int = 0

    def describe(self) -> str:
        """The spot-check in one line.

        Returns
        -------
        str
            The simulated and exact MSE with the s.e. and z, or why it was skipped.
        """
        if self.skipped:
            return f"spot-check skipped: {self.skipped}"
        cap = (f"; WARNING: the work cap on chains x steps cut the {self.asked} chains asked to {self.chains}"
               if self.chains < self.asked else "")
        return (f"spot-check: {self.chains} chains x {self.steps} steps simulated: MSE {self.mse:.4g} +- {self.se:.2g} "
                f"(s.e.) vs exact {self.exact:.4g}, z = {self.z:+.2f}{cap}")


def spot_check(sampler, objective: Objective, burn_in: int, n_steps: int, exact_mse: float, target: float, *,
               chains: int = 1000, seed: int = 0, theta0=None, max_work: float = MAX_WORK,
               min_chains: int = 200) -> SpotCheck:
    """Check an exact MSE by simulation: many chains, each chain's squared error of its time average, their mean
    against the exact MSE.

    Parameters
    ----------
    sampler : simulate.Sampler
        The sampler at the optimum's (h, n).
    objective : Objective
        The objective (its phi is the simulation's test function).
    burn_in : int
        b, the first step averaged.
    n_steps : int
        L, the window's length.
    exact_mse : float
        The exact MSE to check.
    target : float
        The posterior expectation of phi.
    chains : int
        Chains to run, fewer when ``max_work`` caps chains x steps.
    seed : int
        Seed of the run.
    theta0 : array_like, optional
        The chains' start (default 0).
    max_work : float
        The cap on chains x steps.
    min_chains : int
        The fewest chains worth running; below them the check is skipped, saying why.

    Returns
    -------
    SpotCheck
        The simulated MSE with its s.e. across chains (each chain's squared error is independent of the others'),
        the exact MSE and z.
    """
    steps = burn_in + n_steps
    M = int(min(chains, max_work // max(steps, 1)))
    if M < min_chains:
        return SpotCheck(0, math.nan, math.nan, exact_mse, math.nan, 0.0,
                         skipped=f"{steps} steps x {min_chains} chains exceed the work cap {max_work:.3g}",
                         steps=steps, asked=chains)
    from theory.linear_gaussian.affine import posterior, read_parts

    if hasattr(sampler.model, "affine_parts"):
        mu = posterior(read_parts(sampler.model))[0]
    elif objective.kind == "variance":
        return SpotCheck(0, math.nan, math.nan, exact_mse, math.nan, 0.0,
                         skipped="the variance objective's centre needs the exact posterior mean (grid route)")
    else:  # the grid route, mean and quadratic objectives: phi does not read mu
        mu = np.zeros(sampler.model.dim)
    t0 = time.perf_counter()
    res = run(sampler, M, n_steps, burn_in=burn_in, seed=seed, theta0=theta0,
              test_functions={"phi": lambda th: objective.phi(th, mu)})
    e = (res.time_averages["phi"][:, 0] - target) ** 2
    mse, se = float(e.mean()), float(e.std(ddof=1) / math.sqrt(e.size))
    z = (mse - exact_mse) / se if se > 0 else math.nan
    return SpotCheck(M, mse, se, exact_mse, z, time.perf_counter() - t0, steps=steps, asked=chains)


__all__ = ["MAX_WORK", "SpotCheck", "spot_check"]
