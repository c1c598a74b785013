"""Chen, Wang, Zhang, Su & Carin, "A convergence analysis for a class of practical variance-reduction SG-MCMC"
(V1: arXiv with appendix; V2: Science China Inf. Sci. 62, 012101, 2019); digest ../shared/notes/000_002.md.

Exact checks (enumeration over all minibatches, sympy) judge the algebra of Lemma 2, eq. (7), Proposition 10 and
Theorem 6/2's lambda_l; exact finite-L MSE formulas for SGLD and vrSGLD on the paper's synthetic Gaussian model
(theory.noise.vr and theory.chains.chen_mse, validated here against many-chain simulations of simulate.vrsgld and
simulate.sgld with a
z-test per formula) judge the comparisons vrSGLD vs SGLD and Corollary 4/1's regimes; sympy judges the budget
calculus.  Model: x_i ~ N(1, 1), prior N(0, 1), N = 1000 (one data set from a fixed seed; the paper gives neither
theta_true nor theta_0).  Step h_wb = 0.1/P (the paper's eps P = 0.05), chains started at the posterior mean for the
equal-L comparisons (no transient), L = 1000 states.  vrSGLD defaults (n1, n2, m) = (100, 10, 10).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from functools import cache

import mpmath
import sympy as sp
from scipy.optimize import minimize_scalar

from theory.bounds import chen as cb
from theory.noise import vr as vr_noise
from theory.toy.finite_time import ToyFiniteTime, toy_finite_time
from verify.api import Claim, ClaimResult, ExactCheck, Settings, register

from ._common import N_DATA, PAPER, V1V2, gdata, step

BUDGETS = (10**4, 10**5, 10**6, 10**7)


BATCHES = (1, 10, 100, 1000)


FIXED_EPS_P = (0.01, 0.1)


EPS_BOUNDS = (1e-5, 1.9)  # eps P searched in this range (stability needs eps P < 2)


@cache
def _sgld_theory(n: int) -> ToyFiniteTime:
    """Exact toy theory of SGLD(n) from theta_0 = 0 (the h field is replaced per evaluation)."""
    gd = gdata()
    return toy_finite_time("sgld", gd.x[:, 0], n, h=step(), theta0=0.0, dps=40)


def budget_mse(n: int, T: int, eps_p: float) -> float:
    """Exact MSE of the time average of theta^2 for SGLD(n) with L = T/n states, workbench h = 2 eps, theta_0 = 0."""
    ch = dataclasses.replace(_sgld_theory(n), h=mpmath.mpf(2 * eps_p / gdata().P))
    return float(ch.mse2(max(1, T // n)))


def tuned_mse(n: int, T: int) -> tuple[float, float]:
    """(min over eps of the exact budget MSE, the minimising eps P), bounded search on log eps in EPS_BOUNDS."""
    res = minimize_scalar(lambda le: math.log(budget_mse(n, T, math.exp(le))),
                          bounds=tuple(math.log(b) for b in EPS_BOUNDS), method="bounded", options=dict(xatol=1e-3))
    return math.exp(res.fun), math.exp(res.x)


@cache
def budget_table() -> dict:
    """{policy: {T: {n: mse}}} for fixed eps P and for eps tuned per (n, T) (:func:`tuned_mse`)."""
    out: dict = {}
    for e in FIXED_EPS_P:
        out[f"eps P = {e:g}"] = {T: {n: budget_mse(n, T, e) for n in BATCHES} for T in BUDGETS}
    out["eps tuned per (n, T)"] = {T: {n: tuned_mse(n, T)[0] for n in BATCHES} for T in BUDGETS}
    return out


def _cor4(settings: Settings) -> ClaimResult:
    """Corollary 4 (V1) / 1 (V2) regimes against the exact SGLD MSE under a budget T = nL."""
    out = ClaimResult()
    tab = budget_table()
    g = vr_noise.gaussian_gamma(gdata())
    t1 = 27 / 8 * g**3 * N_DATA**6
    for pol, rows in tab.items():
        best = [min(rows[T], key=rows[T].get) for T in BUDGETS]
        predicted = [cb.corollary_case(N_DATA, T, g) for T in BUDGETS]
        ok = all(b2 <= b1 for b1, b2 in zip(best, best[1:], strict=False)) and all(
            b == p for b, p in zip(best, predicted, strict=True) if p)
        out.exact.append(ExactCheck(
            f"{pol}: best n in {BATCHES} is non-increasing in T and = N where T < T1 (Corollary case 1)", ok,
            f"best n at T = {BUDGETS}: {best}; Corollary (unit constants, Gamma = {g:.3g}, T1 = {t1:.3g}) predicts "
            f"{['1 or N' if p == 0 else p for p in predicted]}"))

    def draw(ax) -> None:
        """Draw this claim's figure on ``ax``."""
        for pol, ls in zip(tab, ("-", "--", ":"), strict=False):
            for n, col in zip(BATCHES, ("C0", "C1", "C2", "C3"), strict=True):
                ax.loglog(BUDGETS, [tab[pol][T][n] for T in BUDGETS], ls, color=col,
                          label=f"n={n}" if ls == "-" else None)
        ax.set_xlabel("budget T (per-datum gradient evaluations, L = T/n)")
        ax.set_ylabel("exact MSE of theta^2 average (SGLD)")
        ax.set_title("Cor. 4/1: " + " / ".join(f"{ls} {p}" for p, ls in zip(tab, ("-", "--", ":"), strict=False)),
                     fontsize=6)
        ax.legend(fontsize=6)
    out.figure = draw
    out.notes.append(f"theta_0 = 0 (cold start, theta_true = 1); eps P tuned by a bounded search over {EPS_BOUNDS}; "
                     "MSE exact (theory.toy.finite_time) for the theta^2 average")
    for T in BUDGETS:
        out.notes.append(f"T = {T:.0e}: " + "; ".join(
            f"n={n}: " + ", ".join(f"{pol.split(' per')[0]} {tab[pol][T][n]:.4g}" for pol in tab) for n in BATCHES))
    return out


