"""Theorems 1-3 of Baker, Fearnhead, Fox & Nemeth (2019) made exact on linear-Gaussian models, and the exact
stationary covariance of SGLD and SGLD-CV on linear regression (docs/papers/baker.md secs. 2-4).

Workbench convention theta' = theta + (h/2) g + sqrt(h) xi. On linear regression (posterior N(mu, P^{-1}), per-datum
gradients g_i = r_i - A_i theta) both samplers are u' = F u + (h/2) eps(theta) + sqrt(h) xi with u = theta - mu,
F = I - h P/2, and a gradient error eps of conditional covariance quadratic in theta (theory.noise.minibatch):

    SGLD:    Cov(eps | theta) = K sum_i (c_i - B_i u)(c_i - B_i u)^T,  c_i = g_i(mu) - g_bar(mu), B_i = A_i - A_bar
    SGLD-CV: Cov(eps | theta) = K sum_i B_i (u - e)(u - e)^T B_i,      e = theta_hat - mu.

Stationary law (new): E u = 0 exactly, and S = E u u^T solves the linear fixed point
S = F S F^T + (h^2/4) K [C + sum_i B_i S B_i] + h I (C = sum c_i c_i^T for SGLD, sum B_i e e^T B_i for CV).
SAGA's stationary law: the joint second moments of theta and the N table anchors (:func:`saga_stationary_cov_linreg`);
SGHMC-CV: :func:`sghmc_cv_stationary_cov_linreg`. Each is the exact engine's stationary law of the simulator's sampler
on :class:`simulate.LinearRegressionModel` (``theory.linear_gaussian.exact_law``, which solves these fixed points for
every sampler); :func:`ula_stationary_cov` is the closed form of the noise-free case.

Theorem 1 (strong error vs the coupled diffusion, phi = sqrt(N)(theta - mu), phi-step eps, theta-step h = eps/N):
the exact moment recursion of docs/papers/baker.md sec. 4 for d = 1 (linear regression; the location model is z_i = 1):
a = 1 - h p/2, b = exp(-h p/2), m_u' = a m_u, m_v' = b m_v, S_uu' = a^2 S_uu + (h^2/4) E Var(eps | theta) + h,
S_vv' = b^2 S_vv + (1 - b^2)/p, S_uv' = a b S_uv + (2/p)(1 - b); strong error N (S_uu + S_vv - 2 S_uv).
Theorem 2's key step (21) and Theorem 3's Gaussian identities (R_hat = R/(1 + v/p)) are below.
"""

from __future__ import annotations

import numpy as np

from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.minibatch import Minibatch
from simulate.estimators.saga import SAGA
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.models.linear_regression import LinearRegressionModel
from simulate.sampler import Sampler
from simulate.validation import ParameterError, check_int, check_positive
from theory.linear_gaussian import exact_law
from theory.noise.minibatch import k_factor, linreg_parts

METHODS = ("sgld", "cv")


# ------------------------------------------------------------------------------------------ stationary covariance
def _posterior(A: np.ndarray, r: np.ndarray, sigma0: float) -> tuple[np.ndarray, np.ndarray]:
    P = A.sum(axis=0) + np.eye(A.shape[1]) / sigma0**2
    return P, np.linalg.solve(P, r.sum(axis=0))


def noise_parts(Z, y, sigma: float, sigma0: float, n: int, method: str, theta_hat, replace: bool):
    """Posterior precision P and mean mu, the minibatch factor K, the centred per-datum Hessians B_i and the constant
    part C of the gradient-noise covariance, Cov(eps | u) = K (C + sum_i B_i u u^T B_i): for SGLD the spread of the
    per-datum gradients at mu, for the CV estimator the spread of B_i (theta_hat - mu)."""
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    A, r = linreg_parts(Z, y, sigma)
    N = r.shape[0]
    P, mu = _posterior(A, r, check_positive("sigma0", sigma0))
    K = k_factor(N, n, replace)
    B = A - A.mean(axis=0)
    if method == "sgld":
        g = r - A @ mu
        c = g - g.mean(axis=0)
        return P, mu, K, B, c.T @ c
    if theta_hat is None:
        raise ParameterError("theta_hat must be given for method='cv'")
    Be = B @ (np.asarray(theta_hat, dtype=np.float64) - mu)
    return P, mu, K, B, Be.T @ Be


