"""Exactness of the minibatch index draws in simulate.estimators.subsample (chi-square tests over all subsets)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from scipy import stats

import simulate.estimators.subsample
from simulate._fast import draws as _draws
from simulate.estimators import subsample
from simulate.estimators.subsample import sample_indices, with_replacement, without_replacement

P_MIN = 1e-4
DRAWS = 100_000


def _subset_codes(idx: np.ndarray) -> np.ndarray:
    """Encode each column (an index set) as the bitmask sum_j 2**idx[j]; shape (M,)."""
    return (np.int64(1) << idx.astype(np.int64)).sum(axis=0)


def _assert_distinct_columns(idx: np.ndarray) -> None:
    s = np.sort(idx, axis=0)
    assert not np.any(s[1:] == s[:-1]), "a column holds a repeated index"


def _chi2_uniform_subsets(idx: np.ndarray, n_data: int, n: int) -> float:
    """p-value of the chi-square test that the column sets are uniform over all n-subsets of range(N)."""
    _assert_distinct_columns(idx)
    counts = np.bincount(_subset_codes(idx), minlength=1 << n_data)
    popcount = np.array([bin(c).count("1") for c in range(1 << n_data)])
    # Every column is an n-set, so no code with another popcount can occur.
    assert counts[popcount != n].sum() == 0
    cells = counts[popcount == n]
    assert cells.size == comb(n_data, n)
    return stats.chisquare(cells).pvalue


def _check_shape_range(idx: np.ndarray, n_data: int, n: int, m: int) -> None:
    assert idx.shape == (n, m)
    assert np.issubdtype(idx.dtype, np.integer)
    assert idx.min() >= 0 and idx.max() < n_data


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize(("n_data", "n"), [(10, 1), (10, 3), (10, 7), (100, 20), (100, 60), (7, 7)])
def test_shape_range_dtype(replace, n_data, n):
    rng = np.random.default_rng(1)
    idx = sample_indices(rng, n_data, n, 257, replace)
    _check_shape_range(idx, n_data, n, 257)
    if not replace:
        _assert_distinct_columns(idx)


# Pairwise-check path: n <= PAIRWISE_MAX_N and 2 n <= N (columns with a repeat found by pairwise row
# comparisons, then redrawn).  Cases where repeats in the first iid draw are frequent (n close to N/2)
# exercise the redraw loop hardest.
PAIRWISE_CASES = [(6, 2), (6, 3), (8, 4), (10, 4), (12, 5), (12, 6)]
# Complement path: n > N/2 (draws the N - n dropped indices and returns the rest).
COMPLEMENT_CASES = [(6, 4), (7, 5), (8, 6), (9, 5), (12, 7), (10, 9)]


@pytest.fixture
def bitmap_calls(monkeypatch):
    """Records the calls of the sequential bitmap sampler (the numbers it returns are unchanged)."""
    calls = []
    orig = simulate.estimators.subsample._sequential_bitmap

    def spy(*args, **kwargs):
        calls.append(args)
        return orig(*args, **kwargs)

    monkeypatch.setattr(simulate.estimators.subsample, "_sequential_bitmap", spy)
    return calls


def _check_exact_uniform(n_data, n, seed):
    rng = np.random.default_rng(seed)
    idx = without_replacement(rng, n_data, n, DRAWS)
    _check_shape_range(idx, n_data, n, DRAWS)
    p = _chi2_uniform_subsets(idx, n_data, n)
    assert p > P_MIN, f"subset frequencies not uniform (N={n_data}, n={n}): p = {p:.3g}"


@pytest.mark.parametrize("pairwise", [True, False])
@pytest.mark.parametrize(("n_data", "n"), PAIRWISE_CASES)
def test_without_replacement_uniform_either_repeat_check(monkeypatch, bitmap_calls, pairwise, n_data, n):
    """Rejection is exactly uniform whichever repeat check (row pairs or hash set) the cost model picks."""
    monkeypatch.setattr(simulate.estimators.subsample, "REJECTION_MAX_PAIRS", np.inf)
    monkeypatch.setattr(simulate.estimators.subsample, "_pairwise_is_cheaper", lambda *a: pairwise)
    _check_exact_uniform(n_data, n, 4000 * n_data + n + 7 * pairwise)
    assert not bitmap_calls


def _reference_repeats(idx: np.ndarray) -> np.ndarray:
    s = np.sort(idx, axis=0)
    return (s[1:] == s[:-1]).any(axis=0)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64])
@pytest.mark.parametrize(("n", "high"), [(1, 5), (2, 3), (10, 1000), (17, 40), (40, 5000), (100, 10_000), (300, 10**6)])
def test_repeat_mask_matches_sorting(dtype, n, high):
    """Both repeat checks of the numba kernel find exactly the columns that sorting finds."""
    idx = np.random.default_rng(n * high).integers(0, min(high, np.iinfo(dtype).max), size=(n, 777), dtype=dtype)
    idx[:, :5] = idx[:1, :5]  # a few columns that surely repeat (when n > 1)
    ref = _reference_repeats(idx)
    for pairwise in (True, False):
        np.testing.assert_array_equal(_draws.repeat_mask(idx, pairwise), ref)
    assert ref.any() == (n > 1)


def test_repeat_check_cost_model_picks_both_paths():
    assert simulate.estimators.subsample._pairwise_is_cheaper(10, 100_000, 2)
    assert not simulate.estimators.subsample._pairwise_is_cheaper(100, 10, 2)


@pytest.mark.parametrize(("n_data", "n"), PAIRWISE_CASES + COMPLEMENT_CASES)
def test_without_replacement_uniform_pairwise(monkeypatch, bitmap_calls, n_data, n):
    # Force the pairwise path whatever its collision-rate threshold (if the module has one).
    monkeypatch.setattr(simulate.estimators.subsample, "REJECTION_MAX_PAIRS", np.inf, raising=False)
    assert min(n, n_data - n) <= simulate.estimators.subsample.PAIRWISE_MAX_N
    _check_exact_uniform(n_data, n, 1000 * n_data + n)
    assert not bitmap_calls, "the pairwise path was not taken"


@pytest.mark.parametrize(("n_data", "n"), [(6, 2), (6, 3), (9, 4), (12, 5), (12, 6)] + COMPLEMENT_CASES)
def test_without_replacement_uniform_sequential_bitmap(monkeypatch, bitmap_calls, n_data, n):
    monkeypatch.setattr(simulate.estimators.subsample, "PAIRWISE_MAX_N", 1)
    _check_exact_uniform(n_data, n, 2000 * n_data + n)
    if min(n, n_data - n) > 1:
        assert bitmap_calls, "the sequential bitmap path was not taken"


@pytest.mark.parametrize(("n_data", "n"), [(6, 3), (10, 2), (10, 4), (12, 6), (9, 6)])
def test_without_replacement_uniform_default_dispatch(n_data, n):
    """Whatever path the default thresholds pick, the subsets are exactly uniform."""
    _check_exact_uniform(n_data, n, 3000 * n_data + n)


def test_sequential_bitmap_chunks(monkeypatch):
    """Several bitmap chunks (BITMAP_BYTES small) still give exact uniform subsets."""
    monkeypatch.setattr(simulate.estimators.subsample, "PAIRWISE_MAX_N", 1)
    monkeypatch.setattr(simulate.estimators.subsample, "BITMAP_BYTES", 9 * 1000 + 5)
    rng = np.random.default_rng(7)
    idx = without_replacement(rng, 9, 4, DRAWS)
    p = _chi2_uniform_subsets(idx, 9, 4)
    assert p > P_MIN


def test_large_n_paths_distinct():
    """Both large-n paths (bitmap for n > PAIRWISE_MAX_N; complement) give distinct in-range indices."""
    rng = np.random.default_rng(3)
    for n_data, n in [(1000, 17), (1000, 400), (1000, 900), (50, 25), (50, 26)]:
        idx = without_replacement(rng, n_data, n, 500)
        _check_shape_range(idx, n_data, n, 500)
        _assert_distinct_columns(idx)


def test_sequential_bitmap_position_marginals(monkeypatch):
    """Each position of the sequential path is uniform on range(N) (n > PAIRWISE_MAX_N)."""
    monkeypatch.setattr(simulate.estimators.subsample, "PAIRWISE_MAX_N", 16)
    n_data, n = 60, 20
    assert n > simulate.estimators.subsample.PAIRWISE_MAX_N and 2 * n <= n_data
    rng = np.random.default_rng(11)
    idx = without_replacement(rng, n_data, n, 20_000)
    _assert_distinct_columns(idx)
    for j in (0, n // 2, n - 1):
        p = stats.chisquare(np.bincount(idx[j], minlength=n_data)).pvalue
        assert p > P_MIN
    # Pairs (i, j) in one column: uniform over ordered pairs of distinct indices.
    pair = idx[0] * n_data + idx[-1]
    counts = np.bincount(pair, minlength=n_data * n_data).reshape(n_data, n_data)
    assert np.all(np.diag(counts) == 0)
    off = counts[~np.eye(n_data, dtype=bool)]
    assert stats.chisquare(off).pvalue > P_MIN


def test_with_replacement_uniform():
    n_data, n = 9, 4
    rng = np.random.default_rng(5)
    idx = with_replacement(rng, n_data, n, DRAWS)
    _check_shape_range(idx, n_data, n, DRAWS)
    p = stats.chisquare(np.bincount(idx.ravel(), minlength=n_data)).pvalue
    assert p > P_MIN
    # Independence within a column: ordered pairs (idx[0], idx[1]) uniform over all N^2 cells,
    # including the diagonal (repeats must occur at rate 1/N).
    pair = np.bincount(idx[0] * n_data + idx[1], minlength=n_data * n_data)
    assert stats.chisquare(pair).pvalue > P_MIN


def test_with_replacement_has_repeats():
    rng = np.random.default_rng(6)
    idx = sample_indices(rng, 10, 5, 10_000, True)
    s = np.sort(idx, axis=0)
    frac = np.any(s[1:] == s[:-1], axis=0).mean()
    exact = 1.0 - np.prod([(10 - j) / 10 for j in range(5)])
    se = np.sqrt(exact * (1 - exact) / idx.shape[1])
    assert abs(frac - exact) / se < 4.5


@pytest.mark.parametrize("n_data", [1, 5, 40])
def test_n_equals_N(n_data):
    rng = np.random.default_rng(0)
    idx = sample_indices(rng, n_data, n_data, 13, False)
    _check_shape_range(idx, n_data, n_data, 13)
    np.testing.assert_array_equal(np.sort(idx, axis=0), np.broadcast_to(np.arange(n_data)[:, None], idx.shape))


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("n", [3, 20, 70])
def test_deterministic(replace, n):
    a = sample_indices(np.random.default_rng(42), 100, n, 300, replace)
    b = sample_indices(np.random.default_rng(42), 100, n, 300, replace)
    c = sample_indices(np.random.default_rng(43), 100, n, 300, replace)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_chi2_harness_detects_a_biased_sampler():
    """'Can fail' check: linear probing (a repeat moves to the next free index) is not uniform on subsets,
    and the same chi-square harness rejects it."""
    n_data, n = 8, 4
    rng = np.random.default_rng(9)
    idx = rng.integers(0, n_data, size=(n, DRAWS))
    for j in range(1, n):
        clash = np.any(idx[:j] == idx[j], axis=0)
        while clash.any():
            idx[j, clash] = (idx[j, clash] + 1) % n_data
            clash = np.any(idx[:j] == idx[j], axis=0)
    assert _chi2_uniform_subsets(idx, n_data, n) < 1e-12


def _numpy_rejection(rng, N, n, M):
    """The rejection path in plain numpy (the reference the numba draws must reproduce bit for bit)."""
    dt = subsample.draw_dtype(N)
    idx = rng.integers(0, N, size=(n, M), dtype=dt)

    def repeats(a):
        s = np.sort(a, axis=0)
        return np.flatnonzero((s[1:] == s[:-1]).any(axis=0))

    bad = repeats(idx)
    while bad.size:
        redo = rng.integers(0, N, size=(n, bad.size), dtype=dt)
        idx[:, bad] = redo
        bad = bad[repeats(redo)]
    return idx


@pytest.mark.parametrize("seed", range(12))
def test_numba_draws_are_numpys_numbers(seed):
    """simulate._fast.draws reproduces Generator.integers and the rejection loop: the same indices, the same generator
    state afterwards (including a cached half-word left by an odd number of 32-bit draws), for 16- and 32-bit
    dtypes and PCG64 or another bit generator."""
    for make in (np.random.PCG64, np.random.SFC64):
        for N, n, M in ((10_000, 100, 300), (40_000, 64, 37), (20, 1, 5), (5, 7, 3), (70_000, 3, 11), (3, 2, 1),
                        (1000, 10, 500), (100, 7, 70), (70_000, 40, 50)):  # the last three: row-pair checks
            a, b = np.random.Generator(make(seed)), np.random.Generator(make(seed))
            for g in (a, b):
                g.integers(0, 9, size=seed % 3, dtype=np.int32)  # leave PCG64's cached half-word set or not
            assert np.array_equal(subsample.with_replacement(a, N, n, M),
                                  b.integers(0, N, size=(n, M), dtype=subsample.draw_dtype(N)))
            assert repr(a.bit_generator.state) == repr(b.bit_generator.state)
            if 2 * n <= N and n * (n - 1) <= N:
                assert np.array_equal(subsample.without_replacement(a, N, n, M), _numpy_rejection(b, N, n, M))
                assert repr(a.bit_generator.state) == repr(b.bit_generator.state)
            assert a.integers(0, 1000, dtype=np.int32) == b.integers(0, 1000, dtype=np.int32)


def test_fused_rejection_path_is_exercised():
    """The W3 shape takes the fused path (bitmap repeat check, rejection regime) and matches the numpy reference."""
    N, n, M = 10_000, 100, 500
    assert n >= subsample.FUSED_MIN_N and n * (n - 1) <= N and n > _draws._PAIRWISE_MAX_N
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    x = subsample.without_replacement(a, N, n, M)
    np.testing.assert_array_equal(x, _numpy_rejection(b, N, n, M))
    assert (np.sort(x, axis=0)[1:] != np.sort(x, axis=0)[:-1]).all()


def test_stamped_repeat_check_restarts_its_stamps():
    """More than 65535 columns through the stamp table (n > the row-pair limit, N <= _STAMP_MAX_N): the stamps
    restart from a zeroed table and the draws still match the numpy reference; the bitmap path (N above the stamp
    limit) likewise."""
    for N, n, M in ((2000, 41, 70_000), (_draws._STAMP_MAX_N + 1000, 64, 2000)):
        assert n > _draws._PAIRWISE_MAX_N and n * (n - 1) <= N
        a, b = np.random.default_rng(N), np.random.default_rng(N)
        np.testing.assert_array_equal(subsample.without_replacement(a, N, n, M), _numpy_rejection(b, N, n, M))
        assert a.integers(1 << 62) == b.integers(1 << 62)
