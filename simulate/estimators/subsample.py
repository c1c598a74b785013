"""Exact minibatch index draws for many chains at once.

Every function returns indices of shape ``(n, M)``: column m is chain m's minibatch. Indices have the narrowest
integer dtype that holds N (narrow draws and comparisons are cheaper); consumers should index with ``take``.

Without replacement (n <= N/2; for n > N/2 the complement of an (N - n)-subset is returned):

* n <= PAIRWISE_MAX_N and n(n-1)/(2N) <= REJECTION_MAX_PAIRS: draw n iid uniform indices per chain, find the
  columns with a repeat (a numba kernel: row-pair comparisons vectorised over columns, or a hash set per
  column), and redraw those whole columns until none is left (rejection: given distinct entries, an iid tuple
  is a uniform ordered n-subset). Acceptance >= exp(-1/2). For 16- and 32-bit indices the same draws run as one
  numba call (``simulate._fast.draws``, bit for bit the numpy code's numbers; its repeat check: row pairs for
  n <= 40, else a table of stamps or a bitmap).
* otherwise: sequential draws, each redrawn while it hits an index already taken by its chain (a per-chain
  bitmap, reset after use): the textbook exact sequential scheme, vectorized over chains.

:func:`index_support` lists every minibatch with its probability instead (exact enumeration at small N).

Cost per chain-step is O(n^2) cheap vector comparisons (small n) or O(n) expected (hash set; sequential draws);
never O(N) per chain-step unless n is a fixed fraction of N.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._fast import draws as fast_draws
from ..arrays import is_backend_stream
from ..validation import ParameterError, check_int

#: Largest n for which whole-column rejection is used (larger n: the sequential bitmap).
PAIRWISE_MAX_N = 1024
#: Largest expected number of colliding pairs n(n-1)/(2N) for which whole-column rejection is used.
REJECTION_MAX_PAIRS = 0.5
#: Largest number of distinct minibatches :func:`index_support` lists.
SUPPORT_MAX = 10**6
#: Bytes of per-chain bitmaps used at once by the sequential sampler.
BITMAP_BYTES = 1 << 24
#: Smallest n for which the rejection path runs as one numba call (simulate._fast.draws, the same numbers as the
#: numpy code below). Since the fused call checks small n by row pairs too it is the faster one at every n
#: (benchmarks/compare.py); the numpy code remains the reference and the 64-bit-index path.
FUSED_MIN_N = 1


def draw_dtype(n_data: int) -> type:
    """Narrowest integer type for raw index draws (narrow draws and comparisons are cheaper).

    Parameters
    ----------
    n_data : int
        N, the number of data.

    Returns
    -------
    type
        ``numpy.int16``, ``numpy.int32`` or ``numpy.int64``: the narrowest that holds N.
    """
    if n_data <= np.iinfo(np.int16).max:
        return np.int16
    if n_data <= np.iinfo(np.int32).max:
        return np.int32
    return np.int64


def with_replacement(rng: np.random.Generator, n_data: int, n: int, n_chains: int) -> np.ndarray:
    """n iid uniform indices per chain: ``rng.integers(0, n_data, (n, n_chains), dtype=draw_dtype(n_data))``, drawn
    by ``simulate._fast.draws`` (the same numbers, faster) when the dtype is 16 or 32 bits.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream (advanced).
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.
    n_chains : int
        M, the number of chains.

    Returns
    -------
    numpy.ndarray, shape (n, M)
        The indices, of dtype ``draw_dtype(N)``.
    """
    dt = draw_dtype(n_data)
    if dt is np.int64:
        return rng.integers(0, n_data, size=(n, n_chains), dtype=dt)
    return fast_draws.integers(rng, n_data, np.empty((n, n_chains), dtype=dt))


def _pairwise_is_cheaper(n: int, n_columns: int, itemsize: int) -> bool:
    """Cost model of the two exact repeat checks of ``simulate._fast.draws.repeat_mask`` (nanoseconds, fitted on
    the 2-core development machine): n(n-1)/2 row-pair passes of ~6 ns + 0.0225 ns per column-byte, against
    ~5 ns per entry through a hash set."""
    return n * (n - 1) / 2 * (6.0 + 0.0225 * itemsize * n_columns) < 5.0 * n * n_columns


def _columns_with_repeats(idx: np.ndarray) -> np.ndarray:
    """Indices of the columns of idx (n, M) that contain a repeated value (exact; a numba kernel: row-pair
    comparisons vectorised over columns, or a hash set per column, whichever the cost model says is cheaper)."""
    n, m = idx.shape
    return np.flatnonzero(fast_draws.repeat_mask(idx, _pairwise_is_cheaper(n, m, idx.itemsize)))


def _sequential_bitmap(rng: np.random.Generator, n_data: int, n: int, n_chains: int) -> np.ndarray:
    """Exact sequential draws: position j is redrawn while it hits an index its chain already holds."""
    out = np.empty((n, n_chains), dtype=np.int64)
    step = max(1, BITMAP_BYTES // n_data)
    for start in range(0, n_chains, step):
        m = min(n_chains, start + step) - start
        taken = np.zeros(m * n_data, dtype=bool)
        base = np.arange(m, dtype=np.int64) * n_data
        for j in range(n):
            cand = rng.integers(0, n_data, size=m)
            flat = base + cand
            clash = np.flatnonzero(taken[flat])
            while clash.size:
                redo = rng.integers(0, n_data, size=clash.size)
                cand[clash] = redo
                flat[clash] = base[clash] + redo
                clash = clash[taken[flat[clash]]]
            taken[flat] = True
            out[j, start : start + m] = cand
    return out


def without_replacement_route(n_data: int, n: int) -> str:
    """Which draw :func:`without_replacement` makes for an n-subset of range(n_data): "all" (n = N, nothing drawn),
    "complement" (2n > N), "sequential" (the bitmap), "fused" (whole-column rejection in one numba call,
    ``simulate._fast.draws.rejection``) or "rejection" (the same draws in numpy, 64-bit indices).

    Parameters
    ----------
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.

    Returns
    -------
    str
        "all", "complement", "sequential", "fused" or "rejection".
    """
    if n == n_data:
        return "all"
    if 2 * n > n_data:
        return "complement"
    if n > PAIRWISE_MAX_N or n * (n - 1) > REJECTION_MAX_PAIRS * 2 * n_data:
        return "sequential"
    if n >= FUSED_MIN_N and draw_dtype(n_data) is not np.int64:
        return "fused"
    return "rejection"


def without_replacement(rng: np.random.Generator, n_data: int, n: int, n_chains: int) -> np.ndarray:
    """A uniformly random n-subset of range(n_data) per chain (exact, vectorized).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream (advanced).
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.
    n_chains : int
        M, the number of chains.

    Returns
    -------
    numpy.ndarray, shape (n, M)
        Each column a uniformly random n-subset (distinct indices).
    """
    route = without_replacement_route(n_data, n)
    if route == "all":
        return np.broadcast_to(np.arange(n_data)[:, None], (n_data, n_chains))
    if route == "complement":
        drop = without_replacement(rng, n_data, n_data - n, n_chains)
        keep = np.ones((n_chains, n_data), dtype=bool)
        keep[np.arange(n_chains)[None, :], drop] = False
        return np.nonzero(keep)[1].reshape(n_chains, n).T
    if route == "sequential":
        return _sequential_bitmap(rng, n_data, n, n_chains)
    dt = draw_dtype(n_data)
    if route == "fused":  # the same draws as below, in one numba call
        return fast_draws.rejection(rng, n_data, np.empty((n, n_chains), dtype=dt))
    idx = rng.integers(0, n_data, size=(n, n_chains), dtype=dt)
    bad = _columns_with_repeats(idx)
    while bad.size:
        redo = rng.integers(0, n_data, size=(n, bad.size), dtype=dt)
        idx[:, bad] = redo
        bad = bad[_columns_with_repeats(redo)]
    return idx


def sample_indices(
    rng: np.random.Generator, n_data: int, n: int, n_chains: int, replace: bool
) -> np.ndarray:
    """Minibatch indices (n, M), with or without replacement (another backend's stream, :mod:`simulate.arrays`,
    draws its own: ``rng.minibatch_indices(n_data, n, n_chains, replace)``).

    Parameters
    ----------
    rng : numpy.random.Generator or BackendStream
        The stream (advanced).
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.
    n_chains : int
        M, the number of chains.
    replace : bool
        Whether the minibatch is drawn with replacement (else a uniform n-subset).

    Returns
    -------
    numpy.ndarray, shape (n, M)
        The minibatch indices (another backend's stream: its own index array).

    Raises
    ------
    ParameterError
        For sizes out of range.
    """
    if is_backend_stream(rng):
        return rng.minibatch_indices(n_data, n, n_chains, replace)
    if replace:
        return with_replacement(rng, n_data, n, n_chains)
    return without_replacement(rng, n_data, n, n_chains)


def relabel(labels: np.ndarray, idx):
    """``labels[idx]``: indices into a subset (e.g. a stratum's members) as indices of the data set; indices drawn
    by another backend's stream say how themselves (``idx.relabel(labels)``).

    Parameters
    ----------
    labels : numpy.ndarray
        The subset's members as data indices.
    idx : numpy.ndarray or backend indices
        Indices into the subset.

    Returns
    -------
    numpy.ndarray
        ``labels[idx]``, the same shape as idx.
    """
    if isinstance(idx, np.ndarray):
        return labels.take(idx)
    return idx.relabel(labels)


def support_size(n_data: int, n: int, replace: bool) -> int:
    """How many distinct minibatches :func:`index_support` lists: C(N, n) subsets, or C(N + n - 1, n) multisets.

    Parameters
    ----------
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.
    replace : bool
        Whether the minibatch is drawn with replacement (else a uniform n-subset).

    Returns
    -------
    int
        C(N, n) without replacement, C(N + n - 1, n) with.
    """
    return math.comb(n_data + n - 1, n) if replace else math.comb(n_data, n)


def index_support(n_data: int, n: int, replace: bool, n_chains: int = 1) -> list[tuple[np.ndarray, float]]:
    """Every minibatch :func:`sample_indices` can draw, with its probability, for exact enumeration.

    Without replacement: each n-subset of range(N), probability 1 / C(N, n). With replacement: each multiset of n
    indices, probability n! / (prod_j m_j!) / N^n (m_j the multiplicities), since an estimate that sums over the
    minibatch depends on the multiset only (every estimator of the workbench).

    Parameters
    ----------
    n_data : int
        N >= 1.
    n : int
        Minibatch size, 1 <= n (<= N without replacement).
    replace : bool
        With replacement.
    n_chains : int
        M: each minibatch is returned as indices (n, M), the same for every chain.

    Returns
    -------
    list of (ndarray, float)
        (indices (n, M) of dtype ``draw_dtype(N)``, probability); the probabilities sum to 1.

    Raises
    ------
    ParameterError
        If the sizes are out of range, or there are more than ``SUPPORT_MAX`` minibatches.
    """
    check_int("n_data", n_data, 1)
    check_int("n", n, 1, None if replace else n_data)
    check_int("n_chains", n_chains, 1)
    size = support_size(n_data, n, replace)
    if size > SUPPORT_MAX:
        raise ParameterError(f"{size} distinct minibatches of n = {n} from N = {n_data} (replace={replace}): exact "
                             f"enumeration lists at most {SUPPORT_MAX}; use a smaller N or n")
    dt = draw_dtype(n_data)
    if not replace:
        subsets = itertools.combinations(range(n_data), n)
        return [(np.repeat(np.array(t, dtype=dt)[:, None], n_chains, 1), 1.0 / size) for t in subsets]
    out = []
    for t in itertools.combinations_with_replacement(range(n_data), n):
        mult = np.unique(t, return_counts=True)[1]
        p = math.factorial(n) / float(np.prod([math.factorial(int(c)) for c in mult])) / n_data**n
        out.append((np.repeat(np.array(t, dtype=dt)[:, None], n_chains, 1), p))
    return out
