"""The gradient noise of Fu & Zhang's (AISTATS 2017) clustering-based (stratified) gradient estimator, exactly.

Digest: docs/papers/fu_zhang.md. Notation: g_j = grad log p(x_j | theta) (rows of an (N, d) array), clusters C_i of
sizes n_i with sample sizes b_i, s_i^2 = (1/n_i) sum_{j in C_i} ||g_j - gbar_i||^2, "variance" = E||S_hat - S||^2
(trace), f_i = (n_i - b_i)/(n_i - 1) the finite-population factor; sections and equations cited per function.

* :func:`stratified_variance` -- Lemma 3.4 (exact with replacement) and its without-replacement form (the paper's
  Algorithm 1 draws without replacement, and Lemma 3.4 then over-states the variance; docs/papers/fu_zhang.md sec. 5;
  as printed: :func:`theory.printed.fu_zhang.lemma34_printed`).
* :func:`uniform_variance` -- plain SGLD minibatches (k = 1).
* :func:`is_variance`, :func:`is_optimal_probabilities`, :func:`is_min_variance` -- Lemma 3.2 (eq. 8) and its
  variance.
* Gaussian mean model (theta-free noise): :func:`gaussian_grads`, :func:`gaussian_noise_cov`.
* Logistic regression (numeric in theta): :func:`logistic_grads`, :func:`logistic_lipschitz`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit


def _groups(labels: np.ndarray) -> list[np.ndarray]:
    lab = np.asarray(labels)
    return [np.flatnonzero(lab == i) for i in range(int(lab.max()) + 1)]


def cluster_sq_dev(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The within-cluster sums of squares W_i = sum_{j in C_i} ``||u_j - ubar_i||^2``.

    Parameters
    ----------
    values : numpy.ndarray, shape (N, p) or (N,)
        Rows u_j.
    labels : numpy.ndarray of int, shape (N,)
        The cluster of each datum, 0..k-1.

    Returns
    -------
    numpy.ndarray, shape (k,)
    """
    u = np.asarray(values, dtype=np.float64)
    u = u[:, None] if u.ndim == 1 else u
    out = []
    for m in _groups(labels):
        c = u[m] - u[m].mean(axis=0)
        out.append(float(np.einsum("ij,ij->", c, c)))
    return np.array(out)


def stratified_variance(g: np.ndarray, labels: np.ndarray, b, replace: bool) -> float:
    """The variance ``E||S_hat - S||^2`` of the stratified estimator (10): sum_i (n_i/b_i) W_i f_i, W_i = n_i s_i^2.

    replace=True: f_i = 1 (Lemma 3.4 exactly). replace=False (Algorithm 1): f_i = (n_i - b_i)/(n_i - 1), the
    finite-population factor, so Lemma 3.4 over-states it.

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients g_j (rows).
    labels : numpy.ndarray of int, shape (N,)
        The cluster of each datum, 0..k-1.
    b : array_like of int, shape (k,)
        b_i, draws per cluster.
    replace : bool
        Draws inside a cluster with replacement or without.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), eq. (10) and Lemma 3.4 (:doc:`/papers/fu_zhang`, secs. 2 and 5).
    """
    W = cluster_sq_dev(g, labels)
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    b = np.asarray(b, dtype=np.float64)
    f = np.ones_like(n) if replace else np.where(n > 1, (n - b) / np.maximum(n - 1, 1), 0.0)
    return float(np.sum(n / b * W * f))


def uniform_variance(g: np.ndarray, b: int, replace: bool) -> float:
    """The variance of the plain minibatch estimate (N/b) sum of b draws: (N/b) sum_j ``||g_j - gbar||^2`` f.

    f = 1 with replacement, (N - b)/(N - 1) without: :func:`stratified_variance` with one cluster.

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients g_j (rows).
    b : int
        The minibatch size.
    replace : bool
        With replacement or without.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), eq. (4) (:doc:`/papers/fu_zhang`, sec. 1).
    """
    N = g.shape[0]
    W = float(cluster_sq_dev(g, np.zeros(N, dtype=int))[0])
    return N / b * W * (1.0 if replace else (N - b) / (N - 1))


def is_variance(g: np.ndarray, p: np.ndarray) -> float:
    """The variance of importance sampling with one datum: ``E||g_I/p_I - S||^2 = sum_i ||g_i||^2/p_i - ||S||^2``.

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients g_j (rows).
    p : numpy.ndarray, shape (N,)
        The sampling probabilities p_i.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), eqs. (6)-(7) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    g = np.asarray(g, dtype=np.float64)
    S = g.sum(axis=0)
    return float(np.sum(np.einsum("ij,ij->i", g, g) / np.asarray(p, dtype=np.float64)) - S @ S)


def is_optimal_probabilities(g: np.ndarray) -> np.ndarray:
    """The variance-minimising importance probabilities ``p_i = ||g_i|| / sum_j ||g_j||``.

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients g_j (rows).

    Returns
    -------
    numpy.ndarray, shape (N,)

    References
    ----------
    Fu & Zhang (2017), Lemma 3.2, eq. (8) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    nrm = np.linalg.norm(np.asarray(g, dtype=np.float64), axis=1)
    return nrm / nrm.sum()


