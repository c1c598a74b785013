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
  solved by the discrete Lyapunov equation (:func:`sgld_stationary_cov`, :func:`sghmc_stationary_cov`) and in closed
  form (:func:`sgld_stationary_cov_closed`, :func:`sghmc_stationary_cov_closed`; sympy: :func:`sympy_stationary_vars`).
"""

from __future__ import annotations

import numpy as np

from theory.noise.stratified import cluster_sq_dev


def lemma34_printed(g: np.ndarray, labels: np.ndarray, b) -> float:
    """Lemma 3.4 as printed: sum_i (n_i/b_i) sum_{j in C_i} ||g_j - (1/n_i) sum_{l in C_i} g_l||^2."""
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    return float(np.sum(n / np.asarray(b, dtype=np.float64) * cluster_sq_dev(g, labels)))


__all__ = ["lemma34_printed"]
