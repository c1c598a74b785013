"""Fused SGLD steps of one chain block: the minibatch draw, the injected noise, the gradient estimate, the Langevin
update and the time-average sums of several steps in one numba call that holds no GIL and allocates nothing.

What a step of ``Sampler(model, Minibatch(n, replace), Langevin(T), h)`` computes on a block of m chains
(:meth:`simulate.Sampler.step`, then the runner's sums), in the order it does:

1. the minibatch indices idx (n, m) from the block's generator (:func:`.draws.fill_bounded` with replacement, the
   rejection draw :func:`.draws.rejection_into` without), then the noise xi (m, d) from the same generator
   (numpy's ziggurat, through numba's ``Generator``);
2. per chain c and coordinate k: first the sums of the state, s1 += theta and s2 += theta * theta (s = theta at the
   first step of the average), then the gradient estimate g and the update
   theta <- (theta + g (h/2)) + xi sqrt(h T) (the Gaussian kernels go through the chains in tiles of TILE, each
   pass of a tile's loops over consecutive chains; the operations on each number, and their order, are the same).

The gradient estimates, each the numpy expression's operations in its order:

* the Gaussian mean model with Sigma = sigma_x^2 I (Vollmer et al. 2016, eq. 11):
  g = (((sum_j x_{idx[j, c]}) - n theta) / sigma_x^2) (N/n) + theta (-1/sigma0^2), the data sum over j in order
  (``+ 0.0`` for the flat prior, as numpy adds its zeros);
* logistic regression (Vollmer et al. eq. 73): g = grad_sum (N/n) + theta (-1/sigma0^2), grad_sum by the vector
  code of :mod:`._logistic` (each chain by one thread, its fixed order).

So the numbers are those of the generic step loop to the last bit, for any block split and thread count
(tests/test_fused.py). Every kernel takes the same arguments first: the bit generator's ``next_uint32`` and state
addresses (:func:`.draws.pointers`) and the ``Generator`` itself, N, replace, the work buffers idx (n, m),
``work`` (:func:`.draws.rejection_work`) and xi (m, d), theta (m, d), ``ks`` and the sums s1, s2 (m, d) (empty: not
asked for); then the model's. One call advances the block from step k0 to k1 (``ks`` = [k0, k1, total, lo, hi]):
for each k the state theta_k joins the sums when lo <= k < hi, and is advanced when k < total. Each kernel comes
twice: serial (one per block thread) and parallel over chains (``_parallel``, for a block that has the cores to
itself): the draws are one stream either way, so only the loop over chains is split.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import _simd
from ._logistic import CHAINS_PER_ITEM, _chain_weights
from .draws import fill_bounded, rejection_into


@njit(cache=True, nogil=True, inline="always")
def _draw(fn, state, gen, n_data, replace, idx, work, xi):
    """idx <- the step's minibatch indices, then xi <- its standard normals (the stream order of Sampler.step)."""
    if replace:
        fill_bounded(fn, state, n_data - 1, idx.reshape(-1))
    else:
        rejection_into(fn, state, n_data, idx, work)
    flat = xi.reshape(-1)
    for i in range(flat.size):
        flat[i] = gen.standard_normal()


@njit(cache=True, nogil=True, inline="always")
def _add_state(theta, c, s1, s2, first):
    """Chain c's state into the time-average sums (an empty sums array: not asked for)."""
    for k in range(theta.shape[1]):
        t = theta[c, k]
        if s1.size:
            s1[c, k] = t if first else s1[c, k] + t
        if s2.size:
            tt = t * t
            s2[c, k] = tt if first else s2[c, k] + tt


#: Chains per tile of the Gaussian kernels: a tile's data sums (TILE d numbers) stay in the L1 cache, and each of
#: its loops runs over consecutive chains, so the compiler vectorises it (the gathers of the data sums too).
TILE = 512


@njit(cache=True, nogil=True, inline="always")
def _add_states(th, s1, s2, a, b, first):
    """The time-average sums of the flat state entries a..b-1 (an empty sums array: not asked for)."""
    if s1.size:
        if first:
            for i in range(a, b):
                s1[i] = th[i]
        else:
            for i in range(a, b):
                s1[i] += th[i]
    if s2.size:
        if first:
            for i in range(a, b):
                s2[i] = th[i] * th[i]
        else:
            for i in range(a, b):
                s2[i] += th[i] * th[i]


@njit(cache=True, nogil=True, inline="always")
def _data_sums(X, idx, c0, c1, xs):
    """xs[(c - c0) d + k] = sum_j X[idx[j, c], k] for the chains c0..c1-1, added in the order j = 0..n-1 (the
    order of :func:`._elementwise.take_sum_rows`)."""
    n, d = idx.shape[0], X.shape[1]
    if d == 1:
        x = X.reshape(-1)
        r = idx[0]
        for c in range(c0, c1):
            xs[c - c0] = x[r[c]]
        for j in range(1, n):
            r = idx[j]
            for c in range(c0, c1):
                xs[c - c0] += x[r[c]]
        return
    for c in range(c0, c1):
        for k in range(d):
            xs[(c - c0) * d + k] = X[idx[0, c], k]
    for j in range(1, n):
        for c in range(c0, c1):
            row = idx[j, c]
            for k in range(d):
                xs[(c - c0) * d + k] += X[row, k]


