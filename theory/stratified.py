"""Exact variance theory of Fu & Zhang's clustering-based (stratified) gradient estimator (AISTATS 2017).

Digest ../shared/notes/003.md; sections and equations cited per function. Notation: g_j = grad log p(x_j | theta)
(rows of an (N, d) array), clusters C_i of sizes n_i with sample sizes b_i, s_i^2 = (1/n_i) sum_{j in C_i}
||g_j - gbar_i||^2, "variance" = E||S_hat - S||^2 (trace), f_i = (n_i - b_i)/(n_i - 1) the finite-population factor.

* :func:`stratified_variance` -- Lemma 3.4 (exact with replacement) and its without-replacement form (digest
  sec. 5.1: the paper's Algorithm 1 draws without replacement and Lemma 3.4 then over-states the variance).
* :func:`lemma34_printed` -- the formula as printed (with-replacement form, used for Algorithm 1 by the paper).
* :func:`uniform_variance` -- plain SGLD minibatches (k = 1).
* :func:`thm31_bound` -- Theorem 3.1 (eq. 12), L^2 sum_i (n_i/b_i) sum_{j in C_i} ||x_j - mu_i||^2.
* :func:`thm32_allocation`, :func:`thm32_min_objective`, :func:`thm32_lagrange_sympy` -- Theorem 3.2 (eq. 14).
* :func:`is_variance`, :func:`is_optimal_probabilities` -- Lemma 3.2 (eq. 8) and its variance (digest sec. 2.1).
* Gaussian mean model (theta-free, digest sec. 5.1): :func:`gaussian_noise_cov`.
* Logistic regression (numeric in theta): :func:`logistic_grads`, :func:`logistic_lipschitz`.
* Stationary laws of fixed-step SGLD and SGHMC under a theta-free gradient noise of covariance Sigma on the
  Gaussian mean model (new, digest sec. 5.1): the chains are linear recursions with constant noise, solved by the
  discrete Lyapunov equation (:func:`sgld_stationary_cov`, :func:`sghmc_stationary_cov`) and in closed form
  (:func:`sgld_stationary_cov_closed`, :func:`sghmc_stationary_cov_closed`; sympy: :func:`sympy_stationary_vars`).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp
from scipy.linalg import solve_discrete_lyapunov
from scipy.special import expit

# ------------------------------------------------------------------------------------ generic variance formulas


def _groups(labels: np.ndarray) -> list[np.ndarray]:
    lab = np.asarray(labels)
    return [np.flatnonzero(lab == i) for i in range(int(lab.max()) + 1)]


def cluster_sq_dev(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """W_i = sum_{j in C_i} ||u_j - ubar_i||^2 for rows u_j of ``values`` (N, p), shape (k,)."""
    u = np.asarray(values, dtype=np.float64)
    u = u[:, None] if u.ndim == 1 else u
    out = []
    for m in _groups(labels):
        c = u[m] - u[m].mean(axis=0)
        out.append(float(np.einsum("ij,ij->", c, c)))
    return np.array(out)


def stratified_variance(g: np.ndarray, labels: np.ndarray, b, replace: bool) -> float:
    """E||S_hat - S||^2 of eq. (10): sum_i (n_i/b_i) W_i f_i with W_i = n_i s_i^2 (Lemma 3.4 / digest sec. 5.1).

    replace=True: f_i = 1 (Lemma 3.4 exactly). replace=False (Algorithm 1): f_i = (n_i - b_i)/(n_i - 1).
    """
    W = cluster_sq_dev(g, labels)
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    b = np.asarray(b, dtype=np.float64)
    f = np.ones_like(n) if replace else np.where(n > 1, (n - b) / np.maximum(n - 1, 1), 0.0)
    return float(np.sum(n / b * W * f))


def lemma34_printed(g: np.ndarray, labels: np.ndarray, b) -> float:
    """Lemma 3.4 as printed: sum_i (n_i/b_i) sum_{j in C_i} ||g_j - (1/n_i) sum_{l in C_i} g_l||^2."""
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    return float(np.sum(n / np.asarray(b, dtype=np.float64) * cluster_sq_dev(g, labels)))


def uniform_variance(g: np.ndarray, b: int, replace: bool) -> float:
    """Plain minibatch (SGLD, eq. 4, (N/b) sum of b draws): (N/b) sum_j ||g_j - gbar||^2 [(N - b)/(N - 1) WOR]."""
    N = g.shape[0]
    W = float(cluster_sq_dev(g, np.zeros(N, dtype=int))[0])
    return N / b * W * (1.0 if replace else (N - b) / (N - 1))


def thm31_bound(x: np.ndarray, labels: np.ndarray, b, L: float) -> float:
    """Theorem 3.1, eq. (12): L^2 sum_i (n_i/b_i) sum_{j in C_i} ||x_j - mu_i||^2 (theta-free)."""
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    return float(L * L * np.sum(n / np.asarray(b, dtype=np.float64) * cluster_sq_dev(x, labels)))


def thm32_allocation(n, v, b: float) -> np.ndarray:
    """Theorem 3.2, eq. (14): b_i = b n_i sqrt(v_i) / sum_j n_j sqrt(v_j) (continuous, no bounds)."""
    w = np.asarray(n, dtype=np.float64) * np.sqrt(np.asarray(v, dtype=np.float64))
    return b * w / w.sum()


def surrogate_objective(n, v, b) -> float:
    """The objective of Theorem 3.2 (eqs. 13 and 31): sum_i n_i^2 v_i / b_i (= sum_i (n_i/b_i) n_i v_i)."""
    n = np.asarray(n, dtype=np.float64)
    return float(np.sum(n * n * np.asarray(v, dtype=np.float64) / np.asarray(b, dtype=np.float64)))


def thm32_min_objective(n, v, b: float) -> float:
    """Minimum of sum_i n_i^2 v_i / b_i over sum b_i = b: (sum_i n_i sqrt(v_i))^2 / b (eqs. 35-37 with eq. 38's b)."""
    return float(np.sum(np.asarray(n, dtype=np.float64) * np.sqrt(np.asarray(v, dtype=np.float64))) ** 2 / b)


@cache
def thm32_lagrange_sympy(k: int = 3) -> tuple[tuple[sp.Expr, ...], sp.Expr]:
    """sympy: stationary point of sum_i n_i^2 v_i/b_i + lam (sum_i b_i - b) (Theorem 3.2 proof, eqs. 31-38).

    Returns ((b_1*, ..., b_k*), minimum value) in the symbols n_i, v_i, b (positive).
    """
    n = sp.symbols(f"n1:{k + 1}", positive=True)
    v = sp.symbols(f"v1:{k + 1}", positive=True)
    bb = sp.Symbol("b", positive=True)
    lam = sp.Symbol("lam", positive=True)
    bs = sp.symbols(f"b1:{k + 1}", positive=True)
    obj = sum(n[i] ** 2 * v[i] / bs[i] for i in range(k))
    # d/db_i: -n_i^2 v_i / b_i^2 + lam = 0  =>  b_i = n_i sqrt(v_i) / sqrt(lam)
    bi = [n[i] * sp.sqrt(v[i]) / sp.sqrt(lam) for i in range(k)]
    assert all(sp.simplify(sp.diff(obj + lam * (sum(bs) - bb), bs[i]).subs(bs[i], bi[i])) == 0 for i in range(k))
    lam_sol = sp.solve(sp.Eq(sum(bi), bb), lam)[0]
    sol = tuple(sp.simplify(e.subs(lam, lam_sol)) for e in bi)
    val = sp.simplify(obj.subs(dict(zip(bs, sol, strict=True))))
    return sol, val


# ------------------------------------------------------------------------------------ importance sampling (Sec. 3.1)


def is_variance(g: np.ndarray, p: np.ndarray) -> float:
    """Eq. (6)-(7), minibatch of one: E||g_I/p_I - S||^2 = sum_i ||g_i||^2/p_i - ||S||^2 (digest sec. 2.1)."""
    g = np.asarray(g, dtype=np.float64)
    S = g.sum(axis=0)
    return float(np.sum(np.einsum("ij,ij->i", g, g) / np.asarray(p, dtype=np.float64)) - S @ S)


def is_optimal_probabilities(g: np.ndarray) -> np.ndarray:
    """Lemma 3.2, eq. (8): p_i = ||g_i|| / sum_j ||g_j||."""
    nrm = np.linalg.norm(np.asarray(g, dtype=np.float64), axis=1)
    return nrm / nrm.sum()


def is_min_variance(g: np.ndarray) -> float:
    """The minimum of Problem (7): (sum_i ||g_i||)^2 - ||S||^2 (Cauchy-Schwarz, eqs. 20-24)."""
    g = np.asarray(g, dtype=np.float64)
    S = g.sum(axis=0)
    return float(np.linalg.norm(g, axis=1).sum() ** 2 - S @ S)


# ------------------------------------------------------------------------------------ models


def gaussian_grads(x: np.ndarray, theta: np.ndarray, sigma_x: float) -> np.ndarray:
    """Gaussian mean model x_j ~ N(theta, sigma_x^2 I): g_j = (x_j - theta)/sigma_x^2, shape (N, d)."""
    return (np.asarray(x, dtype=np.float64) - np.asarray(theta, dtype=np.float64)) / sigma_x**2


def gaussian_noise_cov(x: np.ndarray, labels: np.ndarray, b, sigma_x: float, replace: bool) -> np.ndarray:
    """Covariance of eq. (10)'s noise on the Gaussian mean model, theta-free (digest sec. 5.1):
    sigma_x^{-4} sum_i (n_i^2/b_i) f_i Cov_i(x), Cov_i with divisor n_i; its trace is
    sigma_x^{-4} sum_i n_i^2 v_i f_i / b_i, and Theorem 3.1 holds with equality for L = 1/sigma_x^2."""
    x = np.asarray(x, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    b = np.asarray(b, dtype=np.float64)
    out = np.zeros((x.shape[1], x.shape[1]))
    for i, m in enumerate(_groups(labels)):
        n = m.size
        f = 1.0 if replace else ((n - b[i]) / (n - 1) if n > 1 else 0.0)
        c = x[m] - x[m].mean(axis=0)
        out += (n / b[i]) * f * (c.T @ c)
    return out / sigma_x**4


def logistic_grads(X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Per-datum gradients for p(y|x, theta) = sigma(y theta^T x), y in {-1, +1}: g_j = y_j x_j sigma(-y_j x_j^T
    theta), shape (N, d) (the model of simulate.logistic)."""
    Z = np.asarray(y, dtype=np.float64)[:, None] * np.asarray(X, dtype=np.float64)
    return Z * expit(-(Z @ np.asarray(theta, dtype=np.float64)))[:, None]


def logistic_lipschitz(X: np.ndarray, theta: np.ndarray) -> float:
    """A Lipschitz constant in x of g(x) = y x sigma(-y x^T theta) for fixed label y (Assumption 3.1) on the ball
    ||x|| <= R = max_j ||x_j||: ||dg/dx|| <= sigma + sigma' ||x|| ||theta|| <= 1 + R ||theta||/4 (digest sec. 5.1).
    Holds only inside label-pure clusters; it grows with ||theta||, so no single L works for all theta."""
    R = float(np.max(np.linalg.norm(np.asarray(X, dtype=np.float64), axis=1)))
    return 1.0 + R * float(np.linalg.norm(theta)) / 4.0


# ------------------------------------------------------------------------------------ stationary laws


def sgld_stationary_cov(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Stationary Cov(theta) of fixed-step (CP-)SGLD on the Gaussian mean model (new, digest sec. 5.1).

    With grad log posterior c - a theta and additive noise e of covariance Sigma (theta-free),
    theta' = (1 - h a/2) theta + (h/2)(c + e) + sqrt(h) xi: Cov solves Cov = F Cov F^T + (h I + h^2 Sigma/4).
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    d = Sigma.shape[0]
    F = (1.0 - 0.5 * h * a) * np.eye(d)
    return solve_discrete_lyapunov(F, h * np.eye(d) + 0.25 * h * h * Sigma)


def sgld_stationary_cov_closed(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Closed form (digest sec. 5.1): (I + h Sigma/4) / (a (1 - h a/4)), stable iff 0 < h a < 4."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return (np.eye(Sigma.shape[0]) + 0.25 * h * Sigma) / (a * (1.0 - 0.25 * h * a))


def sgld_time_average_cov(a: float, h: float, Sigma: np.ndarray, burn_in: int, n_steps: int) -> np.ndarray:
    """Exact covariance of the time average (1/T) sum_{k=b}^{b+T-1} theta_k of fixed-step (CP-)SGLD on the Gaussian
    mean model started at theta_0 = the posterior mean (new; the structure of Theorem 3.4, digest sec. 5.1).

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
    and Cov w = [[Q, Q], [Q, Q]], Q = h^2 Sigma + 2 alpha h I. Returns the (2d, 2d) covariance (theta first)."""
    from .sghmc_gaussian import stationary_covariance

    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return stationary_covariance(a * np.eye(Sigma.shape[0]), alpha, h, Sigma)


def sghmc_stationary_cov_closed(a: float, h: float, alpha: float, Sigma: np.ndarray) -> np.ndarray:
    """Closed form of the theta block (digest sec. 5.1):
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


__all__ = [
    "cluster_sq_dev", "gaussian_grads", "gaussian_noise_cov", "is_min_variance", "is_optimal_probabilities",
    "is_variance", "lemma34_printed", "logistic_grads", "logistic_lipschitz", "sghmc_stationary_cov",
    "sghmc_stationary_cov_closed", "sgld_stationary_cov", "sgld_stationary_cov_closed",
    "sgld_time_average_cov", "stratified_variance",
    "surrogate_objective", "sympy_stationary_vars", "thm31_bound", "thm32_allocation", "thm32_lagrange_sympy",
    "thm32_min_objective", "uniform_variance",
]
