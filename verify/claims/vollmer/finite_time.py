"""Vollmer, Zygalakis & Teh (2016), Section 2.2, eq. (22), eq. (68), Appendix 10: exact finite-time theory of the
toy chain (theory.toy.finite_time) against many-chain simulation.

Every chain starts at theta_0 = 0 (Appendix 10.2) and averages theta_0 .. theta_{M-1} (eq. 22, C.1).  The per-chain
values (S2 - mu_p^2 - sigma_p^2)^2, (S1 - mu_p)^2, (S2 - S1^2)/sigma_p^2 - 1 and theta_k^p are i.i.d. across chains,
so their sample means have standard error sd/sqrt(chains).  Data: the default N = 1000 data set of the toy claims
(x_i ~ N(1, 1), seed 2016), a small data set (N = 20, x_i ~ N(1, 1)) on which sampling with and without
replacement differ by a factor 2 in Var(B), and a small skewed data set (N = 20, x_i ~ Exp(1)) on which the third
and fourth cumulants of the minibatch term matter.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache, partial
from typing import TYPE_CHECKING

import mpmath
import numpy as np

from simulate import GaussianMeanModel, Sampler, euler, msgld, run, sgld
from theory.noise import subset_moments
from theory.toy import data_average, finite_time
from theory.toy.constants import toy_constants
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, simulation_cache

from .toy import default_model, make_sampler

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PAPER = "vollmer"
SMALL_N, SMALL_SEED, SKEWED_SEED = 20, 7, 11

#: (method, r, n, replace, data, M) of the MSE2 / MSE1 / ERE simulations (theta_0 = 0).
MSE_CASES = [
    ("euler", 0.5, None, False, "default", 300),
    ("euler", 0.5, None, False, "default", 30),
    ("sgld", 0.05, 10, True, "default", 400),
    ("sgld", 0.05, 10, True, "default", 25),
    ("sgld", 0.05, 10, True, "default", 100),
    ("sgld", 0.05, 10, True, "default", 1600),
    ("msgld", 0.05, 10, True, "default", 400),
    ("sgld", 0.3, 10, False, "default", 150),
    ("sgld", 0.1, 1, False, "default", 200),
    ("msgld", 0.2, 50, True, "default", 300),
    ("sgld", 0.5, 10, False, "small", 200),
    ("msgld", 0.3, 5, False, "small", 100),
    ("sgld", 0.5, 1, True, "small", 60),
]
#: The subset of MSE_CASES also used for the ERE claim.
ERE_CASES = [c for c in MSE_CASES if c[0] != "msgld" or c[5] == 400]
#: (method, r, n, replace, data) and steps k of the higher-moment claim.
MOMENT_CASES = [
    ("euler", 0.5, None, False, "default"),
    ("sgld", 0.1, 1, True, "default"),
    ("sgld", 0.5, 2, False, "skewed"),
    ("msgld", 0.3, 3, True, "skewed"),
]
MOMENT_STEPS = (1, 3, 10, 40)
#: (method, r, n, replace, M) of the exact cross-checks (default data).
EXACT_CASES = [("euler", 0.5, None, False), ("sgld", 0.05, 10, False), ("msgld", 0.2, 10, True),
               ("sgld", 0.9, 1, True)]
EXACT_M = (1, 2, 10, 10**6, 10**9)
ENUM_M = 30
REL_TOL = mpmath.mpf("1e-25")
#: Random data (Appendix 10.2, Theorem 10 scalings at small N): (method, N, n, eps); h, M from eps.
RANDOM_CASES = [("euler", 16, None, 0.25), ("sgld", 16, 1, 0.25), ("msgld", 16, 4, 0.25)]
CHAINS_PER_DATASET = 20


# ------------------------------------------------------------------------------------------ computation
@cache
def data_model(key: str) -> GaussianMeanModel:
    """'default' (vollmer_toy, N = 1000), 'small' (N = 20, N(1, 1)) or 'skewed' (N = 20, Exp(1))."""
    if key == "default":
        return default_model()
    if key == "small":
        return GaussianMeanModel(np.random.default_rng(SMALL_SEED).normal(1.0, 1.0, SMALL_N))
    if key == "skewed":
        return GaussianMeanModel(np.random.default_rng(SKEWED_SEED).exponential(1.0, SMALL_N))
    raise ValueError(f"unknown data set {key!r}")


def _sampler(method: str, r: float, n: int | None, replace: bool, data: str) -> Sampler:
    """The simulate sampler of a case (h = r / A of its data set; Euler: n = N)."""
    model = data_model(data)
    return make_sampler(method, r, model.n_data if n is None else n, replace, model)


def case_label(method: str, r: float, n: int | None, replace: bool, data: str, M: int | None = None) -> str:
    """A short human-readable label of a case."""
    parts = [method, f"r={r:g}"]
    if method != "euler":
        parts += [f"n={n}", "with" if replace else "without"]
    if data != "default":
        parts.append(f"[{data} N={SMALL_N}]")
    if M is not None:
        parts.append(f"M={M}")
    return " ".join(parts)


@cache
def theory_for(method: str, r: float, n: int | None, replace: bool, data: str) -> finite_time.ToyFiniteTime:
    """The exact finite-time theory of a case (same data, n, scheme and float h as the sampler; theta_0 = 0)."""
    return finite_time.from_sampler(_sampler(method, r, n, replace, data), theta0=0.0)


@simulation_cache
def time_average_run(method: str, r: float, n: int | None, replace: bool, data: str, M: int, chains: int,
                     seed: int) -> dict:
    """Per-chain S2 = (1/M) sum_{k<M} theta_k^2 and S1 from theta_0 = 0 (one run per case)."""
    sampler = _sampler(method, r, n, replace, data)
    res = run(sampler, chains, M, seed=seed, theta0=0.0)
    return dict(S2=res.time_averages["theta2"][:, 0].copy(), S1=res.time_averages["theta"][:, 0].copy(),
                h=sampler.h)


def _run_case(case: tuple, settings: Settings) -> dict:
    """The (cached) simulation of one MSE/ERE case with its own seed."""
    key = "finite_time:" + case_label(*case)
    return time_average_run(*case, settings.chains, settings.seed_for(key))


def _per_chain(quantity: str, sim: dict, th: finite_time.ToyFiniteTime) -> np.ndarray:
    """i.i.d. per-chain values whose mean estimates MSE2 (eq. 22), MSE1 or the ERE (eq. 68)."""
    mu_p, s2p = float(th.posterior_mean), float(th.posterior_var)
    if quantity == "mse2":
        return (sim["S2"] - (mu_p**2 + s2p)) ** 2
    if quantity == "mse1":
        return (sim["S1"] - mu_p) ** 2
    return (sim["S2"] - sim["S1"] ** 2) / s2p - 1.0


@simulation_cache
def snapshot_run(method: str, r: float, n: int | None, replace: bool, data: str, chains: int, seed: int) -> dict:
    """theta_k for k in MOMENT_STEPS, every chain, from theta_0 = 0."""
    sampler = _sampler(method, r, n, replace, data)
    res = run(sampler, chains, 0, seed=seed, theta0=0.0, record_at=MOMENT_STEPS, test_functions=())
    return {k: v[:, 0].copy() for k, v in res.snapshots.items()}


def random_case_params(method: str, N: int, eps: float) -> dict:
    """Theorem 10 / eq. (71) scalings: Euler r = N^-eps; SGLD/mSGLD h = N^(-1-eps); M = round(N^(1+2 eps))."""
    M_ = int(round(N ** (1 + 2 * eps)))
    if method == "euler":
        return dict(r=N ** -eps, M=M_)
    return dict(h=N ** (-1 - eps), M=M_)


@simulation_cache
def random_data_run(method: str, N: int, n: int | None, eps: float, chains: int, seed: int) -> dict:
    """Fresh data set x_i ~ N(1, 1) per group of CHAINS_PER_DATASET chains; per-data-set mean of (S2 - target)^2."""
    prm = random_case_params(method, N, eps)
    n_sets = max(chains // CHAINS_PER_DATASET, 2)
    ss = np.random.SeedSequence(seed)
    vals = np.empty(n_sets)
    for i, child in enumerate(ss.spawn(n_sets)):
        rng = np.random.default_rng(child)
        model = GaussianMeanModel(1.0 + rng.standard_normal(N))
        h = prm["r"] / model.A if "r" in prm else prm["h"]
        sampler = euler(model, h) if method == "euler" else (sgld if method == "sgld" else msgld)(model, h, n)
        res = run(sampler, CHAINS_PER_DATASET, prm["M"], seed=int(rng.integers(2**62)), theta0=0.0)
        target = float(model.posterior_mean[0]) ** 2 + model.posterior_var
        vals[i] = np.mean((res.time_averages["theta2"][:, 0] - target) ** 2)
    return dict(values=vals, **prm)


def sm_enumeration_check(xs: np.ndarray, n: int) -> tuple[bool, float]:
    """Exact E S^p (p <= 4) vs all n-subsets (without) and all ordered n-tuples (with replacement)."""
    fx = [Fraction(float(v)) for v in xs]
    ok, worst = True, 0.0
    for replace, pool in ((False, list(itertools.combinations(range(len(fx)), n))),
                          (True, list(itertools.product(range(len(fx)), repeat=n)))):
        exact = subset_moments.subset_sum_moments(xs, n, replace)
        sums = [sum(fx[i] for i in c) for c in pool]
        for p in range(5):
            enum = sum(s**p for s in sums) / len(pool)
            ok &= enum == exact[p]
            worst = max(worst, float(abs(enum - exact[p]) / abs(enum)) if enum else 0.0)
    return ok, worst


def _rel(a_: mpmath.mpf, b_: mpmath.mpf) -> mpmath.mpf:
    """Relative difference; quantities that vanish exactly (E S2(1) = theta_0^2 = 0) are compared in absolute
    terms, in units of 1e-30 (the quantities here are O(1) at M = 1)."""
    return abs(a_ - b_) / max(abs(b_), mpmath.mpf(10) ** -30)


def closed_form_gaps(th: finite_time.ToyFiniteTime) -> tuple[mpmath.mpf, ...]:
    """Largest relative gaps of one case's closed forms: against the recursion T^M, the double sums, the iterated
    moments in k, and the MSE2 expansion's coefficients."""
    worst_rec, worst_enum, worst_k, worst_as = (mpmath.mpf(0),) * 4
    with mpmath.workdps(th.dps):
        for M_ in EXACT_M:
            rec = th.recursion(M_)
            for q in ("mse2", "mse1", "ere", "es2"):
                worst_rec = max(worst_rec, _rel(th.evaluate(q, M_), rec[q]))
        enum = th.enumeration(ENUM_M)
        for q in ("mse2", "mse1", "ere", "es2sq"):
            worst_enum = max(worst_enum, _rel(th.evaluate(q, ENUM_M), enum[q]))
        for k in (1, 5, 50):
            for p in (1, 2, 3, 4):
                worst_k = max(worst_k, _rel(th.moment(k, p), th.moment_recursion(k, p)))
        e0, e1, _ = th.expansion("mse2")
        sig = th.asymptotic_variance()
        worst_as = max(worst_as, _rel(e1 - 2 * th.bias_theta2() * th.transient_coefficient(), sig),
                       _rel(e0, th.bias_theta2() ** 2))
    return worst_rec, worst_enum, worst_k, worst_as