@njit(cache=True, nogil=True, inline="always")
def _gaussian_tile(t, X, idx, theta, xi, coef, has_prior, s1, s2, add, first, step, xs):
    """Tile t of the chains: the sums of their states, then (if ``step``) their update; coef = [n, sigma_x^2, N/n,
    -1/sigma0^2, h/2, sqrt(h T)]; xs: TILE d work space."""
    m, d = theta.shape
    c0, c1 = t * TILE, min(m, (t + 1) * TILE)
    th, z = theta.reshape(-1), xi.reshape(-1)
    a, b = c0 * d, c1 * d
    if add:
        _add_states(th, s1.reshape(-1), s2.reshape(-1), a, b, first)
    if not step:
        return
    _data_sums(X, idx, c0, c1, xs)
    nf, s2x, scale, prior, half_h, noise = coef[0], coef[1], coef[2], coef[3], coef[4], coef[5]
    if has_prior:
        for i in range(a, b):
            g = ((xs[i - a] - nf * th[i]) / s2x) * scale
            th[i] = (th[i] + (g + th[i] * prior) * half_h) + z[i] * noise
    else:
        for i in range(a, b):
            g = ((xs[i - a] - nf * th[i]) / s2x) * scale
            th[i] = (th[i] + (g + 0.0) * half_h) + z[i] * noise


@njit(cache=True, nogil=True)
def gaussian(fn, state, gen, n_data, replace, idx, work, xi, theta, ks, s1, s2, X, coef, has_prior):
    """Steps ks[0]..ks[1]-1 of SGLD on the isotropic Gaussian mean model (data X (N, d)), one thread."""
    k0, k1, total, lo, hi = ks[0], ks[1], ks[2], ks[3], ks[4]
    xs = np.empty(TILE * theta.shape[1])
    for k in range(k0, k1):
        if k < total:
            _draw(fn, state, gen, n_data, replace, idx, work, xi)
        for t in range(-(-theta.shape[0] // TILE)):
            _gaussian_tile(t, X, idx, theta, xi, coef, has_prior, s1, s2, lo <= k < hi, k == lo, k < total, xs)


@njit(cache=True, nogil=True, parallel=True)
def gaussian_parallel(fn, state, gen, n_data, replace, idx, work, xi, theta, ks, s1, s2, X, coef, has_prior):
    """:func:`gaussian` with the tiles split between numba's threads."""
    k0, k1, total, lo, hi = ks[0], ks[1], ks[2], ks[3], ks[4]
    for k in range(k0, k1):
        if k < total:
            _draw(fn, state, gen, n_data, replace, idx, work, xi)
        for t in prange(-(-theta.shape[0] // TILE)):
            _gaussian_tile(t, X, idx, theta, xi, coef, has_prior, s1, s2, lo <= k < hi, k == lo, k < total,
                           np.empty(TILE * theta.shape[1]))


@njit(cache=True, nogil=True, inline="always")
def _logistic_item(item, Zp, idx, theta, xi, coef, nb, th, rows, w, acc, s1, s2, add, first, step):
    """The chains of work item ``item``: sums, then (if ``step``) the gradient and the update; coef = [N/n,
    -1/sigma0^2, h/2, sqrt(h T)]; th, rows, w, acc: work buffers."""
    n, M = idx.shape
    for c in range(item * CHAINS_PER_ITEM, min(M, (item + 1) * CHAINS_PER_ITEM)):
        if add:
            _add_state(theta, c, s1, s2, first)
        if not step:
            continue
        _chain_weights(Zp, theta, idx, c, th, rows, w, nb)
        _simd.accumulate_rows(acc, Zp, rows, w, n, nb)
        for k in range(theta.shape[1]):
            t = theta[c, k]
            g = acc[k] * coef[0]
            g = g + t * coef[1]
            theta[c, k] = (t + g * coef[2]) + xi[c, k] * coef[3]


@njit(cache=True, nogil=True)
def logistic(fn, state, gen, n_data, replace, idx, work, xi, theta, ks, s1, s2, Zp, nb, coef):
    """Steps ks[0]..ks[1]-1 of SGLD on logistic regression (Zp: the padded z_i = y_i x_i), one thread."""
    k0, k1, total, lo, hi = ks[0], ks[1], ks[2], ks[3], ks[4]
    npad = -(-idx.shape[0] // _simd.LANES) * _simd.LANES
    th, rows, w, acc = np.zeros(Zp.shape[1]), np.empty(npad, np.int64), np.empty(npad), np.empty(Zp.shape[1])
    for k in range(k0, k1):
        add, first, step = lo <= k < hi, k == lo, k < total
        if step:
            _draw(fn, state, gen, n_data, replace, idx, work, xi)
        for item in range(-(-theta.shape[0] // CHAINS_PER_ITEM)):
            _logistic_item(item, Zp, idx, theta, xi, coef, nb, th, rows, w, acc, s1, s2, add, first, step)


@njit(cache=True, nogil=True, parallel=True)
def logistic_parallel(fn, state, gen, n_data, replace, idx, work, xi, theta, ks, s1, s2, Zp, nb, coef):
    """:func:`logistic` with the work items split between numba's threads."""
    k0, k1, total, lo, hi = ks[0], ks[1], ks[2], ks[3], ks[4]
    npad = -(-idx.shape[0] // _simd.LANES) * _simd.LANES
    for k in range(k0, k1):
        add, first, step = lo <= k < hi, k == lo, k < total
        if step:
            _draw(fn, state, gen, n_data, replace, idx, work, xi)
        for item in prange(-(-theta.shape[0] // CHAINS_PER_ITEM)):
            th, acc = np.zeros(Zp.shape[1]), np.empty(Zp.shape[1])
            _logistic_item(item, Zp, idx, theta, xi, coef, nb, th, np.empty(npad, np.int64), np.empty(npad), acc,
                           s1, s2, add, first, step)


__all__ = ["gaussian", "gaussian_parallel", "logistic", "logistic_parallel"]
