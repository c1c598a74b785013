"""Vollmer, Zygalakis & Teh (2016), Sections 3-4: weak-order expansions and the leading invariant-measure bias.

Exact (symbolic) claims:
  * the one-step operators A_0 = L and L^2/2 - A_1 of Euler, SGLD and mSGLD, derived by Taylor expansion, equal
    the paper's (43)/(49)/(50) and (52)/(53), and the gradient noise's third/fourth moments do not enter;
  * on the Gaussian toy (U = A (theta - mu)^2, Var fhat = Var(B)) the leading bias coefficient from Theorem 6
    (via the Poisson equation) is exactly that of eqs. (17)-(21): 1/4, 1/4 + Var(B)/(2A), 1/4 for theta^2, 0 for
    theta; and the sign of (40)-(41) is checked on the OU example (lambda_1 = -1/4, bias +h/4).
Statistical claims (hold only to leading order in h; the targets are non-Gaussian):
  * for the quartic U = theta^4/4 and the double well U = (theta^2 - 1)^2, Euler, SGLD and mSGLD with Gaussian
    gradient noise of variance Var g = 4 (Var fhat = 1) have lim_K (1/K) sum phi(theta_k) - pi(phi) = c1 h + O(h^2)
    with c1 = pi((L^2/2 - A_1) psi) (Theorem 6 with eqs. 50/53), for phi = theta^2 and theta^4.

Simulation design.  Chains start from the target pi (inverse CDF), burn in for BURN_IN_TIME time units (more than
10 relaxation times of even functions; the laws stay symmetric), then average phi over HORIZON time units.  The bias
at each h is the mean over chains of the per-chain time averages minus pi(phi) (by quadrature), its s.e. the spread
across independent chains; c1 is the h coefficient of a weighted least-squares fit of h, h^2, h^3 (no intercept).
Reference values pi_h(phi) at every h come from a Nystrom discretisation of the chain's Gaussian kernel
(:func:`theory.weak_order.invariant_expectation`): they give the fit's truncation error and a deterministic check of
c1 (Richardson extrapolation of the exact bias to h -> 0).  The step sizes are chosen so that the truncation stays
below ~0.25 s.e. at 10^4 chains while the h^-3/2 growth of the s.e. of bias/h is kept in check.

Not used on purpose: a control variate phi - (K psi~ - psi~)/h built from the assumed one-step kernel K has mean
pi_h(phi) only if the sampler follows K; at leading order its mean is pi(phi) - h pi(A_1 psi) = pi(phi) + h c1 for ANY
sampler close to K, i.e. it would reproduce the theory instead of measuring the simulation (a planted O(h^2) noise
bug cancels out of it exactly at O(h)).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache, partial

import numpy as np
import sympy as sp

from simulate import FullGradient, Langevin, ModifiedLangevin, Sampler, run
from simulate.estimators.additive_noise import AdditiveNoise
from simulate.models.potentials import PotentialModel, compile_expr, double_well, quartic
from simulate.validation import ParameterError
from theory import weak_order
from theory.printed import vollmer as printed_vollmer
from theory.symbols import EB, VB, A, h
from theory.toy import moments as toy_moments
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, simulation_cache
from verify.stats import weighted_polyfit

PAPER = "vollmer"
th = weak_order.theta
#: Variance of the gradient estimate g (Var fhat = VAR_G / 4 = 1).
VAR_G = 4.0
POTENTIALS = {"quartic": quartic, "double_well": double_well}
TEST_FUNCTIONS = {"theta^2": th**2, "theta^4": th**4}
#: Step sizes of the sweep (the double well is stiffer: U'' = 8 in the wells, ~35 at |theta| = 1.8; explicit Euler
#: escapes it for h >~ 0.2).  Geometric grids; the s.e. of bias/h grows like h^-3/2 at a fixed cost.
SWEEP_H = {"quartic": tuple(0.15 * 2.0 ** (-k / 2) for k in range(5)),
           "double_well": tuple(0.1 * 6.0 ** (-k / 3) for k in range(4))}
#: Time units averaged per chain at every h (cost per chain: HORIZON * sum(1/h) steps).
HORIZON = {"quartic": 270.0, "double_well": 180.0}
BURN_IN_TIME = 5.0
FIT_DEGREE = 3
#: Small steps for the deterministic Richardson check of c1 (exact pi_h from the Nystrom solver).
RICHARDSON_H = (0.0025, 0.005, 0.01)
RICHARDSON_RTOL = 2e-4


# ------------------------------------------------------------------------------------------ computation
def _check(name: str, value: str, valid: Iterable[str]) -> str:
    """``value`` if it is in ``valid``, else ParameterError naming ``name``."""
    if value not in valid:
        raise ParameterError(f"{name} must be one of {tuple(valid)}, got {value!r}")
    return value


@cache
def model_for(potential: str) -> PotentialModel:
    """The PotentialModel of ``potential`` ('quartic': U = theta^4/4, 'double_well': U = (theta^2 - 1)^2)."""
    return POTENTIALS[_check("potential", potential, POTENTIALS)]()


def potential_sampler(potential: str, method: str, h_val: float) -> Sampler:
    """Euler: FullGradient x Langevin; SGLD: AdditiveNoise(VAR_G) x Langevin; mSGLD: the same x ModifiedLangevin."""
    model = model_for(potential)
    _check("method", method, weak_order.METHODS)
    if method == "euler":
        return Sampler(model, FullGradient(), Langevin(), h_val, name="euler")
    integ = Langevin() if method == "sgld" else ModifiedLangevin()
    return Sampler(model, AdditiveNoise(VAR_G), integ, h_val, name=method)


def var_fhat(method: str) -> float:
    """Var fhat = Var g / 4 (0 for Euler)."""
    return 0.0 if method == "euler" else VAR_G / 4.0


@cache
def theory_c1(potential: str, phi_name: str, method: str) -> float:
    """c1 = pi((L^2/2 - A_1) psi), Theorem 6 with eqs. (50)/(53), by quadrature (scipy)."""
    U = model_for(potential).U
    return float(weak_order.leading_bias_coefficient(U, TEST_FUNCTIONS[phi_name], method, var_fhat(method),
                                                     route="numeric"))


@cache
def target_mean(potential: str, phi_name: str) -> float:
    """pi(phi) by adaptive quadrature."""
    return weak_order.expectation(model_for(potential).U, TEST_FUNCTIONS[phi_name])


@cache
def exact_bias(potential: str, method: str, h_val: float) -> tuple[float, ...]:
    """pi_h(phi) - pi(phi) for every test function, from the Nystrom solution of the discrete chain."""
    names = list(TEST_FUNCTIONS)
    vals = weak_order.invariant_expectation(model_for(potential).U, [TEST_FUNCTIONS[n] for n in names], method, h_val,
                                    VAR_G if method != "euler" else 0.0)
    return tuple(float(v - target_mean(potential, n)) for v, n in zip(vals, names, strict=True))


def richardson_c1(potential: str, method: str) -> tuple[float, ...]:
    """lim_{h->0} (pi_h(phi) - pi(phi))/h by quadratic extrapolation in h over RICHARDSON_H (exact pi_h)."""
    hs = np.array(RICHARDSON_H)
    rows = np.array([exact_bias(potential, method, x) for x in hs]) / hs[:, None]
    X = np.vstack([hs**0, hs, hs**2]).T
    return tuple(float(c) for c in np.linalg.solve(X, rows)[0])


@cache
def asymptotic_variance_of(potential: str, phi_name: str) -> float:
    """pi(psi'^2): a time average over T time units has variance ~ this / T (used to predict the s.e.)."""
    return weak_order.asymptotic_variance(model_for(potential).U, TEST_FUNCTIONS[phi_name])


def predicted_se_c1(potential: str, phi_name: str, chains: int) -> float:
    """s.e. of the fitted c1 predicted from the diffusion's asymptotic variance (equal T at every h)."""
    hs = np.array(SWEEP_H[potential])
    se = np.full(hs.size, math.sqrt(asymptotic_variance_of(potential, phi_name) / (chains * HORIZON[potential])))
    _, cov = weighted_polyfit(hs, np.zeros(hs.size), se, FIT_DEGREE)
    return float(math.sqrt(cov[0, 0]))


@simulation_cache
def simulate_h(potential: str, method: str, h_val: float, chains: int, seed: int) -> dict:
    """Per-chain time averages of every test function at one h: (bias estimate, s.e.) across chains."""
    sampler = potential_sampler(potential, method, h_val)
    model = sampler.model
    tfs = {name: compile_expr(phi) for name, phi in TEST_FUNCTIONS.items()}
    res = run(sampler, chains, math.ceil(HORIZON[potential] / h_val), seed=seed,
              burn_in=math.ceil(BURN_IN_TIME / h_val), theta0=model.sample_target, test_functions=tfs)
    out = {}
    for name in TEST_FUNCTIONS:
        m, se = mean_and_se(res.time_averages[name][:, 0])
        out[name] = (m - target_mean(potential, name), se)
    return out


def sweep(potential: str, method: str, settings: Settings) -> dict:
    """Bias at every h of SWEEP_H and the weighted cubic fit (no intercept); the same fit of the exact (Nystrom)
    biases gives the truncation error of c1."""
    hs = np.array(SWEEP_H[potential])
    sims = [simulate_h(potential, method, float(x), settings.chains,
                       settings.seed_for(f"weak_order:{potential}:{method}:h={x:.6g}")) for x in hs]
    exact = np.array([exact_bias(potential, method, float(x)) for x in hs])
    out = {}
    for j, name in enumerate(TEST_FUNCTIONS):
        y = np.array([s[name][0] for s in sims])
        se = np.array([s[name][1] for s in sims])
        c, cov = weighted_polyfit(hs, y, se, FIT_DEGREE)
        c_ex, _ = weighted_polyfit(hs, exact[:, j], se, FIT_DEGREE)
        out[name] = dict(h=hs, y=y, se=se, exact=exact[:, j], theory=theory_c1(potential, name, method),
                         c1=float(c[0]), se_c1=float(math.sqrt(cov[0, 0])), c1_exact=float(c_ex[0]),
                         z_exact=(y - exact[:, j]) / se)
    return out


METHOD_LABEL = {"euler": "Euler", "sgld": "SGLD", "msgld": "mSGLD"}


# ------------------------------------------------------------------------------------------ checks
def leading_bias_checks(method: str, fits: dict, settings: Settings) -> tuple[list[Check], list[ExactCheck], list[str]]:
    """Per potential and test function: the fitted c1 against Theorem 6's (z-test), the Nystrom extrapolation of the
    exact bias against it (exact), and a note on the fit's truncation and the per-h agreement."""
    checks, exact, notes = [], [], []
    for pot, rows in fits.items():
        rich = richardson_c1(pot, method)
        for j, name in enumerate(TEST_FUNCTIONS):
            row = rows[name]
            checks.append(Check(f"c1 {pot} {name}", row["theory"], row["c1"], row["se_c1"],
                                params=dict(h=tuple(float(x) for x in row["h"]),
                                            var_g=VAR_G if method != "euler" else 0.0)))
            err = abs(rich[j] - row["theory"])
            exact.append(ExactCheck(
                f"Nystrom c1 {pot} {name}", err <= RICHARDSON_RTOL * max(abs(row["theory"]), 0.01),
                f"exact pi_h extrapolated to h -> 0: {rich[j]:.8g}, theory {row['theory']:.8g}"))
            trunc = row["c1_exact"] - row["theory"]
            pred = predicted_se_c1(pot, name, settings.chains)
            notes.append(
                f"{pot} {name}: c1 theory {row['theory']:.6g}, fit {row['c1']:.6g} +- {row['se_c1']:.2g} "
                f"(predicted s.e. from pi(psi'^2): {pred:.2g}); truncation of the cubic fit over h = "
                f"({', '.join(f'{x:.4g}' for x in row['h'])}): {trunc:+.3g} = {trunc / row['se_c1']:+.2f} s.e.; "
                f"per-h simulation vs exact pi_h: max |z| = {np.max(np.abs(row['z_exact'])):.2f}")
    notes.append("holds to leading order only (non-Gaussian targets): c1 is the h -> 0 slope of the bias; "
                 "the fitted h^2, h^3 terms absorb the rest")
    return checks, exact, notes


def weak_expansion_checks() -> list[ExactCheck]:
    """Exact checks of eqs. (25), (43), (49)-(53) against the derived one-step operators."""
    out = []
    L = weak_order.generator()
    printed_A1 = {"euler": weak_order.eq43_euler_A1(), "sgld": weak_order.eq49_sgld_A1(),
                  "msgld": weak_order.eq52_msgld_A1()}
    a1_eq = {"euler": "43", "sgld": "49", "msgld": "52"}
    for m in weak_order.METHODS:
        A0, A1 = weak_order.one_step_operators(m)
        out.append(ExactCheck(f"{m}: A_0 = L (eq. 25)", A0.equals(L), str(A0.coeffs)))
        out.append(ExactCheck(f"{m}: A_1 = eq. ({a1_eq[m]})", A1.equals(printed_A1[m]), str(A1.coeffs)))
        E = weak_order.error_operator(m)
        eq = "50" if m == "sgld" else "53"
        out.append(ExactCheck(f"{m}: L^2/2 - A_1 = eq. ({eq})", E.equals(weak_order.printed_error_operator(m)),
                              str(E.coeffs)))
        low = {a.func.__name__ for a in weak_order.one_step_series(m, 2).atoms(sp.Function)}
        high = {a.func.__name__ for a in weak_order.one_step_series(m, 3).atoms(sp.Function)}
        live = m == "euler" or "m3" in high  # the moments are carried: E eps^3 does appear at h^3
        out.append(ExactCheck(f"{m}: 3rd/4th noise moments absent up to h^2", live and not low & {"m3", "m4"},
                              f"functions up to h^2: {sorted(low)}; up to h^3: {sorted(high)}"))
    # SGLD's extra term is exactly -(1/2) Var fhat d^2 (eq. 50 minus eq. 53)
    extra = weak_order.error_operator("sgld") - weak_order.error_operator("euler")
    out.append(ExactCheck("SGLD - Euler error operator = -(1/2) Var fhat d^2",
                          extra.equals(weak_order.DiffOp((0, 0, -weak_order.V_fn(th) / 2))), str(extra.coeffs)))
    return out


def _ou_sign_check() -> tuple[bool, str]:
    """(41) literally on the OU example: lambda_1 = int int (L^2/2 - A_1) u pi dt dy = -1/4, and c1 = -lambda_1."""
    mu = sp.Symbol("mu", real=True)
    sig = sp.Symbol("sigma", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    U = (th - mu) ** 2 / (2 * sig**2)
    u = sig**2 * (1 - sp.exp(-t / sig**2)) + (mu + (th - mu) * sp.exp(-t / (2 * sig**2))) ** 2
    Lc = weak_order.generator().concrete(U)
    backward = sp.simplify(sp.diff(u, t) - Lc(u))
    Ec = weak_order.error_operator("euler").concrete(U)
    pi = sp.exp(-U) / sp.sqrt(2 * sp.pi * sig**2)
    inner = sp.simplify(sp.integrate(sp.expand(Ec(u) * pi), (th, -sp.oo, sp.oo), conds="none"))
    lam = sp.simplify(sp.integrate(inner, (t, 0, sp.oo), conds="none"))
    c1 = sp.simplify(weak_order.leading_bias_coefficient(U, th**2, "euler", route="symbolic"))
    ok = backward == 0 and sp.simplify(lam + sp.Rational(1, 4)) == 0 and sp.simplify(c1 + lam) == 0
    return ok, f"u solves du/dt = L u: residual {backward}; lambda_1 = {lam}; c1 (Poisson route) = {c1}"


def gaussian_exact_checks() -> list[ExactCheck]:
    """Exact checks of Theorem 6 on the Gaussian toy against eqs. (17)-(21) and the OU sign."""
    out = []
    U = A * (th - EB / A) ** 2  # f = -A theta + E(B): the toy model's drift (eq. 14); Var fhat = Var(B)
    printed_c1 = {
        "euler": sp.diff(printed_vollmer.eq18_stationary_variance().subs(VB, 0), h).subs(h, 0),
        "sgld": sp.diff(printed_vollmer.eq18_stationary_variance(), h).subs(h, 0),
        "msgld": sp.diff(printed_vollmer.eq21_stationary_variance_msgld(), h).subs(h, 0),
    }
    for m in weak_order.METHODS:
        vf = 0 if m == "euler" else VB
        c_sq = weak_order.leading_bias_coefficient(U, th**2, m, vf, route="symbolic")
        c_lin = weak_order.leading_bias_coefficient(U, th, m, vf, route="symbolic")
        toy = toy_moments.toy_leading_bias_coefficient(m)
        out.append(ExactCheck(f"{m}: c1(theta^2) = toy recurrences (eqs. 18-21)", sp.simplify(c_sq - toy) == 0,
                              f"Theorem 6: {c_sq}; recurrences: {toy}", kind="consistency"))
        out.append(ExactCheck(f"{m}: c1(theta^2) = printed eq. ({'21' if m == 'msgld' else '18'}) slope",
                              sp.simplify(c_sq - printed_c1[m]) == 0, f"printed: {printed_c1[m]}"))
        out.append(ExactCheck(f"{m}: c1(theta) = 0 (eq. 17)", sp.simplify(c_lin) == 0, str(c_lin),
                              kind="consistency"))
    sg = weak_order.leading_bias_coefficient(U, th**2, "sgld", VB, route="symbolic")
    extra = sp.simplify(sg - sp.Rational(1, 4) - printed_vollmer.eq19_excess_first_order() / h)
    out.append(ExactCheck("SGLD excess over Euler = Var(B)/(2A) (eq. 19)", extra == 0, str(extra)))
    ok, detail = _ou_sign_check()
    out.append(ExactCheck("OU: lambda_1 of (41) = -1/4, bias = -lambda_1 h = +h/4 (eqs. 40, 46)", ok, detail))
    return out


# ------------------------------------------------------------------------------------------ figure
def draw_bias(ax, fits: dict, method: str) -> None:
    """Simulated bias vs h (3 s.e. bars), the c1 h line and the exact pi_h(phi) - pi(phi)."""
    colors = iter(["tab:blue", "tab:orange", "tab:green", "tab:red"])
    for pot, rows in fits.items():
        for name, row in rows.items():
            col = next(colors)
            hs = row["h"]
            hh = np.linspace(0.0, hs.max() * 1.05, 50)
            ax.plot(hh, row["theory"] * hh, "--", lw=1, color=col)
            ax.plot(hs, row["exact"], "-", lw=0.6, color=col)
            ax.errorbar(hs, row["y"], yerr=3 * row["se"], fmt="o", ms=3, color=col, label=f"{pot} {name}")
    ax.axhline(0, color="k", lw=0.4)
    ax.set_xlabel("h")
    ax.set_ylabel("pi_h(phi) - pi(phi)")
    ax.set_title(f"{METHOD_LABEL[method]}: bias (points, 3 s.e.), c1 h (dashed), exact pi_h (line)", fontsize=7)
    ax.legend(fontsize=6)


# ------------------------------------------------------------------------------------------ claims
def leading_bias_result(method: str, settings: Settings) -> ClaimResult:
    """The leading-bias claim of ``method`` (Theorem 6 with eq. 50 or 53): sweeps on both potentials."""
    fits = {pot: sweep(pot, method, settings) for pot in POTENTIALS}
    checks, exact, notes = leading_bias_checks(method, fits, settings)
    return ClaimResult(checks=checks, exact=exact, notes=notes, figure=partial(draw_bias, fits=fits, method=method))


@claim("vollmer.thm6.euler_leading_bias", paper=PAPER,
       source="Vollmer et al. 2016, Theorem 6 (arXiv 3.3), eqs. (40)-(41), (43), (53)",
       statement="Euler on non-Gaussian 1-D targets (quartic, double well): the invariant-measure bias of phi is "
                 "c1 h + O(h^2) with c1 = pi((L^2/2 - A_1) psi), L psi = phi - pi(phi) (leading order only).",
       family="weak_order")
def euler_leading_bias(settings: Settings) -> ClaimResult:
    return leading_bias_result("euler", settings)


@claim("vollmer.eq50.sgld_leading_bias", paper=PAPER, source="Vollmer et al. 2016, Theorem 6 with eq. (50)",
       statement="SGLD with gradient noise Var fhat = 1 on the quartic and double well: bias c1 h + O(h^2) with "
                 "c1 from eq. (50), i.e. Euler's c1 plus pi(-(1/2) Var fhat psi'') (leading order only).",
       family="weak_order")
def sgld_leading_bias(settings: Settings) -> ClaimResult:
    return leading_bias_result("sgld", settings)


@claim("vollmer.eq53.msgld_leading_bias", paper=PAPER, source="Vollmer et al. 2016, eqs. (51)-(53), Theorem 6",
       statement="mSGLD with the exact Var fhat on the quartic and double well: bias c1 h + O(h^2) with Euler's c1 "
                 "(eq. 53: the gradient-noise term cancels at O(h)) (leading order only).",
       family="weak_order")
def msgld_leading_bias(settings: Settings) -> ClaimResult:
    return leading_bias_result("msgld", settings)


@claim("vollmer.sec4.weak_expansion", paper=PAPER, source="Vollmer et al. 2016, eqs. (25), (33), (43), (49)-(53)",
       statement="Taylor expansion of one step gives A_0 = L for Euler, SGLD and mSGLD; L^2/2 - A_1 is eq. (50) for "
                 "SGLD and eq. (53) (= Euler) for mSGLD; the gradient noise's 3rd/4th moments enter only at O(h^3).",
       family="weak_order_exact")
def weak_expansion(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=weak_expansion_checks())


@claim("vollmer.thm6.gaussian_exact", paper=PAPER,
       source="Vollmer et al. 2016, Theorem 6 (eqs. 40-41) on the toy model, eqs. (17)-(21), (46), Example 1",
       statement="On U = A (theta - mu)^2 with Var fhat = Var(B), the symbolic leading bias coefficient is exactly "
                 "1/4 (Euler, mSGLD) and 1/4 + Var(B)/(2A) (SGLD) for theta^2 and 0 for theta; (40) holds with "
                 "bias = -lambda_1 h (lambda_1 = -1/4 on OU).",
       family="weak_order_exact")
def gaussian_exact(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=gaussian_exact_checks(), notes=[
        "exact on the Gaussian: the Poisson solution is a polynomial and every pi-moment is closed form; the simulated "
        "counterparts are vollmer.eq18.* and vollmer.eq19.sgld_leading_coefficient"])


__all__ = ["asymptotic_variance_of", "exact_bias", "model_for", "potential_sampler", "predicted_se_c1", "richardson_c1",
           "simulate_h", "sweep", "theory_c1"]