# ------------------------------------------------------------------------------------------ checks
def time_average_checks(quantity: str, cases: list, settings: Settings) -> tuple[list[Check], list[tuple]]:
    """The closed form in M of ``quantity`` against the simulated per-chain mean for each case; the figure's rows."""
    checks, rows = [], []
    for case in cases:
        sim = _run_case(case, settings)
        th = theory_for(*case[:5])
        est, se = mean_and_se(_per_chain(quantity, sim, th))
        theory_value = float(th.evaluate(quantity, case[5]))
        checks.append(Check(case_label(*case), theory_value, est, se, params=dict(h=sim["h"], M=case[5])))
        rows.append((case, est, se))
    return checks, rows


def mse2_expansion_note() -> str:
    """MSE2's expansion in 1/M for one case: bias^2, sigma_as^2 and the transient term."""
    th = theory_for("sgld", 0.05, 10, True, "default")
    e0, e1, _ = th.expansion("mse2")
    return (f"sgld r=0.05 n=10 with: MSE2(M) = bias^2 + (sigma_as^2 + 2 bias C)/M + O(M^-2) with bias^2 = "
            f"{float(e0):.6g}, sigma_as^2 = {float(th.asymptotic_variance()):.6g}, "
            f"2 bias C = {float(2 * th.bias_theta2() * th.transient_coefficient()):.6g} "
            "(docs/papers/vollmer.md sec. 4.4)")


