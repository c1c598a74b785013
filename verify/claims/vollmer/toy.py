"""Vollmer, Zygalakis & Teh (2016), Section 2: Euler, SGLD and mSGLD on the 1-D Gaussian toy model.

Default data (the paper's Fig. 1 setting, docs/papers/vollmer.md sec. 9): N = 1000, x_i ~ N(1, 1),
sigma_x = sigma0 = 1, one data set drawn from a fixed seed.  Step sizes are given as r = A h (< 1 as in the
paper).  Stationary quantities come from per-chain time averages over L = 25/r steps after a burn-in that
leaves a transient below 1e-12 of the initial deviation (computed exactly from the mean/variance contraction),
starting from the exact posterior N(mu_p, sigma_p^2).
"""

from __future__ import annotations

import math
from functools import cache, partial

import numpy as np

from simulate import GaussianMeanModel, euler, msgld, run, sgld
from theory.numeric import lambdify_toy
from theory.printed import vollmer as printed_vollmer
from theory.symbols import VB
from theory.toy.chain import ToyChain, toy_chain
from verify.api import (
    Check,
    ClaimResult,
    Settings,
    claim,
    mean_and_se,
    simulation_cache,
    stationary_variance_and_se,
    variance_and_se,
)
from verify.stats import weighted_polyfit

PAPER = "vollmer"
N_DATA, THETA_TRUE, DATA_SEED = 1000, 1.0, 2016
#: (method, r, n, replace) for the stationary claims.
STATIONARY_GRID = [("euler", r, N_DATA, False) for r in (0.1, 0.5)] + [
    (m, r, n, rep) for m in ("sgld", "msgld") for r in (0.1, 0.5) for n in (10, 100) for rep in (False, True)
]
#: (method, r, n, replace) and steps k for the finite-k recurrence claim (theta_0 = 0).
FINITE_K_CASES = [("euler", 0.1, N_DATA, False), ("sgld", 0.1, 10, False), ("msgld", 0.1, 10, True)]
FINITE_K_STEPS = (1, 5, 20, 100)
#: r grids and subsets for the h-expansion fits (cubic in h, no intercept).
SWEEP_R = (0.025, 0.05, 0.1, 0.2, 0.3)
SWEEPS = {"euler": (N_DATA, False), "sgld": (10, False), "msgld": (100, True)}
STEPS_PER_UNIT_R = 25
BURN_IN_TOLERANCE = 1e-12


# ------------------------------------------------------------------------------------------ computation
@cache
def default_model() -> GaussianMeanModel:
    """The toy's default data: N = 1000, x_i ~ N(1, 1), sigma_x = sigma0 = 1, seed 2016."""
    return GaussianMeanModel.simulate_data(N_DATA, theta_true=THETA_TRUE, seed=DATA_SEED)


def make_sampler(method: str, r: float, n: int, replace: bool, model: GaussianMeanModel | None = None):
    """Euler, SGLD or mSGLD on ``model`` (default :func:`default_model`) at h = r/A, minibatch n."""
    model = model or default_model()
    h = r / model.A
    if method == "euler":
        return euler(model, h)
    return (sgld if method == "sgld" else msgld)(model, h, n, replace)


def burn_in_steps(contraction: float, tol: float = BURN_IN_TOLERANCE) -> int:
    """Smallest k with contraction^(2k) <= tol (variance transient) and contraction^k <= tol."""
    return int(math.ceil(math.log(tol) / math.log(contraction)))


def config_label(method: str, r: float, n: int, replace: bool) -> str:
    """A short label of a configuration."""
    if method == "euler":
        return f"euler r={r:g}"
    return f"{method} r={r:g} n={n} {'with' if replace else 'without'}"


@simulation_cache
def stationary_estimates(method: str, r: float, n: int, replace: bool, chains: int, seed: int) -> dict:
    """Per-config simulation: stationary mean and variance with s.e. across independent chains."""
    sampler = make_sampler(method, r, n, replace)
    chain = toy_chain(sampler)
    model = sampler.model
    mu, sd = float(model.posterior_mean[0]), math.sqrt(model.posterior_var)
    res = run(
        sampler, chains, math.ceil(STEPS_PER_UNIT_R / r), seed=seed,
        burn_in=burn_in_steps(chain.mixing_factor()),
        theta0=lambda rng, m: mu + sd * rng.standard_normal((m, 1)),
    )
    a1, a2 = res.time_averages["theta"][:, 0], res.time_averages["theta2"][:, 0]
    mean, se_mean = mean_and_se(a1)
    var, se_var = stationary_variance_and_se(a2, a1)
    return dict(chain=chain, mean=mean, se_mean=se_mean, var=var, se_var=se_var, h=sampler.h)


