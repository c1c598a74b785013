"""The exact engine (theory.linear_gaussian, docs/engine.md) against simulation, for every estimator x integrator with
a registered law.

The pairs are what :func:`theory.law_for` registered (each class with the examples of its registration, at the sizes
of :data:`SETTINGS`): a sampler with an exact law joins these claims by being registered. On two affine models the
engine's exact law of the SAME sampler object the simulator runs is compared with independent chains (z-tests, s.e.
across chains, inside the run's Holm family):

* a 3-dimensional Bayesian linear regression with correlated, non-isotropic features and varied row scales
  (multiplicative gradient noise: P_S is random), N = 12;
* the 1-D Gaussian toy of Vollmer et al. (additive noise), N = 20.

One claim per (model, integrator example). Per estimator, with chains started at a point away from the posterior:
E u^T theta_k and E (u^T (theta_k - E theta_k))^2 at k = 3 (finite-k moments); the same for v^T theta at a late step
k* where the engine's own law at k* differs from the stationary law by less than 5% of a standard error (stationary
moments; per phase for periodic chains); the mean and the MSE of the time average of w^T theta over [2, 22) (and of
theta^2 on the toy where fourth moments close); on the toy, plain minibatches also get the power rows of
:mod:`verify.claims.engine.power` (a 1% change of the stationary variance or of a time-average MSE detected). Pairs
the simulator refuses and those the engine rejects with a stated reason (mSGLD and the K-step reuse under
multiplicative noise, pSGLD's adaptive preconditioner) are listed in the notes; so are time averages the engine does
not form (BAOAB's first step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from simulate import GaussianMeanModel, LinearRegressionModel, ParameterError, Sampler, run
from theory import exact_law
from theory.laws import Example, ExampleSettings, registered, registration
from verify.api import Check, ClaimResult, Settings, claim, mean_and_se

from .power import power_checks, power_pair

PAPER = "engine"
SRC = "the exact engine on affine models, docs/engine.md (new)"
DATA_SEED = 1717
K_EARLY, TA_BURN, TA_STEPS = 3, 2, 20
LATE_MIN, LATE_MAX, LATE_GAP = 20, 4000, 0.05  # k*: the first step where the transient is < LATE_GAP s.e.
DIRECTIONS = {"linreg": (np.array([1.0, 0.5, -1.0]), np.array([0.3, -1.0, 1.0]), np.array([1.0, 1.0, 1.0])),
              "toy": (np.ones(1), np.ones(1), np.ones(1))}
MODELS = {"linreg": "3-d linear regression, correlated non-isotropic features (multiplicative noise)",
          "toy": "1-D Gaussian toy (additive noise)"}


@cache
def linreg() -> LinearRegressionModel:
    """N = 12, d = 3: features z_i = s_i C w_i with w_i ~ N(0, I), C C^T correlated and non-isotropic, log s_i ~
    N(0, 0.3^2); y_i = z_i^T (1, -0.5, 0.25) + e_i; prior N(0, 3^2 I)."""
    rng = np.random.default_rng(DATA_SEED)
    cov = np.array([[1.0, 0.3, 0.1], [0.3, 1.2, 0.2], [0.1, 0.2, 0.8]])
    Z = rng.standard_normal((12, 3)) @ np.linalg.cholesky(cov).T * np.exp(0.3 * rng.standard_normal(12))[:, None]
    y = Z @ np.array([1.0, -0.5, 0.25]) + rng.standard_normal(12)
    return LinearRegressionModel(Z, y, sigma=1.0, sigma0=3.0)


@cache
def toy_model() -> GaussianMeanModel:
    return GaussianMeanModel.simulate_data(20, theta_true=1.0, seed=DATA_SEED)


def model_of(name: str):
    return linreg() if name == "linreg" else toy_model()


def settings_of(name: str) -> ExampleSettings:
    """Minibatch n = 4, anchor batch 8 (linreg) or 12 (toy), epoch 4, period 3, control variates at the posterior
    mean + 0.05."""
    m = model_of(name)
    return ExampleSettings(n=4, n_anchor=8 if name == "linreg" else 12, epoch=4, period=3,
                           centre=m.posterior_mean + 0.05)


def examples(name: str, kind: str) -> list[Example]:
    """Every registered class's examples of ``kind`` on model ``name``, in registration order."""
    m, s = model_of(name), settings_of(name)
    return [ex for cls in registered("affine", kind) for ex in registration(cls).instances(m, s)]


