"""Baker et al. (2019) on Bayesian linear regression: the exact stationary laws of SGLD, SGLD-CV (Sec. 2.2 eq. (5),
Algorithm 1), SAGA-LD (Sec. 4.4) and SGHMC-CV (Sec. 4.1) against the simulator (z-tests over per-chain time
averages), SAGA's table bookkeeping, and Theorem 2's noise bound (21).

The exact laws are new (theory.chains.linear_regression: the fixed points of the joint second moments); d = 2
regression with a varied design, chains started at the posterior mean.
"""

from __future__ import annotations

import numpy as np

import simulate.samplers as samplers_mod
from simulate import run, sgld
from simulate.arrays import namespace_of
from theory import exact_law
from theory.bounds import baker as baker_bounds
from theory.chains import linear_regression as linreg_chains
from theory.noise import minibatch as minibatch_noise
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, mean_check

from ._common import PAPER, SRC, ST_H, ST_N, ST_n, lr2

ST_BURN, ST_STEPS = 80, 200
SAGA_N, SAGA_n, SAGA_BURN, SAGA_STEPS = 8, 2, 100, 300
TABLE_N, TABLE_n, TABLE_K = 50, 5, 7  # the table-refresh experiment: N data, minibatch n, k steps
#: The five per-chain time averages of :func:`centred_moments`, by name.
UU_LABELS = ("S_11", "S_22", "S_12", "E theta_1 - mu_1", "E theta_2 - mu_2")


# ------------------------------------------------------------------------------------------ computation
def centred_moments(mu: np.ndarray):
    """The test function theta -> (c_1^2, c_2^2, c_1 c_2, c_1, c_2), c = theta - mu (in theta's array namespace, so
    that ``--backend jax`` runs it on the device)."""
    def f(th: np.ndarray) -> np.ndarray:
        c = th - mu
        return namespace_of(c).stack([c[:, 0] ** 2, c[:, 1] ** 2, c[:, 0] * c[:, 1], c[:, 0], c[:, 1]], axis=1)
    return f


def uu_theory(S: np.ndarray) -> tuple[float, ...]:
    """The exact values of the five averages of :func:`centred_moments` under a stationary covariance S."""
    return (S[0, 0], S[1, 1], S[0, 1], 0.0, 0.0)


def linreg_stationary_run(method: str, replace: bool, settings: Settings) -> tuple[np.ndarray, np.ndarray, float]:
    """SGLD or SGLD-CV (n = 5, h = 0.5/L) on the d = 2 regression: (exact stationary covariance, per-chain time
    averages of the centred moments, h)."""
    m = lr2()
    h = ST_H / m.grad_lipschitz
    mu = m.posterior_mean
    theta_hat = mu + np.array([0.03, -0.02])
    if method == "sgld":
        sampler = sgld(m, h, ST_n, replace)
    else:
        from simulate.samplers import sgld_cv

        sampler = sgld_cv(m, h, ST_n, theta_hat=theta_hat, replace=replace)
    S = exact_law(sampler).stationary_cov()
    r = run(sampler, settings.chains, ST_STEPS, burn_in=ST_BURN, theta0=mu,
            seed=settings.seed_for(f"baker.stationary.{method}.{replace}"),
            test_functions={"uu": centred_moments(mu)})
    return S, r.time_averages["uu"], h


def saga_stationary_run(n: int, noise: bool, settings: Settings) -> tuple[np.ndarray, str, np.ndarray, float, int]:
    """SAGA-LD (or its printed update without noise) on the N = 8 regression: (exact covariance, what it is, per-chain
    time averages of the centred moments, h, chains)."""
    m = lr2(SAGA_N)
    h = ST_H / m.grad_lipschitz
    mu = m.posterior_mean
    M = min(settings.chains, 4000)
    if n == SAGA_N:
        S, what = linreg_chains.ula_stationary_cov(m.precision, h), "exact-gradient Langevin (ULA) value"
    else:
        S = exact_law(samplers_mod.saga_ld(m, h, n)).stationary_cov()  # with noise, whatever ``noise`` is
        what = "exact SAGA value (joint theta-table moments)"
    sampler = samplers_mod.saga_ld(m, h, n) if noise else samplers_mod.saga_ld(m, h, n, noise=False)
    r = run(sampler, M, SAGA_STEPS, burn_in=SAGA_BURN, theta0=lambda g, k: mu + 0.02 * g.standard_normal((k, 2)),
            seed=settings.seed_for(f"baker.saga.{n}.{noise}"), test_functions={"uu": centred_moments(mu)},
            block_size=M)
    return S, what, r.time_averages["uu"], h, M