def _printed(expr, chain) -> float:
    """A printed closed form of theory.printed.vollmer evaluated at a chain's constants and step."""
    c = chain.constants
    return float(lambdify_toy(expr)(c.A, c.EB, c.VB, chain.h, 0, 0, 0))


def stationary_runs(methods: tuple[str, ...], settings: Settings) -> list[tuple[tuple, dict]]:
    """The (cached) stationary simulation of every configuration of STATIONARY_GRID whose method is in ``methods``."""
    return [(cfg, stationary_estimates(*cfg, settings.chains, settings.seed_for("stationary:" + config_label(*cfg))))
            for cfg in STATIONARY_GRID if cfg[0] in methods]


def sweep_fit(method: str, settings: Settings) -> dict:
    """Fit bias(h) = c1 h + c2 h^2 + c3 h^3 (weighted) to simulated Var_inf - sigma_p^2 over SWEEP_R."""
    n, replace = SWEEPS[method]
    hs, ys, ses, exact = [], [], [], []
    for r in SWEEP_R:
        key = "stationary:" + config_label(method, r, n, replace)
        est = stationary_estimates(method, r, n, replace, settings.chains, settings.seed_for(key))
        chain = est["chain"]
        hs.append(est["h"])
        ys.append(est["var"] - chain.constants.posterior_var)
        ses.append(est["se_var"])
        exact.append(chain.bias_theta2())
    c, cov = weighted_polyfit(hs, ys, ses, 3)
    c_exact, _ = weighted_polyfit(hs, exact, ses, 3)
    return dict(h=np.array(hs), y=np.array(ys), se=np.array(ses), exact=np.array(exact), c1=c[0],
                se_c1=math.sqrt(cov[0, 0]), c1_of_exact=c_exact[0], chain=chain)


def finite_k_run(cfg: tuple, settings: Settings) -> dict:
    """theta_k at k in FINITE_K_STEPS of one configuration from theta_0 = 0."""
    res = run(make_sampler(*cfg), settings.chains, 0, seed=settings.seed_for("finite_k:" + config_label(*cfg)),
              theta0=0.0, record_at=FINITE_K_STEPS, test_functions=())
    return {kk: res.snapshots[kk][:, 0] for kk in FINITE_K_STEPS}


# ------------------------------------------------------------------------------------------ checks
def stationary_checks(runs: list[tuple[tuple, dict]], quantity: str, printed) -> list[Check]:
    """The stationary mean or variance of each configuration against the printed closed form ``printed(method)``."""
    out = []
    for cfg, est in runs:
        chain = est["chain"]
        th = _printed(printed(chain.method), chain)
        value, se = (est["mean"], est["se_mean"]) if quantity == "mean" else (est["var"], est["se_var"])
        out.append(Check(config_label(*cfg), th, value, se, params=dict(h=est["h"], VarB=chain.constants.VB)))
    return out


def printed_stationary_variance(method: str):
    """Eq. (18) (Euler: with Var(B) = 0; SGLD) or eq. (21) (mSGLD), as printed."""
    if method == "msgld":
        return printed_vollmer.eq21_stationary_variance_msgld()
    expr = printed_vollmer.eq18_stationary_variance()
    return expr.subs(VB, 0) if method == "euler" else expr


def finite_k_checks(cfg: tuple, snapshots: dict) -> tuple[list[Check], list[tuple]]:
    """E theta_k and Var theta_k of one configuration against the recurrences, and the points of its figure."""
    chain = toy_chain(make_sampler(*cfg))
    checks, sims = [], []
    for kk in FINITE_K_STEPS:
        x = snapshots[kk]
        m, sm = mean_and_se(x)
        v, sv = variance_and_se(x)
        lab = f"{config_label(*cfg)} k={kk}"
        checks.append(Check(f"E  {lab}", float(chain.mean(kk, 0.0)), m, sm))
        checks.append(Check(f"Var {lab}", float(chain.variance(kk, 0.0)), v, sv))
        sims.append((kk, m, sm, v, sv))
    return checks, sims