def _estimator(model: LinearRegressionModel, n: int, method: str, theta_hat, replace: bool):
    """The minibatch (``sgld``) or control-variate (``cv``, centred at ``theta_hat``) gradient estimator."""
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    if method == "sgld":
        return Minibatch(n, replace)
    if theta_hat is None:
        raise ParameterError("theta_hat must be given for method='cv'")
    return ControlVariate.at(model, n, theta_hat, replace)


def _stationary(model, estimator, integrator, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of theta under the stationary law, from the exact engine."""
    law = exact_law(Sampler(model, estimator, integrator, h))
    return law.stationary_mean(), law.stationary_cov()


def stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float, n: int, method: str = "sgld",
                          theta_hat=None, replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of the stationary law of SGLD or SGLD-CV on linear regression (exact; new).

    The mean is the posterior mean mu (linear drift, unbiased gradient); the covariance solves the fixed point in the
    module docstring: the exact engine's stationary law of ``sgld`` / ``sgld_cv`` on the model. Raises
    ParameterError when no stationary law exists (h not mean-square stable).
    """
    h = check_positive("h", h)
    model = LinearRegressionModel(Z, y, sigma, sigma0)
    return _stationary(model, _estimator(model, n, method, theta_hat, replace), Langevin(), h)


def saga_stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact stationary (mean, covariance) of theta under SAGA-LD on linear regression (new).

    State x = (u, w_1..w_N), u = theta - mu, w_i = alpha_i - mu (table_i = g_i(alpha_i) = r_i - A_i alpha_i). Given the
    minibatch S (uniform n-subset, independent of x) the step is linear: with D_i = A_i (u - w_i),
        u' = (I - hP/2) u + (h/2) [sum_j D_j - (N/n) sum_{i in S} D_i] + sqrt(h) xi,   w_i' = u (i in S), w_i (else),
    i.e. x' = M_S x + sqrt(h) e_0 xi. So E x = 0 and Sigma = E x x^T solves Sigma = E_S M_S Sigma M_S^T + h E_00: the
    exact engine's stationary law of ``saga_ld`` (its per-datum stage directions; the state has d (N + 1) dimensions,
    see :data:`theory.linear_gaussian.estimator_laws.SAGA_MAX_ENTRIES` for the largest N). Returns (mu, Sigma_uu).
    """
    h = check_positive("h", h)
    model = LinearRegressionModel(Z, y, sigma, sigma0)
    n = check_int("n", n, 1, model.n_data)
    return _stationary(model, SAGA(n), Langevin(), h)


def sghmc_cv_stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float, alpha: float, n: int, theta_hat,
                                   method: str = "cv", replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Exact stationary (mean, covariance of theta) of SGHMC with the CV (or minibatch) gradient on linear regression
    (new). Chen et al. (2014) eq. (15), M = I, beta_hat = 0, no momentum resampling:
        v' = (1 - alpha) v + h (-P u + eps) + sqrt(2 alpha h) xi,   u' = u + v'   (u = theta - mu),
    eps the gradient error with Cov(eps | u) as in :func:`stationary_cov_linreg`. With x = (u, v), x' = G x + c (h eps +
    sqrt(2 alpha h) xi), c = (I, I)^T, so E x = 0 and Sigma = G Sigma G^T + c [h^2 E Cov(eps | u) + 2 alpha h I] c^T,
    E Cov(eps | u) linear in Sigma_uu: the exact engine's stationary law of ``sghmc`` with that estimator."""
    h = check_positive("h", h)
    alpha = check_positive("alpha", alpha)
    model = LinearRegressionModel(Z, y, sigma, sigma0)
    return _stationary(model, _estimator(model, n, method, theta_hat, replace), SGHMC(alpha), h)


def ula_stationary_cov(P: np.ndarray, h: float) -> np.ndarray:
    """Closed form for exact-gradient Langevin (Euler) on N(mu, P^{-1}): S = h (I - F^2)^{-1}, F = I - hP/2 (the
    noise-free limit; equal to the engine's law of ``euler``, tests/test_linear_gaussian_closed_forms.py)."""
    F = np.eye(P.shape[0]) - 0.5 * h * P
    return h * np.linalg.inv(np.eye(P.shape[0]) - F @ F)


__all__ = ["noise_parts", "saga_stationary_cov_linreg", "sghmc_cv_stationary_cov_linreg", "stationary_cov_linreg",
           "ula_stationary_cov", "METHODS"]
