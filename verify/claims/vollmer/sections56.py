"""Vollmer, Zygalakis & Teh (2016), Sections 5-6 on the Gaussian toy: Theorem 5.2's constants, the MSE-optimal
step (Remark 8), the large-N scalings of Section 6.2 and (70), Theorem 6.1 and the ERE limit (Figure 4: figure4.py).

These are deterministic computations on the exact finite-time closed forms (theory.toy.finite_time, which the
finite-time claims check against simulation); they judge asymptotic statements, so each check states the
quantity, the asymptotic prediction, and the criterion (a trend plus a relative gap that must shrink).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import sympy as sp

from simulate.runtime.runner import run
from theory.bounds import vollmer as vollmer_bounds
from theory.symbols import VB, h
from theory.toy.data_average import expected_over_data
from theory.toy.finite_time import toy_finite_time
from verify.api import Check, ClaimResult, ExactCheck, OrderingCheck, Settings, claim, mean_and_se, simulation_cache
from verify.figures import log_ticks

from .toy import N_DATA, default_model, make_sampler

PAPER = "vollmer"
OPT_M = (10**5, 10**6, 10**7, 10**8)
REMARK8_SIM_M = 10**4  # states of the simulated check (Euler; r* = 0.73, so 2 r* = 1.46 < 2 is still stable)
THM61_N = (100, 1000, 10_000)
THM61_EPS = 0.25



def _data() -> np.ndarray:
    return default_model().data[:, 0]


# ------------------------------------------------------------------------------------------ Theorem 5.2
def thm52_rows(method: str, n: int | None) -> tuple[list[tuple], list[float], tuple]:
    """At r = 0.04, 0.01, 0.0025 (M chosen so that both terms are equal): (method, r, M, exact MSE2, leading
    order), the relative gaps, and the constants (c1, C_v)."""
    x = _data()
    c1, cv = vollmer_bounds.theorem52_constants(method)
    rows, gaps = [], []
    for r in (0.04, 0.01, 0.0025):
        ch = toy_finite_time(method, x, n, r=r, dps=40)
        subs = {**vollmer_bounds._toy_subs(ch)}
        hh = r / float(ch.A)
        # M chosen so that both terms are of the same size: c1^2 h^2 = C_v/(M h)
        c1n, cvn = float(c1.subs(subs)), float(cv.subs(subs))
        M = max(10, int(cvn / (c1n**2 * hh**3)))
        exact = float(ch.mse2(M))
        pred = c1n**2 * hh**2 + cvn / (M * hh)
        gaps.append(abs(exact / pred - 1))
        rows.append((method, r, M, exact, pred))
    return rows, gaps, (c1, cv)


def thm52_check(method: str, gaps: list[float], constants: tuple) -> ExactCheck:
    c1, cv = constants
    return ExactCheck(f"{method}: MSE2 / (c1^2 h^2 + C_v/(M h)) -> 1 as h -> 0", gaps[-1] < gaps[0] and gaps[-1] < 0.05,
                      f"c1 = {c1}, C_v = {cv}; relative gaps at r = 0.04, 0.01, 0.0025: "
                      + ", ".join(f"{g:.3g}" for g in gaps), kind="consistency")


def draw_thm52(ax, rows: list[tuple]) -> None:
    """Exact MSE2 over its leading order against r, per method."""
    for method in ("euler", "sgld", "msgld"):
        rr = [(r, e / p) for m, r, M, e, p in rows if m == method]
        ax.semilogx(*zip(*rr, strict=True), "o-", label=method)
    ax.axhline(1, color="k", lw=0.5)
    log_ticks(ax.xaxis, [r for _, r, *_ in rows])
    ax.set_xlabel("r = A h (M chosen so both terms are equal)")
    ax.set_ylabel("exact MSE2 / (c1^2 h^2 + C_v/(M h))")
    ax.set_title("Theorem 5.2 constants on the toy", fontsize=8)
    ax.legend(fontsize=6)


@claim("vollmer.thm52.toy_constants", paper=PAPER,
       source="Vollmer et al. 2016, Theorem 5.2 (JMLR Theorem 9), eq. (67)",
       statement="MSE of the time average = O(h^2 + 1/(M h)); on the toy exactly c1^2 h^2 + C_v/(M h) to leading "
                 "order, with c1 the bias coefficient and C_v = 4 mu^2/A^2 + 1/(2A^3).",
       family="sections56")
def thm52_toy_constants(settings: Settings) -> ClaimResult:
    out, rows = ClaimResult(), []
    for method, n in (("euler", None), ("sgld", 100), ("msgld", 100)):
        method_rows, gaps, constants = thm52_rows(method, n)
        rows += method_rows
        out.exact.append(thm52_check(method, gaps, constants))
    out.notes.append("C_v = lim h sigma_as^2 = 4 mu^2/A^2 + 1/(2A^3) is the same for Euler, SGLD and mSGLD; "
                     "c1 carries the method (new: the constants of Theorem 5.2 made explicit on the toy). The checks "
                     "compare the exact MSE2 with its own leading order (theory with theory); the exact MSE2 is "
                     "checked against simulation by vollmer.eq22.mse2_finite_time (the asymptotic regime at r = 0.04, "
                     "M ~ 5e8 states, cannot be simulated).")
    out.figure = partial(draw_thm52, rows=rows)
    return out


# ------------------------------------------------------------------------------------------ Remark 8
@simulation_cache
def remark8_run(r: float, chains: int, seed: int) -> np.ndarray:
    """Per-chain (S2 - E theta^2)^2 of Euler on the toy from theta_0 = 0 over REMARK8_SIM_M states; the three step
    sizes share the seed (common random numbers), so their differences are paired chain by chain."""
    res = run(make_sampler("euler", r, N_DATA, False), chains, REMARK8_SIM_M, seed=seed, theta0=0.0)
    target = float(toy_finite_time("euler", _data(), None, r=r).target2)
    return (res.time_averages["theta2"][:, 0] - target) ** 2


def optimal_steps(method: str, n: int | None) -> list:
    """The MSE-optimal step and MSE at each M of OPT_M (exact and asymptotic)."""
    return [vollmer_bounds.optimal_step(method, _data(), n, M) for M in OPT_M]


def optimal_step_check(method: str, opts: list) -> ExactCheck:
    """The local slopes of r* and MSE* in M over the last decade, and r* approaching its asymptotic prediction."""
    s_r = math.log(opts[-1].r_exact / opts[-2].r_exact) / math.log(OPT_M[-1] / OPT_M[-2])
    s_m = math.log(opts[-1].mse_exact / opts[-2].mse_exact) / math.log(OPT_M[-1] / OPT_M[-2])
    gap_r = [abs(o.r_exact / o.r_asymptotic - 1) for o in opts]
    ok = abs(s_r + 1 / 3) < 0.05 and abs(s_m + 2 / 3) < 0.05 and gap_r[-1] < gap_r[0] and gap_r[-1] < 0.05
    return ExactCheck(
        f"{method}: MSE-optimal h ~ M^(-1/3), MSE ~ M^(-2/3)", ok,
        f"local slopes over the last decade: r* {s_r:.3f} (theory -1/3), MSE* {s_m:.3f} (theory -2/3); "
        f"r*/h*-prediction - 1 at M = {OPT_M}: " + ", ".join(f"{g:.3g}" for g in gap_r), kind="consistency")


def remark8_simulated_checks(settings: Settings) -> list[Check]:
    """The simulator at r*, 2 r*, r*/2 (Euler, M = 1e4): simulated MSE2 = exact at each, and MSE2(r*) < MSE2 at the
    other two (orderings that must be shown, paired): checks that can fail, beside the theory-with-theory ones."""
    x = _data()
    rs = vollmer_bounds.optimal_step("euler", x, None, REMARK8_SIM_M).r_exact
    chains, seed = max(200, settings.chains // 10), settings.seed_for("vollmer.remark8.sim")
    err = {f: remark8_run(f * rs, chains, seed) for f in (0.5, 1.0, 2.0)}
    out: list[Check] = []
    for f, e in err.items():
        m, se = mean_and_se(e)
        exact = float(toy_finite_time("euler", x, None, r=f * rs).mse2(REMARK8_SIM_M))
        out.append(Check(f"Euler, M = {REMARK8_SIM_M}, r = {f:g} r* = {f * rs:.3f}: simulated MSE2 (closed form)",
                         exact, m, se, dict(r=f * rs, chains=chains)))
    for f in (2.0, 0.5):
        m, se = mean_and_se(err[1.0] - err[f])
        out.append(OrderingCheck(f"Euler, M = {REMARK8_SIM_M}: MSE2(r*) - MSE2({f:g} r*) < 0 (paired chains)",
                                 0.0, m, se, dict(chains=chains), direction="less"))
    return out


def draw_remark8(ax, optima: dict) -> None:
    """The exact minimal MSE2 against M and its asymptotic form."""
    for method, opts in optima.items():
        ax.loglog(OPT_M, [o.mse_exact for o in opts], "o", label=f"{method} exact optimum")
        ax.loglog(OPT_M, [o.mse_asymptotic for o in opts], "--", label=f"{method} 3 c1^2 h*^2")
    log_ticks(ax.xaxis, OPT_M, "{:.0e}")
    ax.set_xlabel("M (states averaged)")
    ax.set_ylabel("min over h of MSE2")
    ax.set_title("Remark 8: MSE* ~ M^(-2/3)", fontsize=8)
    ax.legend(fontsize=6)


@claim("vollmer.remark8.optimal_step", paper=PAPER, source="Vollmer et al. 2016, Remark 8 (Section 5)",
       statement="Minimising h^2 + 1/(M h): h* ~ M^(-1/3) and MSE ~ M^(-2/3) (checked on the exact MSE2 of the toy).",
       family="sections56")
def remark8_optimal_step(settings: Settings) -> ClaimResult:
    optima = {method: optimal_steps(method, n) for method, n in (("euler", None), ("sgld", 100))}
    return ClaimResult(exact=[optimal_step_check(method, opts) for method, opts in optima.items()],
                       figure=partial(draw_remark8, optima=optima)).add(*remark8_simulated_checks(settings))


# ------------------------------------------------------------------------------------------ Section 6.2
def large_n_checks() -> list[ExactCheck]:
    """The exponents of SGLD's and mSGLD's excess bias for n = N^p, and the threshold (70) (sympy)."""
    p = sp.Symbol("p", positive=True)
    e_s = vollmer_bounds.excess_scaling_exponent("sgld", p)
    e_m = vollmer_bounds.excess_scaling_exponent("msgld", p)
    ratio = vollmer_bounds.msgld_beats_sgld_threshold()
    return [ExactCheck("SGLD excess bias ~ N^(-p) for n = N^p at fixed r (vanishes iff n -> inf)",
                       sp.simplify(e_s + p) == 0, f"derived exponent {e_s}"),
            ExactCheck("mSGLD excess bias ~ N^(1 - 2p) (bounded iff n >~ N^(1/2))",
                       sp.simplify(e_m - (1 - 2 * p)) == 0, f"derived exponent {e_m}"),
            ExactCheck("(70): mSGLD excess <= SGLD excess iff h Var(B) <= 4 (ratio = h Var(B)/4)",
                       sp.simplify(ratio - h * VB / 4) == 0, f"ratio {ratio}")]


@claim("vollmer.sec62.large_n_scalings", paper=PAPER, source="Vollmer et al. 2016, Section 6.2 and eq. (70)",
       statement="With h = r/A and n = N^p: SGLD's excess bias ~ N^-p, mSGLD's ~ N^(1-2p); mSGLD beats SGLD iff "
                 "h Var(B) <= 4.",
       family="sections56")
def large_n_scalings(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=large_n_checks())


# ------------------------------------------------------------------------------------------ Theorem 6.1
def thm61_mse2() -> tuple[list[float], list[float]]:
    """E_X MSE2 of SGLD (n = 1, h = N^(-1-eps), M = N^(1+2eps)) at each N, and its leading term N^(-2 eps)/16."""
    e = THM61_EPS
    sg = [float(expected_over_data("mse2", "sgld", N, 1, round(N ** (1 + 2 * e)), h=N ** (-1 - e)))
          for N in THM61_N]
    return sg, [N ** (-2 * e) / 16 for N in THM61_N]


def thm61_ere() -> dict[tuple[float, float], list[float]]:
    """E_X ERE at r = N^-alpha, n = N^beta, M = N^(1.4 + alpha), per (alpha, beta), at each N."""
    ere = {}
    for al, be in ((0.3, 0.5), (0.7, 0.5)):
        vals = []
        for N in THM61_N:
            n = max(1, round(N**be))
            vals.append(float(expected_over_data("ere", "sgld", N, n, round(N ** (1.4 + al)), r=N ** (-al))))
        ere[(al, be)] = vals
    return ere


def thm61_checks(sg: list[float], pred: list[float], ere: dict) -> list[ExactCheck]:
    """E_X MSE2 -> 0 towards its leading term; E_X ERE diverges iff alpha + beta < 1."""
    e = THM61_EPS
    ratios = [s / q for s, q in zip(sg, pred, strict=True)]
    out = [ExactCheck(
        f"Theorem 6.1: E_X MSE2 -> 0 for SGLD n = 1, h = N^(-1-eps), M = N^(1+2eps) (eps = {e})",
        all(b < a for a, b in zip(sg, sg[1:], strict=False)) and abs(ratios[-1] - 1) < abs(ratios[0] - 1),
        f"E_X MSE2 at N = {THM61_N}: " + ", ".join(f"{v:.4g}" for v in sg)
        + "; ratio to the leading term (h Var(B)/(2A))^2 ~ N^(-2 eps)/16: " + ", ".join(f"{q:.3f}" for q in ratios)
        + f"; cost M n = N^{1 + 2 * e:g} vs Euler's N^{2 + 2 * e:g}")]
    for (al, be), vals in ere.items():
        grows = al + be < 1
        mono = all((b > a) if grows else (b < a) for a, b in zip(vals, vals[1:], strict=False))
        out.append(ExactCheck(
            f"Section 6.3: E_X ERE {'-> inf' if grows else '-> 0'} for r = N^-{al}, n = N^{be}, M = N^(1.4+{al})",
            mono, "E_X ERE at N = " + f"{THM61_N}: " + ", ".join(f"{v:.4g}" for v in vals)))
    return out


def draw_thm61(ax, sg: list[float], pred: list[float], ere: dict) -> None:
    """E_X MSE2 and E_X ERE against N (exact over random data)."""
    ax.loglog(THM61_N, sg, "o-", label="SGLD n=1: E_X MSE2 (exact)")
    ax.loglog(THM61_N, pred, "--", label="N^(-2 eps)/16")
    for (al, be), vals in ere.items():
        ax.loglog(THM61_N, vals, "s-", label=f"E_X ERE, alpha+beta={al + be:g}")
    log_ticks(ax.xaxis, THM61_N)
    ax.set_xlabel("N")
    ax.set_title("Theorem 6.1 and the ERE limit (exact over random data)", fontsize=8)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, 0.86))


@claim("vollmer.thm61.almost_linear_cost", paper=PAPER,
       source="Vollmer et al. 2016, Theorem 6.1 (JMLR Theorem 10), eqs. (68), (71)-(72)",
       statement="SGLD with n = 1, h = N^(-1-eps), M = N^(1+2eps) drives E_X MSE2 to 0 at cost N^(1+2eps); the "
                 "relative error of the variance estimate (ERE) vanishes only if alpha + beta > 1.",
       family="sections56")
def almost_linear_cost(settings: Settings) -> ClaimResult:
    sg, pred = thm61_mse2()
    ere = thm61_ere()
    return ClaimResult(exact=thm61_checks(sg, pred, ere), figure=partial(draw_thm61, sg=sg, pred=pred, ere=ere))


# ------------------------------------------------------------------------------------------ Theorem 11
def _sup_bias_ratio(x: np.ndarray, rs: tuple[float, ...], Ks: tuple[int, ...]) -> float:
    """sup over r, K of |E S2 - E_pi theta^2| / (h + 1/(K h)) for SGLD (n = 100) from theta_0 = 0, exact."""
    worst = 0.0
    for r in rs:
        ch = toy_finite_time("sgld", x, 100, r=r, dps=40)
        hh = r / float(ch.A)
        for K in Ks:
            worst = max(worst, abs(float(ch.es2(K) - ch.target2)) / (hh + 1 / (K * hh)))
    return worst


def dissipativity_check() -> ExactCheck:
    """(A.1) and (A.2) on the toy with alpha = 1/(2 sigma_x^2), beta = max_i x_i^2/(2 sigma_x^2), on a grid."""
    model = default_model()
    x = _data()
    sx2, st2 = model.sigma_x**2, model.sigma0**2
    alpha, beta = 1 / (2 * sx2), float(np.max(x**2)) / (2 * sx2)
    th = np.linspace(-50, 50, 2001)
    prior_ok = np.all(-th**2 / st2 <= -min(alpha, 1 / st2) * th**2 + beta)
    lik_ok = np.all(th[:, None] * (x[None, :] - th[:, None]) / sx2 <= -alpha * th[:, None] ** 2 + beta)
    return ExactCheck(
        "toy: (A.1) <theta, grad log pi_0> <= -alpha theta^2 + beta and (A.2) for every datum, alpha = "
        "1/(2 sigma_x^2), beta = max_i x_i^2/(2 sigma_x^2) (on |theta| <= 50; both are quadratics in theta)",
        bool(prior_ok and lik_ok), f"alpha = {alpha:.3g}, beta = {beta:.3g}", kind="identity")


def bias_bound_check() -> ExactCheck:
    """(66) on the exact E S2: the sup of |bias|/(h + 1/(K h)) does not grow when the grid is extended to smaller h
    and larger K (a constant C exists)."""
    x = _data()
    coarse = _sup_bias_ratio(x, (0.3, 0.03), (10, 10**3, 10**5, 10**7, 10**9))
    fine = _sup_bias_ratio(x, (0.3, 0.03, 0.003, 0.0003), (10, 10**3, 10**5, 10**7, 10**9, 10**11, 10**13))
    c1 = float(toy_finite_time("sgld", x, 100, r=0.3).var_B) / (2 * float(default_model().A)) + 0.25
    return ExactCheck(
        "(66) on the toy (SGLD, n = 100, phi = theta^2, theta_0 = 0): sup |bias|/(h + 1/(K h)) over r in [3e-4, 0.3], "
        "K in [10, 1e13] is within 5% of its sup over r in [0.03, 0.3], K <= 1e9 (a constant C exists)",
        fine <= 1.05 * coarse, f"sup ratio: coarse grid {coarse:.4g}, extended grid {fine:.4g}; the h-coefficient "
                               f"1/4 + Var(B)/(2A) = {c1:.4g} (eq. 19)", kind="consistency")


@claim("vollmer.thm11.toy_conditions", paper=PAPER,
       source="Vollmer et al. 2016, Theorem 11 (App. 9.1; arXiv Theorem 9.1), conditions (A.1)-(A.2), conclusion (66)",
       statement="On the Gaussian toy the dissipativity conditions (A.1)-(A.2) hold, and the bias of the time average "
                 "is bounded by C (h + 1/(K h)).",
       family="sections56")
def toy_conditions(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=[dissipativity_check(), bias_bound_check()], notes=[
        "Section 7's logistic model is not covered by (A.2): <theta, grad log p(y|x, theta)> = y theta.x sigma(-y "
        "theta.x) is 0 for theta orthogonal to x, never <= -alpha|theta|^2 + beta for large |theta|. The closed form "
        "of E S2 used here is checked against simulation by vollmer.eq22.mse2_finite_time."])
