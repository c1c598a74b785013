"""k-nearest-neighbour estimate of KL(P || Q) from samples (Wang, Kulkarni & Verdu 2009; Perez-Cruz 2008).

    D_hat = (d/n) sum_i log(nu_k(i) / rho_k(i)) + log(m / (n - 1)),

with X_1..X_n ~ P, Y_1..Y_m ~ Q, rho_k(i) the distance from X_i to its k-th nearest neighbour among the other X's
and nu_k(i) the distance from X_i to its k-th nearest neighbour among the Y's (Euclidean). This is the estimator
of R's FNN::KL.divergence(X, Y, k) used by Baker et al. (Sec. 3; the paper does not state k). It is consistent
as n, m -> infinity for fixed k (Wang et al. 2009, Theorem 1) but biased at finite n.
Neighbour searches use scipy.spatial.cKDTree.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..validation import ParameterError, check_finite_array, check_int


def knn_distances(x: np.ndarray, y: np.ndarray, k: int, tree_y: cKDTree | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The k-th nearest-neighbour distances of the k-NN KL estimator (Euclidean).

    Parameters
    ----------
    x : numpy.ndarray, shape (n, d)
        The sample of P.
    y : numpy.ndarray, shape (m, d)
        The sample of Q.
    k : int
        The neighbour's rank, >= 1.
    tree_y : scipy.spatial.cKDTree, optional
        A tree of y to reuse.

    Returns
    -------
    rho : numpy.ndarray, shape (n,)
        rho_k(i), the distance from x_i to its k-th neighbour among the other x's (the query asks for k + 1 to skip
        x_i itself).
    nu : numpy.ndarray, shape (n,)
        nu_k(i), the distance from x_i to its k-th neighbour among the y's.
    """
    rho = cKDTree(x).query(x, k=k + 1)[0][:, k]
    ty = cKDTree(y) if tree_y is None else tree_y
    nu = ty.query(x, k=k)[0]
    return rho, (nu[:, k - 1] if k > 1 else nu)


def knn_kl_divergence(x: np.ndarray, y: np.ndarray, k: int = 5, *, tree_y: cKDTree | None = None) -> float:
    """The k-NN estimate of KL(P || Q) from samples x ~ P and y ~ Q (module docstring).

    D_hat = (d/n) sum_i log(nu_k(i) / rho_k(i)) + log(m / (n - 1)); consistent as n, m -> infinity for fixed k,
    biased at finite n.

    Parameters
    ----------
    x : array_like, shape (n, d) or (n,)
        The sample of P.
    y : array_like, shape (m, d) or (m,)
        The sample of Q.
    k : int, default 5
        The neighbour's rank, 1 <= k < n and k <= m.
    tree_y : scipy.spatial.cKDTree, optional
        A tree of y to reuse across calls.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When x or y are not finite, their dimensions differ, k is out of range, or points repeat (a distance 0).

    References
    ----------
    Wang, Kulkarni & Verdu (2009), Theorem 1; Perez-Cruz (2008); the estimator of R's ``FNN::KL.divergence`` that
    Baker, Fearnhead, Fox & Nemeth (2019), Section 3, use (:doc:`/papers/baker`, sec. 5).
    """
    x = check_finite_array("x", x, ndim=(1, 2))
    y = check_finite_array("y", y, ndim=(1, 2))
    if x.ndim == 1:
        x = x[:, None]
    if y.ndim == 1:
        y = y[:, None]
    n, d = x.shape
    m = y.shape[0]
    if y.shape[1] != d:
        raise ParameterError(f"x and y must have the same dimension, got {d} and {y.shape[1]}")
    k = check_int("k", k, 1)
    if k >= n or k > m:
        raise ParameterError(f"k must satisfy 1 <= k < n = {n} and k <= m = {m}, got {k}")
    rho, nu = knn_distances(x, y, k, tree_y)
    if np.any(rho <= 0) or np.any(nu <= 0):
        raise ParameterError("duplicate points: the k-NN KL estimator needs distinct sample points (rho or nu = 0)")
    return float(d * np.mean(np.log(nu / rho)) + np.log(m / (n - 1)))


def knn_kl_replicates(samples: np.ndarray, reference: np.ndarray, k: int = 5) -> np.ndarray:
    """The k-NN KL estimate of every replicate sample against one reference sample (one tree of the reference).

    Parameters
    ----------
    samples : array_like, shape (R, n, d)
        R replicate samples of P.
    reference : array_like, shape (m, d)
        The sample of Q.
    k : int, default 5
        The neighbour's rank.

    Returns
    -------
    numpy.ndarray, shape (R,)
        :func:`simulate.knn_kl_divergence` of each replicate.

    Raises
    ------
    ParameterError
        As :func:`simulate.knn_kl_divergence`, or when the arrays have the wrong number of dimensions.
    """
    samples = check_finite_array("samples", samples, ndim=(3,))
    reference = check_finite_array("reference", reference, ndim=(2,))
    tree = cKDTree(reference)
    return np.array([knn_kl_divergence(s, reference, k, tree_y=tree) for s in samples])


def gaussian_kl(m0: np.ndarray, S0: np.ndarray, m1: np.ndarray, S1: np.ndarray) -> float:
    """The KL divergence between two Gaussians, in closed form.

    KL(N(m0, S0) || N(m1, S1)) = (1/2)[tr(S1^{-1} S0) + (m1-m0)^T S1^{-1} (m1-m0) - d + log det S1 - log det S0].

    Parameters
    ----------
    m0 : array_like, shape (d,)
        The first mean.
    S0 : array_like, shape (d, d)
        The first covariance (positive definite).
    m1 : array_like, shape (d,)
        The second mean.
    S1 : array_like, shape (d, d)
        The second covariance (positive definite).

    Returns
    -------
    float
    """
    m0, m1 = np.atleast_1d(m0).astype(float), np.atleast_1d(m1).astype(float)
    S0, S1 = np.atleast_2d(S0).astype(float), np.atleast_2d(S1).astype(float)
    d = m0.size
    S1inv = np.linalg.inv(S1)
    dm = m1 - m0
    return float(0.5 * (np.trace(S1inv @ S0) + dm @ S1inv @ dm - d + np.linalg.slogdet(S1)[1]
                        - np.linalg.slogdet(S0)[1]))