def leading_coefficient(method: str, chain) -> float:
    """The leading coefficient as printed: h/4 (Euler, eq. 46) plus h Var(B)/(2A) for SGLD (eq. 19)."""
    return 0.25 + (_printed(printed_vollmer.eq19_excess_first_order(), chain) / chain.h if method == "sgld" else 0.0)


def sweep_label(method: str) -> str:
    n, replace = SWEEPS[method]
    return config_label(method, 0, n, replace).replace(" r=0", "")


# ------------------------------------------------------------------------------------------ figures
def draw_z(ax, checks: list[Check], title: str) -> None:
    """The z-score of every check as a bar (red when rejected)."""
    z = [c.z for c in checks]
    ax.barh(range(len(z)), z, color=["tab:red" if c.rejected else "tab:blue" for c in checks])
    ax.set_yticks(range(len(z)), [c.label for c in checks], fontsize=6)
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("z = (simulation - theory) / s.e.")
    ax.set_title(title, fontsize=8)


def draw_finite_k(ax, curves: list[tuple]) -> None:
    """Closed-form Var theta_k against k with the simulated points (3 s.e.)."""
    ks = np.arange(0, max(FINITE_K_STEPS) + 1)
    for lab, chain, sims in curves:
        line, = ax.plot(ks, chain.variance(ks, 0.0), lw=1, label=lab)
        sk = np.array(sims)
        ax.errorbar(sk[:, 0], sk[:, 3], yerr=3 * sk[:, 4], fmt="o", ms=3, color=line.get_color())
    ax.set_xscale("symlog")
    ax.set_yscale("log")
    ax.set_xlabel("step k (theta_0 = 0)")
    ax.set_ylabel("Var theta_k")
    ax.set_title("finite-k variance: closed form vs simulation (3 s.e. bars)", fontsize=8)
    ax.legend(fontsize=6)


def draw_sweep(ax, method: str, fit: dict, c1: float) -> None:
    """Exact bias of theta^2 against h, its leading term and the simulated sweep (3 s.e.)."""
    c = fit["chain"].constants
    hh = np.geomspace(fit["h"].min() / 1.5, fit["h"].max() * 1.5, 100)
    ax.loglog(hh, [ToyChain(method, c, x).bias_theta2() for x in hh], lw=1, label="exact")
    ax.loglog(hh, c1 * hh, "--", lw=1, label="c1 h (leading term)")
    ax.errorbar(fit["h"], fit["y"], yerr=3 * fit["se"], fmt="o", ms=3, label="simulation (3 s.e.)")
    ax.set_xlabel("h")
    ax.set_ylabel("bias of theta^2")
    ax.set_title(f"{sweep_label(method)}: c1 fit {fit['c1']:.4g} +- {fit['se_c1']:.2g}, theory {c1:.4g}", fontsize=8)
    ax.legend(fontsize=6)


# ------------------------------------------------------------------------------------------ claims
def stationary_result(methods: tuple[str, ...], quantity: str, printed, settings: Settings) -> ClaimResult:
    """The stationary checks of ``methods`` with their z figure."""
    checks = stationary_checks(stationary_runs(methods, settings), quantity, printed)
    return ClaimResult(checks=checks, figure=partial(draw_z, checks=checks, title=f"stationary {quantity}"))


@claim("vollmer.eq17.stationary_mean", paper=PAPER, source="Vollmer et al. 2016, eq. (17)",
       statement="E theta_inf = E(B)/A = mu_p for Euler, SGLD and mSGLD at every h: no bias in the mean.",
       family="stationary")
def stationary_mean(settings: Settings) -> ClaimResult:
    return stationary_result(("euler", "sgld", "msgld"), "mean",
                             lambda m: printed_vollmer.eq17_stationary_mean(), settings)


@claim("vollmer.eq18.euler_variance", paper=PAPER, source="Vollmer et al. 2016, eq. (18) with Var(B) = 0",
       statement="Euler's stationary variance is 1/(2A - A^2 h) (over-dispersed by h/4 + O(h^2)).",
       family="stationary")
