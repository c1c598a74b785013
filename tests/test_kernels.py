"""The fused numba kernels (simulate._fast.kernels) agree with the numpy path they replaced, to rounding."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from scipy.special import expit

from simulate._fast import _elementwise, _simd
from simulate._fast import _logistic as _kernels
from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.saga import SAGA
from simulate.estimators.subsample import sample_indices
from simulate.estimators.vr import SVRG, VRState
from simulate.models.logistic import LogisticRegressionModel, sigmoid_neg

TOL = 1e-12


def rel(a: np.ndarray, b: np.ndarray) -> float:
    """max over chains of max|a_m - b_m| / max|b_m| (the last axis is d)."""
    a, b = np.asarray(a), np.asarray(b)
    return float((np.abs(a - b).max(axis=-1) / np.abs(b).max(axis=-1)).max())


def numpy_per_datum(model: LogisticRegressionModel, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The previous numpy path: gather (n, M, d), z_i sigma(-z_i^T theta_m)."""
    Zs = model._Z.take(idx, axis=0)
    w = sigmoid_neg(np.einsum("nmd,md->nm", Zs, np.broadcast_to(theta, (idx.shape[1], model.dim))))
    return Zs * w[..., None]


def make_model(d: int, N: int = 200, seed: int = 0) -> LogisticRegressionModel:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    return LogisticRegressionModel(X, y)


def index_arrays(N: int, n: int, M: int, seed: int):
    rng = np.random.default_rng(seed)
    yield sample_indices(rng, N, n, M, False)  # narrow dtype, without replacement
    yield sample_indices(rng, N, n, M, True)  # with replacement
    yield sample_indices(rng, N, n, M, False).astype(np.int64)
    yield np.broadcast_to(np.arange(N)[:, None], (N, M))  # the full data set (read-only view)


@pytest.mark.parametrize("d", range(1, 31))
def test_sums_match_numpy(d):
    N, n, M = 200, 17, 37  # M not a multiple of any chunk
    model = make_model(d, N, seed=d)
    rng = np.random.default_rng(100 + d)
    theta = rng.standard_normal((M, d)) * 3.0 / np.sqrt(d)
    theta_hat = rng.standard_normal(d) / np.sqrt(d)
    for idx in index_arrays(N, n, M, seed=d):
        per = numpy_per_datum(model, theta, idx)
        got = model.grad_log_lik(theta, idx)
        # per datum: the scale is |z_i| (0 < sigma < 1); the old (1 - tanh(s/2))/2 loses relative accuracy for
        # large s, where the kernel's 1/(1 + e^s) is accurate to a few ulp (checked against scipy's expit).
        Zs = model._Z.take(idx, axis=0)
        assert float((np.abs(got - per).max(axis=-1) / np.abs(Zs).max(axis=-1)).max()) <= TOL
        exact = Zs * expit(-np.einsum("nmd,md->nm", Zs, theta))[..., None]
        assert np.allclose(got, exact, rtol=1e-13, atol=0.0)
        ref = per.sum(axis=0)
        assert rel(model.grad_log_lik_sum(theta, idx), ref) <= TOL
        ref_diff = ref - numpy_per_datum(model, theta_hat[None, :], idx).sum(axis=0)
        assert rel(model.grad_log_lik_diff_sum(theta, theta_hat, idx), ref_diff) <= TOL
        assert rel(model.grad_log_lik_diff_sum(theta, np.broadcast_to(theta_hat, theta.shape), idx), ref_diff) <= TOL


@pytest.mark.parametrize("d", (1, 3, 20))
def test_difference_near_the_anchor(d):
    """The control-variate regime: theta within 1e-2 of theta_hat (the difference is 100x smaller than each sum)."""
    N, n, M = 1000, 100, 53
    model = make_model(d, N, seed=30 + d)
    rng = np.random.default_rng(d)
    theta_hat = rng.standard_normal(d) * 0.3
    theta = theta_hat + 0.01 * rng.standard_normal((M, d))
    for idx in index_arrays(N, n, M, seed=d):
        got = model.grad_log_lik_diff_sum(theta, theta_hat, idx)
        at_theta = numpy_per_datum(model, theta, idx).sum(0)
        ref = at_theta - numpy_per_datum(model, theta_hat[None, :], idx).sum(0)
        # against the old float64 path (two sums subtracted), on the scale of the sums it subtracts
        assert float((np.abs(got - ref).max(-1) / np.abs(at_theta).max(-1)).max()) <= TOL
        # against an extended-precision reference: relative to the difference itself
        Zs = model._Z.take(idx, axis=0).astype(np.longdouble)
        s = np.einsum("nmd,md->nm", Zs, theta.astype(np.longdouble))
        s_hat = np.einsum("nmd,d->nm", Zs, theta_hat.astype(np.longdouble))
        exact = (Zs * (1 / (1 + np.exp(s)) - 1 / (1 + np.exp(s_hat)))[..., None]).sum(0)
        assert rel(got, exact.astype(np.float64)) <= TOL


