"""Shared setting of the Baker et al. claims: Baker, Fearnhead, Fox & Nemeth, "Control variates for stochastic
gradient MCMC" (Statistics and Computing 2019; arXiv:1706.05439), Sections 4-5 (SGLD-CV, SAGA-LD, ZV
post-processing); digest: docs/papers/baker.md.

Closed forms come from theory.noise.minibatch, theory.chains.linear_regression and theory.bounds.baker (typed from
the paper; they read the raw data arrays, never the simulator's code). Models: Bayesian linear regression
y_i ~ N(z_i^T theta, 1) with a varied design (the control-variate noise is degenerate on the Gaussian location
model, Sec. 4.1), prior N(0, 10^2 I). Statistical checks use one value per independent chain (or independent draw)
and a z-test; exact checks enumerate all minibatches or evaluate closed forms (the asymptotic claims say their
criterion).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate.models.linear_regression import LinearRegressionModel
from theory.bounds import baker as baker_bounds

PAPER = "baker"
DATA_SEED = 2019
SRC = "Baker et al. (2019)"

# stationary-covariance experiment: d = 2, N = 200, n = 5, h = 0.5/L
ST_N, ST_n, ST_H = 200, 5, 0.5

# Theorem 1 experiment (phi-space): eps = 0.05, T = 100, phi_0 = 1, theta_hat = mu + 0.5/sqrt(N)
EPS, T_STEPS, PHI0, PHI_HAT = 0.05, 100, 1.0, 0.5

N_GRID = (10**3, 10**4, 10**5, 10**6)


@cache
def lr2(N: int = ST_N) -> LinearRegressionModel:
    """d = 2 linear regression with a varied design (log-normal row scales), N data, fixed seed."""
    return LinearRegressionModel.simulate_data(N, dim=2, seed=DATA_SEED)


@cache
def lr1(N: int) -> LinearRegressionModel:
    """d = 1 linear regression with a varied design, N data, fixed seed."""
    return LinearRegressionModel.simulate_data(N, dim=1, seed=DATA_SEED + 1)


@cache
def scalar1(N: int) -> baker_bounds.Scalar1D:
    """The d = 1 regression of :func:`lr1` as the scalar summary theory.bounds.baker works with."""
    m = lr1(N)
    return baker_bounds.Scalar1D.linreg(m.Z[:, 0], m.y, m.sigma, m.sigma0)


def posterior_draws(m: LinearRegressionModel, chains: int, rng: np.random.Generator) -> np.ndarray:
    """One exact draw per chain from the Gaussian posterior of a linear regression, (chains, d)."""
    return m.posterior_mean + rng.standard_normal((chains, m.dim)) @ np.linalg.cholesky(m.posterior_cov).T
