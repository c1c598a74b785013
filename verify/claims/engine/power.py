"""Power rows of the engine claims on the toy: a 1% change of a stationary variance or of the MSE of a time average,
under every integrator, is detected (issue 28 item 4; this module registers no claim).

The rows of :mod:`verify.claims.engine.laws` compare one snapshot (or one time average) per chain with the exact law:
a squared deviation has a relative spread of about sqrt(2), so at 10^4 chains they detect about 8% with 90% power.
Here, on the toy, every integrator with plain minibatches without replacement and every estimator under the Langevin
step is run for many steps after the chain has reached its stationary law, and each chain contributes many nearly
independent terms (the toy's chains mix in a few steps: spectral radius about 0.5):

* the stationary variance: the per-chain average of (v^T theta_k - v^T m_k)^2 over k in [B, B + J L), against the
  exact average of v^T C_k v (m_k, C_k the engine's moments at step k; from B on they equal the stationary ones to
  1e-4 relative, per phase for periodic chains);
* the MSE of time averages over windows of L steps: the per-chain average over the J windows [B + j L, B + (j + 1) L)
  of (mean of w^T theta - target)^2, and of the theta^2 average where fourth moments close, against the engine's
  MSE of one such window (L is a multiple of every period, so the windows share it to the same 1e-4).

s.e. across chains; the rows join the claim's checks and the run's Holm family. At the default 10^4 chains their
detectable deviation is 0.3-0.65% (stationary variance) and 0.65-0.85% (time-average MSE) (docs/checks.md, "Power").
"""

from __future__ import annotations

import numpy as np

from simulate import ParameterError, run
from simulate.estimators.minibatch import Minibatch
from theory import exact_law
from theory.laws import Example
from verify.api import Check, Settings, mean_and_se

#: The power pairs: every integrator with this estimator, every estimator with this integrator (examples' names).
POWER_ESTIMATOR, POWER_INTEGRATOR = "minibatch", "langevin"
#: The chains of a power pair (a multiple of the run's), the window length L (a multiple of every period of the
#: examples: 1, 2, 3, 4, 12) and the number of windows J.
POWER_CHAINS, WINDOW, WINDOWS = 1, 12, 150
#: The relative transient of the mean and variance along v allowed at the start B of the windows.
STATIONARY_TOL = 1e-4


class WindowStats:
    """A step hook (:class:`simulate.runtime.runner.StepHook`) accumulating, per chain of one block, the squared
    deviations along v from the exact means and the squared errors of the window averages of w^T theta and
    theta^2."""

    def __init__(self, m: int, start: int, v: np.ndarray, w: np.ndarray, mv: np.ndarray, targets: tuple):
        self.start, self.v, self.w, self.mv, self.targets = start, v, w, mv, targets
        self.sq = np.zeros(m)
        self.err = {"w": np.zeros(m), "q": np.zeros(m)}
        self.win = {"w": np.zeros(m), "q": np.zeros(m)}

    def before(self, k: int, state, rng) -> None:
        return None

    def after(self, k: int, state) -> None:
        """Take theta_{k+1} (the run steps k = 0 .. total - 2: its last state arrives here, never in ``before``)."""
        i = k + 1 - self.start
        if i < 0:
            return
        th = state.theta
        self.sq += (th @ self.v - self.mv[i]) ** 2
        self.win["w"] += th @ self.w
        self.win["q"] += th[:, 0] ** 2
        if (i + 1) % WINDOW == 0:
            for key, target in zip(("w", "q"), self.targets, strict=True):
                self.err[key] += (self.win[key] / WINDOW - target) ** 2
                self.win[key][:] = 0.0

    def result(self) -> dict:
        return {"sq": self.sq / (WINDOW * WINDOWS), "w": self.err["w"] / WINDOWS, "q": self.err["q"] / WINDOWS}


def stationary_start(law, v: np.ndarray, k_min: int = 20) -> int:
    """The first step B >= k_min, a multiple of the period, from which the engine's mean and variance along v are
    the stationary ones (per phase) to STATIONARY_TOL relative."""
    P = law.period
    stat = [law.stationary_moments(phase=p) for p in range(P)]
    for k, m_k, C_k in law.trajectory(20_000):
        mu, C = stat[k % P]
        var = max(float(v @ C @ v), 1e-300)
        if k >= k_min and k % P == 0 and abs(v @ (m_k - mu)) <= STATIONARY_TOL * np.sqrt(var) and \
                abs(v @ (C_k - C) @ v) <= STATIONARY_TOL * var:
            return k
    raise ParameterError("the chain does not reach its stationary law within 20000 steps")