def test_results_do_not_depend_on_thread_count():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread here")
    model = make_model(20, 500)
    rng = np.random.default_rng(1)
    theta = rng.standard_normal((101, 20)) * 0.3
    idx = sample_indices(rng, 500, 50, 101, False)
    before = numba.get_num_threads()
    out = {}
    try:
        for t in (1, 2):
            numba.set_num_threads(t)
            out[t] = (model.grad_log_lik_sum(theta, idx), model.grad_log_lik_diff_sum(theta, theta[::-1], idx),
                      model.grad_log_lik(theta, idx), SAGA(50).initial_table(model, theta).total)
    finally:
        numba.set_num_threads(before)
    for a, b in zip(out[1], out[2], strict=True):
        np.testing.assert_array_equal(a, b)


def test_bad_indices_raise():
    model = make_model(3, 50)
    theta = np.zeros((4, 3))
    with pytest.raises(IndexError):
        model.grad_log_lik_sum(theta, np.full((5, 4), 50))
    with pytest.raises(IndexError):
        model.grad_log_lik_sum(theta, np.full((5, 4), -51))
    with pytest.raises(IndexError):
        model.grad_log_lik(theta, np.zeros(5, dtype=int))
    with pytest.raises(ValueError):
        model.grad_log_lik_sum(theta, np.zeros((5, 3), dtype=int))  # M mismatch


def numpy_saga_estimate(model, theta, table, total, n, rng):
    """The previous numpy SAGA step: fancy-indexed gather/scatter of the (M, N, d) table."""
    M, N = theta.shape[0], model.n_data
    idx = sample_indices(rng, N, n, M, False).astype(np.intp)
    rows = np.arange(M)[None, :]
    g_new = numpy_per_datum(model, theta, idx)
    g_old = table[rows, idx]
    g = (g_new - g_old).sum(axis=0)
    g *= N / n
    g += total
    g += model.grad_log_prior(theta)
    table[rows, idx] = g_new
    total += (g_new - g_old).sum(axis=0)
    return g


def test_saga_matches_numpy_path():
    d, N, n, M = 7, 300, 20, 13
    model = make_model(d, N, seed=5)
    theta = np.random.default_rng(2).standard_normal((M, d)) * 0.5
    est = SAGA(n)
    state = est.initial_table(model, theta)
    ref_table = np.ascontiguousarray(np.swapaxes(numpy_per_datum(model, theta, np.broadcast_to(
        np.arange(N)[:, None], (N, M))), 0, 1))
    ref_total = ref_table.sum(axis=1)
    assert rel(state.table, ref_table) <= TOL and rel(state.total, ref_total) <= TOL
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(5):
        g, state = est.estimate(model, theta, state, r1)
        g_ref = numpy_saga_estimate(model, theta, ref_table, ref_total, n, r2)
        assert rel(g, g_ref) <= TOL
        theta = theta + 0.01 * g_ref
    assert rel(state.table, ref_table) <= TOL and rel(state.total, ref_total) <= TOL
    assert r1.bit_generator.state == r2.bit_generator.state  # the same random numbers drawn


def test_control_variate_and_svrg_use_the_fused_difference():
    d, N, n, M = 5, 400, 30, 9
    model = make_model(d, N, seed=8)
    rng = np.random.default_rng(4)
    theta = rng.standard_normal((M, d)) * 0.4
    theta_hat = rng.standard_normal(d) * 0.1
    cv = ControlVariate.at(model, n, theta_hat)
    g, _ = cv.estimate(model, theta, None, np.random.default_rng(6))
    idx = sample_indices(np.random.default_rng(6), N, n, M, False)
    ref = (numpy_per_datum(model, theta, idx).sum(0) - numpy_per_datum(model, theta_hat[None, :], idx).sum(0))
    ref = ref * cv.scale(model) + cv.grad_lik_hat + model.grad_log_prior(theta)
    assert rel(g, ref) <= TOL
    svrg = SVRG(n, 10)
    tilde = theta[::-1].copy()
    g_tilde = model.grad_log_lik_full(tilde)
    g, _ = svrg.estimate(model, theta, VRState(tilde, g_tilde, 1), np.random.default_rng(6))
    ref = (numpy_per_datum(model, theta, idx).sum(0) - numpy_per_datum(model, tilde, idx).sum(0)) * (N / n)
    assert rel(g, ref + g_tilde + model.grad_log_prior(theta)) <= TOL


