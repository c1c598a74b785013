"""Door 1 of the private fast package: random draws in numba that reproduce numpy's ``Generator`` bit for bit.

The kernels call the generator's own ``next_uint32`` through the function pointer numpy publishes for every bit
generator (``bit_generator.ctypes``), and repeat numpy's algorithm step for step: ``random_bounded_uint16_fill``
(Lemire's multiply-and-reject on 16-bit halves of buffered 32-bit draws, the buffer reset at each call) and
``random_bounded_uint32_fill`` (Lemire on 32-bit draws). Same draws, same consumption of the stream, same state
afterwards; tests/test_subsample.py compares them with numpy for many seeds, shapes and states. So every seeded
result of the workbench is the one plain numpy gives; only the time per value drops (README, "Performance").

:func:`without_replacement_rejection` is the rejection path of
:func:`simulate.estimators.subsample.without_replacement` fused into one call: draw (n, M), find the columns with a
repeated index (row pairs for small n, else a table of stamps or a bitmap), redraw those whole columns with a fresh
(n, k) draw, and so on, exactly as the numpy code does.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _next_uint32(typingctx, fn, state):
    """Call ``uint32_t fn(void *state)`` given both addresses as integers (numpy's bit-generator C interface)."""
    sig = types.uint32(types.uintp, types.uintp)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [i8p])
        f = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(f, [builder.inttoptr(args[1], i8p)])

    return sig, codegen


def pointers(rng: np.random.Generator) -> tuple[int, int]:
    """(address of next_uint32, address of the state) of ``rng``'s bit generator."""
    c = rng.bit_generator.ctypes
    return int(ctypes.cast(c.next_uint32, ctypes.c_void_p).value), int(c.state_address)


@njit(cache=True, nogil=True)
def bounded16_fill(fn, state, rng, out):
    """numpy's random_bounded_uint16_fill: out (flat, C order) <- uniform integers in [0, rng], rng < 2^16 - 1.

    Lemire's method on the low, then the high 16 bits of each 32-bit draw (the unused half of the last draw is
    dropped, as numpy resets its buffer at each call). Branch-free acceptance: every candidate is stored at out[i]
    and i advances only if it is accepted (rejections are up to half the candidates, and mispredicted branches
    cost more than the stores: 2.5 -> 1.1 ns per value at W3's N = 10^4)."""
    excl = np.uint32(rng + 1)
    threshold = np.uint32((0xFFFF - rng) % (rng + 1))
    lo16 = np.uint32(0xFFFF)
    size = out.size
    i = 0
    while i < size:
        buf = _next_uint32(fn, state)
        m = (buf & lo16) * excl
        out[i] = m >> np.uint32(16)
        i += (m & lo16) >= threshold
        if i == size:
            break
        m = (buf >> np.uint32(16)) * excl
        out[i] = m >> np.uint32(16)
        i += (m & lo16) >= threshold


@njit(cache=True, nogil=True)
def bounded32_fill(fn, state, rng, out):
    """numpy's random_bounded_uint32_fill: out <- uniform integers in [0, rng], rng < 2^32 - 1 (Lemire, 64-bit
    product, no buffering; branch-free acceptance as in :func:`bounded16_fill`)."""
    excl = np.uint64(rng + 1)
    threshold = np.uint64((0xFFFFFFFF - rng) % (rng + 1))
    size = out.size
    i = 0
    while i < size:
        m = np.uint64(_next_uint32(fn, state)) * excl
        out[i] = m >> np.uint64(32)
        i += (m & np.uint64(0xFFFFFFFF)) >= threshold


@njit(cache=True, nogil=True)
def fill_bounded(fn, state, rng, out):
    """out (1-D, int16 or int32) <- uniform integers in [0, rng], as ``Generator.integers(0, rng + 1, dtype=...)``."""
    if rng == 0:
        out[:] = 0
    elif out.itemsize == 2:
        bounded16_fill(fn, state, rng, out)
    else:
        bounded32_fill(fn, state, rng, out)


def integers(rng: np.random.Generator, high: int, out: np.ndarray) -> np.ndarray:
    """out (int16 or int32, C-contiguous) <- ``rng.integers(0, high, out.shape, dtype=out.dtype)``, bit for bit."""
    fn, state = pointers(rng)
    fill_bounded(fn, state, high - 1, out.reshape(-1))
    return out


