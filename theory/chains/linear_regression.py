"""The SGLD and SGLD-CV chains of Baker, Fearnhead, Fox & Nemeth (2019) on Bayesian linear regression: their
gradient-noise covariance in parts, and the closed form of the noise-free chain.

Workbench convention theta' = theta + (h/2) g + sqrt(h) xi. On linear regression (posterior N(mu, P^{-1}), per-datum
gradients g_i = r_i - A_i theta) both samplers are u' = F u + (h/2) eps(theta) + sqrt(h) xi with u = theta - mu,
F = I - h P/2, and a gradient error eps of conditional covariance quadratic in theta (theory.noise.minibatch):

    SGLD:    Cov(eps | theta) = K sum_i (c_i - B_i u)(c_i - B_i u)^T,  c_i = g_i(mu) - g_bar(mu), B_i = A_i - A_bar
    SGLD-CV: Cov(eps | theta) = K sum_i B_i (u - e)(u - e)^T B_i,      e = theta_hat - mu

(:func:`noise_parts`). Their stationary law (new): E u = 0 exactly, and S = E u u^T solves the linear fixed point
S = F S F^T + (h^2/4) K [C + sum_i B_i S B_i] + h I (C = sum c_i c_i^T for SGLD, sum B_i e e^T B_i for CV): the exact
engine's stationary law of the simulator's sampler, ``theory.exact_law(sgld(model, h, n)).stationary_cov()`` (and
likewise for ``sgld_cv``, ``saga_ld`` and ``sghmc_cv``). :func:`ula_stationary_cov` is the closed form of the
noise-free case (exact-gradient Langevin), checked equal to the engine's law of ``euler``.
"""

from __future__ import annotations

import numpy as np

from simulate.models.linear_regression import LinearRegressionModel
from simulate.validation import ParameterError
from theory.noise.minibatch import k_factor, linreg_parts

#: The estimators :func:`noise_parts` knows: SGLD's plain minibatch and the control variate.
LINREG_METHODS = ("sgld", "cv")


# ------------------------------------------------------------------------------------------ gradient-noise parts
def noise_parts(model: LinearRegressionModel, n: int, method: str, theta_hat, replace: bool):
    """The parts of the gradient-noise covariance of SGLD (``method="sgld"``) or SGLD-CV (``"cv"``, centred at
    ``theta_hat``) on linear regression, Cov(eps | u) = K (C + sum_i B_i u u^T B_i) with u = theta - mu.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression; its posterior N(mu, P^{-1}) is the model's (``precision``, ``posterior_mean``).
    n : int
        The minibatch size.
    method : {"sgld", "cv"}
        The estimator.
    theta_hat : array_like of shape (d,) or None
        The control variate's centre (``method="cv"`` only).
    replace : bool
        Minibatches drawn with replacement.

    Returns
    -------
    tuple
        (P, mu, K, B, C): the posterior precision and mean, the minibatch factor K, the centred per-datum Hessians
        B_i = A_i - A_bar (N, d, d) and the constant part C: for SGLD the spread of the per-datum gradients at mu,
        for the CV estimator the spread of B_i (theta_hat - mu).

    Raises
    ------
    ParameterError
        For an unknown method or a missing ``theta_hat``.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Sec. 4.1 (the per-datum gradients r_i - A_i theta of linear regression).
    """
    if method not in LINREG_METHODS:
        raise ParameterError(f"method must be one of {LINREG_METHODS}, got {method!r}")
    A, r = linreg_parts(model.Z, model.y, model.sigma)
    N = r.shape[0]
    P, mu = model.precision, model.posterior_mean
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


def ula_stationary_cov(P: np.ndarray, h: float) -> np.ndarray:
    """The stationary covariance of exact-gradient Langevin (ULA) on N(mu, P^{-1}): h (I - F^2)^{-1}, F = I - hP/2.

    The noise-free limit of SGLD; equal to the exact engine's law of ``euler``
    (tests/test_linear_gaussian_closed_forms.py).

    Parameters
    ----------
    P : numpy.ndarray, shape (d, d)
        The posterior precision.
    h : float
        The step size (stable for h < 4 / lambda_max(P)).

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (18) with Var(B) = 0 in 1-D (:doc:`/papers/vollmer`, sec. 3).
    """
    F = np.eye(P.shape[0]) - 0.5 * h * P
    return h * np.linalg.inv(np.eye(P.shape[0]) - F @ F)


__all__ = ["LINREG_METHODS", "noise_parts", "ula_stationary_cov"]