def euler_variance(settings: Settings) -> ClaimResult:
    return stationary_result(("euler",), "variance", printed_stationary_variance, settings)


@claim("vollmer.eq18.sgld_variance", paper=PAPER, source="Vollmer et al. 2016, eq. (18), Var(B) from eq. (16)",
       statement="SGLD's stationary variance is (1 + h Var(B))/(2A - A^2 h), with and without replacement.",
       family="stationary")
def sgld_variance(settings: Settings) -> ClaimResult:
    return stationary_result(("sgld",), "variance", printed_stationary_variance, settings)


@claim("vollmer.eq21.msgld_variance", paper=PAPER, source="Vollmer et al. 2016, eq. (21), mSGLD eq. (20)",
       statement="mSGLD's stationary variance is 1/(2A - A^2 h) + h^2 Var(B)^2 / (4 (2A - A^2 h)).",
       family="stationary")
def msgld_variance(settings: Settings) -> ClaimResult:
    return stationary_result(("msgld",), "variance", printed_stationary_variance, settings)


@claim("vollmer.sec2.finite_k_moments", paper=PAPER,
       source="Vollmer et al. 2016, Section 2.1 (mean and variance recurrences below eq. 17)",
       statement="E theta_k and Var theta_k follow m' = (1-Ah) m + h E(B), v' = (1-Ah)^2 v + h^2 Var(B) + s^2 "
                 "(s^2 = h; mSGLD s^2 = h (1 - h Var(B)/2)^2) at every finite k.",
       family="finite_k")
def finite_k_moments(settings: Settings) -> ClaimResult:
    out, curves = ClaimResult(), []
    for cfg in FINITE_K_CASES:
        checks, sims = finite_k_checks(cfg, finite_k_run(cfg, settings))
        out.add(*checks)
        curves.append((config_label(*cfg), toy_chain(make_sampler(*cfg)), sims))
    out.figure = partial(draw_finite_k, curves=curves)
    return out


def leading_coefficient_result(method: str, settings: Settings) -> ClaimResult:
    """The fitted c1 of ``method`` against the printed leading coefficient, with the fit's truncation in the notes."""
    fit = sweep_fit(method, settings)
    chain = fit["chain"]
    c = chain.constants
    c1 = leading_coefficient(method, chain)
    trunc = fit["c1_of_exact"] - c1
    return ClaimResult(
        checks=[Check(f"c1 {sweep_label(method)}", c1, fit["c1"], fit["se_c1"], params=dict(VarB=c.VB, A=c.A))],
        notes=[f"cubic fit over r = {SWEEP_R}; fitting the exact biases the same way gives c1 = "
               f"{fit['c1_of_exact']:.6g} (truncation {trunc:+.3g} = {trunc / fit['se_c1']:+.2f} s.e.)"],
        figure=partial(draw_sweep, method=method, fit=fit, c1=c1))


@claim("vollmer.sec2.euler_leading_coefficient", paper=PAPER,
       source="Vollmer et al. 2016, Section 2.1 and eq. (46) (Zygalakis 2011)",
       statement="Euler's asymptotic bias of theta^2 is h/4 + O(h^2) (coefficient fitted from a sweep of h).",
       family="h_expansion")
def euler_leading_coefficient(settings: Settings) -> ClaimResult:
    return leading_coefficient_result("euler", settings)


@claim("vollmer.eq19.sgld_leading_coefficient", paper=PAPER, source="Vollmer et al. 2016, eq. (19)",
       statement="SGLD's asymptotic bias of theta^2 is h (1/4 + Var(B)/(2A)) + O(h^2).", family="h_expansion")
def sgld_leading_coefficient(settings: Settings) -> ClaimResult:
    return leading_coefficient_result("sgld", settings)


@claim("vollmer.eq21.msgld_leading_coefficient", paper=PAPER,
       source="Vollmer et al. 2016, eq. (21) and Section 4.2 (eq. 53)",
       statement="mSGLD removes the O(h) gradient-noise term: its bias of theta^2 is h/4 + O(h^2), as Euler's.",
       family="h_expansion")
def msgld_leading_coefficient(settings: Settings) -> ClaimResult:
    return leading_coefficient_result("msgld", settings)


__all__ = ["default_model", "make_sampler", "stationary_estimates", "sweep_fit"]