#: Columns checked together by :func:`_repeats`: their (n, 64) slab is copied column-major once, so each column's
#: check reads contiguous memory instead of striding through the (n, M) array.
_SLAB = 64


#: Bytes of the (n, w) column slab that :func:`_repeats_pairwise` compares at once (kept in the L1 cache).
_PAIRWISE_SLAB_BYTES = 16384
#: Largest n for which the rejection path checks repeats by row pairs; above it, by stamps or a bitmap (per value:
#: row pairs 0.15 ns at n = 8, 0.5-0.65 at 32, 1.2-1.5 at 48-64; the bitmap 1.3-1.5 ns at any n; measured on the
#: 2-core development machine, int16 indices).
_PAIRWISE_MAX_N = 40


@njit(cache=True, nogil=True)
def _repeats_pairwise(A, flag, bad):
    """bad[c] = True if column c of A (n, k) holds a value twice: the n(n-1)/2 row pairs compared, each over a slab
    of columns in one vectorised pass (cheaper than the bitmap for small n). flag: uint8 work space of at least k
    entries. Returns the number of such columns."""
    n, k = A.shape
    w = max(64, _PAIRWISE_SLAB_BYTES // max(1, n * A.itemsize))
    flag[:k] = 0
    for c0 in range(0, k, w):
        c1 = min(k, c0 + w)
        f = flag[c0:c1]
        for i in range(n - 1):
            a = A[i, c0:c1]
            for j in range(i + 1, n):
                b = A[j, c0:c1]
                for c in range(c1 - c0):
                    f[c] |= a[c] == b[c]
    count = 0
    for c in range(k):
        bad[c] = flag[c] != 0
        count += flag[c]
    return count


@njit(cache=True, nogil=True, inline="always")
def _load_slab(A, c0, width, slab):
    """slab[c, :] <- column c0 + c of A (n, k), c < width: each column's values contiguous for the checks."""
    for j in range(A.shape[0]):
        for c in range(width):
            slab[c, j] = A[j, c0 + c]


@njit(cache=True, nogil=True)
def _repeats(A, bitmap, slab, bad):
    """bad[c] = True if column c of A (n, k) holds a value twice (exact: a bitmap of N bits, cleared again after
    each column). Returns the number of such columns."""
    n, k = A.shape
    count = 0
    for c0 in range(0, k, _SLAB):
        width = min(_SLAB, k - c0)
        _load_slab(A, c0, width, slab)
        for c in range(width):
            col = slab[c]
            hit = False
            j_end = n
            for j in range(n):
                v = np.int64(col[j])
                word, bit = v >> 6, np.uint64(1) << np.uint64(v & 63)
                if bitmap[word] & bit:
                    hit = True
                    j_end = j
                    break
                bitmap[word] |= bit
            for j in range(j_end):
                bitmap[np.int64(col[j]) >> 6] = np.uint64(0)
            bad[c0 + c] = hit
            count += hit
    return count


#: Largest N for which :func:`_repeats_stamped` keeps a table of N 16-bit stamps (64 KB at most); above it the
#: bitmap of N bits.
_STAMP_MAX_N = 1 << 15


@njit(cache=True, nogil=True)
def _repeats_stamped(A, stamp, gen, slab, bad):
    """bad[c] = True if column c of A (n, k) holds a value twice (exact): column c marks stamp[v] = its own stamp
    for each of its values v, and a value already marked with it is a repeat. Unlike the bitmap nothing is cleared
    after a column (0.09 against 0.13 ms per 10^5 values at W3's sizes); the stamps restart from a zeroed table after
    65535 columns. gen[0]: the last stamp used. Returns the number of columns with a repeat."""
    n, k = A.shape
    count = 0
    g = gen[0]
    for c0 in range(0, k, _SLAB):
        width = min(_SLAB, k - c0)
        _load_slab(A, c0, width, slab)
        for c in range(width):
            g += 1
            if g == 65536:
                stamp[:] = 0
                g = 1
            mark = np.uint16(g)
            col = slab[c]
            hit = False
            for j in range(n):
                v = np.int64(col[j])
                if stamp[v] == mark:
                    hit = True
                    break
                stamp[v] = mark
            bad[c0 + c] = hit
            count += hit
    gen[0] = g
    return count


@njit(cache=True, nogil=True)
def _repeat_count(A, pairwise, work):
    """bad[c] (in ``work``) for the columns of A by the check chosen for (n, N): row pairs, stamps or the bitmap."""
    bitmap, stamp, gen, slab, cols, bad, redo, flag = work
    if pairwise:
        return _repeats_pairwise(A, flag, bad)
    if stamp.size:
        return _repeats_stamped(A, stamp, gen, slab, bad)
    return _repeats(A, bitmap, slab, bad)


@njit(cache=True, nogil=True)
def rejection_work(n_data, idx):
    """The work space of :func:`rejection_into` for draws of idx's shape (n, M) and dtype from range(n_data): allocated
    once, reused by every draw of a chain block (whichever check applies, its answers are exact, so the draws do not
    depend on what earlier draws left in it)."""
    n, M = idx.shape
    pairwise = n <= _PAIRWISE_MAX_N
    stamped = not pairwise and n_data <= _STAMP_MAX_N
    bitmap = np.zeros(0 if pairwise or stamped else (n_data + 63) // 64, dtype=np.uint64)
    stamp = np.zeros(n_data if stamped else 0, dtype=np.uint16)
    gen = np.zeros(1, dtype=np.int64)
    slab = np.empty((_SLAB, n), dtype=idx.dtype)
    return bitmap, stamp, gen, slab, np.empty(M, np.int64), np.empty(M, np.bool_), np.empty(n * M, idx.dtype), \
        np.empty(M if pairwise else 0, np.uint8)


def rejection(rng: np.random.Generator, n_data: int, idx: np.ndarray) -> np.ndarray:
    """idx (n, M) (int16 or int32) <- :func:`without_replacement_rejection` drawn from ``rng``."""
    fn, state = pointers(rng)
    without_replacement_rejection(fn, state, n_data, idx)
    return idx


@njit(cache=True, nogil=True)
def without_replacement_rejection(fn, state, n_data, idx):
    """idx (n, M) <- a uniform n-subset of range(n_data) per column, drawn as subsample.without_replacement's
    rejection path draws it (same calls, same order): iid draws, then whole-column redraws of the columns with a
    repeat until none is left."""
    rejection_into(fn, state, n_data, idx, rejection_work(n_data, idx))


@njit(cache=True, nogil=True)
def rejection_into(fn, state, n_data, idx, work):
    """:func:`without_replacement_rejection` with its work space from :func:`rejection_work` (same draws)."""
    n, M = idx.shape
    rng = n_data - 1
    cols, bad, redo = work[4], work[5], work[6]
    fill_bounded(fn, state, rng, idx.reshape(-1))
    pairwise = n <= _PAIRWISE_MAX_N
    for c in range(M):
        cols[c] = c
    k = _compact(cols, bad, _repeat_count(idx, pairwise, work), M)
    while k:
        block = redo[: n * k].reshape(n, k)
        fill_bounded(fn, state, rng, block.reshape(-1))
        for j in range(n):
            for c in range(k):
                idx[j, cols[c]] = block[j, c]
        k = _compact(cols, bad, _repeat_count(block, pairwise, work), k)


@njit(cache=True, nogil=True, inline="always")
def _compact(cols, bad, count, k):
    """Keep the columns flagged bad (in order): cols[:count] <- cols[:k][bad[:k]]."""
    p = 0
    for c in range(k):
        if bad[c]:
            cols[p] = cols[c]
            p += 1
    return count




@njit(cache=True, nogil=True)
def _standard_normal_fill(gen, out):
    for i in range(out.size):
        out[i] = gen.standard_normal()


def standard_normal(rng: np.random.Generator, shape) -> np.ndarray:
    """``rng.standard_normal(shape)`` (float64), the same numbers and stream consumption: numba's Generator
    support runs numpy's ziggurat (``random_standard_normal``) on the same bit generator, without the per-call
    lock and with the loop compiled (W3's 2 * 10^4 values: 0.06 ms against numpy's 0.17 ms)."""
    out = np.empty(shape)
    _standard_normal_fill(rng, out.reshape(-1))
    return out


@njit(cache=True, nogil=True)
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


__all__ = ["bounded16_fill", "bounded32_fill", "fill_bounded", "integers", "pointers", "rejection", "rejection_into",
           "rejection_work", "repeat_mask", "standard_normal", "without_replacement_rejection"]