def saga_table_after_steps(settings: Settings) -> tuple[np.ndarray, ...]:
    """SAGA-LD's gradient table and running total after TABLE_K steps from the posterior mean: (table, total, the
    gradients at the start)."""
    m, n = lr2(TABLE_N), TABLE_n
    M = min(settings.chains, 4000)
    rng = np.random.default_rng(settings.seed_for("baker.saga.table"))
    sampler = samplers_mod.saga_ld(m, 0.5 / m.grad_lipschitz, n)
    state = sampler.init(np.tile(m.posterior_mean, (M, 1)), rng)
    for _ in range(TABLE_K):
        state = sampler.step(state, rng)
    table, total = state.estimator_state
    return table, total, minibatch_noise.linreg_grads(m.Z, m.y, m.sigma, m.posterior_mean)


def worst_saga_bound_ratio(settings: Settings) -> float:
    """(21): the largest exact SAGA noise / (N/n) D^2 sum_i |theta - alpha_i|^2 at 150 random (theta, table, n)."""
    m = lr2()
    rng = np.random.default_rng(settings.seed_for("baker.thm2"))
    D = float(np.linalg.norm(m.Z, axis=1).max() ** 2 / m.sigma**2)
    worst = 0.0
    for _ in range(50):
        theta = m.posterior_mean + 0.1 * rng.standard_normal(2)
        anchors = m.posterior_mean + rng.exponential(0.1) * rng.standard_normal((m.n_data, 2))
        for n in (1, 5, 50):
            ex = np.trace(minibatch_noise.saga_noise_cov_linreg(m.Z, m.y, m.sigma, theta, anchors, n))
            worst = max(worst, ex / baker_bounds.saga_bound_21(D, m.n_data, n, theta, anchors))
    return worst


# ------------------------------------------------------------------------------------------ checks
def uu_checks(prefix: str, S: np.ndarray, v: np.ndarray, params: dict) -> list[Check]:
    """The five per-chain time averages against the stationary covariance S and mean mu."""
    out = []
    for j, (lab, th) in enumerate(zip(UU_LABELS, uu_theory(S), strict=True)):
        est, se = mean_and_se(v[:, j])
        out.append(Check(f"{prefix}: {lab}", th, est, se, dict(params)))
    return out


def linreg_stationary_result(method: str, settings: Settings) -> ClaimResult:
    """Without and with replacement: the checks and the covariance against the posterior's."""
    out = ClaimResult()
    post = lr2().posterior_cov
    for replace in (False, True):
        S, v, h = linreg_stationary_run(method, replace, settings)
        out.add(*uu_checks(f"{method}, {'with' if replace else 'without'} replacement", S, v,
                           {"h": h, "n": ST_n, "N": ST_N}))
        out.notes.append(f"exact stationary covariance diag {np.diag(S)} vs posterior {np.diag(post)} (ratio "
                         f"{np.diag(S) / np.diag(post)}); h = {ST_H}/L; per-chain time averages over {ST_STEPS} "
                         f"steps after {ST_BURN} (chains start at mu)")
    return out


