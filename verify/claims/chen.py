"""Chen, Wang, Zhang, Su & Carin, "A convergence analysis for a class of practical variance-reduction SG-MCMC"
(V1: arXiv with appendix; V2: Science China Inf. Sci. 62, 012101, 2019); digest ../shared/notes/000_002.md.

Exact checks (enumeration over all minibatches, sympy) judge the algebra of Lemma 2, eq. (7), Proposition 10 and
Theorem 6/2's lambda_l; exact finite-L MSE formulas for SGLD and vrSGLD on the paper's synthetic Gaussian model
(theory.chen_gaussian, validated here against many-chain simulations of simulate.vr.vrsgld and simulate.sgld with a
z-test per formula) judge the comparisons vrSGLD vs SGLD and Corollary 4/1's regimes; sympy judges the budget
calculus.  Model: x_i ~ N(1, 1), prior N(0, 1), N = 1000 (one data set from a fixed seed; the paper gives neither
theta_true nor theta_0).  Step h_wb = 0.1/P (the paper's eps P = 0.05), chains started at the posterior mean for the
equal-L comparisons (no transient), L = 1000 states.  vrSGLD defaults (n1, n2, m) = (100, 10, 10).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from functools import cache

import mpmath
import numpy as np
import sympy as sp
from scipy.optimize import minimize_scalar

from simulate import GaussianMeanModel, LogisticRegressionModel, block_rng, run, sgld
from simulate.estimators.vr import VRMinibatch
from simulate.samplers import vrsgld
from theory import chen_bounds as cb
from theory import chen_gaussian as cg
from theory.toy_finite_time import ToyFiniteTime, toy_finite_time

from ..registry import Check, Claim, ClaimResult, ExactCheck, Settings, register, simulation_cache
from ..stats import mean_and_se

PAPER = "chen"
N_DATA, THETA_TRUE, DATA_SEED = 1000, 1.0, 20190101
EPS_P = 0.05  # the paper's eps * P; workbench h = 2 eps
L_STEPS = 1000
SGLD_N = 10
DEFAULT_VR = (100, 10, 10)
COUNTER_VR = (20, 10, 10)
ENUM_SEED = 11
V1V2 = {
    "thm3": "Theorem 3 (V1) / Theorem 1 (V2)", "thm6": "Theorem 6 (V1) / Theorem 2 (V2)",
    "cor4": "Corollary 4 (V1) / Corollary 1 (V2)", "rem8": "Remark 8 (V1) / Remark 4 (V2)",
}


@cache
def default_model() -> GaussianMeanModel:
    """The paper's synthetic model: N = 1000, x_i ~ N(1, 1), theta ~ N(0, 1)."""
    return GaussianMeanModel.simulate_data(N_DATA, theta_true=THETA_TRUE, seed=DATA_SEED)


@cache
def gdata() -> cg.GaussianData:
    """The same data for theory.chen_gaussian."""
    m = default_model()
    return cg.GaussianData.of(m.data, m.sigma_x, m.sigma_theta)


def step() -> float:
    """Workbench h = 2 eps with eps P = EPS_P."""
    return 2 * EPS_P / gdata().P


def mu() -> float:
    """Posterior mean."""
    return float(gdata().mu[0])


