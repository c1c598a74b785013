"""Numba kernels of the Gaussian models' minibatch data sums and of the Langevin update: plain loops in a fixed
order that give the bits of the numpy expressions they replace, without their temporaries."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def take_sum_flat(x, idx):
    """out[m] = sum_j x[idx[j, m]] for 1-D x, summed in the order j = 0..n-1: the same bits as numpy's
    ``x.take(idx).sum(axis=0)`` (which adds the rows in order), without the (n, M) temporary. Serial: the loop is
    memory-bound and vectorised over m."""
    n, M = idx.shape
    out = np.empty(M)
    r = idx[0]
    for m in range(M):
        out[m] = x[r[m]]
    for j in range(1, n):
        r = idx[j]
        for m in range(M):
            out[m] += x[r[m]]
    return out


@njit(cache=True, nogil=True)
def take_sum_rows(X, idx):
    """out[m] = sum_j X[idx[j, m]] for X (N, d), summed in the order j = 0..n-1 (the bits of
    ``X.take(idx, axis=0).sum(axis=0)``, without the (n, M, d) temporary)."""
    n, M = idx.shape
    d = X.shape[1]
    out = np.empty((M, d))
    r = idx[0]
    for m in range(M):
        for k in range(d):
            out[m, k] = X[r[m], k]
    for j in range(1, n):
        r = idx[j]
        for m in range(M):
            for k in range(d):
                out[m, k] += X[r[m], k]
    return out


@njit(cache=True, nogil=True)
def langevin_step(theta, grad, xi, half_h, noise):
    """theta[i] = (theta[i] + grad[i] * half_h) + xi[i] * noise (flat arrays): the numpy in-place sequence's
    operations, so its bits, in one pass with the GIL released."""
    for i in range(theta.size):
        theta[i] = (theta[i] + grad[i] * half_h) + xi[i] * noise