def saga_stationary_result(noise: bool, settings: Settings) -> ClaimResult:
    """n = N (ULA's law) and n < N (the joint theta-table law), each moment as a mean check; without the noise (the
    printed update) the second moments carry the erratum's counter-example (``expect="fail"``), the means must hold."""
    out = ClaimResult()
    for n in (SAGA_N, SAGA_n):
        S, what, v, h, M = saga_stationary_run(n, noise, settings)
        for j, (lab, th) in enumerate(zip(UU_LABELS, uu_theory(S), strict=True)):
            out.add(mean_check(f"n = {n}: {lab} = {what if j < 3 else 'posterior mean'}", th, v[:, j],
                               {"h": h, "chains": M, "N": SAGA_N}, expect="fail" if not noise and j < 3 else "hold"))
    out.notes.append(f"d = 2 linear regression, N = {SAGA_N}: with n = N SAGA uses exactly the full gradient "
                     "(table refreshed in full every step), so its stationary law is ULA's; for n < N the exact "
                     "covariance solves the fixed point of the joint (theta, anchors) second moments, averaged "
                     "over the minibatch (the exact engine: theory.chains.linear_regression."
                     "saga_stationary_cov_linreg)")
    return out


def saga_table_checks(table: np.ndarray, total: np.ndarray, g0: np.ndarray) -> list[Check | ExactCheck]:
    """After k steps a fraction 1 - (1 - n/N)^(k-1) of the table holds later gradients; total = sum of the table."""
    N, n, k = TABLE_N, TABLE_n, TABLE_K
    changed = (np.abs(table - g0[None]).max(axis=2) > 1e-12).sum(axis=1)
    err = float(np.abs(total - table.sum(axis=1)).max())
    return [mean_check(f"E #table entries holding gradients at later states after k = {k} steps = "
                       "N (1 - (1 - n/N)^(k-1)) (step 0 refreshes at theta_0 itself)",
                       N * (1 - (1 - n / N) ** (k - 1)), changed, {"N": N, "n": n, "chains": table.shape[0]}),
            ExactCheck("invariant total = sum_i table_i after k steps",
                       err < 1e-8 * max(1.0, np.abs(total).max()), f"max |total - sum table| = {err:.2e}")]


# ------------------------------------------------------------------------------------------ claims
@claim("baker.stationary.sgld_linreg", paper=PAPER,
       source=f"{SRC} Sec. 2.2 eq. (5) / Algorithm 1 on linear regression (new exact stationary law)",
       statement="SGLD on Bayesian linear regression has stationary mean mu and the covariance S solving S = F S "
                 "F^T + (h^2/4) K [C + sum_i B_i S B_i] + h I (exact; with and without replacement).",
       family="baker_stationary")
def stationary_sgld(settings: Settings) -> ClaimResult:
    return linreg_stationary_result("sgld", settings)


@claim("baker.stationary.cv_linreg", paper=PAPER,
       source=f"{SRC} Sec. 2.2 eq. (5) / Algorithm 1 on linear regression (new exact stationary law)",
       statement="SGLD-CV on Bayesian linear regression has stationary mean mu and the covariance S solving S = F S "
                 "F^T + (h^2/4) K [C + sum_i B_i S B_i] + h I (exact; with and without replacement).",
       family="baker_stationary")
def stationary_cv(settings: Settings) -> ClaimResult:
    return linreg_stationary_result("cv", settings)


@claim("baker.saga.stationary", paper=PAPER, source=f"{SRC} Sec. 4.4 (SAGA-LD of Dubey et al. 2016, noise injected)",
       statement="SAGA-LD (noise injected, table initialised at theta_0, total = full gradient) has stationary mean "
                 "mu on linear regression and the exact stationary covariance of the joint (theta, table) linear "
                 "recursion; with n = N it is exactly the full-gradient Langevin chain.",
       family="baker_saga")
def saga_stationary(settings: Settings) -> ClaimResult:
    return saga_stationary_result(True, settings)