def _rng_grads(N: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Arbitrary (asymmetric) per-datum gradients alpha, beta for enumeration checks."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((N, d)) + rng.standard_normal(d)
    b = a + 0.7 * rng.standard_normal((N, d)) + 0.3
    return a, b


def _rel(x: float, y: float) -> float:
    """|x - y| / max(|y|, tiny)."""
    return abs(x - y) / max(abs(y), 1e-300)


# ------------------------------------------------------------------------------------------ exact algebra


def _unbiased(settings: Settings) -> ClaimResult:
    """Enumeration: unbiasedness of the minibatch and vr gradients and eq. (7) (V1 App. B-C)."""
    t0 = time.perf_counter()
    out = ClaimResult()
    N, d = 7, 2
    a, b = _rng_grads(N, d, ENUM_SEED)
    for n in (1, 3, 6):
        mean, mse = cg.enumerate_minibatch(a, n)
        eq7 = (N - n) * N**2 * cg.gamma(a) / n
        out.exact.append(ExactCheck(
            f"minibatch n={n}: E g = sum alpha and E||dV||^2 = (N-n)N^2 Gamma/n (eq. 7)",
            np.allclose(mean, a.sum(0), rtol=1e-12, atol=1e-12) and _rel(mse, eq7) < 1e-10,
            f"N = {N}, d = {d}: |E g - sum alpha| = {np.abs(mean - a.sum(0)).max():.2e}; enumerated "
            f"{mse:.10g} vs eq. (7) {eq7:.10g}"))
    for n1, n2 in ((4, 2), (6, 1), (5, 3)):
        mean, mse = cg.enumerate_vr(a, b, n1, n2)
        ex = cg.vr_noise(a, b, n1, n2)
        out.exact.append(ExactCheck(
            f"vr (n1, n2) = ({n1}, {n2}): E g = sum alpha; E||dV||^2 = N(N-n2)s2(a-b)/n2 + N(N-n1)s2(b)/n1",
            np.allclose(mean, a.sum(0), rtol=1e-12, atol=1e-12) and _rel(mse, ex) < 1e-10,
            f"|E g - sum alpha| = {np.abs(mean - a.sum(0)).max():.2e}; enumerated {mse:.10g} vs closed form "
            f"{ex:.10g}"))
    out.notes.append("enumeration over all C(N, n) minibatches (and all independent (z, b) pairs for vr), "
                     "without replacement; with replacement eq. (7) would read N(N-1)s^2/n instead")
    out.seconds = time.perf_counter() - t0
    return out


register(Claim(
    id="chen.appbc.unbiased_and_eq7", paper=PAPER,
    source=f"Chen et al. V1 App. B eq. (7) and App. C (proofs of {V1V2['thm3']} and {V1V2['thm6']})",
    statement="The minibatch and the vr gradient (eq. 10, one sum) are unbiased; E||dV_l||^2 = (N-n)N^2 Gamma_l/n "
              "for minibatches drawn without replacement (eq. 7).",
    family="chen_algebra", run=_unbiased,
))


def _lemma2(settings: Settings) -> ClaimResult:
    """Lemma 2 (V1, V2): Gamma_l is a sample variance (sympy identity) and so >= 0."""
    t0 = time.perf_counter()
    out = ClaimResult()
    Nn = 5
    al = sp.symbols(f"a0:{Nn}", real=True)
    gam = sum(al[i] * al[j] for i in range(Nn) for j in range(Nn)) / Nn**2 - sum(
        al[i] * al[j] for i in range(Nn) for j in range(Nn) if i != j) / (Nn * (Nn - 1))
    abar = sum(al) / Nn
    ident = sp.expand(gam - sum((ai - abar) ** 2 for ai in al) / (Nn * (Nn - 1)))
    out.exact.append(ExactCheck("Gamma = sum_i (alpha_i - alpha_bar)^2/(N(N-1)) (sympy, N = 5): a variance, >= 0",
                                ident == 0, f"difference simplifies to {ident}"))
    rng = np.random.default_rng(3)
    vals = [cg.gamma(rng.standard_normal((rng.integers(2, 40), 3)) * rng.exponential(3)) for _ in range(200)]
    const = cg.gamma(np.ones((9, 2)) * 1.7)
    out.exact.append(ExactCheck("Gamma >= 0 on 200 random gradient sets; = 0 iff all alpha_i equal",
                                min(vals) > 0 and abs(const) < 1e-12,
                                f"min Gamma = {min(vals):.3g}; Gamma(equal alphas) = {const:.2e}"))
    out.seconds = time.perf_counter() - t0
    return out


register(Claim(
    id="chen.lemma2.gamma_nonnegative", paper=PAPER, source="Chen et al. Lemma 2 (V1) / Lemma 2 (V2)",
    statement="Gamma_l = (1/N^2) sum_ij E a_i.a_j - sum_{i!=j} E a_i.a_j/(N(N-1)) >= 0.",
    family="chen_algebra", run=_lemma2,
))


def _prop10(printed: bool) -> Callable[[Settings], ClaimResult]:
    """Claim runner for Prop. 10 (V1 App. D) with the corrected or the printed C_l."""

    def run_claim(settings: Settings) -> ClaimResult:
        """Run the claim (see its registration)."""
        t0 = time.perf_counter()
        out = ClaimResult()
        rows = []
        for seed, (N, n1, n2) in enumerate(((6, 4, 2), (7, 5, 2), (7, 3, 1))):
            a, b = _rng_grads(N, 2, ENUM_SEED + seed)
            _, exact = cg.enumerate_vr(a, b, n1, n2)
            dec = cg.A_term(a, n2) + cg.B_term(b, n1, n2) + cg.C_term(a, b, n2, printed=printed)
            rows.append((N, n1, n2, exact, dec))
            out.exact.append(ExactCheck(
                f"N={N}, (n1, n2)=({n1}, {n2}): A + B + C{'(printed 4 sum_i<j)' if printed else '(2 sum_i!=j)'} = "
                "enumerated E||dV||^2", _rel(dec, exact) < 1e-10,
                f"A + B + C = {dec:.8g}, enumerated {exact:.8g} (relative error {_rel(dec, exact):.2e})"))
        out.seconds = time.perf_counter() - t0
        return out
    return run_claim


register(Claim(
    id="chen.prop10.decomposition_corrected", paper=PAPER,
    source=f"Chen et al. V1 App. D, Proposition 10, eq. (12) (proof of {V1V2['thm6']}), C_l corrected",
    statement="E||dV_l||^2 = A_l + B_l + C_l with C_l = 2(1 - N/n2) sum_ij a_i.b_j + 2 X2 sum_{i!=j} a_i.b_j.",
    family="chen_algebra", run=_prop10(False),
))
register(Claim(
    id="chen.prop10.decomposition_printed", paper=PAPER,
    source=f"Chen et al. V1 App. D, Proposition 10, eq. (12) (proof of {V1V2['thm6']}), C_l as printed",
    statement="E||dV_l||^2 = A_l + B_l + C_l with the printed C_l = 2(1 - N/n2) sum_ij a_i.b_j + 4 X2 sum_{i<j} "
              "a_i.b_j.",
    family="chen_algebra", run=_prop10(True), expected="fails",
    erratum="The printed 4 X2 sum_{i<j} E a_i.b_j equals 2 X2 sum_{i!=j} only when E a_i.b_j is symmetric in (i, j), "
            "which it is not (alpha at theta_l, beta at the anchor). Counter-example (enumeration over all minibatch "
            "pairs, random alpha/beta, N = 6, n1 = 4, n2 = 2): A + B + C(printed) misses the exact E||dV||^2 by tens "
            "of percent (see the check details); with 2 X2 sum_{i!=j} it is exact.",
))


def _lambda(printed: bool) -> Callable[[Settings], ClaimResult]:
    """Claim runner for Theorem 6 (V1) / 2 (V2): lambda_l > 0, printed or corrected."""

    def run_claim(settings: Settings) -> ClaimResult:
        """Run the claim (see its registration)."""
        t0 = time.perf_counter()
        out = ClaimResult()
        gd = gdata()
        N = gd.N
        n1, n2 = DEFAULT_VR[0], DEFAULT_VR[1]
        if printed:
            stat = cg.gaussian_lambda_printed_stationary(gd, n1, n2)
            out.exact.append(ExactCheck(
                f"Gaussian model, N={N}, (n1, n2)=({n1}, {n2}): E lambda_printed > 0 at stationarity", stat > 0,
                f"E_theta~post lambda_printed = {stat:.6g} (corrected lambda = {cg.gaussian_lambda(gd, n1, n2):.6g})"))
            rng = np.random.default_rng(5)
            th = mu() + rng.standard_normal(2000) / math.sqrt(gd.P)
            lits = [cg.lambda_printed(gd.alpha(t), n1, n2, literal=True) for t in th[:200]]
            reads = [cg.lambda_printed(gd.alpha(t), n1, n2) for t in th[:200]]
            out.exact.append(ExactCheck(
                "lambda_printed > 0 for anchors drawn from the posterior (both readings of sum_ij b_i.b_i)",
                min(lits) > 0 and min(reads) > 0,
                f"200 anchors: literal reading max {max(lits):.4g}; b_j reading: {np.mean(np.array(reads) < 0):.0%} "
                f"negative, mean {np.mean(reads):.5g}"))
        else:
            lam = cg.gaussian_lambda(gd, n1, n2)
            A = cg.gaussian_A(gd, n2)
            v = cg.vr_noise_variance(gd, n1, n2)
            rng = np.random.default_rng(6)
            gen = []
            for _ in range(100):
                Nk = int(rng.integers(3, 50))
                b = rng.standard_normal((Nk, 2)) + rng.standard_normal(2) * 3
                k2 = int(rng.integers(1, Nk - 1))
                k1 = int(rng.integers(k2 + 1, Nk + 1))
                gen.append((cg.lambda_corrected(b, k1, k2), Nk**3 * (k1 - k2) * cg.gamma(b) / (k1 * k2)))
            ok_gen = all(x > 0 and _rel(x, y) < 1e-9 for x, y in gen)
            out.exact.append(ExactCheck(
                "lambda = (N/n2 - N/n1) sum_ij b_i.b_j - 2(X2 - X1) sum_i<j b_i.b_j = N^3 (n1-n2) Gamma^b/(n1 n2) > 0 "
                "for n1 > n2 (100 random cases)", ok_gen, f"min lambda = {min(x for x, _ in gen):.4g}"))
            th, tt = mu() + 0.03, mu() - 0.05
            gl = cg.lambda_corrected(gd.alpha(tt), n1, n2)
            ga = cg.A_term(gd.alpha(th), n2)
            out.exact.append(ExactCheck(
                f"Gaussian N={N}: A_l = {A:.6g}, lambda_l = {lam:.6g} independent of theta; A - lambda = the exact "
                "per-step vr gradient variance",
                _rel(gl, lam) < 1e-9 and _rel(ga, A) < 1e-9 and _rel(A - lam, v) < 1e-9,
                f"generic formulas at theta, theta_tilde: A {ga:.8g}, lambda {gl:.8g}; A - lambda = {A - lam:.8g}, "
                f"vr variance N(N-n1)S_xx/(n1(N-1)) = {v:.8g}"))
            x = np.random.default_rng(8).standard_normal(8) + 1.0
            small = cg.GaussianData.of(x)
            _, enum = cg.enumerate_vr(small.alpha(0.4), small.alpha(-0.2), 4, 2)
            exp_v = cg.vr_noise_variance(small, 4, 2)
            out.exact.append(ExactCheck("Gaussian data N = 8, (n1, n2) = (4, 2): enumerated vr variance = A - lambda",
                                        _rel(enum, exp_v) < 1e-10, f"{enum:.10g} vs {exp_v:.10g}"))
        out.seconds = time.perf_counter() - t0
        return out
    return run_claim


register(Claim(
    id="chen.thm6.lambda_printed_positive", paper=PAPER, source=f"Chen et al. {V1V2['thm6']}, lambda_l as printed",
    statement="lambda_l = (N/n1 - N/n2) sum_ij E b_i.b_i - 2(N(N-n2)/(n2(N-1)) - N(N-n1)/(n1(N-1))) sum_{i<j} "
              "E b_i.b_j > 0 for all l.",
    family="chen_algebra", run=_lambda(True), expected="fails",
    erratum="The printed lambda_l has the wrong sign on its first coefficient (and b_i.b_i for b_i.b_j). On the "
            "paper's synthetic model (N = 1000, n1 = 100, n2 = 10) its expectation over anchors from the posterior "
            "is -7.8e4 while the corrected lambda_l = N^3 (n1 - n2) Gamma/(n1 n2) is +1.02e5 (46% of anchors drawn "
            "from the posterior give a negative value); read literally (N sum_i ||b_i||^2) it is negative for every "
            "anchor.",
))
register(Claim(
    id="chen.thm6.lambda_corrected_positive", paper=PAPER,
    source=f"Chen et al. {V1V2['thm6']} (proof's last line, V1 App. D), Remark 7 (V1) / 3 (V2)",
    statement="Corrected lambda_l = (N/n2 - N/n1) sum_ij E b_i.b_j - 2(X2 - X1) sum_{i<j} E b_i.b_j = N^3 (n1 - n2) "
              "Gamma^b/(n1 n2) > 0 whenever n1 > n2; on the Gaussian model A_l - lambda_l is the per-step vr variance.",
    family="chen_algebra", run=_lambda(False),
))


ALG1_CASES = ((5, 2), (6, 3), (4, 1))
ALG1_THETA, ALG1_TILDE = (0.5, -0.3, 0.2), (-0.6, 0.9, -0.4)


def _alg1(settings: Settings) -> ClaimResult:
    """simulate.vr.VRMinibatch at fixed (theta, theta_tilde) on a small logistic model vs the exact moments."""
    t0 = time.perf_counter()
    out = ClaimResult()
    model = LogisticRegressionModel.paper_synthetic(n_data=10, seed=3)
    th, tt = np.array(ALG1_THETA), np.array(ALG1_TILDE)
    idx = np.arange(model.n_data)[:, None]
    a = model.grad_log_lik(th[None, :], idx)[:, 0, :]
    b = model.grad_log_lik(tt[None, :], idx)[:, 0, :]
    full = model.grad_log_post(th[None, :])[0]
    M = settings.chains
    rows = []
    for n1, n2 in ALG1_CASES:
        est = VRMinibatch(n1, n2, 4)
        rng = block_rng(settings.seed_for(f"chen:alg1:{n1}:{n2}"), 0)
        state = est.init(model, M, rng)
        _, state = est.estimate(model, np.tile(tt, (M, 1)), state, rng)  # l = 0: anchor refreshed at theta_tilde
        g, state = est.estimate(model, np.tile(th, (M, 1)), state, rng)  # l = 1: estimate at theta
        err = g - full
        for j in range(model.dim):
            mm, se = mean_and_se(err[:, j])
            out.checks.append(Check(f"(n1, n2)=({n1}, {n2}): E g_{j} - grad_{j} = 0", 0.0, mm, se))
        sq, se = mean_and_se(np.einsum("md,md->m", err, err))
        exact = cg.vr_noise(a, b, n1, n2)
        out.checks.append(Check(f"(n1, n2)=({n1}, {n2}): E||g - grad||^2", exact, sq, se))
        # l = 2, same epoch, same theta: only the correction batch is new, so g2 - g = (N/n2)(S_2 - S_1) with S_l the
        # sum of grad_i(theta) - grad_i(theta_tilde) over pi2_l: E||g2 - g||^2 = 2 N (N - n2) s2(alpha - beta)/n2
        # (the anchor term of vr_noise vanishes at n1 = N). A correction batch reused within the epoch gives 0.
        g2, _ = est.estimate(model, np.tile(th, (M, 1)), state, rng)
        dsq, dse = mean_and_se(np.einsum("md,md->m", g2 - g, g2 - g))
        fresh = 2 * cg.vr_noise(a, b, model.n_data, n2)
        out.exact.append(ExactCheck(f"(n1, n2)=({n1}, {n2}): successive estimates of one epoch at one theta differ",
                                    bool(dse > 0), f"E||g_2 - g_1||^2 = {dsq:.4g} over {M} chains, exact {fresh:.4g}"))
        if dse > 0:  # a zero spread (a reused correction batch) fails the exact check above; no z-test possible
            out.checks.append(Check(f"(n1, n2)=({n1}, {n2}): E||g_2 - g_1||^2 (fresh correction batch per step)",
                                    fresh, dsq, dse))
        shared = cg.enumerate_vr(a, b, n1, n2, shared_batch=True)[1]
        rows.append((f"({n1}, {n2})", exact, sq, se, shared))
        out.notes.append(f"(n1, n2) = ({n1}, {n2}): exact {exact:.5g}, simulated {sq:.5g} +- {se:.2g}; a correction "
                         f"batch taken from the anchor batch would give {shared:.5g}")

    def draw(ax) -> None:
        """Simulated vs exact vr gradient variance (and the shared-batch value)."""
        x = np.arange(len(rows))
        ax.bar(x, [r[1] for r in rows], color="tab:blue", alpha=0.5, label="exact (independent batches)")
        ax.errorbar(x, [r[2] for r in rows], yerr=[3 * r[3] for r in rows], fmt="o", color="k", label="simulation")
        ax.scatter(x, [r[4] for r in rows], marker="x", color="tab:red", label="shared batch (bug)")
        ax.set_xticks(x, [r[0] for r in rows])
        ax.set_xlabel("(n1, n2), logistic model N = 10")
        ax.set_ylabel("E||g - grad log post||^2")
        ax.set_title("Algorithm 1 estimator at fixed (theta, theta_tilde)", fontsize=8)
        ax.legend(fontsize=6)
    out.figure = draw
    out.seconds = time.perf_counter() - t0
    return out


register(Claim(
    id="chen.alg1.vr_estimator_moments", paper=PAPER,
    source=f"Chen et al. Algorithm 1 (V1, V2) and V1 App. C/D (z, b independent; proof of {V1V2['thm6']})",
    statement="At fixed (theta_l, theta_tilde) the vr gradient of Algorithm 1 is unbiased with E||dV||^2 = "
              "N(N-n2)s2(alpha-beta)/n2 + N(N-n1)s2(beta)/n1, and two estimates of one epoch at the same theta "
              "differ by fresh correction batches only: E||g_2 - g_1||^2 = 2N(N-n2)s2(alpha-beta)/n2 "
              "(checked on simulate.vr.VRMinibatch, logistic model).",
    family="chen_algebra", run=_alg1,
))


# ------------------------------------------------------------------------------------------ simulations

def _theta0_mu(rng: np.random.Generator, m: int) -> np.ndarray:
    """Initial states at the posterior mean (no transient)."""
    return np.full((m, 1), mu())


@simulation_cache
def simulate_mse(kind: str, cfg: tuple, chains: int, seed: int) -> dict:
    """Per-chain squared errors of the time averages of theta and theta^2 over L_STEPS states (theta_0 = mu)."""
    model = default_model()
    sampler = sgld(model, step(), cfg[0]) if kind == "sgld" else vrsgld(model, step(), *cfg)
    res = run(sampler, chains, L_STEPS, seed=seed, theta0=_theta0_mu)
    gd = gdata()
    e1 = (res.time_averages["theta"][:, 0] - mu()) ** 2
    e2 = (res.time_averages["theta2"][:, 0] - (mu() ** 2 + 1 / gd.P)) ** 2
    m1, s1 = mean_and_se(e1)
    m2, s2 = mean_and_se(e2)
    return dict(theta=(m1, s1), theta2=(m2, s2), grads=sampler.grads_per_step())


def exact_mse(kind: str, cfg: tuple, phi: str, L: int = L_STEPS, **kw) -> float:
    """Exact MSE (theory.chen_gaussian) of SGLD (cfg = (n,)) or vrSGLD (cfg = (n1, n2, m)), theta_0 = mu."""
    if kind == "sgld":
        return cg.sgld_mse(gdata(), step(), L, cfg[0], phi, theta0=mu())
    return cg.vr_mse(gdata(), step(), L, cg.VRConfig(*cfg), phi, theta0=mu(), **kw)


SIM_CASES = (("sgld", (SGLD_N,)), ("vr", DEFAULT_VR), ("vr", COUNTER_VR))


def _lab(kind: str, cfg: tuple) -> str:
    """A label for a sampler configuration."""
    return f"SGLD n={cfg[0]}" if kind == "sgld" else f"vrSGLD {cfg}"


def _mse_formulas(settings: Settings) -> ClaimResult:
    """Exact finite-L MSE (notes 6.3) vs many-chain simulation, z-test per formula."""
    t0 = time.perf_counter()
    out = ClaimResult()
    pts = []
    for kind, cfg in SIM_CASES:
        sim = simulate_mse(kind, cfg, settings.chains, settings.seed_for(f"chen:{kind}:{cfg}"))
        for phi in ("theta", "theta2"):
            th = exact_mse(kind, cfg, phi)
            est, se = sim[phi]
            out.checks.append(Check(f"MSE {phi} {_lab(kind, cfg)}", th, est, se, params=dict(L=L_STEPS, h=step())))
            pts.append((f"{_lab(kind, cfg)} {phi}", th, est, se))
            if kind == "vr":
                imp = exact_mse(kind, cfg, phi, paper_implied=True)
                extra = ""
                if phi == "theta2":
                    ga = exact_mse(kind, cfg, phi, gaussian_noise=True)
                    extra = (f"; Gaussian-noise approximation (notes 6.3) {ga:.5g}: error {ga / th - 1:+.2%} of exact, "
                             f"{(ga - est) / se:+.2f} s.e. from the simulation")
                out.notes.append(f"{_lab(kind, cfg)} {phi}: exact (anchor noise frozen for m steps) {th:.5g}, "
                                 f"simulated {est:.5g} +- {se:.2g}; independent-noise ('paper-implied') {imp:.5g}"
                                 + extra)

    def draw(ax) -> None:
        """Draw this claim's figure on ``ax``."""
        for i, (_lab, th, est, se) in enumerate(pts):
            ax.errorbar([est / th], [i], xerr=[3 * se / th], fmt="o", ms=3)
        ax.axvline(1, color="k", lw=0.5)
        ax.set_yticks(range(len(pts)), [p[0] for p in pts], fontsize=6)
        ax.set_xlabel("simulated MSE / exact MSE (3 s.e. bars)")
        ax.set_title(f"exact finite-L MSE vs simulation, L={L_STEPS}, eps P={EPS_P}", fontsize=8)
    out.figure = draw
    out.seconds = time.perf_counter() - t0
    return out


register(Claim(
    id="chen.gaussian.exact_mse_formulas", paper=PAPER,
    source="Chen et al. synthetic model (V1 'A synthetic experiment' / V2 sec. 5.1); notes 000_002 sec. 6.3",
    statement="On x_i ~ N(theta, 1), theta ~ N(0, 1), N = 1000, the exact finite-L MSEs of the time averages of theta "
              "and theta^2 (SGLD; vrSGLD with the anchor noise frozen for m steps) match many-chain simulations.",
    family="chen_vr", run=_mse_formulas,
))


def _ratio_fig(rows: list, title: str) -> Callable:
    """Figure: exact and paper-implied MSE ratios vr/SGLD."""
    def draw(ax) -> None:
        """Draw this claim's figure on ``ax``."""
        labs = [r[0] for r in rows]
        ax.barh(range(len(rows)), [r[1] for r in rows], color="tab:blue", label="exact (frozen anchor noise)")
        ax.scatter([r[2] for r in rows], range(len(rows)), color="tab:orange", zorder=3, label="paper-implied")
        ax.axvline(1, color="k", lw=0.5)
        ax.set_xscale("log")
        ax.set_xlim(0.2, 6)
        ax.set_yticks(range(len(rows)), labs, fontsize=6)
        ax.set_xlabel("MSE(vrSGLD) / MSE(SGLD n=10)")
        ax.set_title(title, fontsize=8)
        ax.legend(fontsize=6)
    return draw


def _vr_vs_sgld(cfg: tuple, passes: bool) -> Callable[[Settings], ClaimResult]:
    """Claim runner: vrSGLD(cfg) vs SGLD(n2) at equal L or equal gradient evaluations (exact MSE)."""

    def run_claim(settings: Settings) -> ClaimResult:
        """Run the claim (see its registration)."""
        t0 = time.perf_counter()
        out = ClaimResult()
        rows = []
        model = default_model()
        sampler = vrsgld(model, step(), *cfg)
        costs = {"actual cost 2 n2 + n1/m": sampler.grads_per_step()}
        if passes:
            costs["paper cost n2 + n1/m"] = sampler.estimator.paper_grads_per_step(model)
        for phi in ("theta", "theta2"):
            vr = exact_mse("vr", cfg, phi)
            imp = exact_mse("vr", cfg, phi, paper_implied=True)
            for cname, cost in (costs.items() if passes else [("equal L", SGLD_N)]):
                Ls = round(L_STEPS * cost / SGLD_N)
                sg = exact_mse("sgld", (SGLD_N,), phi, L=Ls)
                ratio = vr / sg
                rows.append((f"{phi} {cname}", ratio, imp / sg))
                out.exact.append(ExactCheck(
                    f"{phi}: MSE(vrSGLD {cfg}, L={L_STEPS}) < MSE(SGLD n={SGLD_N}, L={Ls}) [{cname}]", ratio < 1,
                    f"exact MSEs {vr:.5g} vs {sg:.5g}: ratio {ratio:.3f} (paper-implied, independent noise: "
                    f"{imp / sg:.3f}); asymptotic criterion m(N-n1)/n1 = {cfg[2] * (N_DATA - cfg[0]) / cfg[0]:.3g} "
                    f"vs (N-n2)/n2 = {(N_DATA - SGLD_N) / SGLD_N:.3g}"))
        if not passes:
            sv = simulate_mse("vr", cfg, settings.chains, settings.seed_for(f"chen:vr:{cfg}"))
            ss = simulate_mse("sgld", (SGLD_N,), settings.chains, settings.seed_for(f"chen:sgld:{(SGLD_N,)}"))
            for phi in ("theta", "theta2"):
                out.notes.append(f"simulated ratio {phi}: {sv[phi][0] / ss[phi][0]:.3f} ({settings.chains} chains; the "
                                 "formulas are validated in chen.gaussian.exact_mse_formulas)")
        out.figure = _ratio_fig(rows, f"vrSGLD {cfg} vs SGLD n={SGLD_N}" + (" at equal data passes" if passes else
                                                                                " at equal L"))
        out.seconds = time.perf_counter() - t0
        return out
    return run_claim


register(Claim(
    id="chen.thm6.vr_beats_sgld_equal_L", paper=PAPER,
    source=f"Chen et al. {V1V2['thm6']} (improvement O(lambda_M/L) over SGLD), defaults n1=100, n2=10, m=10",
    statement="At the paper's defaults vrSGLD has a smaller MSE than SGLD with n = n2 = 10 at the same number of "
              "iterations L (phi = theta and theta^2 on the synthetic model).",
    family="chen_vr", run=_vr_vs_sgld(DEFAULT_VR, False),
))
register(Claim(
    id="chen.thm6.n1_gt_n2_suffices", paper=PAPER,
    source=f"Chen et al. {V1V2['thm6']}: lambda_l > 0 whenever n1 > n2, so the vr bound improves SGLD's",
    statement="vrSGLD beats SGLD(n = n2) at equal L for any n1 > n2; counter-example candidate (n1, n2, m) = "
              "(20, 10, 10).",
    family="chen_vr", run=_vr_vs_sgld(COUNTER_VR, False), expected="fails",
    erratum="Theorem 6/2 applies Lemma 1 with the per-step E||dV_l||^2 and so ignores that the anchor batch is shared "
            "by the m steps of an epoch: the gradient errors are correlated and the long-run noise is about m (A - "
            "lambda), not A - lambda. vr beats SGLD asymptotically only if m(N-n1)/n1 < (N-n2)/n2. Counter-example: "
            "(n1, n2, m) = (20, 10, 10), N = 1000, eps P = 0.05, L = 1000 from the posterior mean: exact MSE ratio "
            "vr/SGLD(n=10) = 3.91 (theta) and 4.11 (theta^2), simulated 3.7 and 3.9, while the paper's "
            "independent-noise reading predicts 0.63.",
))
register(Claim(
    id="chen.remark8.vr_beats_sgld_equal_passes", paper=PAPER,
    source=f"Chen et al. {V1V2['rem8']} and the experiments ('always improves ... for the same computational time')",
    statement="At the defaults (100, 10, 10) vrSGLD has a smaller MSE than SGLD(n = 10) for the same number of data "
              "passes (per-datum gradient evaluations).",
    family="chen_vr", run=_vr_vs_sgld(DEFAULT_VR, True), expected="fails",
    erratum="On the paper's synthetic model (N = 1000, eps P = 0.05, vr L = 1000 from the posterior mean) vrSGLD "
            "(100, 10, 10) is worse than SGLD(n = 10) given the same gradient evaluations: exact MSE ratio 2.74 "
            "(theta) / 2.65 (theta^2) with Algorithm 1's actual cost 2 n2 + n1/m = 30 per step, and 1.84 / 1.80 with "
            "the paper's count n2 + n1/m = 20. (At equal L it gains only 7%, not the 67% the independent-noise reading "
            "implies.)",
))


# ------------------------------------------------------------------------------------------ Corollary 4/1

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
    t0 = time.perf_counter()
    out = ClaimResult()
    tab = budget_table()
    g = cg.gaussian_gamma(gdata())
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
                     "MSE exact (theory.toy_finite_time) for the theta^2 average")
    for T in BUDGETS:
        out.notes.append(f"T = {T:.0e}: " + "; ".join(
            f"n={n}: " + ", ".join(f"{pol.split(' per')[0]} {tab[pol][T][n]:.4g}" for pol in tab) for n in BATCHES))
    out.seconds = time.perf_counter() - t0
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
        t0 = time.perf_counter()
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
        out.seconds = time.perf_counter() - t0
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

__all__ = ["budget_mse", "budget_table", "default_model", "exact_mse", "gdata", "simulate_mse", "step"]
