"""Chen et al. V1 Appendix E (eqs. 13-15): the comparison of Dubey et al.'s (2016) SVRG-LD bound with SGLD's.

(13) SVRG-LD: MSE = O(N^2 min{2 sigma^2, m^2 (D^2 h^2 sigma^2 + h d)}/(n L) + 1/(L h) + h^2); (14) SGLD:
O(N^2 sigma^2/(n L) + 1/(L h) + h^2). The appendix argues that the "2" makes the min's first branch exceed SGLD's term,
so that for a comparison (13) must be read as (15), O(N^2 m^2 (D^2 h^2 sigma^2 + h d)/(n L) + ...), whose comparison
with (14) depends on the step: "it is thus not clear if SVRG-LD would improve the MSE bound of SGLD".

The bounds' algebra is checked with sympy (part "bound"); the behaviour the comparison predicts (SVRG-LD losing to
SGLD above some step) is judged on the exact time-average MSE of both samplers on a Bayesian linear regression (the
exact engine, theory.exact_law; on the Gaussian mean model SVRG-LD's gradient is exact, every per-datum Hessian being
the same) over the stable steps and three epoch lengths (part "behaviour"), with simulated chains at one step.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from simulate import LinearRegressionModel, run, sgld, svrgld
from theory import exact_law
from verify.api import (
    BEHAVIOUR,
    BOUND,
    Check,
    ClaimResult,
    ExactCheck,
    OrderingCheck,
    Settings,
    claim,
    mean_and_se,
    simulation_cache,
)

from ._common import PAPER

N_REG, D_REG, SEED_REG, N_BATCH = 200, 2, 2019, 5
H_FRACTIONS = (0.01, 0.1, 0.5, 1.0, 1.5)  # h L over the stable range (h < 2/L)
EPOCHS = (10, 50, N_REG)  # m: the anchor's refresh period
L_STATES = 1000
SIM_FRACTION, SIM_EPOCH, SIM_STATES = 0.5, 50, 400


@cache
def regression() -> LinearRegressionModel:
    """Bayesian linear regression, d = 2, N = 200 (log-normal row scales, so the per-datum Hessians differ)."""
    return LinearRegressionModel.simulate_data(N_REG, dim=D_REG, seed=SEED_REG)


# ------------------------------------------------------------------------------------------ computation
def bound_algebra() -> dict:
    """sympy: the min of (13) against SGLD's sigma^2, and the step h_c at which (15)'s term equals (14)'s."""
    s2, m, D, h, d = sp.symbols("sigma2 m D h d", positive=True)
    X = m**2 * (D**2 * h**2 * s2 + h * d)
    roots = [r for r in sp.solve(sp.Eq(X, s2), h) if r.is_positive is not False]
    hc = sp.simplify(roots[0]) if len(roots) == 1 else None
    return dict(X=X, hc=hc, increasing=sp.simplify(sp.diff(X, h)), s2=s2, h=h)


def exact_mse_table() -> dict:
    """{h L: (SGLD's exact time-average MSE of theta_1, {m: SVRG-LD's})} over L_STATES states from the posterior mean
    (exact engine; SVRG-LD's anchor: the full gradient every m steps, Dubey et al.)."""
    model = regression()
    a = np.eye(D_REG)[0]
    out = {}
    for frac in H_FRACTIONS:
        h = frac / model.grad_lipschitz
        sg = exact_law(sgld(model, h, N_BATCH), theta0=model.posterior_mean).time_average_mse(a, n_steps=L_STATES)
        out[frac] = (sg, {m: exact_law(svrgld(model, h, N_BATCH, m), theta0=model.posterior_mean).time_average_mse(
            a, n_steps=L_STATES) for m in EPOCHS})
    return out


@simulation_cache
def svrg_sgld_run(kind: str, chains: int, seed: int) -> np.ndarray:
    """Per-chain squared error of the theta_1 time average over SIM_STATES states (SGLD or SVRG-LD, h L =
    SIM_FRACTION, m = SIM_EPOCH) from the posterior mean."""
    model = regression()
    h = SIM_FRACTION / model.grad_lipschitz
    sampler = sgld(model, h, N_BATCH) if kind == "sgld" else svrgld(model, h, N_BATCH, SIM_EPOCH)
    res = run(sampler, chains, SIM_STATES, seed=seed, theta0=model.posterior_mean)
    return (res.time_averages["theta"][:, 0] - model.posterior_mean[0]) ** 2