def higher_moment_checks(case: tuple, snaps: dict) -> tuple[list[Check], list[tuple]]:
    """E theta_k^3 and E theta_k^4 of one case against the cumulant closed form; the figure's points."""
    th = theory_for(*case)
    checks, pts = [], []
    for k in MOMENT_STEPS:
        for p in (3, 4):
            est, se = mean_and_se(snaps[k] ** p)
            checks.append(Check(f"E theta^{p} {case_label(*case)} k={k}", float(th.moment(k, p)), est, se))
            pts.append((k, p, est, se))
    return checks, pts


def subset_moment_checks() -> list[ExactCheck]:
    """The subset-sum moments against enumeration, and Var(B) from them against eq. (16)."""
    xs = np.random.default_rng(0).normal(1.0, 1.0, 7)
    ok, worst = sm_enumeration_check(xs, 3)
    model = default_model()
    worst_vb = 0.0
    for replace in (False, True):
        vb = float(subset_moments.var_B(model.data[:, 0], 10, replace))
        worst_vb = max(worst_vb, abs(vb / toy_constants(model.data, 10, replace).VB - 1))
    return [ExactCheck("E S^p, p<=4: formula == enumeration of all subsets/tuples (N=7, n=3)", ok,
                       f"max rel diff {worst:.2g}"),
            ExactCheck("Var(B) from exact moments == eq. (16) (n=10, with/without)", worst_vb < 1e-12,
                       f"max rel diff {worst_vb:.2g}")]


