"""Fu & Zhang's (AISTATS 2017) CP-SGLD chain on the Gaussian mean model, exactly (new).

With a theta-free gradient noise of covariance Sigma (the stratified estimator's on the Gaussian mean model,
:func:`theory.noise.stratified.gaussian_noise_cov`) and grad log posterior c - a theta, fixed-step (CP-)SGLD is a
linear recursion with constant noise; its exact law is the engine's, ``theory.exact_law(additive_noise_sampler(a I, h,
Sigma, Langevin()))`` (:mod:`theory.chains.additive_noise`; SGHMC likewise with ``SGHMC(alpha)``). Here:

* Theorem 3.3 (eq. 17), |E phihat_T - phibar| = O(1/(T h) + h), made exact for CP-SGLD (new): :func:`time_average_bias`,
  :func:`cp_sgld_leading_bias_coefficient` (the bound's explicit constants are
  theory.bounds.fu_zhang.thm33_bias_bound_constants). From a deterministic theta_0 = mu + e_0, with rho = 1 - h a/2,
  E theta_l = mu + rho^l e_0 and Cov theta_l = (1 - rho^(2l)) Sigma_inf, Sigma_inf = (I + h Sigma/4)/(a (1 - h a/4))
  the stationary covariance (the fixed point of Cov = F Cov F^T + h I + h^2 Sigma/4, F = 1 - h a/2; checked equal to
  the engine's in tests/test_linear_gaussian_closed_forms.py). The paper's estimator averages theta_1..theta_T
  (Sec. 3.4), so with G_1 = sum_{l=1}^T rho^l and G_2 = sum_{l=1}^T rho^(2l):

      bias(theta_j)      = e_0j G_1 / T,
      bias(||theta||^2)  = (tr Sigma_inf - d/a) + [2 mu.e_0 G_1 + (||e_0||^2 - tr Sigma_inf) G_2] / T,
      tr Sigma_inf - d/a = h (tr Sigma + d a) / (4 a (1 - h a/4)).

  The O(h) constant (tr Sigma + d a)/(4 a) carries tr Sigma, the gradient-noise variance: the estimator enters the
  bias's constant, not only the MSE (cf. Vollmer et al. eq. 19).
* The structure of Theorem 3.4: the exact covariance of the time average from the posterior mean
  (:func:`sgld_time_average_cov`).
"""

from __future__ import annotations

import numpy as np

from simulate.validation import ParameterError, check_int, check_positive


