"""Numba kernels of the logistic-regression gradients: the minibatch sums (fused, never materialising the
(n, M, d) gather), the control-variate difference, per-datum terms and SAGA's table updates.

With z_i = y_i x_i (rows of ``Z``, shape (N, d)) and the minibatch ``idx`` (n, M) (column m: chain m's indices),

    grad_sum[m]  = sum_{j=1}^n z_{i_jm} sigma(-z_{i_jm}^T theta_m),                 i_jm = idx[j, m],
    diff_sum[m]  = sum_j z_{i_jm} sigma(-z_{i_jm}^T theta_m) - sum_j z_{i_jm} sigma(-z_{i_jm}^T theta_hat_m),

(Vollmer et al. 2016 eq. 73; the second is the control-variate / SVRG correction with one pass over the minibatch
for both points), and ``per_datum`` the individual terms z_i sigma(-z_i^T theta_m) (for SAGA's table).

Arithmetic: the kernels read ``Zp``, Z padded with zero columns to a multiple of 8, and use the explicit 8-lane
vector code of :mod:`._simd`: its fixed summation orders (z^T theta in eight lanes and a fixed tree; the minibatch sum
as even and odd partial sums) and its vector sigma(-s), accurate to 3 ulp. No fast-math, so the bits are the same on
every CPU and for any thread count (each chain is computed by one thread). ``diff_sum`` accumulates z_j (w_j - v_j)
once instead of subtracting two sums (less cancellation when theta is near theta_hat). Threads: numba's default
(``NUMBA_NUM_THREADS`` or ``numba.set_num_threads``); see :func:`.kernels.prefer_passive_wait`.
"""

from __future__ import annotations

import functools
import importlib

import numba
import numpy as np
from numba import njit, prange

from . import _simd, _team


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



#: Chains per parallel work item of the minibatch kernels (work buffers are allocated once per item).
CHAINS_PER_ITEM = 8


@njit(cache=True, inline="always")
def _row_offsets(idx, m, N, dp, rows):
    """rows[j] = i_j dp for chain m's indices i_j = idx[j, m] (negative indices count from the end, as in take);
    the padding rows[n:] repeat the last row (their lanes are computed and never used)."""
    n = idx.shape[0]
    for j in range(n):
        i = np.int64(idx[j, m])
        rows[j] = (i + N if i < 0 else i) * dp
    for j in range(n, rows.shape[0]):
        rows[j] = rows[n - 1]


@njit(cache=True, inline="always")
def _padded_theta(theta, m, th):
    for k in range(theta.shape[1]):
        th[k] = theta[m, k]


@njit(cache=True, inline="always")
def _chain_weights(Zp, theta, idx, m, th, rows, w, nb):
    """rows <- chain m's row offsets, th <- theta[m] padded, w[j] <- sigma(-z_j^T theta[m])."""
    _row_offsets(idx, m, Zp.shape[0], Zp.shape[1], rows)
    _padded_theta(theta, m, th)
    _simd.weights_rows(Zp, rows, th, w, nb)


@njit(cache=True, inline="always")
def _grad_item(Zp, theta, idx, out, nb, item, th, rows, w, acc):
    """grad_sum of the chains of work item ``item`` (th, rows, w, acc: work buffers)."""
    n, M = idx.shape
    for m in range(item * CHAINS_PER_ITEM, min(M, (item + 1) * CHAINS_PER_ITEM)):
        _chain_weights(Zp, theta, idx, m, th, rows, w, nb)
        _simd.accumulate_rows(acc, Zp, rows, w, n, nb)
        for k in range(theta.shape[1]):
            out[m, k] = acc[k]


@njit(cache=True, inline="always")
def _diff_item(Zp, theta, theta_hat, idx, out, nb, item, th, th_hat, rows, w, s_hat, acc):
    """diff_sum of the chains of work item ``item``."""
    n, M = idx.shape
    N, dp = Zp.shape
    for m in range(item * CHAINS_PER_ITEM, min(M, (item + 1) * CHAINS_PER_ITEM)):
        _row_offsets(idx, m, N, dp, rows)
        _padded_theta(theta, m, th)
        _padded_theta(theta_hat, m, th_hat)
        _simd.weights_diff_rows(Zp, rows, th, th_hat, w, s_hat, nb)
        _simd.accumulate_rows(acc, Zp, rows, w, n, nb)
        for k in range(theta.shape[1]):
            out[m, k] = acc[k]


