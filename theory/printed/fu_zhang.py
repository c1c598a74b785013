"""Fu & Zhang's (AISTATS 2017) formulas as printed, kept apart from the derivations they are checked against.

* :func:`lemma34_printed` -- Lemma 3.4 as printed (the with-replacement variance, which the paper uses for its
  Algorithm 1 although that draws without replacement; the exact forms are
  :func:`theory.noise.stratified.stratified_variance`).
"""

from __future__ import annotations

import numpy as np

from theory.noise.stratified import cluster_sq_dev


def lemma34_printed(g: np.ndarray, labels: np.ndarray, b) -> float:
    """Lemma 3.4 as printed: sum_i (n_i/b_i) sum_{j in C_i} ``||g_j - (1/n_i) sum_{l in C_i} g_l||^2``.

    Exact with replacement; an upper bound for Algorithm 1's draws without replacement
    (:func:`theory.noise.stratified.stratified_variance`).

    Parameters
    ----------
    g : numpy.ndarray, shape (N, d)
        The per-datum gradients.
    labels : numpy.ndarray of int, shape (N,)
        The cluster of each datum, 0..k-1.
    b : array_like, shape (k,)
        b_i, draws per cluster.

    Returns
    -------
    float

    References
    ----------
    Fu & Zhang (2017), Lemma 3.4 (:doc:`/papers/fu_zhang`, secs. 2 and 7).
    """
    n = np.bincount(np.asarray(labels)).astype(np.float64)
    return float(np.sum(n / np.asarray(b, dtype=np.float64) * cluster_sq_dev(g, labels)))


__all__ = ["lemma34_printed"]
