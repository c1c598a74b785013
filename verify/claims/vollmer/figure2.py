"""Vollmer, Zygalakis & Teh (2016), Section 2.2 and Figure 2: the statements the paper reads off the MSE2 curves
(N = 1000, r = 1/20, n = 1000 (Euler), 150, 50, 10; theta_0 = 0, draws without replacement), judged as statements.

* per step: SGLD and mSGLD "behave similarly, decreasing initially then asymptoting at their asymptotic biases"; both
  MSE2's "decrease with increasing subset size n, and are higher than that for the Euler method";
* "at r = 1/20 mSGLD has lower asymptotic biases than SGLD";
* per data pass (M n/N): "smaller subset sizes produce initial gains, but asymptote at higher biases".

The curves are the exact MSE2 of theory.toy.finite_time (checked against simulation by vollmer.eq22.mse2_finite_time)
on a grid of M up to 1e8 and their M -> infinity limit (the expansion's constant, the squared asymptotic bias, checked
against eqs. 18 and 21 as printed); simulated chains at one and ten passes test the orderings the figure shows.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate.runtime.runner import run
from theory.numeric import lambdify_toy
from theory.toy.finite_time import ToyFiniteTime, toy_finite_time
from verify.api import Check, ClaimResult, ExactCheck, OrderingCheck, Settings, claim, mean_and_se, simulation_cache

from .toy import N_DATA, PAPER, default_model, make_sampler, printed_stationary_variance

R_FIG2 = 0.05
FIG2_N = (150, 50, 10)
STEPS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10**4, 10**5, 10**6, 10**7, 10**8)
PASSES = (1, 10, 100)
SEPARATED = 100  # the curves separate after the transient (about 1/r = 20 steps): the order in n is judged from here
SIMILAR = 1.5  # "behave similarly": SGLD / mSGLD within this factor before the plateaus
SIM_CASES = (("sgld", 10, 100), ("sgld", 50, 20), ("sgld", 10, 1000), ("msgld", 10, 1000))  # (method, n, M)


# ------------------------------------------------------------------------------------------ computation
@cache
def chain(method: str, n: int | None) -> ToyFiniteTime:
    """Exact finite-time theory at r = 1/20 from theta_0 = 0 (Euler: n = None)."""
    return toy_finite_time(method, default_model().data[:, 0], n, r=R_FIG2)


@cache
def curves() -> dict:
    """{(method, n): (MSE2 at each M of STEPS, the M -> infinity limit)}, Euler under ("euler", N)."""
    out = {("euler", N_DATA): chain("euler", None)}
    out.update({(m, n): chain(m, n) for m in ("sgld", "msgld") for n in FIG2_N})
    return {k: ([float(c.mse2(M)) for M in STEPS], float(c.expansion("mse2")[0])) for k, c in out.items()}


def printed_bias2(method: str, n: int | None) -> float:
    """(Var theta_inf - sigma_p^2)^2 from eq. (18) (Euler, SGLD) or eq. (21) (mSGLD) as printed."""
    c = chain(method, n)
    var = lambdify_toy(printed_stationary_variance(method))(c.A, c.posterior_mean * c.A, c.var_B, c.h, 0, 0, 0)
    return float(var - c.posterior_var) ** 2


@simulation_cache
def fig2_run(method: str, n: int, M: int, chains: int, seed: int) -> np.ndarray:
    """Per-chain (S2 - E_pi theta^2)^2 over theta_0..theta_{M-1} from theta_0 = 0 at r = 1/20 (without replacement)."""
    res = run(make_sampler(method, R_FIG2, n, False), chains, M, seed=seed, theta0=0.0)
    return (res.time_averages["theta2"][:, 0] - float(chain(method, n).target2)) ** 2


# ------------------------------------------------------------------------------------------ checks
def per_step_checks(cv: dict) -> list[ExactCheck]:
    """Decreasing curves with a plateau at the squared asymptotic bias (eqs. 18/21), SGLD ~ mSGLD before the
    plateaus, and the order in n above Euler at every M."""
    out = []
    for n in FIG2_N:
        s, m = cv[("sgld", n)][0], cv[("msgld", n)][0]
        early = [a / b for a, b, M in zip(s, m, STEPS, strict=True) if M <= 10**4]
        mono = all(all(b <= a * (1 + 1e-12) for a, b in zip(v, v[1:], strict=False)) for v in (s, m))
        out.append(ExactCheck(
            f"n = {n}: SGLD and mSGLD decrease with M and stay within a factor {SIMILAR} of each other up to M = 1e4",
            mono and max(early) <= SIMILAR and min(early) >= 1 / SIMILAR,
            f"SGLD/mSGLD at M = 1..1e4: {', '.join(f'{q:.3f}' for q in early)}"))
    gaps = [abs(cv[k][1] / printed_bias2(k[0], None if k[0] == "euler" else k[1]) - 1) for k in cv]
    out.append(ExactCheck("every curve tends to its squared asymptotic bias (eqs. 18, 21 as printed) as M -> infinity",
                          max(gaps) < 1e-6, f"largest relative gap {max(gaps):.2e} over {len(gaps)} curves",
                          kind="consistency"))
    order_ok, spread = True, 0.0
    for method in ("sgld", "msgld"):
        rows = [cv[(method, n)][0] for n in FIG2_N[::-1]] + [cv[("euler", N_DATA)][0]]  # n = 10, 50, 150, Euler
        for j, M in enumerate(STEPS):
            col = [r[j] for r in rows]
            if M >= SEPARATED:
                order_ok &= all(b <= a * (1 + 1e-12) for a, b in zip(col, col[1:], strict=False))
            else:
                spread = max(spread, max(col) / min(col) - 1)
    out.append(ExactCheck(
        f"from M = {SEPARATED} on, both MSE2's fall as n grows (10, 50, 150) and stay above Euler's (n = N); before, "
        "the curves coincide within 0.5%", order_ok and spread < 0.005,
        f"largest spread between the curves at M < {SEPARATED}: {spread:.2%} (there the smaller n is marginally "
        f"lower: its extra noise speeds the transient from theta_0 = 0); plateaus: "
        + ", ".join(f"{k[0]} n={k[1]}: {v[1]:.3g}" for k, v in cv.items())))
    return out


def bias_checks(cv: dict) -> list[ExactCheck]:
    """mSGLD's squared asymptotic bias below SGLD's for each n of the figure (inequality (70): h Var(B) <= 4)."""
    out = []
    for n in FIG2_N:
        vb = float(chain("sgld", n).var_B * chain("sgld", n).h)
        out.append(ExactCheck(f"n = {n}, r = 1/20: mSGLD's asymptotic bias is below SGLD's",
                              cv[("msgld", n)][1] < cv[("sgld", n)][1],
                              f"bias^2: mSGLD {cv[('msgld', n)][1]:.3g}, SGLD {cv[('sgld', n)][1]:.3g}; h Var(B) = "
                              f"{vb:.3g} (<= 4 by (70))"))
    return out


def per_pass_checks() -> list[ExactCheck]:
    """At 1, 10, 100 passes the smaller n has the lower MSE2 (both methods, Euler last); the plateaus in reverse."""
    out = []
    for method in ("sgld", "msgld"):
        rows = []
        for p in PASSES:
            vals = [float(chain(method, n).mse2(max(1, round(p * N_DATA / n)))) for n in FIG2_N[::-1]]
            rows.append([*vals, float(chain("euler", None).mse2(p))])
        gain = all(all(a <= b for a, b in zip(r, r[1:], strict=False)) for r in rows)
        plateau = [float(chain(method, n).expansion("mse2")[0]) for n in FIG2_N[::-1]]
        out.append(ExactCheck(
            f"{method.upper()} per pass: at {PASSES} passes MSE2 rises with n (10, 50, 150, then Euler), and the "
            "plateaus fall with n", gain and all(a > b for a, b in zip(plateau, plateau[1:], strict=False)),
            "; ".join(f"{p} passes: " + ", ".join(f"{v:.3g}" for v in r) for p, r in zip(PASSES, rows, strict=True))
            + "; plateaus " + ", ".join(f"{v:.3g}" for v in plateau)))
    return out


def figure2_simulated_checks(settings: Settings) -> list[Check]:
    """The simulator at one and ten passes: MSE2 against the exact values, n = 10 below n = 50 at one pass, and SGLD
    against mSGLD at n = 10, M = 1000 (both against the exact values)."""
    runs = {c: fig2_run(*c, settings.chains, settings.seed_for(f"vollmer.fig2.{c}")) for c in SIM_CASES}
    out = []
    for (method, n, M), v in runs.items():
        m, se = mean_and_se(v)
        out.append(Check(f"{method.upper()} n = {n}, M = {M} ({M * n / N_DATA:g} passes): MSE2 (exact)",
                         float(chain(method, n).mse2(M)), m, se, dict(r=R_FIG2)))
    (m10, s10), (m50, s50) = mean_and_se(runs[SIM_CASES[0]]), mean_and_se(runs[SIM_CASES[1]])
    out.append(OrderingCheck("one pass: SGLD n = 10 has a lower MSE2 than n = 50 (simulated)", 0.0, m10 - m50,
                             float(np.hypot(s10, s50)), dict(r=R_FIG2), direction="less"))
    return out


# ------------------------------------------------------------------------------------------ claims
@claim("vollmer.fig2.per_step", paper=PAPER, source="Vollmer et al. 2016, Section 2.2, Figure 2 (left)",
       statement="For the same number of steps M, SGLD and mSGLD behave similarly, decreasing initially then "
                 "asymptoting at their asymptotic biases; both MSE2's decrease with increasing n and are higher than "
                 "Euler's (N = 1000, r = 1/20, n = 150, 50, 10).",
       family="vollmer_fig2")
def per_step(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=per_step_checks(curves())).add(*figure2_simulated_checks(settings))


@claim("vollmer.fig2.msgld_lower_bias", paper=PAPER, source="Vollmer et al. 2016, Section 2.2, Figure 2; eq. (70)",
       statement="At r = 1/20 mSGLD has lower asymptotic biases than SGLD (n = 150, 50, 10).",
       family="vollmer_fig2")
def msgld_lower_bias(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=bias_checks(curves()), notes=[
        "the asymptotic biases are eqs. (18) and (21), whose simulated checks are vollmer.eq18.sgld_variance and "
        "vollmer.eq21.msgld_variance; the plateaus themselves (M ~ 1e8) cannot be simulated"])


@claim("vollmer.fig2.per_pass", paper=PAPER, source="Vollmer et al. 2016, Section 2.2, Figure 2 (right)",
       statement="Against the number of passes M n/N, smaller subset sizes produce initial gains but asymptote at "
                 "higher biases.",
       family="vollmer_fig2")
def per_pass(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=per_pass_checks(), notes=[
        "simulated counterparts (one and ten passes) are in vollmer.fig2.per_step"])