# ----------------------------------------------------------------------------------------------- computation
@dataclass
class PairRun:
    """One estimator x integrator: (label, exact value, per-chain simulated values) rows, and notes."""

    tag: str
    params: dict
    rows: list[tuple[str, float, np.ndarray]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _sampler(name: str, est: Example, integ: Example) -> Sampler:
    m = model_of(name)
    return Sampler(m, est.obj, integ.obj, integ.h_scale / m.grad_lipschitz)


def _late_step(law, M: int, v: np.ndarray) -> int:
    """Smallest k* (a multiple of the period, >= LATE_MIN) where the law at k* is within LATE_GAP s.e. of the
    stationary law (in mean and in variance along v)."""
    P = law.period
    stat = [law.stationary_moments(phase=p) for p in range(P)]
    for k, m_k, C_k in law.trajectory(LATE_MAX):
        mu, C = stat[k % P]
        sd = np.sqrt(max(v @ C @ v, 1e-300))
        if k >= LATE_MIN and k % P == 0 and abs(v @ (m_k - mu)) < LATE_GAP * sd / np.sqrt(M) and \
                abs(v @ (C_k - C) @ v) < LATE_GAP * sd * sd / np.sqrt(M):
            return k
    raise ParameterError(f"the chain does not reach its stationary law within {LATE_MAX} steps")


def _point_mass(law, v: np.ndarray) -> bool:
    """True where the stationary law along v is a point (no injected noise and a gradient noise that vanishes at the
    mode, as SAGA's printed update): no stationary moment to test statistically."""
    mu, C = law.stationary_moments(phase=0)
    return bool(v @ C @ v <= 1e-20 * (1.0 + (v @ mu) ** 2))


def _time_averages(law, w: np.ndarray, quad: bool) -> tuple:
    """The engine's time averages of w^T theta (and theta^2 where asked), or None where it forms none."""
    try:
        ta = law.time_average(w, n_steps=TA_STEPS, burn_in=TA_BURN)
        tq = law.time_average(quadratic=np.eye(1), n_steps=TA_STEPS, burn_in=TA_BURN) if quad else None
    except ParameterError as e:
        return None, None, str(e)
    return ta, tq, None


def _theta0(name: str) -> np.ndarray:
    """The chains' start: the posterior mean plus 0.3 posterior standard deviations per coordinate."""
    m = model_of(name)
    return m.posterior_mean + 0.3 * np.sqrt(np.diag(m.posterior_cov if name == "linreg" else [[m.posterior_var]]))


def compute_pair(name: str, est: Example, integ: Example, settings: Settings) -> PairRun:
    """The exact law and M simulated chains of one pair (module docstring): the rows to compare."""
    u, v, w = DIRECTIONS[name]
    sampler = _sampler(name, est, integ)
    theta0 = _theta0(name)
    law = exact_law(sampler, theta0=theta0)
    M = settings.chains
    late = None if _point_mass(law, v) else _late_step(law, M, v)
    ta, tq, why = _time_averages(law, w, name == "toy" and law.state_dim <= 3)
    tf = {"w": lambda th: th @ w}
    if tq is not None:
        tf["sq"] = lambda th: th[:, 0] ** 2
    res = run(sampler, M, TA_STEPS, burn_in=TA_BURN, theta0=theta0, record_at=[K_EARLY] + ([late] if late else []),
              test_functions=tf, seed=settings.seed_for(f"engine.{name}.{est.label}.{integ.label}"))
    out = PairRun(f"{name}, {est.label} x {integ.label}", {"h": sampler.h, "chains": M})
    mk, Ck = law.moments(K_EARLY)
    x = res.snapshots[K_EARLY] @ u
    out.rows += [(f"E u^T theta_{K_EARLY}", u @ mk, x), (f"Var u^T theta_{K_EARLY}", u @ Ck @ u, (x - u @ mk) ** 2)]
    if late:
        p = late % law.period
        mu, C = law.stationary_mean(phase=p), law.stationary_cov(phase=p)
        x = res.snapshots[late] @ v
        ph = f" (phase {p} of {law.period})" if law.period > 1 else ""
        out.rows += [(f"stationary E v^T theta{ph} at k* = {late}", v @ mu, x),
                     (f"stationary Var v^T theta{ph} at k* = {late}", v @ C @ v, (x - v @ mu) ** 2)]
    if ta is None:
        out.notes.append(f"{out.tag}: no time-average checks, the engine says: {why[:110]}...")
        return out
    avg = res.time_averages["w"].reshape(-1)
    out.rows += [(f"E time average of w^T theta over [{TA_BURN}, {TA_BURN + TA_STEPS})", ta.mean, avg),
                 ("MSE of that time average", ta.mse, (avg - ta.target) ** 2)]
    if tq is not None:
        out.rows.append(("MSE of the time average of theta^2", tq.mse,
                         (res.time_averages["sq"].reshape(-1) - tq.target) ** 2))
    return out


def skip_reason(name: str, est: Example, integ: Example) -> str | None:
    """Why a pair is not compared ("" to leave it out silently: the integrator's example pairs it with other
    estimators), or None."""
    if integ.with_estimators is not None and not isinstance(est.obj, integ.with_estimators):
        return ""
    try:
        s = _sampler(name, est, integ)
    except (ParameterError, NotImplementedError) as e:
        return f"{est.label} x {integ.label}: the simulator refuses it ({str(e).split(':')[0]})"
    try:
        exact_law(s).mean(1)
    except ParameterError as e:
        return f"{est.label} x {integ.label} on {name}: the engine says not exact: {str(e)[:110]}..."
    return None


# ----------------------------------------------------------------------------------------------- checks
def checks_of(pair: PairRun) -> list[Check]:
    """One z-test per row: the exact value against the mean of the per-chain values (s.e. across chains)."""
    out = []
    for label, theory, values in pair.rows:
        est, se = mean_and_se(values)
        out.append(Check(f"{pair.tag}: {label}", float(theory), est, se, pair.params))
    return out


def run_engine_claim(name: str, key: str, settings: Settings) -> ClaimResult:
    """Every registered estimator under the integrator example ``key`` on model ``name``."""
    integ = next(ex for ex in examples(name, "integrator") if ex.name == key)
    out = ClaimResult()
    for est in examples(name, "estimator"):
        why = skip_reason(name, est, integ)
        if why is None:
            pair = compute_pair(name, est, integ, settings)
            out.checks += checks_of(pair)
            out.notes += pair.notes
            if power_pair(name, est, integ):
                checks, note = power_checks(_sampler(name, est, integ), _theta0(name), DIRECTIONS[name], pair.tag,
                                            settings)
                out.add(*checks)
                out.notes.append(note)
        elif why:
            out.notes.append(why)
    return out


# ----------------------------------------------------------------------------------------------- registration
def _register(name: str, integ: Example) -> None:
    def run_claim(settings: Settings) -> ClaimResult:
        return run_engine_claim(name, integ.name, settings)

    run_claim.__name__ = f"engine_{name}_{integ.name}"
    claim(f"engine.{name}.{integ.name}", paper=PAPER, source=SRC, family="engine",
          statement=f"On the {MODELS[name]}, the exact engine's law of every registered estimator under the "
                    f"{integ.label} integrator (finite-k moments, stationary moments per phase, time-average mean and "
                    "MSE) is the law the simulator samples.")(run_claim)


for _name in MODELS:
    for _integ in examples(_name, "integrator"):
        _register(_name, _integ)
