"""The checks every registered law is held to, as functions of (model, estimator, integrator): the shared sampler test
harness (tests/test_sampler_laws.py) runs them over every registered estimator x integrator, and a user's own sampler
(in a module outside the repository) gets the same by calling them.

* :func:`referee_check`: E theta_k and Cov theta_k of :func:`theory.exact_law` against brute-force enumeration of
  every draw sequence (tests/_referee.py: the simulator's own code only), to 1e-12, and the mean and MSE of a time
  average; where the estimator lists its draws.
* :func:`simulation_check`: the same moments against independent simulated chains, z-tests with standard errors
  across chains at |z| < Z_MAX (a Bonferroni bound over the harness's checks).
"""

from __future__ import annotations

import numpy as np
import pytest
from _referee import RefereeError, branch_counts, enumerate_moments, enumerate_time_average

from simulate import ParameterError, Sampler, run
from theory import exact_law

TOL = 1e-12
#: Largest number of draw sequences the referee enumerates, and the most steps it takes.
BRANCHES, K_MAX = 3 * 10**4, 5
#: |z| threshold of the simulation checks: P(|z| > 4.5) = 6.8e-6 per check under the null, so about 1% for the
#: harness's ~1500 checks (Bonferroni); the detectable deviation is 4.5 standard errors (plus the power margin).
Z_MAX = 4.5
CHAINS, K_EARLY, K_LATE = 4000, 3, 12
TA_BURN, TA_STEPS = 1, 3


def sampler_or_refusal(model, est, integ, h: float):
    """The sampler, or None where the simulator refuses the pair with a ParameterError that says why."""
    try:
        return Sampler(model, est, integ, h)
    except (ParameterError, NotImplementedError) as e:
        assert str(e), "a refusal must say why"
        return None


def law_or_refusal(sampler, theta0):
    """The exact law, or None where the engine refuses it with a ParameterError that says why (moments that do not
    close, a sampler without a law)."""
    try:
        law = exact_law(sampler, theta0=theta0)
        law.mean(1)
        return law
    except ParameterError as e:
        assert len(str(e)) > 40, f"a refusal must say why: {e}"
        return None


def affordable_steps(sampler) -> int:
    """The most steps (<= K_MAX) whose draw sequences number at most BRANCHES; RefereeError if not enumerable."""
    counts = branch_counts(sampler, K_MAX)
    return max([k + 1 for k, c in enumerate(counts) if c <= BRANCHES], default=0)


def referee_check(sampler, theta0: np.ndarray, cov0: np.ndarray | None = None) -> int:
    """Engine against enumeration: moments for k <= the affordable steps, and a linear time average where the engine
    has one. Returns the number of steps compared (0: nothing affordable). Skips where the estimator lists no
    draws."""
    try:
        k_max = affordable_steps(sampler)
    except (RefereeError, ParameterError) as e:
        pytest.skip(f"not enumerable ({e}); checked by simulation")
    law = exact_law(sampler, theta0=theta0, cov0=cov0)
    ref = enumerate_moments(sampler, theta0, k_max, cov0=cov0)
    for k, (mean, cov) in enumerate(ref):
        assert np.abs(law.mean(k) - mean).max() < TOL, (k, law.mean(k), mean)
        assert np.abs(law.cov(k) - cov).max() < TOL, (k, law.cov(k), cov)
    if k_max >= TA_BURN + TA_STEPS - 1:
        a = np.linspace(1.0, 0.5, sampler.model.dim)
        try:
            ta = law.time_average(a, n_steps=TA_STEPS, burn_in=TA_BURN)
        except ParameterError as e:  # e.g. BAOAB's first step: time averages from the start are not implemented
            assert "not implemented" in str(e) or "differs" in str(e), e
        else:
            mean, mse = enumerate_time_average(sampler, theta0, a, TA_BURN, TA_STEPS, ta.target, cov0=cov0)
            assert abs(ta.mean - mean) < TOL * max(1.0, abs(mean)), (ta.mean, mean)
            assert abs(ta.mse - mse) < TOL * max(1.0, mse), (ta.mse, mse)
    return k_max


def _z(exact: float, values: np.ndarray) -> float:
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert se > 0, "the simulated values do not vary: a deterministic chain has nothing to test statistically"
    return (values.mean() - exact) / se


def simulation_check(sampler, theta0: np.ndarray, seed: int, backend: str | None = None) -> list[float]:
    """z-scores of E u^T theta_k, Var u^T theta_k (k = K_EARLY, K_LATE) and of the time average's mean and MSE,
    simulated against exact; asserts |z| < Z_MAX for each and returns them.

    ``backend``: None runs numpy (two runs: the snapshots, then the time average on other chains); another backend
    ("jax") runs once, the snapshots and the time average from the same chains (one compiled program; each z-test
    stays valid, the Bonferroni bound needs no independence).
    """
    law = exact_law(sampler, theta0=theta0)
    d = sampler.model.dim
    u = np.linspace(1.0, -0.5, d)
    try:
        ta = law.time_average(u, n_steps=TA_STEPS + 5, burn_in=TA_BURN)
    except ParameterError:
        ta = None
    if backend is not None:
        return _one_run_check(sampler, theta0, seed, backend, law, u, ta)
    res = run(sampler, CHAINS, K_LATE + 1, theta0=theta0, record_at=[K_EARLY, K_LATE], seed=seed)
    zs = []
    for k in (K_EARLY, K_LATE):
        m, C = law.moments(k)
        x = res.snapshots[k] @ u
        zs += [_z(u @ m, x), _z(u @ C @ u, (x - u @ m) ** 2)]
    if ta is not None:
        res = run(sampler, CHAINS, TA_STEPS + 5, burn_in=TA_BURN, theta0=theta0, seed=seed + 1,
                  test_functions={"u": lambda th: th @ u})
        avg = res.time_averages["u"].reshape(-1)
        zs += [_z(ta.mean, avg), _z(ta.mse, (avg - ta.target) ** 2)]
    assert max(abs(z) for z in zs) < Z_MAX, zs
    return zs


def _one_run_check(sampler, theta0, seed, backend, law, u, ta) -> list[float]:
    """:func:`simulation_check` on another backend: one run with the snapshots and the time average."""
    tf = {"u": lambda th: th @ u} if ta is not None else ()
    res = run(sampler, CHAINS, TA_STEPS + 5, burn_in=TA_BURN, theta0=theta0, record_at=[K_EARLY, K_LATE], seed=seed,
              test_functions=tf, backend=backend)
    zs = []
    for k in (K_EARLY, K_LATE):
        m, C = law.moments(k)
        x = res.snapshots[k] @ u
        zs += [_z(u @ m, x), _z(u @ C @ u, (x - u @ m) ** 2)]
    if ta is not None:
        avg = res.time_averages["u"].reshape(-1)
        zs += [_z(ta.mean, avg), _z(ta.mse, (avg - ta.target) ** 2)]
    assert max(abs(z) for z in zs) < Z_MAX, zs
    return zs
