"""Exact variance theory of Fu & Zhang's clustering-based (stratified) gradient estimator (AISTATS 2017).

Digest: docs/papers/fu_zhang.md; sections and equations cited per function. Notation: g_j = grad log p(x_j | theta)
(rows of an (N, d) array), clusters C_i of sizes n_i with sample sizes b_i, s_i^2 = (1/n_i) sum_{j in C_i}
||g_j - gbar_i||^2, "variance" = E||S_hat - S||^2 (trace), f_i = (n_i - b_i)/(n_i - 1) the finite-population factor.

* :func:`stratified_variance` -- Lemma 3.4 (exact with replacement) and its without-replacement form
  (docs/papers/fu_zhang.md sec. 5: the paper's Algorithm 1 draws without replacement and Lemma 3.4 then over-states the
  variance).
* :func:`lemma34_printed` -- the formula as printed (with-replacement form, used for Algorithm 1 by the paper).
* :func:`uniform_variance` -- plain SGLD minibatches (k = 1).
* :func:`thm31_bound` -- Theorem 3.1 (eq. 12), L^2 sum_i (n_i/b_i) sum_{j in C_i} ||x_j - mu_i||^2.
* :func:`thm32_allocation`, :func:`thm32_min_objective`, :func:`thm32_lagrange_sympy` -- Theorem 3.2 (eq. 14).
* :func:`is_variance`, :func:`is_optimal_probabilities` -- Lemma 3.2 (eq. 8) and its variance (docs/papers/fu_zhang.md
  sec. 2).
* Gaussian mean model (theta-free, docs/papers/fu_zhang.md sec. 5): :func:`gaussian_noise_cov`.
* Logistic regression (numeric in theta): :func:`logistic_grads`, :func:`logistic_lipschitz`.
* Stationary laws of fixed-step SGLD and SGHMC under a theta-free gradient noise of covariance Sigma on the
  Gaussian mean model (new, docs/papers/fu_zhang.md sec. 5): the chains are linear recursions with constant noise,
  answered by the exact engine (:func:`sgld_stationary_cov`, :func:`sghmc_stationary_cov`) and in closed form
  (:func:`sgld_stationary_cov_closed`, :func:`sghmc_stationary_cov_closed`; sympy: :func:`sympy_stationary_vars`).
* Theorem 3.3 (eq. 17), |E phihat_T - phibar| = O(1/(T h) + h), made exact for CP-SGLD on the Gaussian mean model
  (new): :func:`time_average_bias`, :func:`leading_bias_coefficient` (the bound's explicit constants are
  theory.bounds.fu_zhang.thm33_bias_bound_constants). From a deterministic theta_0 = mu + e_0, with rho = 1 - h a/2,
  E theta_l = mu + rho^l e_0 and Cov theta_l = (1 - rho^(2l)) Sigma_inf (Sigma_inf = sgld_stationary_cov_closed).
  The paper's estimator averages theta_1..theta_T (Sec. 3.4), so with G_1 = sum_{l=1}^T rho^l and
  G_2 = sum_{l=1}^T rho^(2l):

      bias(theta_j)      = e_0j G_1 / T,
      bias(||theta||^2)  = (tr Sigma_inf - d/a) + [2 mu.e_0 G_1 + (||e_0||^2 - tr Sigma_inf) G_2] / T,
      tr Sigma_inf - d/a = h (tr Sigma + d a) / (4 a (1 - h a/4)).

  The O(h) constant (tr Sigma + d a)/(4 a) carries tr Sigma, the gradient-noise variance: the estimator enters the
  bias's constant, not only the MSE (cf. Vollmer et al. eq. 19).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_int, check_positive
from theory.chains._engine import sghmc_law, sgld_law


def sgld_stationary_cov(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Stationary Cov(theta) of fixed-step (CP-)SGLD on the Gaussian mean model (new, docs/papers/fu_zhang.md sec. 5).

    With grad log posterior c - a theta and additive noise e of covariance Sigma (theta-free),
    theta' = (1 - h a/2) theta + (h/2)(c + e) + sqrt(h) xi: Cov solves Cov = F Cov F^T + (h I + h^2 Sigma/4), the
    exact engine's stationary law of SGLD with additive noise of covariance Sigma (:mod:`theory.chains._engine`).
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return sgld_law(a * np.eye(Sigma.shape[0]), h, Sigma).stationary_cov()


def sgld_stationary_cov_closed(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Closed form (docs/papers/fu_zhang.md sec. 5): (I + h Sigma/4) / (a (1 - h a/4)), stable iff 0 < h a < 4."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return (np.eye(Sigma.shape[0]) + 0.25 * h * Sigma) / (a * (1.0 - 0.25 * h * a))


def sgld_time_average_cov(a: float, h: float, Sigma: np.ndarray, burn_in: int, n_steps: int) -> np.ndarray:
    """Exact covariance of the time average (1/T) sum_{k=b}^{b+T-1} theta_k of fixed-step (CP-)SGLD on the Gaussian
    mean model started at theta_0 = the posterior mean (new; the structure of Theorem 3.4, docs/papers/fu_zhang.md
    sec. 5).

    theta_k - mu = sum_{j<k} rho^{k-1-j} e_j with rho = 1 - h a/2 and Cov e_j = Q = h I + h^2 Sigma/4, so
    Cov = (1/T^2) sum_j c_j^2 Q with c_j = sum_{k=max(b, j+1)}^{b+T-1} rho^{k-1-j}. Its trace is the MSE of the
    posterior-mean estimate (the chain is unbiased here); for large T it is about (1/T)(4/(a^2 h) + tr Sigma/a^2).
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


