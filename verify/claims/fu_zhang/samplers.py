"""Fu & Zhang Sec. 3.2-4: CP-SGLD and CP-SGHMC as samplers on the Gaussian mean model (blob data, k-means strata).

k = 1 is SGLD bit for bit; the stationary covariance of fixed-step CP-SGLD and CP-SGHMC (the exact discrete Lyapunov
solution, theory.chains.stratified, new) and the time-average MSE of Theorem 3.4 against the simulator (z-tests over
per-chain time averages, chains started at the posterior mean).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from simulate.estimators.allocation import allocate
from simulate.estimators.minibatch import Minibatch
from simulate.estimators.strata import Strata
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.runtime.runner import run
from simulate.samplers import cp_sghmc, cp_sgld, sgld
from theory import exact_law
from theory.chains import stratified as stratified_chains
from theory.chains.additive_noise import additive_noise_sampler
from theory.noise import stratified as stratified_noise
from verify.api import (
    Check,
    ClaimResult,
    ExactCheck,
    Settings,
    claim,
    mean_and_se,
    simulation_cache,
    stationary_variance_and_se,
)

from ._common import PAPER, SIGMA_X, B, blob_data, gauss_model, gauss_strata, posterior_precision

SGLD_HA, SGHMC_HA, SGHMC_ALPHA = 1.0, 0.5, 0.5
BURN_IN, N_STEPS = 60, 200
#: label -> (sampler kind, allocation rule, with replacement) of the stationary claims
GAUSS_CFGS = {
    "CP-SGLD Thm3.2 without": ("sgld", "neyman", False),
    "CP-SGLD Thm3.2 with": ("sgld", "neyman", True),
    "CP-SGLD prop. without": ("sgld", "proportional", False),
    "CP-SGHMC Thm3.2 without": ("sghmc", "neyman", False),
}
UNIFORM_CFG = ("SGLD (k = 1) without", ("sgld", "single", False))


# ------------------------------------------------------------------------------------------ computation
def _strata_for(rule: str) -> Strata:
    return Strata.single(gauss_model().n_data, blob_data()) if rule == "single" else gauss_strata()


def _sampler(kind: str, rule: str, replace: bool):
    model, strata = gauss_model(), _strata_for(rule)
    rule = "proportional" if rule == "single" else rule
    if kind == "sgld":
        return cp_sgld(model, SGLD_HA / posterior_precision(), strata, B, rule, replace)
    return cp_sghmc(model, SGHMC_HA / posterior_precision(), SGHMC_ALPHA, strata, B, rule, replace)


def _noise_cov(rule: str, replace: bool) -> np.ndarray:
    model, strata = gauss_model(), _strata_for(rule)
    bi = allocate(strata, B, "proportional" if rule == "single" else rule)
    return stratified_noise.gaussian_noise_cov(model.data, strata.labels, bi, SIGMA_X, replace)


def _theory_cov(kind: str, rule: str, replace: bool) -> np.ndarray:
    model, strata = gauss_model(), gauss_strata()
    a = posterior_precision()
    bi = allocate(strata, B, rule)
    Sigma = stratified_noise.gaussian_noise_cov(model.data, strata.labels, bi, SIGMA_X, replace)
    P = a * np.eye(Sigma.shape[0])
    if kind == "sgld":
        return exact_law(additive_noise_sampler(P, SGLD_HA / a, Sigma, Langevin())).stationary_cov()
    sampler = additive_noise_sampler(P, SGHMC_HA / a, Sigma, SGHMC(SGHMC_ALPHA))
    return exact_law(sampler).stationary_cov(whole_state=True)[:2, :2]


@simulation_cache
def _stationary_run(kind: str, rule: str, replace: bool, chains: int, seed: int):
    model = gauss_model()
    return run(_sampler(kind, rule, replace), chains, N_STEPS, burn_in=BURN_IN, seed=seed,
               theta0=model.posterior_mean)


def k1_runs(replace: bool, settings: Settings) -> tuple:
    """CP-SGLD with one stratum and SGLD from the same seed: (CP sampler, the two final states, the two exact noise
    covariances)."""
    model = gauss_model()
    h = SGLD_HA / posterior_precision()
    one = Strata.single(model.n_data, model.data)
    cp = cp_sgld(model, h, one, B, replace=replace)
    plain = sgld(model, h, B, replace=replace)
    kw = dict(n_chains=64, n_steps=50, seed=settings.seed_for("fu_zhang.k1"), theta0=model.posterior_mean)
    r1, r2 = run(cp, **kw), run(plain, **kw)
    return cp, r1.final, r2.final, cp.estimator.noise_cov(model), Minibatch(B, replace).noise_cov(model)


# ------------------------------------------------------------------------------------------ checks
def k1_check(replace: bool, settings: Settings) -> ExactCheck:
    """k = 1: b_1 = b, the same final states bit for bit, the same noise covariance."""
    cp, final1, final2, cov1, cov2 = k1_runs(replace, settings)
    same = np.array_equal(final1, final2)
    return ExactCheck(
        f"k = 1 ({'with' if replace else 'without'} replacement): b_1 = b, CP-SGLD = SGLD bit for bit (same "
        "seed), equal noise covariance", cp.estimator.sizes == (B,) and same and np.allclose(cov1, cov2),
        f"b_1 = {cp.estimator.sizes}; final states identical: {same}; noise cov trace {np.trace(cov1):.8g} vs "
        f"{np.trace(cov2):.8g}")


def stationary_checks(kind: str, settings: Settings) -> list[Check]:
    """Per configuration of ``kind``: the stationary mean and variance of each coordinate against the exact law."""
    model = gauss_model()
    out = []
    for label, (k, rule, replace) in GAUSS_CFGS.items():
        if k != kind:
            continue
        res = _stationary_run(k, rule, replace, settings.chains, settings.seed_for(f"fu_zhang.stat.{label}"))
        cov = _theory_cov(k, rule, replace)
        for j in range(2):
            m, se = mean_and_se(res.time_averages["theta"][:, j])
            out.append(Check(f"{label}: mean theta_{j}", float(model.posterior_mean[j]), m, se))
            v, se = stationary_variance_and_se(res.time_averages["theta2"][:, j], res.time_averages["theta"][:, j])
            out.append(Check(f"{label}: Var theta_{j}", float(cov[j, j]), v, se,
                             params=dict(burn_in=BURN_IN, L=N_STEPS)))
    return out


def noise_trace_note() -> str:
    """CP's gradient-noise trace against uniform SGLD's."""
    model = gauss_model()
    bi = allocate(gauss_strata(), B, "neyman")
    cp = np.trace(stratified_noise.gaussian_noise_cov(model.data, gauss_strata().labels, bi, SIGMA_X, False))
    grads = stratified_noise.gaussian_grads(model.data, np.zeros(2), SIGMA_X)
    uni = stratified_noise.uniform_variance(grads, B, replace=False)
    return (f"gradient-noise trace: CP (Theorem 3.2, WOR) {cp:.6g} vs uniform SGLD {uni:.6g}; posterior "
            f"variance 1/a = {1 / posterior_precision():.4g}")


def time_average_checks(settings: Settings) -> tuple[list[Check], ExactCheck]:
    """The MSE of the time averages of CP-SGLD and uniform SGLD against the exact AR(1) form, and CP's reduction of
    the noise term."""
    model = gauss_model()
    a = posterior_precision()
    h = SGLD_HA / a
    mses, checks = {}, []
    for label, (kind, rule, replace) in (("CP-SGLD Thm3.2 without", ("sgld", "neyman", False)), UNIFORM_CFG):
        res = _stationary_run(kind, rule, replace, settings.chains, settings.seed_for(f"fu_zhang.stat.{label}"))
        cov = stratified_chains.sgld_time_average_cov(a, h, _noise_cov(rule, replace), BURN_IN, N_STEPS)
        mses[label] = float(np.trace(cov))
        for j in range(2):
            sq = (res.time_averages["theta"][:, j] - model.posterior_mean[j]) ** 2
            m, se = mean_and_se(sq)
            checks.append(Check(f"{label}: MSE of time average theta_{j}", float(cov[j, j]), m, se,
                                params=dict(burn_in=BURN_IN, T=N_STEPS, h=h)))
    cp, uni = mses["CP-SGLD Thm3.2 without"], mses[UNIFORM_CFG[0]]
    floor = float(np.trace(stratified_chains.sgld_time_average_cov(a, h, np.zeros((2, 2)), BURN_IN, N_STEPS)))
    return checks, ExactCheck("CP reduces the gradient-noise term of the time-average MSE (same h, T, b)",
                              floor < cp < uni, f"exact MSE (trace): CP {cp:.4g}, uniform SGLD {uni:.4g}, "
                                                f"noise-free floor (the 1/(Th) part) {floor:.4g}", kind="consistency")


def draw_stationary_variances(ax, checks: list[Check]) -> None:
    """Simulated stationary variances (2 s.e.) against the Lyapunov theory and the posterior variance."""
    x = np.arange(len(checks))
    ax.errorbar(x, [c.estimate for c in checks], yerr=[2 * c.se for c in checks], fmt="o", label="simulated")
    ax.plot(x, [c.theory for c in checks], "k_", markersize=14, label="Lyapunov theory")
    ax.axhline(1 / posterior_precision(), color="0.6", ls=":", label="posterior variance 1/a")
    ax.set_xticks(x, [c.label.replace(": ", "\n") for c in checks], fontsize=5, rotation=30)
    ax.set(yscale="log", ylabel="stationary Var theta_j")
    ax.legend(fontsize=6)


# ------------------------------------------------------------------------------------------ claims
@claim("fu_zhang.sec32.k1_is_sgld", paper=PAPER, source="Fu & Zhang Sec. 3.2, Fig. 1 caption ('k = 1 is SGLD')",
       statement="With k = 1 cluster, CP-SGLD is SGLD (eq. 4) with minibatch size b.", family="fu_zhang_exact")
def k1_is_sgld(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=[k1_check(replace, settings) for replace in (False, True)])


def stationary_result(kind: str, settings: Settings) -> ClaimResult:
    """The stationary checks of ``kind``, the figure of their variances and the noise-trace note."""
    checks = stationary_checks(kind, settings)
    return ClaimResult(checks=checks, notes=[noise_trace_note()],
                       figure=partial(draw_stationary_variances, checks=[c for c in checks if "Var" in c.label]))


@claim("fu_zhang.cp_sgld.stationary_variance", paper=PAPER,
       source="Fu & Zhang Algorithm 1, eq. (10) with fixed step (Sec. 4); stationary law new "
           "(docs/papers/fu_zhang.md sec. 5)",
       statement="Fixed-step CP-SGLD on the Gaussian mean model is unbiased in the mean, and its stationary "
                 "covariance is (I + h Sigma/4)/(a(1 - h a/4)) with Sigma the exact eq. (10) noise covariance "
                 "(discrete Lyapunov).",
       family="fu_zhang_stationary")
def cp_sgld_stationary(settings: Settings) -> ClaimResult:
    return stationary_result("sgld", settings)


@claim("fu_zhang.cp_sghmc.stationary_variance", paper=PAPER,
       source="Fu & Zhang Sec. 4.2 (CP-SGHMC) with Chen et al. 2014 eq. (15); stationary law new "
           "(docs/papers/fu_zhang.md sec. 5)",
       statement="Fixed-step CP-SGHMC on the Gaussian mean model has stationary Cov(theta) = (2 - alpha)(2 alpha I + "
                 "h Sigma)/(a alpha (4 - 2 alpha - a h)) (discrete Lyapunov on (theta, v)).",
       family="fu_zhang_stationary")
def cp_sghmc_stationary(settings: Settings) -> ClaimResult:
    return stationary_result("sghmc", settings)


@claim("fu_zhang.thm34.time_average_mse", paper=PAPER,
       source="Fu & Zhang Theorem 3.4 (eq. 18) and its Remark; exact AR(1) form new (docs/papers/fu_zhang.md sec. 5)",
       statement="With a fixed step the MSE of the sample average decomposes into a 1/(Th) part and a gradient-noise "
                 "part proportional to the estimator's variance; CP lowers the latter (exact MSE of CP-SGLD and SGLD "
                 "time averages on the Gaussian mean model, started at the posterior mean).",
       family="fu_zhang_stationary")
def time_average_mse(settings: Settings) -> ClaimResult:
    checks, reduction = time_average_checks(settings)
    return ClaimResult(checks=checks, exact=[reduction])