# ------------------------------------------------------------------------------------------ checks
def svrg_bound_checks(alg: dict) -> list[ExactCheck]:
    """The appendix's algebra: the min's first branch exceeds (14)'s term; (13) < (14) exactly when (15) < (14);
    (15)'s term grows in h, so (15) < (14) iff h < h_c."""
    s2 = alg["s2"]
    xs = [sp.Rational(k, 4) * s2 for k in range(0, 13)]
    same = all(bool(sp.Min(2 * s2, x) < s2) == bool(x < s2) for x in xs)
    return [
        ExactCheck("(13)'s first branch 2 sigma^2 exceeds (14)'s sigma^2 ('the bound associated with this term is "
                   "strictly larger than the bound for SGLD')", bool(sp.simplify(2 * s2 - s2) > 0), "2 sigma^2 - "
                   "sigma^2 = sigma^2 > 0", kind="identity", part=BOUND),
        ExactCheck("(13) is below (14) exactly when (15)'s term m^2 (D^2 h^2 sigma^2 + h d) is below sigma^2 (so (15) "
                   "is the form to compare)", same, "min{2 s2, X} < s2 <=> X < s2 at X = 0, s2/4, ..., 3 s2",
                   kind="identity", part=BOUND),
        ExactCheck("(15) vs (14) depends on the step: (15)'s term increases in h and equals (14)'s at one h_c > 0",
                   alg["hc"] is not None and bool(alg["increasing"].is_positive),
                   f"d/dh = {alg['increasing']}; h_c = {alg['hc']}", kind="consistency", part=BOUND)]


def behaviour_check(tab: dict) -> ExactCheck:
    """The exact comparison changes sign over the stable steps, as (15) vs (14) predicts (the counter-example:
    SVRG-LD below SGLD at every step and epoch length)."""
    worst = max(max(v.values()) / sg for sg, v in tab.values())
    rows = "; ".join(f"h L = {f:g}: SGLD {sg:.3g}, SVRG-LD " + ", ".join(f"m={m}: {v:.3g}" for m, v in svr.items())
                     for f, (sg, svr) in tab.items())
    return ExactCheck(
        f"exact time-average MSE of theta_1 (linear regression, N = {N_REG}, n = {N_BATCH}, L = {L_STATES}): "
        "SVRG-LD is above SGLD at some stable step (the comparison depends on h)", worst > 1.0,
        f"largest SVRG-LD / SGLD ratio {worst:.3f}; {rows}", part=BEHAVIOUR, expect="fail")


def svrg_simulated_checks(settings: Settings) -> list[Check]:
    """Simulated SGLD and SVRG-LD at h L = SIM_FRACTION, m = SIM_EPOCH against the exact engine, and SVRG-LD below
    SGLD (shown)."""
    model = regression()
    h = SIM_FRACTION / model.grad_lipschitz
    a = np.eye(D_REG)[0]
    chains = max(500, settings.chains // 10)
    out, sq = [], {}
    for kind, sampler in (("sgld", sgld(model, h, N_BATCH)), ("svrgld", svrgld(model, h, N_BATCH, SIM_EPOCH))):
        sq[kind] = svrg_sgld_run(kind, chains, settings.seed_for(f"chen.appE.{kind}"))
        exact = exact_law(sampler, theta0=model.posterior_mean).time_average_mse(a, n_steps=SIM_STATES)
        m, se = mean_and_se(sq[kind])
        out.append(Check(f"{'SGLD' if kind == 'sgld' else 'SVRG-LD'} (h L = {SIM_FRACTION}, m = {SIM_EPOCH}): MSE of "
                         f"the theta_1 average over {SIM_STATES} states (exact engine)", exact, m, se,
                         dict(chains=chains)))
    (ms, ss), (mv, sv) = mean_and_se(sq["svrgld"]), mean_and_se(sq["sgld"])
    out.append(OrderingCheck("SVRG-LD's time-average MSE is below SGLD's (simulated)", 0.0, ms - mv,
                             float(np.hypot(ss, sv)), dict(chains=chains), direction="less"))
    return out


# ------------------------------------------------------------------------------------------ claim
@claim("chen.appE.svrg_vs_sgld", paper=PAPER, source="Chen et al. V1 Appendix E, eqs. (13)-(15) (Dubey et al. 2016)",
       statement="Compared with SGLD's bound (14), SVRG-LD's bound (13) must be read as (15) (the min's first branch "
                 "2 sigma^2 exceeds SGLD's sigma^2), whose comparison with (14) depends on the step size: it is not "
                 "clear that SVRG-LD improves on SGLD.",
       family="chen_vr", expected="holds as a bound",
       finding="The algebra holds: (13) is below (14) exactly where (15) is, and (15)'s term grows in h, crossing "
               "(14)'s at one step h_c (part 'bound'). The behaviour it leaves open is not open on the exact MSE: on "
               "a Bayesian linear regression (N = 200, d = 2, n = 5, 1000 states from the posterior mean) SVRG-LD's "
               "time-average MSE is below SGLD's at every stable step (h L = 0.01 to 1.5) and epoch length "
               "(m = 10, 50, N): 0.93x at h L = 0.01 and 0.15-0.22x from h L = 0.5 on (part 'behaviour'; simulated "
               "chains agree). The uncertainty is the bound's; Theorem 6's guarantee that the appendix contrasts "
               "with it does not hold as stated either (chen.thm6.n1_gt_n2_suffices).")
def svrg_vs_sgld(settings: Settings) -> ClaimResult:
    out = ClaimResult(exact=[*svrg_bound_checks(bound_algebra()), behaviour_check(exact_mse_table())])
    return out.add(*svrg_simulated_checks(settings))