@claim("baker.saga.printed_update_no_noise", paper=PAPER, source=f"{SRC} Sec. 4.4, the SAGA update as printed",
       statement="The printed SAGA update theta_{t+1} = theta_t + (eps/2)[grad log p(theta_t) + g_alpha_t] samples "
                 "the posterior (as the Langevin chain does).",
       family="baker_saga", expected="fails",
       erratum="The printed update has no injected noise (Dubey et al.'s SAGA-LD adds N(0, eps I)): it is "
               "stochastic gradient ascent and collapses onto the mode. Counter-example: linear regression d = 2, "
               "N = 8, n = N, h = 0.5/L: the stationary variance is ~0 instead of the Langevin value h (I - F^2)^{-1} "
               "(see the checks).")
def saga_printed_update(settings: Settings) -> ClaimResult:
    return saga_stationary_result(False, settings)


@claim("baker.saga.table_refresh", paper=PAPER,
       source=f"{SRC} Sec. 4.4 (anchor update alpha_{{t+1}}^i = theta_t, i in S_t; g_alpha update)",
       statement="SAGA replaces the stored gradients of the minibatch entries each step (without replacement) and "
                 "keeps g_alpha = sum_i grad log p(x_i | alpha_i).",
       family="baker_saga")
def saga_table_refresh(settings: Settings) -> ClaimResult:
    return ClaimResult().add(*saga_table_checks(*saga_table_after_steps(settings)))


@claim("baker.thm2.saga_noise_bound", paper=PAPER, source=f"{SRC} Theorem 2, proof step (21)",
       statement="The SAGA gradient noise satisfies E|delta_t|^2 <= D^2/(N n) sum_i E|phi_t - alpha_t^i|^2.",
       family="baker_saga")
def saga_noise_bound(settings: Settings) -> ClaimResult:
    worst = worst_saga_bound_ratio(settings)
    return ClaimResult(
        exact=[ExactCheck("exact SAGA E|xi|^2 <= (N/n) D^2 sum_i |theta - alpha_i|^2 ((21) in theta-space) at 150 "
                          "random (theta, table, n)", worst <= 1.0, f"largest ratio exact/bound {worst:.3g}")],
        notes=["Theorem 2's n_0 = O(1) then follows as for SGLD-CV; the constant (<= 4x SGLD-CV's) is not checked "
               "(it rests on A, B of Sato & Nakagawa's bound, not computed)"])


def sghmc_cv_run(settings: Settings):
    """SGHMC-CV (h = 0.1/L, alpha = 0.5, n = 5) on the d = 2 regression: (sampler, exact covariance, per-chain time
    averages of the centred moments, h, alpha)."""
    from simulate.samplers import sghmc_cv

    m = lr2()
    mu = m.posterior_mean
    theta_hat = mu + np.array([0.03, -0.02])
    h, alpha = 0.1 / m.grad_lipschitz, 0.5
    sampler = sghmc_cv(m, h, alpha, ST_n, theta_hat=theta_hat)
    S = exact_law(sampler).stationary_cov()
    r = run(sampler, settings.chains, ST_STEPS, burn_in=ST_BURN, theta0=mu, seed=settings.seed_for("baker.sghmc_cv"),
            test_functions={"uu": centred_moments(mu)})
    return sampler, S, r.time_averages["uu"], h, alpha


@claim("baker.sghmc_cv.stationary", paper=PAPER, source=f"{SRC} Sec. 4.1 (the CV estimator in SGHMC; new exact law)",
       statement="SGHMC with the control-variate gradient (SGHMC-CV, Chen et al. 2014 eq. 15, beta_hat = 0) on "
                 "linear regression has stationary mean mu and the covariance of the exact (theta, v) second-moment "
                 "fixed point.",
       family="baker_stationary")
def sghmc_cv_stationary(settings: Settings) -> ClaimResult:
    sampler, S, v, h, alpha = sghmc_cv_run(settings)
    return ClaimResult(
        checks=uu_checks("SGHMC-CV", S, v, {"alpha": alpha, "h": h, "n": ST_n}),
        notes=[f"grads per step {sampler.grads_per_step():g} (2n) plus one-off {sampler.estimator.setup_grads}; "
               f"exact stationary covariance diag {np.diag(S)} vs posterior {np.diag(lr2().posterior_cov)}"])
