"""Numba kernels of the simulator's hot loops: the logistic-regression minibatch gradients (fused, never
materialising the (n, M, d) gather), SAGA's table updates, the exact repeat check of the without-replacement
minibatch draws (:func:`repeat_mask`) and the Gaussian models' minibatch data sums (:func:`take_sum_flat`,
:func:`take_sum_rows`, the same bits as numpy's take-then-sum).

With z_i = y_i x_i (rows of ``Z``, shape (N, d)) and the minibatch ``idx`` (n, M) (column m: chain m's indices),

    grad_sum[m]  = sum_{j=1}^n z_{i_jm} sigma(-z_{i_jm}^T theta_m),                 i_jm = idx[j, m],
    diff_sum[m]  = sum_j z_{i_jm} sigma(-z_{i_jm}^T theta_m) - sum_j z_{i_jm} sigma(-z_{i_jm}^T theta_hat_m),

(Vollmer et al. 2016 eq. 73; the second is the control-variate / SVRG correction with one pass over the minibatch
for both points), and ``per_datum`` the individual terms z_i sigma(-z_i^T theta_m) (for SAGA's table).

Arithmetic follows the numpy path of :class:`simulate.logistic.LogisticRegressionModel` operation by operation:
s = sum_k z_k theta_k accumulated in the order k = 0..d-1, sums over the minibatch in the order j = 0..n-1; no
fast-math (no reassociation). Two changes: ``diff_sum`` accumulates z_j (w_j - v_j) once instead of subtracting
two sums (less cancellation when theta is near theta_hat, one accumulation fewer), and
sigma(-s) = 1/(1 + e^s) instead of ``sigmoid_neg``'s (1 - tanh(s/2))/2 (the same function; scalar exp is about 3x
cheaper than tanh and more accurate for large s), so results agree with the numpy path to rounding (tests/
test_kernels.py: relative difference <= 1e-12). Each chain is computed by one thread in a fixed order, so results
do not depend on the number of threads. Memory per chain: n weights.

Threads: numba's default (all cores; ``NUMBA_NUM_THREADS`` or ``numba.set_num_threads`` to change). Unless the user
set it, OMP_WAIT_POLICY defaults to PASSIVE here (before numba's OpenMP layer starts): with the cores busy with
other processes, spinning OpenMP workers made every kernel call wait for a descheduled thread (measured on 2 busy
cores: 8.1 ms median per call with 2 threads against 3.0 ms with 1; passive: 3.0 ms).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import functools  # noqa: E402
import importlib  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402


@functools.cache
def concurrent_calls_safe() -> bool:
    """Whether parallel kernels may be called from several Python threads at once: numba's OpenMP and TBB
    threading layers allow it, its fallback ``workqueue`` layer aborts the process (asked once per process:
    ``run`` asks on every call)."""
    if str(numba.config.THREADING_LAYER).lower() == "workqueue":
        return False
    for mod in ("numba.np.ufunc.omppool", "numba.np.ufunc.tbbpool"):
        try:
            importlib.import_module(mod)
            return True
        except ImportError:
            continue
    return False



@njit(cache=True, inline="always")
def _sig_neg(s):
    """sigma(-s) = 1/(1 + e^s) (equal to ``sigmoid_neg``'s (1 - tanh(s/2))/2 up to rounding; exp is 3x cheaper)."""
    return 1.0 / (1.0 + np.exp(s))


@njit(cache=True)
def _dots(Z, idx, m, th, w):
    """w[j] = sum_k Z[idx[j, m], k] th[k], each summed in the order k = 0..d-1.

    Four minibatch rows at a time (four independent accumulations in flight: the row loads from L2/L3 overlap and
    the sums are not one serial chain); each row's own sum keeps the order k = 0..d-1, so the result is the same
    to the last bit as one row at a time.
    """
    n, d = idx.shape[0], Z.shape[1]
    t = th[0]
    j = 0
    while j + 4 <= n:
        r0, r1, r2, r3 = Z[idx[j, m]], Z[idx[j + 1, m]], Z[idx[j + 2, m]], Z[idx[j + 3, m]]
        s0, s1, s2, s3 = r0[0] * t, r1[0] * t, r2[0] * t, r3[0] * t
        for k in range(1, d):
            tk = th[k]
            s0 += r0[k] * tk
            s1 += r1[k] * tk
            s2 += r2[k] * tk
            s3 += r3[k] * tk
        w[j], w[j + 1], w[j + 2], w[j + 3] = s0, s1, s2, s3
        j += 4
    while j < n:
        r0 = Z[idx[j, m]]
        s0 = r0[0] * t
        for k in range(1, d):
            s0 += r0[k] * th[k]
        w[j] = s0
        j += 1


@njit(cache=True)
def _weights(Z, idx, m, th, w):
    """w[j] = sigma(-z_j^T th), z_j = Z[idx[j, m]] (dot products as in :func:`_dots`)."""
    _dots(Z, idx, m, th, w)
    for j in range(idx.shape[0]):
        w[j] = _sig_neg(w[j])


@njit(cache=True)
def _weights_t(GT, th, w):
    """w[j] = sigma(-sum_k GT[k, j] th[k]) for a transposed (d, n) block, each dot product summed in the order
    k = 0..d-1 (vectorised over j)."""
    n = GT.shape[1]
    t = th[0]
    for j in range(n):
        w[j] = GT[0, j] * t
    for k in range(1, GT.shape[0]):
        t = th[k]
        for j in range(n):
            w[j] += GT[k, j] * t
    for j in range(n):
        w[j] = _sig_neg(w[j])


@njit(cache=True)
def _accumulate(Z, idx, m, w, out_row):
    """out_row[k] = sum_j Z[idx[j, m], k] w[j], summed in the order j = 0..n-1 (vectorised over k; the rows were
    just read by :func:`_dots`, so they come from L1)."""
    d = Z.shape[1]
    for k in range(d):
        out_row[k] = 0.0
    for j in range(idx.shape[0]):
        zr = Z[idx[j, m]]
        wj = w[j]
        for k in range(d):
            out_row[k] += zr[k] * wj


@njit(parallel=True, cache=True)
def grad_sum(Z, theta, idx, out):
    """out[m] = sum_j z_{idx[j,m]} sigma(-z_{idx[j,m]}^T theta[m]); Z (N, d), theta (M, d), idx (n, M), out (M, d)."""
    n = idx.shape[0]
    for m in prange(theta.shape[0]):
        w = np.empty(n)
        _weights(Z, idx, m, theta[m], w)
        _accumulate(Z, idx, m, w, out[m])


@njit(parallel=True, cache=True)
def diff_sum(Z, theta, theta_hat, idx, out):
    """out[m] = sum_j z_j [sigma(-z_j^T theta[m]) - sigma(-z_j^T theta_hat[m])], z_j = Z[idx[j, m]] (one accumulation
    of the weight differences: the same sum as two separate sums subtracted, with less cancellation)."""
    n = idx.shape[0]
    for m in prange(theta.shape[0]):
        w = np.empty(n)
        v = np.empty(n)
        _weights(Z, idx, m, theta[m], w)
        _weights(Z, idx, m, theta_hat[m], v)
        for j in range(n):
            w[j] -= v[j]
        _accumulate(Z, idx, m, w, out[m])


@njit(parallel=True, cache=True)
def per_datum(Z, theta, idx, out):
    """out[j, m] = z_{idx[j,m]} sigma(-z_{idx[j,m]}^T theta[m]); out (n, M, d)."""
    n, d = idx.shape[0], Z.shape[1]
    for m in prange(theta.shape[0]):
        w = np.empty(n)
        _weights(Z, idx, m, theta[m], w)
        for j in range(n):
            zr = Z[idx[j, m]]
            for k in range(d):
                out[j, m, k] = zr[k] * w[j]


@njit(parallel=True, cache=True)
def sigmoid_neg_inplace(S):
    """S <- sigma(-S) = 1/(1 + e^S) elementwise for a C-contiguous 2-D array (rows in parallel)."""
    for m in prange(S.shape[0]):
        row = S[m]
        for i in range(row.shape[0]):
            row[i] = _sig_neg(row[i])


# ---------------------------------------------------------------------- SAGA's (M, N, d) table: touch only n rows
_TABLE_CHUNK = 64


@njit(parallel=True, cache=True)
def saga_table(Z, ZT, theta, table, total):
    """table[m, i] = z_i sigma(-z_i^T theta[m]) for all i; total[m] = sum_i table[m, i] (order i = 0..N-1).

    ``ZT`` = Z.T as a C-contiguous (d, N) array (dot products vectorised over data, each summed over k in order).
    """
    N, d = Z.shape
    for m in prange(theta.shape[0]):
        w = np.empty(_TABLE_CHUNK)
        for k in range(d):
            total[m, k] = 0.0
        for a in range(0, N, _TABLE_CHUNK):
            b = min(N, a + _TABLE_CHUNK)
            _weights_t(ZT[:, a:b], theta[m], w[: b - a])
            for i in range(a, b):
                wi = w[i - a]
                for k in range(d):
                    g = Z[i, k] * wi
                    table[m, i, k] = g
                    total[m, k] += g


@njit(parallel=True, cache=True)
def saga_gather_diff(table, idx, g_new, g_old, out):
    """g_old[j, m] = table[m, idx[j, m]] and out[m] = sum_j (g_new[j, m] - g_old[j, m]) (order j = 0..n-1)."""
    d = table.shape[2]
    for m in prange(table.shape[0]):
        for k in range(d):
            out[m, k] = 0.0
        for j in range(idx.shape[0]):
            i = idx[j, m]
            for k in range(d):
                g = table[m, i, k]
                g_old[j, m, k] = g
                out[m, k] += g_new[j, m, k] - g


@njit(parallel=True, cache=True)
def saga_scatter_total(table, idx, g_new, g_old, total):
    """table[m, idx[j, m]] = g_new[j, m]; total[m] += sum_j (g_new[j, m] - g_old[j, m]) (indices distinct per chain)."""
    d = table.shape[2]
    for m in prange(table.shape[0]):
        acc = np.zeros(d)
        for j in range(idx.shape[0]):
            i = idx[j, m]
            for k in range(d):
                g = g_new[j, m, k]
                table[m, i, k] = g
                acc[k] += g - g_old[j, m, k]
        for k in range(d):
            total[m, k] += acc[k]


# ---------------------------------------------------------------------- minibatch draws: which columns repeat an index


@njit(cache=True)
def repeat_mask(idx, pairwise):
    """bad[m] = True when column m of idx (n, M) holds some value twice (boolean, length M).

    ``pairwise``: the n(n-1)/2 row pairs compared, each vectorised over all columns (cheap for small n or many
    columns); otherwise one pass per column through an open-addressing hash set of 2^ceil(log2 2n) slots (O(n) per
    column, whatever N). Either way the answer is exact, so the draws that use it do not depend on the method.
    Serial: one thread is memory-bound already and a parallel launch costs more than the small redraw rounds.
    """
    n, M = idx.shape
    bad = np.zeros(M, dtype=np.bool_)
    if pairwise:
        for i in range(n - 1):
            a = idx[i]
            for j in range(i + 1, n):
                c = idx[j]
                for m in range(M):
                    bad[m] = bad[m] | (a[m] == c[m])
        return bad
    size = 1
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    slots = np.empty(n, dtype=np.int64)
    for m in range(M):
        used = 0
        for j in range(n):
            v = np.int64(idx[j, m])
            h = (v * 2654435761) & mask  # Knuth's multiplicative hash
            while table[h] != -1 and table[h] != v:
                h = (h + 1) & mask
            if table[h] == v:
                bad[m] = True
                break
            table[h] = v
            slots[used] = h
            used += 1
        for u in range(used):
            table[slots[u]] = -1
    return bad


# ---------------------------------------------------------------------- minibatch sums of data (Gaussian models)


@njit(cache=True)
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


@njit(cache=True)
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


__all__ = ["diff_sum", "grad_sum", "per_datum", "repeat_mask", "saga_gather_diff", "saga_scatter_total", "saga_table",
           "sigmoid_neg_inplace", "take_sum_flat", "take_sum_rows"]
