"""Run many independent chains of another library's step and compare them with the exact law of what it declares.

A :class:`ChainStep` advances M chains at once (chains are an array axis: ``jax.vmap``, a batched torch tensor or a
vectorised numpy step; never a Python loop over chains). :func:`simulate_case` runs it from a common ``theta0`` and
keeps, per chain, theta at the snapshot calls and the time averages of theta and theta theta^T over a window after
burn-in. :func:`case_checks` turns them into z-tests against :func:`verify.conformance._exact._exact_moments`:

* finite k (every snapshot k): E theta_k (per coordinate), Var theta_k and Cov(theta_k,i, theta_k,j), one value per
  chain, s.e. across chains (``verify.stats.mean_and_se``, ``variance_and_se``, ``covariance_and_se``);
* stationary law: E_pi theta, Var_pi theta, Cov_pi from the per-chain time averages (``stationary_variance_and_se``
  and its covariance analogue ``stationary_covariance_and_se``, all in :mod:`verify.stats`); the exact expectation
  of the window average must equal the stationary value to within 5% of the check's s.e., else the burn-in is too
  short (ParameterError).

Each check carries the sensitivity of its theory to the injected-noise scale s (theory(s) = a + s^2 b exactly: the
moment recursion is linear in the injected covariance), from which :mod:`verify.conformance.suite` reports the
smallest noise-scale error it would detect with 90% power.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from simulate.validation import ParameterError, check_int
from verify.registry import Check
from verify.stats import (
    covariance_and_se,
    mean_and_se,
    stationary_covariance_and_se,
    stationary_variance_and_se,
    variance_and_se,
)

from ._exact import ExactMoments, _exact_moments
from .declared import Declared
from .problems import Problem


@runtime_checkable
class ChainStep(Protocol):
    """The contract of an implementation under test: M chains advanced together by one library call per step.

    Chains are an array axis (``jax.vmap``, a batched torch tensor, a vectorised numpy step), never a Python loop.

    Attributes
    ----------
    name : str
        The implementation's name in the report.
    declared : Declared
        The algorithm it declares it computes.
    """

    name: str
    declared: Declared

    def init(self, theta0: np.ndarray, seed: int) -> Any:
        """The state of M chains, all at ``theta0``, with random streams from ``seed``.

        Parameters
        ----------
        theta0 : numpy.ndarray, shape (M, d)
            The chains' start.
        seed : int
            Seed of the implementation's random streams.

        Returns
        -------
        object
            The library's state.
        """

    def step(self, state: Any) -> Any:
        """One library call for every chain.

        Parameters
        ----------
        state : object
            The state.

        Returns
        -------
        object
            The state after the call.
        """

    def position(self, state: Any) -> np.ndarray:
        """theta of every chain.

        Parameters
        ----------
        state : object
            The state.

        Returns
        -------
        numpy.ndarray
            Shape (M, d), or (M,) when d = 1.
        """


@dataclass(frozen=True)
class Schedule:
    """Which calls of a conformance run are observed.

    Parameters
    ----------
    snapshots : tuple of int
        Calls (>= 1) after which theta is kept for every chain (finite-k moments).
    burn_in : int
        The first call of the time-average window.
    window : int
        The window's length: time averages over calls burn_in .. burn_in + window - 1 (stationary law).

    Raises
    ------
    simulate.validation.ParameterError
        For no snapshot, or a negative or non-integer entry (naming it).
    """

    snapshots: tuple[int, ...] = (1, 3, 10, 30)
    burn_in: int = 300
    window: int = 1000

    def __post_init__(self) -> None:
        if not self.snapshots:
            raise ParameterError("snapshots must hold at least one call number >= 1")
        for k in self.snapshots:
            check_int("snapshots", k, 1)
        check_int("burn_in", self.burn_in, 0)
        check_int("window", self.window, 1)

    @property
    def last(self) -> int:
        return max(max(self.snapshots), self.burn_in + self.window - 1)

    def window_steps(self) -> np.ndarray:
        return np.arange(self.burn_in, self.burn_in + self.window)


@dataclass
class Simulation:
    """Per-chain values of one run: snapshots {k: (M, d)}, window averages a1 (M, d) and a2 (M, d, d)."""

    snapshots: dict[int, np.ndarray]
    a1: np.ndarray
    a2: np.ndarray
    theta0: np.ndarray
    chains: int
    seconds: float = 0.0


def _checked_position(impl: ChainStep, state, k: int, M: int, d: int) -> np.ndarray:
    try:
        th = np.asarray(impl.position(state), dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ParameterError(f"step function of {impl.name!r} returned a position that is not a float array at "
                             f"call {k}: {e}") from None
    if th.ndim == 1 and d == 1 and th.shape[0] == M:
        th = th[:, None]
    if th.shape != (M, d):
        raise ParameterError(f"step function of {impl.name!r} returned shape {th.shape} at call {k}; expected "
                             f"({M}, {d}) (M chains x dimension)")
    bad = ~np.isfinite(th).all(axis=1)
    if bad.any():
        raise ParameterError(f"step function of {impl.name!r} returned NaN or inf at call {k} in {int(bad.sum())} "
                             f"of {M} chains (first: {np.flatnonzero(bad)[:5].tolist()})")
    return th


def simulate_case(impl: ChainStep, problem: Problem, chains: int, schedule: Schedule, seed: int,
                  theta0=None) -> Simulation:
    """Run many independent chains of an implementation and keep what the checks need.

    Parameters
    ----------
    impl : ChainStep
        The implementation.
    problem : Problem
        The test model it runs on.
    chains : int
        Number of chains M (>= 4).
    schedule : Schedule
        The calls observed.
    seed : int
        Seed handed to ``impl.init``.
    theta0 : array_like, shape (d,), optional
        The common start (default: the prior mean 0).

    Returns
    -------
    Simulation
        Per chain: theta at the snapshot calls, and the window averages of theta and theta theta^T.

    Raises
    ------
    simulate.validation.ParameterError
        When ``impl`` is not a :class:`ChainStep`, or returns positions of the wrong shape or non-finite ones.
    """
    import time

    if not isinstance(impl, ChainStep):
        raise ParameterError(f"impl must implement verify.conformance.ChainStep (name, declared, init, step, "
                             f"position), got {type(impl).__name__}")
    M = check_int("chains", chains, 4)
    d = problem.dim
    th0 = np.zeros(d) if theta0 is None else np.asarray(theta0, dtype=float).reshape(-1)
    if th0.shape != (d,) or not np.all(np.isfinite(th0)):
        raise ParameterError(f"theta0 must be a finite vector of {d} entries, got {theta0!r}")
    t0 = time.perf_counter()
    state = impl.init(np.tile(th0, (M, 1)), seed)
    _checked_position(impl, state, 0, M, d)
    snaps: dict[int, np.ndarray] = {}
    want = set(schedule.snapshots)
    a1, a2 = np.zeros((M, d)), np.zeros((M, d, d))
    lo, hi = schedule.burn_in, schedule.burn_in + schedule.window
    if lo == 0:
        a1 += th0
        a2 += np.outer(th0, th0)
    for k in range(1, schedule.last + 1):
        state = impl.step(state)
        th = _checked_position(impl, state, k, M, d)
        if k in want:
            snaps[k] = th.copy()
        if lo <= k < hi:
            a1 += th
            a2 += th[:, :, None] * th[:, None, :]
    a1 /= schedule.window
    a2 /= schedule.window
    return Simulation(snaps, a1, a2, th0, M, time.perf_counter() - t0)


# ------------------------------------------------------------------------------------------ checks
@dataclass
class CaseChecks:
    """The checks of one declared algorithm against one simulation, with the exact answer used."""

    checks: list[Check] = field(default_factory=list)
    exact: ExactMoments | None = None
    notes: list[str] = field(default_factory=list)


def _theory_parts(declared: Declared, problem: Problem, theta0, steps) -> tuple[ExactMoments, Callable]:
    """The exact moments and b = d theory / d(s^2) of every quantity (exact: theory(s) = a + s^2 b)."""
    ex = _exact_moments(declared, problem, theta0, steps)
    hi = _exact_moments(declared, problem, theta0, steps, noise_scale=math.sqrt(2.0))
    lo = _exact_moments(declared, problem, theta0, steps, noise_scale=0.0)

    def b(kind: str, idx: int | None, i: int, j: int) -> float:
        if kind == "mean":
            return 0.0
        get = (lambda e: e.cov[idx, i, j]) if idx is not None else (lambda e: e.stationary_cov[i, j])
        return 0.5 * (get(hi) - get(lo))

    return ex, b


def case_checks(declared: Declared, problem: Problem, sim: Simulation, schedule: Schedule,
                label: str) -> CaseChecks:
    """The z-tests of one simulation against the exact law of what the implementation declares.

    Parameters
    ----------
    declared : Declared
        The declared algorithm (its exact law is the theory).
    problem : Problem
        The test model.
    sim : Simulation
        The simulation (:func:`simulate_case`).
    schedule : Schedule
        Its schedule.
    label : str
        Prefix of the checks' labels (the library and algorithm).

    Returns
    -------
    CaseChecks
        The checks (finite-k means, variances and covariances; the stationary ones), each carrying the
        sensitivity of its theory to the injected-noise scale, and the exact answer used.

    Raises
    ------
    simulate.validation.ParameterError
        When the window starts before the chain is stationary to within 5% of a check's s.e. (burn-in too short).

    References
    ----------
    The exact moments are the engine's (``theory.exact_law``) for the declared algorithm; the standard errors
    across chains are ``verify.stats``'s.
    """
    d = problem.dim
    snap_k = sorted(sim.snapshots)
    win = schedule.window_steps()
    steps = np.concatenate([np.asarray(snap_k, dtype=np.int64), win])
    ex, sens = _theory_parts(declared, problem, sim.theta0, steps)
    out = CaseChecks(exact=ex)

    def add(name: str, theory: float, est_se: tuple[float, float], kind: str, idx, i: int, j: int, k) -> Check:
        est, se = est_se
        params = {"kind": kind, "k": k, "i": i, "j": j, "noise_b": float(sens(kind, idx, i, j))}
        degenerate = not se > 0  # every chain gave the same value: rejected unless it is the theory value
        if degenerate:
            params["degenerate"] = "no spread across chains (s.e. 0)"
        c = Check(f"{label}: {name}", float(theory), est, se if not degenerate else 1.0, params)
        if degenerate:
            c.se = 0.0
            c.z, c.p = (0.0, 1.0) if est == theory else (math.copysign(math.inf, est - theory), 0.0)
        out.checks.append(c)
        return c

    for idx, k in enumerate(snap_k):
        th = sim.snapshots[k]
        for i in range(d):
            add(f"E theta_{k}[{i}]", ex.mean[idx, i], mean_and_se(th[:, i]), "mean", idx, i, i, k)
            add(f"Var theta_{k}[{i}]", ex.cov[idx, i, i], variance_and_se(th[:, i]), "var", idx, i, i, k)
            for j in range(i + 1, d):
                add(f"Cov theta_{k}[{i},{j}]", ex.cov[idx, i, j], covariance_and_se(th[:, i], th[:, j]), "cov", idx,
                    i, j, k)
    # stationary law from the window averages; the exact window expectation must already be stationary
    nw = len(snap_k)
    w_mean = ex.mean[nw:].mean(axis=0)
    w_second = (ex.cov[nw:] + ex.mean[nw:, :, None] * ex.mean[nw:, None, :]).mean(axis=0)
    w_cov = w_second - np.outer(w_mean, w_mean)
    a1, a2 = sim.a1, sim.a2
    for i in range(d):
        for j in range(i, d):
            if i == j:
                c_m = add(f"E_pi theta[{i}]", ex.stationary_mean[i], mean_and_se(a1[:, i]), "mean", None, i, i, "pi")
                _transient_guard(c_m, w_mean[i], schedule, label)
                c = add(f"Var_pi theta[{i}]", ex.stationary_cov[i, i],
                        stationary_variance_and_se(a2[:, i, i], a1[:, i]), "var", None, i, i, "pi")
            else:
                c = add(f"Cov_pi theta[{i},{j}]", ex.stationary_cov[i, j],
                        stationary_covariance_and_se(a2[:, i, j], a1[:, i], a1[:, j]), "cov", None, i, j, "pi")
            _transient_guard(c, w_cov[i, j], schedule, label)
    return out


def _transient_guard(c: Check, window_value: float, schedule: Schedule, label: str) -> None:
    if "degenerate" in c.params:
        return
    gap = abs(window_value - c.theory)
    if gap > 0.05 * c.se:
        raise ParameterError(f"burn_in = {schedule.burn_in} is too short for {label!r}: the exact expectation of the "
                             f"window average of {c.label.split(': ', 1)[-1]} is still {gap / c.se:.3g} s.e. away "
                             f"from its stationary value; raise burn_in")


__all__ = ["CaseChecks", "ChainStep", "Schedule", "Simulation", "case_checks", "simulate_case"]