def n_items(n_chains: int) -> int:
    """Work items of a minibatch kernel call over n_chains chains."""
    return -(-n_chains // CHAINS_PER_ITEM)


@njit(parallel=True, cache=True, nogil=True)
def grad_sum(Zp, theta, idx, out, nb):
    """out[m] = sum_j z_j sigma(-z_j^T theta[m]), z_j = Z[idx[j, m]]; Zp (N, 8 nb) padded, theta (M, d), idx (n, M),
    out (M, d); nb = _simd.blocks(dp) (one compiled kernel per width)."""
    n, M = idx.shape
    dp = Zp.shape[1]
    npad = -(-n // _simd.LANES) * _simd.LANES
    for item in prange(-(-M // CHAINS_PER_ITEM)):
        th = np.zeros(dp)
        _grad_item(Zp, theta, idx, out, nb, item, th, np.empty(npad, np.int64), np.empty(npad), np.empty(dp))


@njit(cache=True, nogil=True)
def grad_sum_shared(Zp, theta, idx, out, nb, ticket):
    """:func:`grad_sum` on the work items this thread claims from ``ticket`` (:mod:`simulate._team`)."""
    n, M = idx.shape
    dp = Zp.shape[1]
    npad = -(-n // _simd.LANES) * _simd.LANES
    th = np.zeros(dp)
    rows, w, acc = np.empty(npad, np.int64), np.empty(npad), np.empty(dp)
    items = -(-M // CHAINS_PER_ITEM)
    _team.enter(ticket)
    while True:
        item = _team.claim(ticket)
        if item >= items:
            break
        _grad_item(Zp, theta, idx, out, nb, item, th, rows, w, acc)
    _team.leave(ticket)


@njit(parallel=True, cache=True, nogil=True)
def diff_sum(Zp, theta, theta_hat, idx, out, nb):
    """out[m] = sum_j z_j [sigma(-z_j^T theta[m]) - sigma(-z_j^T theta_hat[m])]: each row read once, the weight
    differences accumulated once (less cancellation near the anchor than two sums subtracted)."""
    n, M = idx.shape
    dp = Zp.shape[1]
    npad = -(-n // _simd.LANES) * _simd.LANES
    for item in prange(-(-M // CHAINS_PER_ITEM)):
        th, th_hat = np.zeros(dp), np.zeros(dp)
        _diff_item(Zp, theta, theta_hat, idx, out, nb, item, th, th_hat, np.empty(npad, np.int64), np.empty(npad),
                   np.empty(npad), np.empty(dp))


@njit(cache=True, nogil=True)
def diff_sum_shared(Zp, theta, theta_hat, idx, out, nb, ticket):
    """:func:`diff_sum` on the work items this thread claims from ``ticket``."""
    n, M = idx.shape
    dp = Zp.shape[1]
    npad = -(-n // _simd.LANES) * _simd.LANES
    th, th_hat = np.zeros(dp), np.zeros(dp)
    rows, w, s_hat, acc = np.empty(npad, np.int64), np.empty(npad), np.empty(npad), np.empty(dp)
    items = -(-M // CHAINS_PER_ITEM)
    _team.enter(ticket)
    while True:
        item = _team.claim(ticket)
        if item >= items:
            break
        _diff_item(Zp, theta, theta_hat, idx, out, nb, item, th, th_hat, rows, w, s_hat, acc)
    _team.leave(ticket)


def call(kernel, shared, args: tuple) -> None:
    """``kernel(*args)`` (parallel over numba's threads), or, in a thread with a helper (:func:`simulate._team.current`,
    set while drawing ahead), ``shared`` on work items split dynamically between this thread and the helper. The
    same numbers either way: each chain is computed by one thread with the same code."""
    team = _team.current()
    if team is None:
        kernel(*args)
    else:
        team.run(shared, args)


@njit(parallel=True, cache=True, nogil=True)
def per_datum(Zp, theta, idx, out, nb):
    """out[j, m] = z_j sigma(-z_j^T theta[m]), z_j = Z[idx[j, m]]; out (n, M, d)."""
    n, M = idx.shape
    N, dp = Zp.shape
    d = theta.shape[1]
    npad = -(-n // _simd.LANES) * _simd.LANES
    for item in prange(-(-M // CHAINS_PER_ITEM)):
        th = np.zeros(dp)
        rows = np.empty(npad, np.int64)
        w = np.empty(npad)
        for m in range(item * CHAINS_PER_ITEM, min(M, (item + 1) * CHAINS_PER_ITEM)):
            _chain_weights(Zp, theta, idx, m, th, rows, w, nb)
            for j in range(n):
                i = rows[j] // dp
                for k in range(d):
                    out[j, m, k] = Zp[i, k] * w[j]


# ---------------------------------------------------------------------- SAGA's (M, N, d) table: touch only n rows
_TABLE_ROWS = 64  # data rows per weight block of :func:`saga_table`


@njit(parallel=True, cache=True, nogil=True)
def saga_table(Zp, theta, table, total, nb):
    """table[m, i] = z_i sigma(-z_i^T theta[m]) for all i (the weights of :func:`per_datum`, so a table entry equals
    the fresh per-datum gradient at the same point bit for bit); total[m] = sum_i table[m, i] (order i = 0..N-1)."""
    N, dp = Zp.shape
    d = theta.shape[1]
    for m in prange(theta.shape[0]):
        th = np.zeros(dp)
        _padded_theta(theta, m, th)
        rows = np.empty(_TABLE_ROWS, np.int64)
        w = np.empty(_TABLE_ROWS)
        for k in range(d):
            total[m, k] = 0.0
        for a in range(0, N, _TABLE_ROWS):
            b = min(N, a + _TABLE_ROWS)
            for i in range(_TABLE_ROWS):
                rows[i] = min(a + i, b - 1) * dp
            _simd.weights_rows(Zp, rows, th, w, nb)
            for i in range(a, b):
                wi = w[i - a]
                for k in range(d):
                    g = Zp[i, k] * wi
                    table[m, i, k] = g
                    total[m, k] += g


@njit(parallel=True, cache=True, nogil=True)
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


@njit(parallel=True, cache=True, nogil=True)
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


__all__ = ["call", "concurrent_calls_safe", "diff_sum", "diff_sum_shared", "grad_sum", "grad_sum_shared", "n_items",
           "per_datum", "saga_gather_diff", "saga_scatter_total", "saga_table"]