def closed_form_checks() -> list[ExactCheck]:
    """Closed form vs recursion, double sums, iterated moments and the expansion, worst over EXACT_CASES."""
    gaps = [closed_form_gaps(theory_for(*case, "default")) for case in EXACT_CASES]
    worst_rec, worst_enum, worst_k, worst_as = (max(g[i] for g in gaps) for i in range(4))
    return [ExactCheck(f"closed form in M == 15-state recursion T^M, M in {EXACT_M}",
                       worst_rec < REL_TOL, f"max rel diff {mpmath.nstr(worst_rec, 3)}", kind="consistency"),
            ExactCheck(f"closed form == brute-force double sums (M = {ENUM_M})", worst_enum < REL_TOL,
                       f"max rel diff {mpmath.nstr(worst_enum, 3)}", kind="consistency"),
            ExactCheck("E theta_k^p (cumulant form) == iterated (C.2)-(C.5), k in (1, 5, 50)",
                       worst_k < REL_TOL, f"max rel diff {mpmath.nstr(worst_k, 3)}", kind="consistency"),
            ExactCheck("MSE2 expansion: e0 = bias^2, e1 = sigma_as^2 + 2 bias C",
                       worst_as < REL_TOL, f"max rel diff {mpmath.nstr(worst_as, 3)}", kind="consistency")]


def random_data_checks(settings: Settings) -> tuple[list[Check], list[tuple]]:
    """E_X MSE2 (exact over random data) against simulation with a fresh data set per group of chains."""
    checks, pts = [], []
    for method, N, n, eps in RANDOM_CASES:
        sim = random_data_run(method, N, n, eps, settings.chains,
                              settings.seed_for(f"random_data:{method} N={N} n={n} eps={eps}"))
        prm = {k: v for k, v in sim.items() if k in ("r", "h")}
        exact = float(data_average.expected_over_data("mse2", method, N, n, sim["M"], theta0=0.0, **prm))
        est, se = mean_and_se(sim["values"])
        lab = f"E_X MSE2 {method}{'' if n is None else f' n={n}'} N={N} M={sim['M']}"
        checks.append(Check(lab, exact, est, se, params=dict(datasets=sim["values"].size, **prm)))
        pts.append((method, N, n, eps, est, se))
    return checks, pts


