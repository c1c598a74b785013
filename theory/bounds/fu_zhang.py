"""Fu & Zhang's (AISTATS 2017) bounds for the clustering-based (stratified) gradient estimator.

Digest: docs/papers/fu_zhang.md. Notation: clusters C_i of sizes n_i with sample sizes b_i, v_i a cluster's variance
term; sections and equations cited per function.

* :func:`thm31_bound` -- Theorem 3.1 (eq. 12), L^2 sum_i (n_i/b_i) sum_{j in C_i} ||x_j - mu_i||^2.
* :func:`thm32_allocation`, :func:`thm32_min_objective`, :func:`thm32_lagrange_sympy` -- Theorem 3.2 (eq. 14);
  :func:`surrogate_objective` the objective it minimises.
* :func:`thm33_bias_bound_constants` -- the explicit constants of Theorem 3.3 (eq. 17) for CP-SGLD on the Gaussian
  mean model (its exact bias: :func:`theory.chains.stratified.time_average_bias`).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from theory.chains.stratified import _sigma_inf, check_cp_step, start_deviation
from theory.noise.stratified import cluster_sq_dev


def thm31_bound(x: np.ndarray, labels: np.ndarray, b, L: float) -> float:
    """Theorem 3.1's bound on the stratified variance, ``L^2 sum_i (n_i/b_i) sum_{j in C_i} ||x_j - mu_i||^2``.

    Free of theta.

    Parameters
    ----------
    x : numpy.ndarray, shape (N, p)
        The data.
    labels : numpy.ndarray of int, shape (N,)
        The cluster of each datum, 0..k-1.
    b : array_like, shape (k,)
        b_i, draws per cluster.
    L : float
        Assumption 3.1's Lipschitz constant of the per-datum gradient in x.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), Theorem 3.1, eq. (12) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    return float(L * L * np.sum(n / np.asarray(b, dtype=np.float64) * cluster_sq_dev(x, labels)))


def thm32_allocation(n, v, b: float) -> np.ndarray:
    """Theorem 3.2's allocation b_i = b n_i sqrt(v_i) / sum_j n_j sqrt(v_j) (continuous, no bounds).

    Parameters
    ----------
    n : array_like, shape (k,)
        The clusters' sizes n_i.
    v : array_like, shape (k,)
        The clusters' variance terms v_i.
    b : float
        The total minibatch size.

    Returns
    -------
    numpy.ndarray, shape (k,)

    References
    ----------
    Fu & Zhang (2017), Theorem 3.2, eq. (14) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    w = np.asarray(n, dtype=np.float64) * np.sqrt(np.asarray(v, dtype=np.float64))
    return b * w / w.sum()


def surrogate_objective(n, v, b) -> float:
    """The objective Theorem 3.2 minimises, sum_i n_i^2 v_i / b_i (= sum_i (n_i/b_i) n_i v_i).

    Parameters
    ----------
    n : array_like, shape (k,)
        The clusters' sizes n_i.
    v : array_like, shape (k,)
        The clusters' variance terms v_i.
    b : array_like, shape (k,)
        b_i, draws per cluster.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), eqs. (13) and (31) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    n = np.asarray(n, dtype=np.float64)
    return float(np.sum(n * n * np.asarray(v, dtype=np.float64) / np.asarray(b, dtype=np.float64)))


def thm32_min_objective(n, v, b: float) -> float:
    """The minimum of sum_i n_i^2 v_i / b_i over sum_i b_i = b: (sum_i n_i sqrt(v_i))^2 / b.

    Parameters
    ----------
    n : array_like, shape (k,)
        The clusters' sizes n_i.
    v : array_like, shape (k,)
        The clusters' variance terms v_i.
    b : float
        The total minibatch size.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), eqs. (35)-(38) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    return float(np.sum(np.asarray(n, dtype=np.float64) * np.sqrt(np.asarray(v, dtype=np.float64))) ** 2 / b)


@cache
def thm32_lagrange_sympy(k: int = 3) -> tuple[tuple[sp.Expr, ...], sp.Expr]:
    """The stationary point of sum_i n_i^2 v_i/b_i + lam (sum_i b_i - b), by sympy (cached).

    Parameters
    ----------
    k : int, default 3
        The number of clusters.

    Returns
    -------
    allocation : tuple of sympy.Expr
        (b_1*, ..., b_k*) in the symbols n_i, v_i, b (positive).
    minimum : sympy.Expr

    References
    ----------
    Fu & Zhang (2017), the proof of Theorem 3.2, eqs. (31)-(38) (:doc:`/papers/fu_zhang`, sec. 2).
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


def thm33_bias_bound_constants(a: float, h: float, Sigma, mu, theta0) -> tuple[float, float]:
    """Theorem 3.3's bound with explicit constants on the Gaussian mean model: ``|bias| <= K_T/(T h) + K_h h`` (new).

    For phi = theta_j and ``||theta||^2``, 0 < h a <= 2. Since G_1, G_2 <= 2/(h a)
    (:func:`theory.chains.stratified.time_average_bias`),
    ``K_T = (2/a)(2|mu.e_0| + ||e_0||^2 + tr Sigma_inf + max_j |e_0j|)`` and K_h = (tr Sigma + d a)/(2 a).

    Parameters
    ----------
    a : float
        The posterior precision per coordinate, > 0.
    h : float
        The step size, h a <= 2.
    Sigma : array_like, shape (d, d)
        The gradient noise's covariance.
    mu : array_like, shape (d,)
        The posterior mean.
    theta0 : array_like, shape (d,)
        The deterministic start.

    Returns
    -------
    K_T : float
    K_h : float

    Raises
    ------
    ParameterError
        When a, h or the shapes are out of range.

    References
    ----------
    Fu & Zhang (2017), Theorem 3.3, eq. (17) (:doc:`/papers/fu_zhang`, secs. 4-5).
    """
    a, h, _ = check_cp_step(a, h, 1)
    Sigma, mu, e0 = start_deviation(Sigma, mu, theta0)
    tr_inf = float(np.trace(_sigma_inf(a, h, Sigma)))
    K_T = 2 / a * (2 * abs(float(mu @ e0)) + float(e0 @ e0) + tr_inf + float(np.abs(e0).max()))
    K_h = (float(np.trace(Sigma)) + mu.size * a) / (2 * a)
    return K_T, K_h


__all__ = ["surrogate_objective", "thm31_bound", "thm32_allocation", "thm32_lagrange_sympy", "thm32_min_objective",
           "thm33_bias_bound_constants"]