def _sigma_inf(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Sigma_inf = (I + h Sigma/4) / (a (1 - h a/4)), stable iff 0 < h a < 4: the stationary covariance of
    fixed-step (CP-)SGLD on the Gaussian mean model with grad log posterior c - a theta and a theta-free gradient
    noise of covariance Sigma (new). It is the fixed point of Cov = F Cov F^T + (h I + h^2 Sigma/4), F = 1 - h a/2,
    checked equal to the exact engine's ``exact_law(additive_noise_sampler(a I, h, Sigma, Langevin()))
    .stationary_cov()`` (:mod:`theory.chains.additive_noise`) in tests/test_linear_gaussian_closed_forms.py; the
    bias formulas below are written with it."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return (np.eye(Sigma.shape[0]) + 0.25 * h * Sigma) / (a * (1.0 - 0.25 * h * a))


def sgld_time_average_cov(a: float, h: float, Sigma: np.ndarray, burn_in: int, n_steps: int) -> np.ndarray:
    """Exact covariance of the time average (1/T) sum_{k=b}^{b+T-1} theta_k of fixed-step (CP-)SGLD on the Gaussian
    mean model started at theta_0 = the posterior mean (new; the structure of Theorem 3.4, docs/papers/fu_zhang.md
    sec. 5).

    theta_k - mu = sum_{j<k} rho^{k-1-j} e_j with rho = 1 - h a/2 and Cov e_j = Q = h I + h^2 Sigma/4, so
    Cov = (1/T^2) sum_j c_j^2 Q with c_j = sum_{k=max(b, j+1)}^{b+T-1} rho^{k-1-j}. Its trace is the MSE of the
    posterior-mean estimate (the chain is unbiased here); for large T it is about (1/T)(4/(a^2 h) + tr Sigma/a^2).

    Parameters
    ----------
    a : float
        The posterior precision per coordinate (grad log posterior c - a theta), > 0.
    h : float
        The step size.
    Sigma : array_like, shape (d, d)
        The gradient noise's covariance (free of theta).
    burn_in : int
        b, the first state averaged.
    n_steps : int
        T, the number of states averaged.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Fu & Zhang (2017), Theorem 3.4's structure, made exact (new; :doc:`/papers/fu_zhang`, sec. 5).
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    rho = 1.0 - 0.5 * h * a
    b, T = int(burn_in), int(n_steps)
    j = np.arange(b + T - 1)
    lo = np.maximum(b, j + 1)
    hi = b + T - 1
    # sum_{k=lo}^{hi} rho^{k-1-j} = rho^{lo-1-j} (1 - rho^{hi-lo+1}) / (1 - rho)
    c = rho ** (lo - 1 - j) * (1.0 - rho ** (hi - lo + 1)) / (1.0 - rho)
    Q = h * np.eye(Sigma.shape[0]) + 0.25 * h * h * Sigma
    return float(np.sum(c * c)) / T**2 * Q


def check_cp_step(a: float, h: float, T: int) -> tuple[float, float, int]:
    """(a, h, T) checked for the CP-SGLD bias formulas: a, h > 0 with h a <= 2 (rho = 1 - h a/2 in [0, 1)), T >= 1.

    Parameters
    ----------
    a : float
        The posterior precision per coordinate (grad log posterior c - a theta), > 0.
    h : float
        The step size.
    T : int
        The number of states averaged.

    Returns
    -------
    tuple
        (a, h, T) as float, float, int.

    Raises
    ------
    ParameterError
        When a or h is not positive, h a > 2, or T < 1.
    """
    a = check_positive("a", a)
    h = check_positive("h", h)
    if h * a > 2:
        raise ParameterError(f"h must satisfy 0 < h a <= 2 (rho = 1 - h a/2 in [0, 1)), got h a = {h * a}")
    return a, h, check_int("T", T, 1)


def start_deviation(Sigma, mu, theta0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sigma as (d, d), mu as (d,) and the start's deviation e_0 = theta0 - mu, shapes checked.

    Parameters
    ----------
    Sigma : array_like
        The gradient noise's covariance (a number for d = 1).
    mu : array_like
        The posterior mean.
    theta0 : array_like
        The deterministic start.

    Returns
    -------
    Sigma : numpy.ndarray, shape (d, d)
    mu : numpy.ndarray, shape (d,)
    e0 : numpy.ndarray, shape (d,)

    Raises
    ------
    ParameterError
        When the shapes do not match or a value is not finite.
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    mu = np.asarray(mu, dtype=np.float64).reshape(-1)
    theta0 = np.asarray(theta0, dtype=np.float64).reshape(-1)
    d = mu.size
    if Sigma.shape != (d, d) or theta0.size != d:
        raise ParameterError(f"Sigma must be ({d}, {d}) and theta0 of length {d}, got {Sigma.shape}, {theta0.size}")
    if not (np.all(np.isfinite(Sigma)) and np.all(np.isfinite(mu)) and np.all(np.isfinite(theta0))):
        raise ParameterError("Sigma, mu and theta0 must be finite")
    return Sigma, mu, theta0 - mu


def geometric_sums(rho: float, T: int) -> tuple[float, float]:
    """The geometric sums G_1 = sum_{l=1}^T rho^l and G_2 = sum_{l=1}^T rho^(2l), without cancellation.

    Parameters
    ----------
    rho : float
        0 <= rho < 1.
    T : int
        The number of terms.

    Returns
    -------
    G1 : float
    G2 : float
    """
    return (rho * -np.expm1(T * np.log(rho)) / (1 - rho) if rho > 0 else 0.0,
            rho * rho * -np.expm1(2 * T * np.log(rho)) / (1 - rho * rho) if rho > 0 else 0.0)


def time_average_bias(a: float, h: float, Sigma, mu, theta0, T: int) -> dict[str, np.ndarray | float]:
    """The exact bias E[(1/T) sum_{l=1}^T phi(theta_l)] - phibar of CP-SGLD's time average on the Gaussian mean model.

    Parameters
    ----------
    a : float
        The posterior precision per coordinate (grad log posterior c - a theta), > 0.
    h : float
        The step size.
    Sigma : array_like, shape (d, d)
        The gradient noise's covariance (free of theta).
    mu : array_like, shape (d,)
        The posterior mean.
    theta0 : array_like, shape (d,)
        The deterministic start.
    T : int
        The number of states averaged (theta_1..theta_T, as the paper's estimator).

    Returns
    -------
    dict
        "theta": the bias per coordinate for phi = theta, (d,); "sq_norm": the bias for phi = ``||theta||^2``;
        "stationary_sq_norm": its stationary part (T -> infinity).

    Raises
    ------
    ParameterError
        As :func:`check_cp_step` and :func:`start_deviation`.

    References
    ----------
    Fu & Zhang (2017), Theorem 3.3, eq. (17), made exact (new; module docstring; :doc:`/papers/fu_zhang`, sec. 5).
    """
    a, h, T = check_cp_step(a, h, T)
    Sigma, mu, e0 = start_deviation(Sigma, mu, theta0)
    d = mu.size
    rho = 1 - h * a / 2
    G1, G2 = geometric_sums(rho, T)
    tr_inf = float(np.trace(_sigma_inf(a, h, Sigma)))
    stationary = h * (float(np.trace(Sigma)) + d * a) / (4 * a * (1 - h * a / 4))
    sq = stationary + (2 * float(mu @ e0) * G1 + (float(e0 @ e0) - tr_inf) * G2) / T
    return {"theta": e0 * G1 / T, "sq_norm": sq, "stationary_sq_norm": stationary}


def cp_sgld_leading_bias_coefficient(a: float, Sigma, d: int) -> float:
    """The leading coefficient of the stationary bias of ``||theta||^2`` in h: (tr Sigma + d a)/(4 a) (new).

    Parameters
    ----------
    a : float
        The posterior precision per coordinate, > 0.
    Sigma : array_like, shape (d, d)
        The gradient noise's covariance (free of theta).
    d : int
        The dimension.

    Returns
    -------
    float

    References
    ----------
    New; compare Vollmer, Zygalakis & Teh (2016), eq. (19): the gradient noise enters the bias's constant.
    """
    return (float(np.trace(np.atleast_2d(Sigma))) + d * check_positive("a", a)) / (4 * a)


__all__ = ["check_cp_step", "cp_sgld_leading_bias_coefficient", "geometric_sums", "sgld_time_average_cov",
           "start_deviation", "time_average_bias"]
