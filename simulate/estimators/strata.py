"""Strata for Fu & Zhang's (AISTATS 2017) clustering-based preprocessing: a partition of the data into clusters.

* :func:`kmeans_strata` -- k-means (scikit-learn ``KMeans``, Lloyd, seeded, stopped after ``max_iter`` Lloyd
  iterations: the paper's "early termination", Sec. 3.3) giving clusters C_1..C_k of the N data (eq. 9);
  :meth:`Strata.from_labels` for a user-given partition, :meth:`Strata.single` for one cluster (plain SGLD).
* :func:`within_variance` -- the within-cluster data variance V(C_i) of Theorem 3.2.

The per-cluster sample sizes are :mod:`simulate.estimators.allocation`'s, the estimator of eq. (10)
:mod:`simulate.estimators.stratified`'s.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..validation import ParameterError, check_finite_array, check_int


@dataclass(frozen=True)
class Strata:
    """A partition of range(N) into k non-empty clusters (eq. 9).

    ``labels`` (N,): cluster of each datum; ``members``: the indices of each cluster (sorted);
    ``within_var`` (k,): v_i = (1/n_i) sum_{j in C_i} ||x_j - mu_i||^2, the paper's V(C_i) (NaN without features);
    ``seconds``: time spent clustering; ``n_iter``: Lloyd iterations run; ``inertia``: sum_i n_i v_i (WCSS).

    Parameters
    ----------
    labels : numpy.ndarray, shape (N,)
        The cluster of each datum.
    members : tuple of numpy.ndarray
        The indices of each cluster, sorted.
    within_var : numpy.ndarray, shape (k,)
        v_i (NaN without features).
    seconds : float, default 0.0
        Time spent clustering.
    n_iter : int, default 0
        Lloyd iterations run.

    References
    ----------
    Fu & Zhang (2017), eq. (9) (the partition) and Theorem 3.2 (V(C_i)).
    """

    labels: np.ndarray
    members: tuple[np.ndarray, ...]
    within_var: np.ndarray
    seconds: float = 0.0
    n_iter: int = 0

    @property
    def k(self) -> int:
        return len(self.members)

    @property
    def n_data(self) -> int:
        return int(self.labels.shape[0])

    @property
    def sizes(self) -> np.ndarray:
        """n_i, shape (k,)."""
        return np.array([m.size for m in self.members], dtype=np.int64)

    @property
    def inertia(self) -> float:
        return float(np.sum(self.sizes * self.within_var))

    @classmethod
    def from_labels(cls, labels, features=None, seconds: float = 0.0, n_iter: int = 0) -> Strata:
        """Strata from cluster labels 0..k-1 (every label must occur); v_i from ``features`` (N, p) if given.

        Parameters
        ----------
        labels : array_like of int, shape (N,)
            Cluster labels 0..k-1, each used.
        features : array_like, shape (N,) or (N, p), optional
            The data whose within-cluster variances v_i are computed.
        seconds : float, default 0.0
            Time spent clustering.
        n_iter : int, default 0
            Lloyd iterations run.

        Returns
        -------
        Strata
            The partition.

        Raises
        ------
        ParameterError
            For labels that are not a non-empty 1-D integer array, negative, or leave a cluster empty; features not
            finite or with another row count.
        """
        lab = np.asarray(labels)
        if lab.ndim != 1 or lab.size == 0 or not np.issubdtype(lab.dtype, np.integer):
            raise ParameterError(f"labels must be a non-empty 1-D integer array, got dtype {lab.dtype}, "
                                 f"shape {lab.shape}")
        k = int(lab.max()) + 1
        if lab.min() < 0:
            raise ParameterError("labels must be >= 0")
        counts = np.bincount(lab, minlength=k)
        if np.any(counts == 0):
            raise ParameterError(f"labels must use every cluster 0..{k - 1}; empty clusters: "
                                 f"{np.flatnonzero(counts == 0).tolist()}")
        order = np.argsort(lab, kind="stable")
        members = tuple(np.split(order, np.cumsum(counts)[:-1]))
        if features is None:
            v = np.full(k, np.nan)
        else:
            F = check_finite_array("features", features, ndim=(1, 2))
            F = F[:, None] if F.ndim == 1 else F
            if F.shape[0] != lab.size:
                raise ParameterError(f"features must have {lab.size} rows to match labels, got {F.shape[0]}")
            v = np.array([within_variance(F[m]) for m in members])
        return cls(lab.astype(np.int64), members, v, seconds, n_iter)

    @classmethod
    def single(cls, n_data: int, features=None) -> Strata:
        """One cluster holding every datum (k = 1: CP reduces to plain SGLD, digest sec. 5.2 item 3).

        Parameters
        ----------
        n_data : int
            N, the number of data.
        features : array_like, shape (N,) or (N, p), optional
            The data (for v_1).

        Returns
        -------
        Strata
            k = 1.

        Raises
        ------
        ParameterError
            For n_data < 1.

        References
        ----------
        Fu & Zhang (2017), Sec. 3 (k = 1 is plain SGLD).
        """
        return cls.from_labels(np.zeros(check_int("n_data", n_data, 1), dtype=np.int64), features)


def within_variance(F: np.ndarray) -> float:
    """v = (1/n) sum_j ||x_j - mean||^2 of the rows of F (the paper's V(C_i), Theorem 3.2).

    Parameters
    ----------
    F : numpy.ndarray, shape (n, p)
        The rows of one cluster.

    Returns
    -------
    float
        v.

    References
    ----------
    Fu & Zhang (2017), Theorem 3.2.
    """
    c = F - F.mean(axis=0)
    return float(np.einsum("ij,ij->", c, c) / F.shape[0])


def kmeans_strata(features, k: int, *, max_iter: int = 10, seed: int = 0, n_init: int = 1) -> Strata:
    """k-means clusters of the rows of ``features`` (Fu & Zhang Sec. 3.2-3.3, Algorithm 1 line 1).

    scikit-learn ``KMeans(algorithm="lloyd", init="k-means++", tol=0)`` stopped after ``max_iter`` Lloyd
    iterations (early termination, Sec. 3.3; the paper does not give its count), seeded by ``seed``.

    Parameters
    ----------
    features : array_like, shape (N,) or (N, p)
        The data clustered.
    k : int
        The number of clusters, 1 <= k <= N.
    max_iter : int, default 10
        Lloyd iterations (early termination).
    seed : int, default 0
        The seed of k-means++.
    n_init : int, default 1
        k-means restarts.

    Returns
    -------
    Strata
        The clusters, with v_i from the features.

    Raises
    ------
    ParameterError
        For invalid settings or fewer than k non-empty clusters.

    References
    ----------
    Fu & Zhang (2017), Sec. 3.2-3.3 and Algorithm 1, line 1.
    """
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    F = check_finite_array("features", features, ndim=(1, 2))
    F = F[:, None] if F.ndim == 1 else F
    k = check_int("k", k, 1, F.shape[0])
    max_iter = check_int("max_iter", max_iter, 1)
    n_init = check_int("n_init", n_init, 1)
    t0 = time.perf_counter()
    if k == 1:
        labels = np.zeros(F.shape[0], dtype=np.int64)
        n_iter = 0
    else:
        km = KMeans(n_clusters=k, init="k-means++", n_init=n_init, max_iter=max_iter, tol=0.0,
                    random_state=seed, algorithm="lloyd")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            labels = km.fit_predict(F).astype(np.int64)
        n_iter = int(km.n_iter_)
        if np.unique(labels).size < k:
            raise ParameterError(f"k-means found fewer than k = {k} non-empty clusters (too few distinct points); "
                                 "choose a smaller k")
    seconds = time.perf_counter() - t0
    return Strata.from_labels(labels, F, seconds=seconds, n_iter=n_iter)


__all__ = ["Strata", "kmeans_strata", "within_variance"]
