"""Shared setting of the Chen et al. claims: Chen, Wang, Zhang, Su & Carin, "A convergence analysis for a class of
practical variance-reduction SG-MCMC" (V1: arXiv with appendix; V2: Science China Inf. Sci. 62, 012101, 2019);
digest: docs/papers/chen.md.

Exact checks (enumeration over all minibatches, sympy) judge the algebra of Lemma 2, eq. (7), Proposition 10 and
Theorem 6/2's lambda_l; exact finite-L MSE formulas for SGLD and vrSGLD on the paper's synthetic Gaussian model
(theory.noise.vr and theory.chains.chen_mse, validated against many-chain simulations of simulate.vrsgld and
simulate.sgld with a z-test per formula) judge the comparisons vrSGLD vs SGLD and Corollary 4/1's regimes; sympy
judges the budget calculus.  Model: x_i ~ N(1, 1), prior N(0, 1), N = 1000 (one data set from a fixed seed; the paper
gives neither theta_true nor theta_0).  Step h_wb = 0.1/P (the paper's eps P = 0.05), chains started at the posterior
mean for the equal-L comparisons (no transient), L = 1000 states.  vrSGLD defaults (n1, n2, m) = (100, 10, 10)."""

from __future__ import annotations

from functools import cache

from simulate import GaussianMeanModel
from theory.noise import vr as vr_noise

PAPER = "chen"
N_DATA, THETA_TRUE, DATA_SEED = 1000, 1.0, 20190101
EPS_P = 0.05  # the paper's eps * P; workbench h = 2 eps
DEFAULT_VR = (100, 10, 10)
V1V2 = {
    "thm3": "Theorem 3 (V1) / Theorem 1 (V2)", "thm6": "Theorem 6 (V1) / Theorem 2 (V2)",
    "cor4": "Corollary 4 (V1) / Corollary 1 (V2)", "rem8": "Remark 8 (V1) / Remark 4 (V2)",
}


@cache
def default_model() -> GaussianMeanModel:
    """The paper's synthetic model: N = 1000, x_i ~ N(1, 1), theta ~ N(0, 1)."""
    return GaussianMeanModel.simulate_data(N_DATA, theta_true=THETA_TRUE, seed=DATA_SEED)


@cache
def gdata() -> vr_noise.GaussianData:
    """The same data for theory.noise.vr."""
    m = default_model()
    return vr_noise.GaussianData.of(m.data, m.sigma_x, m.sigma0)


def step() -> float:
    """Workbench h = 2 eps with eps P = EPS_P."""
    return 2 * EPS_P / gdata().P


def mu() -> float:
    """Posterior mean."""
    return float(gdata().mu[0])