register(Claim(
    id="chen.cor4.regimes_exact_mse", paper=PAPER, source=f"Chen et al. {V1V2['cor4']} and Figure 1 (V1, V2)",
    statement="Under a budget T of gradient evaluations (T = nL), small budgets favour large minibatches (n = N) "
              "and large budgets n = 1; the optimal n does not increase with T.",
    family="chen_budget", run=_cor4, expected="fails",
    erratum="Judged on the exact MSE of SGLD on the paper's synthetic model (N = 1000, phi = theta^2, theta_0 = 0, "
            "budgets T = 1e4..1e7, n in {1, 10, 100, 1000}): with a fixed step the best n grows with the budget "
            "(eps P = 0.01: 1, 1, 10, 10; eps P = 0.1: 10, 10, 100, 100), the opposite direction; with the step "
            "tuned per (n, T) all n come within 40% of each other (15% for T >= 1e5; the optimal step grows like "
            "n) and the best n again grows (100, then N = 1000 for T >= 1e5). All these budgets lie in the "
            "Corollary's 'small budget' case T < T1 = 5e9 (unit constants), where it predicts n = N throughout. "
            "The hidden constants (||grad psi||^2 ~ 1/N^2, Gamma ~ 1/N) make its thresholds "
            "uninformative.",
))