def sghmc_stationary_cov(a: float, h: float, alpha: float, Sigma: np.ndarray) -> np.ndarray:
    """Stationary Cov of (theta, v) for SGHMC (Chen et al. 2014 eq. 15, M = I, beta_hat = 0; simulate.sghmc) with
    the noisy gradient c - a theta + e, Cov e = Sigma (new). v' = (1-alpha) v - h a theta + h(c + e) +
    sqrt(2 alpha h) xi, theta' = theta + v': z' = F z + w with F = [[1 - h a, 1 - alpha], [-h a, 1 - alpha]] (x I_d)
    and Cov w = [[Q, Q], [Q, Q]], Q = h^2 Sigma + 2 alpha h I. Returns the (2d, 2d) covariance (theta first): the
    exact engine's stationary law of the whole state (:mod:`theory.chains._engine`)."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return sghmc_law(a * np.eye(Sigma.shape[0]), h, alpha, Sigma).stationary_cov(whole_state=True)


def sghmc_stationary_cov_closed(a: float, h: float, alpha: float, Sigma: np.ndarray) -> np.ndarray:
    """Closed form of the theta block (docs/papers/fu_zhang.md sec. 5):
    (2 - alpha)(2 alpha I + h Sigma) / (a alpha (4 - 2 alpha - a h))."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    num = (2.0 - alpha) * (2.0 * alpha * np.eye(Sigma.shape[0]) + h * Sigma)
    return num / (a * alpha * (4.0 - 2.0 * alpha - a * h))


@cache
def sympy_stationary_vars() -> dict[str, sp.Expr]:
    """sympy (d = 1): stationary Var(theta) of SGLD and SGHMC with noise variance s2, solving the moment
    recursions (the fixed point of the linear Lyapunov map); compare with the closed forms above."""
    a, h, al, s2 = sp.symbols("a h alpha s2", positive=True)
    V = sp.Symbol("V")
    sgld = sp.solve(sp.Eq(V, (1 - h * a / 2) ** 2 * V + h + h**2 * s2 / 4), V)[0]
    Ptt, Ptv, Pvv = sp.symbols("Ptt Ptv Pvv")
    F = sp.Matrix([[1 - h * a, 1 - al], [-h * a, 1 - al]])
    q = h**2 * s2 + 2 * al * h
    P = sp.Matrix([[Ptt, Ptv], [Ptv, Pvv]])
    eqs = F * P * F.T + q * sp.ones(2, 2) - P
    sol = sp.solve([eqs[0, 0], eqs[0, 1], eqs[1, 1]], [Ptt, Ptv, Pvv], dict=True)[0]
    return {"sgld": sp.simplify(sgld), "sghmc_theta": sp.simplify(sol[Ptt]), "sghmc_v": sp.simplify(sol[Pvv])}


def check_cp_step(a: float, h: float, T: int) -> tuple[float, float, int]:
    """(a, h, T) checked for the CP-SGLD bias formulas: a, h > 0 with h a <= 2 (rho in [0, 1)), T >= 1."""
    a = check_positive("a", a)
    h = check_positive("h", h)
    if h * a > 2:
        raise ParameterError(f"h must satisfy 0 < h a <= 2 (rho = 1 - h a/2 in [0, 1)), got h a = {h * a}")
    return a, h, check_int("T", T, 1)


def start_deviation(Sigma, mu, theta0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Sigma as (d, d), mu as (d,), e_0 = theta0 - mu), shapes checked."""
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
    """(G_1, G_2) = (sum_{l=1}^T rho^l, sum_{l=1}^T rho^(2l))."""
    return (rho * -np.expm1(T * np.log(rho)) / (1 - rho) if rho > 0 else 0.0,
            rho * rho * -np.expm1(2 * T * np.log(rho)) / (1 - rho * rho) if rho > 0 else 0.0)


def time_average_bias(a: float, h: float, Sigma, mu, theta0, T: int) -> dict[str, np.ndarray | float]:
    """Exact E[(1/T) sum_{l=1}^T phi(theta_l)] - phibar of CP-SGLD on the Gaussian mean model for phi = theta (per
    coordinate, key "theta") and ||theta||^2 ("sq_norm"), and the stationary bias of ||theta||^2
    ("stationary_sq_norm"); Fu & Zhang Theorem 3.3 made exact (module docstring; new)."""
    a, h, T = check_cp_step(a, h, T)
    Sigma, mu, e0 = start_deviation(Sigma, mu, theta0)
    d = mu.size
    rho = 1 - h * a / 2
    G1, G2 = geometric_sums(rho, T)
    tr_inf = float(np.trace(sgld_stationary_cov_closed(a, h, Sigma)))
    stationary = h * (float(np.trace(Sigma)) + d * a) / (4 * a * (1 - h * a / 4))
    sq = stationary + (2 * float(mu @ e0) * G1 + (float(e0 @ e0) - tr_inf) * G2) / T
    return {"theta": e0 * G1 / T, "sq_norm": sq, "stationary_sq_norm": stationary}


def leading_bias_coefficient(a: float, Sigma, d: int) -> float:
    """lim_{h -> 0} (stationary bias of ||theta||^2)/h = (tr Sigma + d a)/(4 a) (new; cf. Vollmer et al. eq. 19)."""
    return (float(np.trace(np.atleast_2d(Sigma))) + d * check_positive("a", a)) / (4 * a)


__all__ = ["check_cp_step", "geometric_sums", "leading_bias_coefficient", "sghmc_stationary_cov",
           "sghmc_stationary_cov_closed", "sgld_stationary_cov", "sgld_stationary_cov_closed", "sgld_time_average_cov",
           "start_deviation", "sympy_stationary_vars", "time_average_bias"]
