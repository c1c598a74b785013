"""Shared settings of the Brosse et al. claims: the regression, the step eta / N, the minibatch size."""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate import LinearRegressionModel

PAPER = "brosse"
SRC = "Brosse, Durmus & Moulines (2018), NeurIPS 31"
#: Data of the large-N experiments (nested: the first N rows), simulated once.
N_MAX, DATA_SEED = 10_000, 2018
#: The N of the invariant-law claims, the minibatch size p (with replacement) and eta = N gamma / lambda-scale.
N_LAW, P_BATCH, ETA = 500, 10, 0.2
N_GRID = (100, 300, 1000, 3000, 10_000)


@cache
def regression(N: int) -> LinearRegressionModel:
    """Bayesian linear regression on the first N of N_MAX simulated data (p = 2 features, noise 1, prior
    N(0, 10^2 I))."""
    full = LinearRegressionModel.simulate_data(N_MAX, dim=2, seed=DATA_SEED)
    return LinearRegressionModel(full.Z[:N], full.y[:N], sigma=full.sigma, sigma0=full.sigma0)


@cache
def lam_scale() -> float:
    """lambda_max of the per-datum precision (1/N_MAX) sum_i A_i at N_MAX: the step is gamma = ETA / (N lam)."""
    m = regression(N_MAX)
    return float(np.linalg.eigvalsh(m.Z.T @ m.Z / m.sigma**2 / N_MAX)[-1])


def gamma(N: int) -> float:
    """The paper's step gamma = eta / N (in units of the data's scale: ETA / (N lambda))."""
    return ETA / (N * lam_scale())
