"""The exact answer for a declared algorithm: the one narrow function the conformance layer asks.

``_exact_moments`` builds the workbench sampler the declaration names (:func:`._workbench.workbench_sampler`: the
estimator, e.g. ``Minibatch``, ``ControlVariate``, ``SVRG``, ``Reused`` for one minibatch per call, and the
integrator, ``Langevin``, ``SGHMC``, ``ExplicitEulerSGHMC`` or ``BAOAB``, with the temperature and momentum laws as
integrator parameters) and reads the project's one exact engine, ``theory.exact_law(sampler)``: mean(k), cov(k) at
k = calls x inner steps and the stationary law (at phase 0, the call boundary, for a refreshed momentum or a reused
minibatch; averaged over the phases for SVRG's anchor period). Every declared algorithm on every problem comes from
the engine, including finite-k covariances on linear regression, SVRG-LD (an anchor offset runs as two segments:
the moment recursion is linear in the first two moments, so the second segment starts from the first's mean and
covariance), explicit-Euler SGHMC, momentum refreshes, one minibatch per call (exact for additive gradient noise;
the engine says why not otherwise), BAOAB, a temperature and the power calculation's ``noise_scale``.

One case is not the engine's: minibatches in reshuffled epochs (``DataLoader(shuffle=True)``, ``epochs=True``). The
errors of one epoch's disjoint batches are negatively correlated (they sum to zero), which is not a chain with
independent random stages, so the engine cannot express it; :mod:`verify.conformance._epochs` gives its law on the
1-D toy (additive noise). tests/_conformance_recursion.py keeps the former stop-gap recursion as an independent test
reference: tests check the engine's answers against it for every declared case.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError
from theory.linear_gaussian import exact_law

from ._workbench import svrg_segments, workbench_sampler
from .declared import Declared
from .problems import Problem


@dataclass(frozen=True)
class ExactMoments:
    """Mean and covariance of theta after each call in ``steps``, and of the stationary law."""

    steps: np.ndarray
    mean: np.ndarray  # (K, d)
    cov: np.ndarray  # (K, d, d)
    stationary_mean: np.ndarray  # (d,)
    stationary_cov: np.ndarray  # (d, d)
    source: str


def _theta0(problem: Problem, theta0) -> np.ndarray:
    th = np.asarray(theta0, dtype=float).reshape(-1)
    if th.shape != (problem.dim,):
        raise ParameterError(f"theta0 must have {problem.dim} entries for problem {problem.name!r}, got {th.shape}")
    return th


def _engine(declared: Declared, problem: Problem, theta0, steps, noise_scale: float):
    """(mean, cov, stationary mean, stationary cov, source) from ``theory.exact_law``."""
    L = declared.inner_steps
    first, period = svrg_segments(declared) if declared.algorithm == "svrg_ld" else (0, 1)
    law = exact_law(workbench_sampler(declared, problem, noise_scale), theta0)
    lead = None
    if first:  # SVRG with an anchor offset: calls [0, first) with the anchor of call 0, then the periodic schedule
        lead = exact_law(workbench_sampler(declared, problem, noise_scale, anchor_every=first), theta0)
        m1, C1 = lead.moments(first)
        law = exact_law(workbench_sampler(declared, problem, noise_scale), m1, C1)
    d = problem.dim
    mean, cov = np.empty((steps.size, d)), np.empty((steps.size, d, d))
    for j, k in enumerate(steps):
        k = int(k)
        mean[j], cov[j] = lead.moments(k) if lead is not None and k < first else law.moments((k - first) * L)
    phase = "average" if declared.algorithm == "svrg_ld" else 0
    s_mean, s_cov = law.stationary_moments(phase if law.period > 1 else None)
    sampler = law.sampler
    source = (f"theory.exact_law({type(sampler.estimator).__name__} + {type(sampler.integrator).__name__}, "
              f"h = {declared.h:.4g}" + (f", {L} steps per call" if L > 1 else "")
              + (f", anchor offset {first}: two segments" if first else "") + ")")
    return mean, cov, s_mean, s_cov, source


def _exact_moments(declared: Declared, problem: Problem, theta0, steps, noise_scale: float = 1.0) -> ExactMoments:
    """Exact moments of theta_k (all chains started at ``theta0``) for ``steps`` (calls) and the stationary law,
    with the injected noise's variance scaled by ``noise_scale``^2 (1: the declared algorithm)."""
    steps = np.asarray(steps, dtype=np.int64).reshape(-1)
    if steps.size and steps.min() < 0:
        raise ParameterError(f"steps must be >= 0, got {steps.min()}")
    theta0 = _theta0(problem, theta0)
    if declared.epochs:
        from ._epochs import EpochToyChain

        ep = EpochToyChain(declared, problem, noise_scale)
        mean, cov = ep.moments(theta0, steps)
        s_mean, s_cov = ep.stationary()
        return ExactMoments(steps, mean, cov, s_mean, s_cov, "reshuffled epochs on the toy (verify.conformance."
                                                             "_epochs; not an independent-stage chain)")
    mean, cov, s_mean, s_cov, source = _engine(declared, problem, theta0, steps, noise_scale)
    return ExactMoments(steps, mean, cov, s_mean, s_cov, source)


__all__ = ["ExactMoments"]