def power_pair(model: str, est: Example, integ: Example) -> bool:
    """Whether a pair gets the power rows: on the 1-D toy, every integrator with plain minibatches
    (:data:`POWER_ESTIMATOR`) and every estimator under :data:`POWER_INTEGRATOR`, so a change of the law of any one
    estimator or integrator is met. None on the 3-d regression: its chains mix in tens of steps, so the same
    detectable deviation costs about ten times the toy's run time (docs/checks.md, "Power")."""
    ok = integ.with_estimators is None or isinstance(est.obj, integ.with_estimators)
    plain = est.name == POWER_ESTIMATOR and isinstance(est.obj, Minibatch)
    return model == "toy" and ok and (plain or integ.name == POWER_INTEGRATOR)


def power_checks(sampler, theta0: np.ndarray, dirs: tuple, tag: str, settings: Settings) -> tuple[list[Check], str]:
    """The power rows of one pair (module docstring) and a note with the start, the windows and the chains."""
    u, v, w = dirs
    law = exact_law(sampler, theta0=theta0)
    B = stationary_start(law, v)
    steps = WINDOW * WINDOWS
    traj = {k: (m_k, C_k) for k, m_k, C_k in law.trajectory(B + steps) if k >= B}
    mv = np.array([v @ traj[k][0] for k in range(B, B + steps)])
    var_theory = float(np.mean([v @ traj[k][1] @ v for k in range(B, B + steps)]))
    ta, why = _engine_time_average(law, B, w=w)
    tq, why_q = _engine_time_average(law, B, quadratic=np.eye(1)) if law.state_dim <= 3 else (None, None)
    M = POWER_CHAINS * settings.chains
    targets = (0.0 if ta is None else ta.target, 0.0 if tq is None else tq.target)
    res = run(sampler, M, steps, burn_in=B, theta0=theta0, test_functions=(),
              seed=settings.seed_for(f"engine.power.{tag}"),
              hook=lambda start, stop: WindowStats(stop - start, B, v, w, mv, targets))
    per_chain = {key: np.concatenate([h[key] for h in res.hooks]) for key in ("sq", "w", "q")}
    params = {"h": sampler.h, "chains": M, "start": B, "window": WINDOW, "windows": WINDOWS}
    rows = [(f"power: stationary Var v^T theta, averaged over k in [{B}, {B + steps})", var_theory, "sq")]
    if ta is not None:
        rows.append((f"power: MSE of time averages of w^T theta over {WINDOWS} windows of {WINDOW} steps from "
                     f"k = {B}", ta.mse, "w"))
    if tq is not None:
        rows.append((f"power: MSE of time averages of theta^2 over {WINDOWS} windows of {WINDOW} steps from k = {B}",
                     tq.mse, "q"))
    checks = []
    for label, theory, key in rows:
        est, se = mean_and_se(per_chain[key])
        checks.append(Check(f"{tag}: {label}", float(theory), est, se, params))
    note = (f"{tag}: power rows from k = {B} (the engine's law along v is stationary there to {STATIONARY_TOL:g} "
            f"relative), {WINDOWS} windows of {WINDOW} steps, {M} chains"
            + (f"; no time-average row of w^T theta, the engine says: {why}" if why else "")
            + (f"; no time-average row of theta^2, the engine says: {why_q}" if why_q else ""))
    return checks, note


def _engine_time_average(law, start: int, w=None, quadratic=None):
    """The engine's time average over one window from ``start`` (and None), or (None, why) where it forms none."""
    try:
        return law.time_average(w, quadratic=quadratic, n_steps=WINDOW, burn_in=start), None
    except ParameterError as e:  # e.g. BAOAB's first step, fourth moments that do not close
        return None, str(e)[:120]


__all__ = ["POWER_CHAINS", "POWER_ESTIMATOR", "POWER_INTEGRATOR", "STATIONARY_TOL", "WINDOW", "WINDOWS",
           "WindowStats", "power_checks", "power_pair", "stationary_start"]