# ------------------------------------------------------------------------------------------ figures
def draw_curves(ax: Axes, quantity: str, rows: list, ylabel: str, absolute: bool = False) -> None:
    """Theory curves vs M (for cases with >= 2 simulated M) and simulated points with 3 s.e. bars."""
    groups: dict = {}
    for case, est, se in rows:
        groups.setdefault(case[:5], []).append((case[5], est, se))
    for base, pts in groups.items():
        th = theory_for(*base)
        if len(pts) > 1:
            Ms = np.unique(np.geomspace(1, 3 * max(p[0] for p in pts), 50).astype(int))
            vals = np.array([float(th.evaluate(quantity, int(m))) for m in Ms])
            line, = ax.plot(Ms, np.abs(vals) if absolute else vals, lw=1, label=case_label(*base))
            color = line.get_color()
        else:
            color = None
        P = np.array(pts)
        y = np.abs(P[:, 1]) if absolute else P[:, 1]
        bars = ax.errorbar(P[:, 0], y, yerr=3 * P[:, 2], fmt="o", ms=3, color=color,
                           label=None if len(pts) > 1 else case_label(*base))
        if len(pts) == 1:  # the closed form as a cross next to the lone simulated point
            val = float(th.evaluate(quantity, int(P[0, 0])))
            ax.plot(P[:, 0], [abs(val) if absolute else val], "x", ms=6, color=bars[0].get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("M (steps averaged, theta_0 = 0)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{ylabel}: closed form (lines, x) vs simulation (dots, 3 s.e.)", fontsize=8)
    ax.legend(fontsize=5)


def draw_fourth_moments(ax: Axes, curves: list[tuple]) -> None:
    """E theta_k^4: closed form in k against the simulated points (3 s.e.)."""
    ks = np.arange(0, max(MOMENT_STEPS) + 1)
    for case, pts in curves:
        th = theory_for(*case)
        line, = ax.plot(ks, [float(th.moment(int(k), 4)) for k in ks], lw=1, label=case_label(*case))
        P = np.array([q for q in pts if q[1] == 4])
        ax.errorbar(P[:, 0], P[:, 2], yerr=3 * P[:, 3], fmt="o", ms=3, color=line.get_color())
    ax.set_xscale("symlog")
    ax.set_yscale("log")
    ax.set_xlabel("step k (theta_0 = 0)")
    ax.set_ylabel("E theta_k^4")
    ax.set_title("fourth moment: closed form in k vs simulation (3 s.e.)", fontsize=8)
    ax.legend(fontsize=5)


def draw_closed_forms(ax: Axes) -> None:
    """MSE2 in M: the closed form, the recursion T^M and the three-term expansion."""
    Ms = np.unique(np.geomspace(1, 1e9, 60).astype(np.int64))
    for case in EXACT_CASES:
        th = theory_for(*case, "default")
        line, = ax.plot(Ms, [float(th.mse2(int(m))) for m in Ms], lw=1, label=case_label(*case, "default"))
        e0, e1, e2 = (float(v) for v in th.expansion("mse2"))
        ax.plot(Ms, e0 + e1 / Ms + e2 / Ms**2, ":", lw=1, color=line.get_color())
        ax.plot(EXACT_M, [float(th.recursion(m)["mse2"]) for m in EXACT_M], "x", color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("M")
    ax.set_ylabel("MSE2")
    ax.set_title("closed form (lines), T^M (x), e0 + e1/M + e2/M^2 (dotted)", fontsize=8)
    ax.legend(fontsize=5)


def draw_random_data(ax: Axes, pts: list[tuple]) -> None:
    """E_X MSE2 in N (exact) with the simulated points (3 s.e.)."""
    Ns = np.array([10, 16, 30, 100, 300, 1000, 3000, 10000])
    for method, N, n, eps, est, se in pts:
        vals = []
        for NN in Ns:
            prm = random_case_params(method, int(NN), eps)
            M_ = prm.pop("M")
            vals.append(float(data_average.expected_over_data("mse2", method, int(NN), n, M_, **prm)))
        line, = ax.plot(Ns, vals, lw=1, label=f"{method}{'' if n is None else f' n={n}'} (exact E_X)")
        ax.errorbar([N], [est], yerr=[3 * se], fmt="o", ms=3, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (M = N^1.5; r = N^-0.25 or h = N^-1.25)")
    ax.set_ylabel("E_X MSE2")
    ax.set_title("E_X MSE2 (App. 10.2): exact vs simulation (3 s.e.)", fontsize=8)
    ax.legend(fontsize=5)


# ------------------------------------------------------------------------------------------ claims
def time_average_result(quantity: str, cases: list, ylabel: str, settings: Settings) -> ClaimResult:
    """A claim comparing one closed form in M with the simulated per-chain mean for each case."""
    checks, rows = time_average_checks(quantity, cases, settings)
    return ClaimResult(checks=checks, notes=[mse2_expansion_note()] if quantity == "mse2" else [],
                       figure=partial(draw_curves, quantity=quantity, rows=rows, ylabel=ylabel,
                                      absolute=(quantity == "ere")))


@claim("vollmer.eq22.mse2_finite_time", paper=PAPER,
       source="Vollmer et al. 2016, eq. (22) and Appendix 10.1 (C.1)-(C.7)",
       statement="The exact expected MSE of the time average of theta^2, E(S2 - mu_p^2 - sigma_p^2)^2, at finite M "
                 "from theta_0 = 0 (closed form in M; Euler, SGLD, mSGLD; with and without replacement).",
       family="finite_time")
def mse2_finite_time(settings: Settings) -> ClaimResult:
    return time_average_result("mse2", MSE_CASES, "MSE2", settings)


@claim("vollmer.sec2.mse1_finite_time", paper=PAPER,
       source="Vollmer et al. 2016, Section 2.2 (eq. 17 recursion; the posterior-mean analogue of eq. 22)",
       statement="The exact expected MSE of the time average of theta, E((1/M) sum theta_k - mu_p)^2, at finite M.",
       family="finite_time")
def mse1_finite_time(settings: Settings) -> ClaimResult:
    return time_average_result("mse1", MSE_CASES, "MSE1", settings)


@claim("vollmer.eq68.ere_finite_time", paper=PAPER, source="Vollmer et al. 2016, eq. (68)/(72), Section 6.3",
       statement="The exact expected relative error of the variance estimate, E[(S2 - S1^2)/sigma_p^2] - 1, at "
                 "finite M.",
       family="finite_time")
def ere_finite_time(settings: Settings) -> ClaimResult:
    return time_average_result("ere", ERE_CASES, "|ERE|", settings)


@claim("vollmer.app10.higher_moments", paper=PAPER,
       source="Vollmer et al. 2016, Appendix 10.1 (C.2)-(C.5); cumulant closed form (docs/papers/vollmer.md sec. 4.2)",
       statement="E theta_k^3 and E theta_k^4 follow the cumulant closed form in k (minibatch cumulants up to order "
                 "4 from the exact subset-sum moments), also on skewed data.",
       family="finite_time_moments")
def higher_moments(settings: Settings) -> ClaimResult:
    """E theta_k^3, E theta_k^4: cumulant closed form in k vs snapshots."""
    out, curves = ClaimResult(), []
    for case in MOMENT_CASES:
        snaps = snapshot_run(*case, settings.chains, settings.seed_for("finite_time_moments:" + case_label(*case)))
        checks, pts = higher_moment_checks(case, snaps)
        out.add(*checks)
        curves.append((case, pts))
    out.figure = partial(draw_fourth_moments, curves=curves)
    return out


@claim("vollmer.app10.closed_form_exact", paper=PAPER,
       source="Vollmer et al. 2016, Appendix 10.1, (C.1)-(C.7); docs/papers/vollmer.md secs. 4.2-4.5",
       statement="The closed forms in M equal the augmented linear recursion and brute-force double sums; the "
                 "subset-sum moments equal exhaustive enumeration; sigma_as^2 is the 1/M coefficient of MSE2.",
       family="finite_time_exact")
def closed_form_exact(settings: Settings) -> ClaimResult:
    """Exact identities: enumeration, eq. (16), closed form vs recursion/double sums, expansion."""
    return ClaimResult(exact=subset_moment_checks() + closed_form_checks(), figure=draw_closed_forms)


@claim("vollmer.app10_2.random_data_mse2", paper=PAPER,
       source="Vollmer et al. 2016, Appendix 10.2, Theorem 10 and eq. (71) scalings",
       statement="E over data x_i ~ N(1, 1) and over the chain of MSE2, computed exactly from Gaussian moments of "
                 "power sums, equals simulation with a fresh data set per group of chains.",
       family="random_data")
def random_data_mse2(settings: Settings) -> ClaimResult:
    """Exact E_X MSE2 (App. 10.2) vs simulation with a fresh data set per group of chains."""
    checks, pts = random_data_checks(settings)
    return ClaimResult(checks=checks, figure=partial(draw_random_data, pts=pts),
                       notes=[f"{CHAINS_PER_DATASET} chains per data set; s.e. across independent data sets"])


__all__ = ["MSE_CASES", "case_label", "data_model", "random_case_params", "theory_for", "time_average_run"]
