"""The invariant laws of LMC, SGLD, SGLDFP and SGD on Bayesian linear regression: means, covariances (closed forms
derived in :mod:`theory.chains.brosse` against the exact engine and against simulated chains) and the decomposition
C_SGLD = C_SGLDFP + C_SGD."""

from __future__ import annotations

import numpy as np

from simulate import run
from theory.chains.brosse import BROSSE_ALGORITHMS, invariant_covariances, samplers
from theory.linear_gaussian import exact_law
from verify.api import Check, ClaimResult, ExactCheck, claim, mean_and_se, simulation_cache, variance_and_se

from ._common import N_LAW, P_BATCH, PAPER, SRC, gamma, regression

BURN = 300


@simulation_cache
def _simulated(chains: int, seed_base: int) -> dict[str, np.ndarray]:
    """theta_BURN of every chain for each algorithm, started at the posterior mean (one value per chain)."""
    model = regression(N_LAW)
    out = {}
    for k, s in samplers(model, gamma(N_LAW), P_BATCH).items():
        res = run(s, chains, BURN + 1, theta0=model.posterior_mean, seed=seed_base + BROSSE_ALGORITHMS.index(k))
        out[k] = res.final
    return out


def _sim(settings) -> dict[str, np.ndarray]:
    return _simulated(settings.chains, settings.seed_for("brosse.invariant"))


@claim("brosse.linreg.invariant_means", paper=PAPER, source=f"{SRC}, Sec. 3 (Bayesian linear regression); derived "
       "here", statement="On Bayesian linear regression the invariant laws of LMC, SGLD, SGLDFP and SGD all have the "
       "posterior mean theta* as their mean (gamma = eta/N, minibatches of p with replacement).")
def invariant_means(settings) -> ClaimResult:
    model = regression(N_LAW)
    out = ClaimResult(notes=[f"N = {N_LAW}, p = {P_BATCH}, gamma = {gamma(N_LAW):.4g} (h = 2 gamma); chains start at "
                             f"theta*, theta_{BURN} compared"])
    sims = _sim(settings)
    for k, s in samplers(model, gamma(N_LAW), P_BATCH).items():
        m = exact_law(s).stationary_mean()
        out.exact.append(ExactCheck(f"{k}: the engine's invariant mean equals theta*",
                                    np.allclose(m, model.posterior_mean, rtol=1e-10, atol=1e-12),
                                    f"max |m - theta*| = {np.abs(m - model.posterior_mean).max():.3g}"))
        for j in range(model.dim):
            est, se = mean_and_se(sims[k][:, j])
            out.checks.append(Check(f"{k}: E theta_{j + 1} (simulated) = theta*_{j + 1}",
                                    float(model.posterior_mean[j]), est, se))
    return out


@claim("brosse.linreg.invariant_covariances", paper=PAPER, source=f"{SRC}, Sec. 3; closed forms derived here "
       "(theory.chains.brosse)", statement="The invariant covariances of LMC (H^-1 (I - gamma H/2)^-1) and of SGLD, "
       "SGLDFP and SGD (the fixed point C = (I - gamma H) C (I - gamma H) + gamma^2 (N/p) sum B_i C B_i + Q) on "
       "Bayesian linear regression.")
def invariant_covariances_claim(settings) -> ClaimResult:
    model = regression(N_LAW)
    closed = invariant_covariances(model, gamma(N_LAW), P_BATCH)
    out = ClaimResult()
    sims = _sim(settings)
    for k, s in samplers(model, gamma(N_LAW), P_BATCH).items():
        C = exact_law(s).stationary_cov()
        rel = float(np.abs(C - closed[k]).max() / np.abs(closed[k]).max())
        out.exact.append(ExactCheck(f"{k}: closed form = the engine's invariant covariance", rel < 1e-9,
                                    f"max relative difference {rel:.3g}"))
        x = sims[k]
        for i, j in ((0, 0), (1, 1), (0, 1)):
            if i == j:
                est, se = variance_and_se(x[:, i])
            else:
                c = (x[:, 0] - x[:, 0].mean()) * (x[:, 1] - x[:, 1].mean())
                est, se = mean_and_se(c)
            out.checks.append(Check(f"{k}: Cov(theta_{i + 1}, theta_{j + 1}) simulated = closed form",
                                    float(closed[k][i, j]), est, se))
    return out


@claim("brosse.linreg.sgld_decomposition", paper=PAPER, source=f"{SRC}, Sec. 3; new (linearity of the fixed point)",
       statement="The invariant covariance of SGLD is the sum of those of SGLDFP and SGD: C_SGLD = C_SGLDFP + C_SGD "
       "(the fixed point is linear in its source term).")
def sgld_decomposition(settings) -> ClaimResult:
    model = regression(N_LAW)
    laws = {k: exact_law(s).stationary_cov() for k, s in samplers(model, gamma(N_LAW), P_BATCH).items()}
    diff = laws["sgld"] - laws["sgldfp"] - laws["sgd"]
    rel = float(np.abs(diff).max() / np.abs(laws["sgld"]).max())
    share = float(np.trace(laws["sgd"]) / np.trace(laws["sgld"]))
    return ClaimResult(exact=[ExactCheck("C_SGLD = C_SGLDFP + C_SGD on the engine's three laws (computed separately)",
                                         rel < 1e-9, f"max relative difference {rel:.3g}")],
                       notes=[f"at N = {N_LAW}, SGD's share of tr C_SGLD is {share:.3f}"])