def _critical(v1: bool) -> Callable[[Settings], ClaimResult]:
    """Claim runner for the critical point (V1: optimal, V2: critical point) and the bound calculus."""

    def run_claim(settings: Settings) -> ClaimResult:
        """Run the claim (see its registration)."""
        out = ClaimResult()
        ns = cb.critical_point()
        d2 = cb.second_derivative_in_n()
        kind = cb.critical_point_kind()
        if v1:
            out.exact.append(ExactCheck(
                "n* = 8T/(27 N^6 Gamma^3) minimises the optimised bound (V1: 'the optimal minibatch size')",
                kind == "minimiser",
                f"d^2/dn^2 = {d2} < 0: the bound is concave in n, n* is the {kind}; with the exact constant "
                f"3/2^(2/3) n* = {cb.critical_point(True)} ({cb.critical_point_kind(True)})"))
            N_, g = 1000, 1e-3
            T_ = 1e11
            nstar = float(ns.subs({cb.T: T_, cb.N: N_, cb.Gamma: g}))
            vals = {k: cb.bound_value(N_, k, T_, g) for k in (1, round(nstar), N_)}
            out.notes.append(f"N = 1000, Gamma = 1e-3, T = 1e11: bound at n = 1, n* = {nstar:.0f}, N: "
                             + ", ".join(f"{v:.4g}" for v in vals.values()))
        else:
            hs = cb.optimal_step()
            ok_h = sp.simplify(hs - (cb.n / (2 * cb.T)) ** sp.Rational(1, 3)) == 0
            mn = sp.simplify((cb.n / (cb.T * cb.h) + cb.h**2).subs(cb.h, hs) - sp.Rational(3, 1) / 2 ** sp.Rational(
                2, 3) * cb.n ** sp.Rational(2, 3) / cb.T ** sp.Rational(2, 3))
            out.exact.append(ExactCheck(
                "h* = (n/(2T))^(1/3) (paper's h; workbench h = 2 h*), min = (3/2^(2/3)) n^(2/3) T^(-2/3) (V1 eq. 9)",
                ok_h and mn == 0, f"h* = {hs}, workbench {cb.optimal_step_wb()}"))
            ok_n = sp.simplify(ns - 8 * cb.T / (27 * cb.N**6 * cb.Gamma**3)) == 0
            out.exact.append(ExactCheck("critical point of the O-form bound in n: 8T/(27 N^6 Gamma^3)", ok_n,
                                        f"sympy: {ns}"))
            N_, g = 1000, 1e-3
            t1, t2 = (float(e.subs({cb.N: N_, cb.Gamma: g})) for e in cb.regime_thresholds())
            tx = float(cb.endpoint_tie().subs({cb.N: N_, cb.Gamma: g}))
            grid = [t1 / 10, t1 * 2, tx / 2, tx * 2, t2 * 10]
            best = [cb.best_n_of_bound(N_, T_, g) for T_ in grid]
            pred = [cb.corollary_case(N_, T_, g) for T_ in grid]
            ok = all(b == p for b, p in zip(best, pred, strict=True) if p) and all(b in (1, N_) for b in best)
            out.exact.append(ExactCheck(
                "three regimes on the bound: argmin n = N for T < T1, = 1 for T > T2, an endpoint in between", ok,
                f"N = {N_}, Gamma = {g}: T1 = {t1:.4g}, T_x = {tx:.4g}, T2 = {t2:.4g}; argmin at T = "
                + ", ".join(f"{t:.3g}: {b}" for t, b in zip(grid, best, strict=True))))
        return out
    return run_claim


register(Claim(
    id="chen.cor4.critical_point_optimal_v1", paper=PAPER, source=f"Chen et al. {V1V2['cor4']}, V1 wording",
    statement="n = 8T/(27 N^6 Gamma_M^3) is 'the optimal minibatch size' (V1).",
    family="chen_budget", run=_critical(True), expected="fails",
    erratum="The optimised bound (N-n)N^2 Gamma/T + n^(2/3)/T^(2/3) has d^2/dn^2 = -(2/9) n^(-4/3) T^(-2/3) < 0, so "
            "the critical point is the MAXIMISER (worst n); the minimum is at an endpoint n = 1 or n = N. V2 correctly "
            "calls it only the 'critical point'.",
))


register(Claim(
    id="chen.cor4.bound_calculus", paper=PAPER,
    source=f"Chen et al. {V1V2['thm3']} budget form, V1 eq. (9), {V1V2['cor4']} (V2 wording)",
    statement="With L = T/n: h* = (n/(2T))^(1/3) optimises the bound, the critical point is 8T/(27 N^6 Gamma^3), and "
              "the bound's minimiser over [1, N] is N for T < (27/8)Gamma^3 N^6, 1 for T > (27/8)Gamma^3 N^7.",
    family="chen_budget", run=_critical(False),
))