def test_kernel_entry_points_exported():
    assert set(_kernels.__all__) >= {"grad_sum", "diff_sum", "per_datum", "saga_table"}


@pytest.mark.parametrize("dtype", [np.int16, np.int64])
@pytest.mark.parametrize(("n", "M"), [(1, 7), (10, 1000), (100, 33)])
def test_take_sums_same_bits_as_numpy(dtype, n, M):
    """The Gaussian models' minibatch sums give exactly numpy's take-then-sum (rows added in order)."""
    rng = np.random.default_rng(n + M)
    idx = rng.integers(0, 500, size=(n, M)).astype(dtype)
    x = rng.standard_normal(500) * 1e3
    X = rng.standard_normal((500, 3))
    np.testing.assert_array_equal(_elementwise.take_sum_flat(x, idx), x.take(idx).sum(axis=0))
    np.testing.assert_array_equal(_elementwise.take_sum_rows(X, idx), X.take(idx, axis=0).sum(axis=0))
    full = np.broadcast_to(np.arange(500)[:, None], (500, M))  # the n = N path passes a broadcast view
    np.testing.assert_array_equal(_elementwise.take_sum_rows(X, full), X.take(full, axis=0).sum(axis=0))


@numba.njit(cache=False)
def vector_sigmoid_neg(s: np.ndarray) -> np.ndarray:
    """sigma(-s) = 1/(1 + e^s) elementwise by the kernels' vector code: the weights of rows z_i = (s_i, 0, ...) at
    theta = (1, 0, ...) (the probe of its accuracy)."""
    LANES = _simd.LANES
    n = s.shape[0]
    m = -(-n // LANES) * LANES
    Z = np.zeros((m, LANES))
    rows = np.arange(m) * LANES
    for i in range(n):
        Z[i, 0] = s[i]
    theta = np.zeros(LANES)
    theta[0] = 1.0
    w = np.empty(m)
    _simd.weights_rows(Z, rows, theta, w, (0,))
    return w[:n]


def test_vector_sigmoid_accuracy_and_edges():
    """The kernels' sigma(-s) (simulate._simd): within 3 ulp of the correctly rounded value (mpmath, 40 digits) over
    the range where it is a normal number (libm's 1/(1 + exp(s)) reaches 2 ulp on the same points), exact limits,
    no overflow, NaN propagated."""
    import mpmath


    rng = np.random.default_rng(11)
    s = np.concatenate([np.linspace(-40.0, 40.0, 2001), rng.normal(0.0, 10.0, 2000), rng.uniform(-708, 708, 500),
                        [0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 36.7, -36.7]])
    got = vector_sigmoid_neg(s)
    with mpmath.workdps(40):
        exact = np.array([float(1 / (1 + mpmath.exp(mpmath.mpf(float(x))))) for x in s])
    ulp = np.spacing(exact)
    assert np.max(np.abs(got - exact) / ulp) <= 3.0
    edges = np.array([-np.inf, -1e4, -746.0, np.inf, 1e4, 746.0, 745.0, 709.0, np.nan])
    out = vector_sigmoid_neg(edges)
    np.testing.assert_array_equal(out[:3], 1.0)
    np.testing.assert_array_equal(out[3:6], 0.0)
    assert 0.0 < out[6] <= 5e-324 * 2 and out[7] == pytest.approx(np.exp(-709.0), rel=1e-14)
    assert np.isnan(out[8])


def test_kernels_ignore_padding_and_lane_tails():
    """n not a multiple of 8 and d not a multiple of 8: the padded lanes never reach the result (a planted bug that
    summed the padding rows would double-count the last row; checked against the numpy path)."""
    for d, n in ((9, 1), (9, 7), (17, 9), (24, 15)):
        model = make_model(d, 60, seed=d + n)
        rng = np.random.default_rng(d)
        theta = rng.standard_normal((5, d)) * 0.5
        idx = rng.integers(0, 60, size=(n, 5))
        ref = numpy_per_datum(model, theta, idx)
        assert rel(model.grad_log_lik_sum(theta, idx), ref.sum(axis=0)) <= TOL
        assert rel(model.grad_log_lik(theta, idx), ref) <= TOL


def test_padded_data_is_cache_line_aligned():
    """Rows of the padded data start on 64-byte boundaries (the kernels' prefetch and loads assume whole lines);
    the padding columns are zeros and the data columns equal Z."""
    for d, N in ((3, 5), (20, 1000), (24, 7)):
        Z = np.random.default_rng(d).standard_normal((N, d))
        Zp = _simd.padded(Z)
        assert Zp.ctypes.data % _simd.ALIGN == 0 and Zp.flags.c_contiguous
        assert Zp.shape == (N, 8 * -(-d // 8))
        assert np.array_equal(Zp[:, :d], Z) and not Zp[:, d:].any()