def is_min_variance(g: np.ndarray) -> float:
    """The minimum of Problem (7), ``(sum_i ||g_i||)^2 - ||S||^2`` (Cauchy-Schwarz).

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients g_j (rows).

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), Problem (7) and eqs. (20)-(24) (:doc:`/papers/fu_zhang`, sec. 2).
    """
    g = np.asarray(g, dtype=np.float64)
    S = g.sum(axis=0)
    return float(np.linalg.norm(g, axis=1).sum() ** 2 - S @ S)


def gaussian_grads(x: np.ndarray, theta: np.ndarray, sigma_x: float) -> np.ndarray:
    """The per-datum gradients of the Gaussian mean model x_j ~ N(theta, sigma_x^2 I): g_j = (x_j - theta)/sigma_x^2.

    Parameters
    ----------
    x : numpy.ndarray, shape (N, d)
        The data.
    theta : numpy.ndarray, shape (d,)
        The point.
    sigma_x : float
        The data's standard deviation.

    Returns
    -------
    numpy.ndarray, shape (N, d)
    """
    return (np.asarray(x, dtype=np.float64) - np.asarray(theta, dtype=np.float64)) / sigma_x**2


def gaussian_noise_cov(x: np.ndarray, labels: np.ndarray, b, sigma_x: float, replace: bool) -> np.ndarray:
    """The covariance of the stratified estimator's noise on the Gaussian mean model, free of theta.

    sigma_x^{-4} sum_i (n_i^2/b_i) f_i Cov_i(x), Cov_i with divisor n_i; its trace is
    sigma_x^{-4} sum_i n_i^2 v_i f_i / b_i, and Theorem 3.1 holds with equality for L = 1/sigma_x^2.

    Parameters
    ----------
    x : numpy.ndarray, shape (N, d) or (N,)
        The data.
    labels : numpy.ndarray of int, shape (N,)
        The cluster of each datum, 0..k-1.
    b : array_like of int, shape (k,)
        b_i, draws per cluster.
    sigma_x : float
        The data's standard deviation.
    replace : bool
        Draws inside a cluster with replacement (f_i = 1) or without (f_i = (n_i - b_i)/(n_i - 1)).

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Fu & Zhang (2017), eq. (10), Lemma 3.4 and Theorem 3.1 (:doc:`/papers/fu_zhang`, sec. 5).
    """
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
    """The per-datum gradients of logistic regression p(y | x, theta) = sigma(y theta^T x), g_j = y_j x_j sigma(-s_j).

    The model of :class:`simulate.LogisticRegressionModel`, y in {-1, +1}, s_j = y_j x_j^T theta.

    Parameters
    ----------
    X : numpy.ndarray, shape (N, d)
        The design.
    y : numpy.ndarray, shape (N,)
        The labels.
    theta : numpy.ndarray, shape (d,)
        The point.

    Returns
    -------
    numpy.ndarray, shape (N, d)
    """
    Z = np.asarray(y, dtype=np.float64)[:, None] * np.asarray(X, dtype=np.float64)
    return Z * expit(-(Z @ np.asarray(theta, dtype=np.float64)))[:, None]


def logistic_lipschitz(X: np.ndarray, theta: np.ndarray) -> float:
    """A Lipschitz constant in x of g(x) = y x sigma(-y x^T theta) for a fixed label y (Assumption 3.1).

    On the ball ``||x|| <= R = max_j ||x_j||``: ``||dg/dx|| <= sigma + sigma' ||x|| ||theta|| <= 1 + R ||theta||/4``.
    It holds only inside label-pure clusters and grows with ``||theta||``, so no single L works for all theta.

    Parameters
    ----------
    X : numpy.ndarray, shape (N, d)
        The design.
    theta : numpy.ndarray, shape (d,)
        The point.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), Assumption 3.1 (:doc:`/papers/fu_zhang`, secs. 2 and 5).
    """
    R = float(np.max(np.linalg.norm(np.asarray(X, dtype=np.float64), axis=1)))
    return 1.0 + R * float(np.linalg.norm(theta)) / 4.0


__all__ = ["cluster_sq_dev", "gaussian_grads", "gaussian_noise_cov", "is_min_variance", "is_optimal_probabilities",
           "is_variance", "logistic_grads", "logistic_lipschitz", "stratified_variance", "uniform_variance"]
