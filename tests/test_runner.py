"""The blocked many-chain runner: reproducibility, time-average conventions, outputs and cost accounting."""

from __future__ import annotations

import numpy as np
import pytest
from _results import assert_runs_identical

import simulate
from simulate import GaussianMeanModel, ParameterError, RunResult, block_rng, euler, msgld, run, sgld
from simulate.estimators.subsample import sample_indices
from simulate.runtime.runner import BUILTIN_TEST_FUNCTIONS

M = 1000
BLOCK = 300  # 4 blocks: 300, 300, 300 and a partial block of 100
H = 0.02


@pytest.fixture(scope="module")
def model():
    return GaussianMeanModel.simulate_data(50, theta_true=0.7, sigma_x=1.3, seed=3)


@pytest.fixture(scope="module")
def model3():
    return GaussianMeanModel.simulate_data(40, theta_true=[0.5, -1.0, 2.0], dim=3, seed=4)


SAMPLERS = {
    "sgld_pairwise": lambda m: sgld(m, H, 5),
    "sgld_bitmap": lambda m: sgld(m, H, 20),
    "sgld_complement": lambda m: sgld(m, H, 40),
    "sgld_replace": lambda m: sgld(m, H, 5, replace=True),
    "msgld": lambda m: msgld(m, H, 5),
    "euler": lambda m: euler(m, H),
}


def _theta0_callable(rng, m):
    return rng.normal(1.0, 2.0, size=(m, 1))


def _theta0_array():
    return np.random.default_rng(99).normal(size=(M, 1))


def _run(sampler, **kw):
    args = dict(seed=17, burn_in=3, record_at=[0, 5, 12], trace_stride=4, block_size=BLOCK)
    args.update(kw)
    return run(sampler, M, 20, **args)


@pytest.mark.parametrize("theta0_kind", ["callable", "array", "point", "none"])
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_blocks_concatenate_bit_identical(model, name, theta0_kind):
    sampler = SAMPLERS[name](model)
    theta0 = {"callable": _theta0_callable, "array": _theta0_array(), "point": np.array([0.3]),
              "none": None}[theta0_kind]
    full = _run(sampler, theta0=theta0)
    assert full.n_chains == M and full.final.shape == (M, 1)
    parts = [_run(sampler, theta0=theta0, blocks=[b]) for b in range(4)]
    assert [p.n_chains for p in parts] == [300, 300, 300, 100]
    assert [p.chain_offset for p in parts] == [0, 300, 600, 900]
    # Order of the parts must not matter.
    assert_runs_identical(RunResult.concatenate(parts[::-1]), full)
    # Same seed again: identical.
    assert_runs_identical(_run(sampler, theta0=theta0), full)
    # A consecutive range of blocks equals the corresponding slice of the full run.
    mid = _run(sampler, theta0=theta0, blocks=[1, 2])
    assert mid.chain_offset == BLOCK and mid.n_chains == 2 * BLOCK
    sl = slice(BLOCK, 3 * BLOCK)
    np.testing.assert_array_equal(mid.final, full.final[sl])
    np.testing.assert_array_equal(mid.time_averages["theta2"], full.time_averages["theta2"][sl])
    np.testing.assert_array_equal(mid.trace, full.trace[:, sl])


@pytest.mark.parametrize("name", ["sgld_pairwise", "sgld_bitmap"])
def test_threads_do_not_change_the_numbers(model, name):
    """Blocks run in threads (default: one per CPU) give the numbers of one thread, for any thread count."""
    sampler = SAMPLERS[name](model)
    one = _run(sampler, theta0=_theta0_callable, threads=1)
    for threads in (2, 3, None):
        assert_runs_identical(_run(sampler, theta0=_theta0_callable, threads=threads), one)


def test_threads_with_parallel_numba_kernels():
    """Logistic regression (numba kernels, parallel over chains) in block threads: the same numbers."""
    from simulate.models.logistic import LogisticRegressionModel

    lm = LogisticRegressionModel.paper_synthetic(200, seed=5)
    s = sgld(lm, 0.5 / lm.grad_lipschitz, 10)
    a = run(s, 90, 6, seed=3, block_size=40, threads=1)
    b = run(s, 90, 6, seed=3, block_size=40, threads=2)
    assert_runs_identical(b, a)


def test_threads_above_the_cpu_count_warn_once(model, monkeypatch):
    """threads= above the CPUs this process may run on warns, once per process; the numbers are the same."""
    import warnings

    from simulate.runtime import runner

    monkeypatch.setattr(runner, "_WARNED_THREADS", False)
    s = sgld(model, H, 5)
    too_many = runner.cpu_count() + 1
    with pytest.warns(RuntimeWarning, match=f"threads={too_many} is more than the {runner.cpu_count()} CPUs"):
        a = run(s, 50, 4, seed=1, block_size=10, threads=too_many)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = run(s, 50, 4, seed=1, block_size=10, threads=too_many)
        c = run(s, 50, 4, seed=1, block_size=10, threads=1)
    assert_runs_identical(a, b)
    assert_runs_identical(a, c)


def test_callable_theta0_is_drawn_per_block(model):
    """theta0(rng, m) is called with the block's generator: the initial states equal its first draws."""
    res = run(euler(model, H), M, 1, seed=5, theta0=_theta0_callable, record_at=[0], block_size=BLOCK)
    for b in range(4):
        m = min(M, (b + 1) * BLOCK) - b * BLOCK
        expect = _theta0_callable(block_rng(5, b), m)
        np.testing.assert_array_equal(res.snapshots[0][b * BLOCK : b * BLOCK + m], expect)


def test_array_theta0_is_used_per_chain(model):
    th0 = _theta0_array()
    res = run(sgld(model, H, 5), M, 1, theta0=th0, record_at=[0], block_size=BLOCK)
    np.testing.assert_array_equal(res.snapshots[0], th0)
    res = run(sgld(model, H, 5), M, 1, theta0=th0, record_at=[0], block_size=BLOCK, blocks=[2])
    np.testing.assert_array_equal(res.snapshots[0], th0[2 * BLOCK : 3 * BLOCK])


def test_theta0_array_not_modified(model):
    th0 = _theta0_array()
    keep = th0.copy()
    run(sgld(model, H, 5), M, 10, theta0=th0, block_size=BLOCK)
    np.testing.assert_array_equal(th0, keep)


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_different_seeds_differ(model, name):
    sampler = SAMPLERS[name](model)
    a = run(sampler, 200, 10, seed=1)
    b = run(sampler, 200, 10, seed=2)
    assert not np.array_equal(a.final, b.final)
    assert not np.array_equal(a.time_averages["theta"], b.time_averages["theta"])
    # Blocks of one run use different streams too.
    c = run(sampler, 200, 10, seed=1, block_size=100)
    assert not np.array_equal(c.final[:100], c.final[100:])


def test_block_rng_streams():
    assert np.array_equal(block_rng(3, 2).random(5), block_rng(3, 2).random(5))
    assert not np.array_equal(block_rng(3, 2).random(5), block_rng(3, 1).random(5))
    assert not np.array_equal(block_rng(3, 2).random(5), block_rng(4, 2).random(5))


def test_step_draw_order(model):
    """A step draws the minibatch indices first, then xi (documented in Sampler.step): replay one step."""
    sampler = sgld(model, H, 5)
    th0 = _theta0_array()[:BLOCK]
    res = run(sampler, BLOCK, 1, seed=8, theta0=th0, record_at=[1], block_size=BLOCK)
    rng = block_rng(8, 0)
    idx = sample_indices(rng, model.n_data, 5, BLOCK, False)
    xi = rng.standard_normal((BLOCK, 1))
    x = model.data[:, 0]
    g = -th0 / model.sigma0**2 + (50 / 5) * (x[idx].sum(0)[:, None] - 5 * th0) / model.sigma_x**2
    np.testing.assert_allclose(res.snapshots[1], th0 + 0.5 * H * g + np.sqrt(H) * xi, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["sgld_pairwise", "msgld", "euler"])
def test_time_average_includes_theta0(model, name):
    L = 7
    res = run(SAMPLERS[name](model), 50, L, theta0=_theta0_callable, trace_stride=1, seed=2)
    assert res.total_steps == L - 1
    np.testing.assert_array_equal(res.trace_steps, np.arange(L))
    np.testing.assert_allclose(res.time_averages["theta"], res.trace[:L].mean(0), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(res.time_averages["theta2"], (res.trace[:L] ** 2).mean(0), rtol=1e-13)
    np.testing.assert_array_equal(res.trace[0], _theta0_callable(block_rng(2, 0), 50))
    np.testing.assert_array_equal(res.final, res.trace[-1])


@pytest.mark.parametrize("burn_in", [1, 5])
def test_time_average_with_burn_in(model, burn_in):
    L = 6
    res = run(sgld(model, H, 5), 50, L, burn_in=burn_in, theta0=_theta0_callable, trace_stride=1,
              record_at=[0, 2, burn_in + L - 1], seed=4)
    assert res.total_steps == burn_in + L - 1
    assert res.trace.shape == (burn_in + L, 50, 1)
    win = res.trace[burn_in : burn_in + L]
    np.testing.assert_allclose(res.time_averages["theta"], win.mean(0), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(res.time_averages["theta2"], (win**2).mean(0), rtol=1e-13)
    for k, snap in res.snapshots.items():
        np.testing.assert_array_equal(snap, res.trace[k])


def test_record_at_extends_run_and_matches_trace(model):
    res = run(sgld(model, H, 5), 40, 3, record_at=[10, 1], trace_stride=2, seed=6)
    assert res.total_steps == 10
    assert sorted(res.snapshots) == [1, 10]
    np.testing.assert_array_equal(res.trace_steps, np.arange(0, 11, 2))
    np.testing.assert_array_equal(res.snapshots[10], res.trace[-1])
    np.testing.assert_array_equal(res.snapshots[10], res.final)
    # Snapshots are copies, not views of the evolving state.
    assert not np.array_equal(res.snapshots[1], res.snapshots[10])
    # n_steps=0 is allowed when only states are asked for.
    res0 = run(sgld(model, H, 5), 40, 0, record_at=[4], seed=6)
    assert res0.time_averages == {}
    np.testing.assert_array_equal(res0.snapshots[4], run(sgld(model, H, 5), 40, 5, seed=6,
                                                         record_at=[4]).snapshots[4])


def test_custom_test_functions(model):
    fns = {"cube": lambda th: th**3, "norm2": lambda th: (th**2).sum(axis=1)}
    res = run(msgld(model, H, 5), 60, 8, burn_in=2, theta0=_theta0_callable, trace_stride=1,
              test_functions=fns, seed=3)
    assert set(res.time_averages) == {"cube", "norm2"}
    win = res.trace[2:10]
    np.testing.assert_allclose(res.time_averages["cube"], (win**3).mean(0), rtol=1e-12)
    assert res.time_averages["norm2"].shape == (60,)
    np.testing.assert_allclose(res.time_averages["norm2"], (win**2).sum(2).mean(0), rtol=1e-12)


def test_generic_path_equals_fast_path(model):
    """Builtin names given as new callables go through the generic path; the numbers are identical."""
    fast = run(sgld(model, H, 5), 100, 12, seed=1, block_size=30)
    slow = run(sgld(model, H, 5), 100, 12, seed=1, block_size=30,
               test_functions={"theta": lambda th: th + 0.0, "theta2": lambda th: th * th})
    for k in ("theta", "theta2"):
        np.testing.assert_array_equal(fast.time_averages[k], slow.time_averages[k])
    only2 = run(sgld(model, H, 5), 100, 12, seed=1, block_size=30, test_functions=["theta2"])
    assert set(only2.time_averages) == {"theta2"}
    np.testing.assert_array_equal(only2.time_averages["theta2"], fast.time_averages["theta2"])
    # Builtins passed in a mapping keep the fast path and the same numbers.
    mapped = run(sgld(model, H, 5), 100, 12, seed=1, block_size=30, test_functions=dict(BUILTIN_TEST_FUNCTIONS))
    np.testing.assert_array_equal(mapped.time_averages["theta2"], fast.time_averages["theta2"])


@pytest.mark.parametrize("make", [lambda m: sgld(m, 0.01, 7), lambda m: msgld(m, 0.01, 7),
                                  lambda m: euler(m, 0.01), lambda m: sgld(m, 0.01, 30, replace=True)])
def test_multivariate_runs(model3, make):
    res = run(make(model3), 120, 9, burn_in=2, record_at=[3], trace_stride=5, seed=2, block_size=50,
              theta0=np.array([1.0, 2.0, 3.0]))
    assert res.final.shape == (120, 3)
    assert res.time_averages["theta"].shape == (120, 3)
    assert res.time_averages["theta2"].shape == (120, 3)
    assert res.snapshots[3].shape == (120, 3)
    assert res.trace.shape == (3, 120, 3)
    assert np.all(np.isfinite(res.final))
    parts = [run(make(model3), 120, 9, burn_in=2, record_at=[3], trace_stride=5, seed=2, block_size=50,
                 theta0=np.array([1.0, 2.0, 3.0]), blocks=[b]) for b in range(3)]
    assert_runs_identical(RunResult.concatenate(parts), res)


def _correlated_model():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((50, 2)) @ np.array([[1.0, 0.0], [0.8, 0.5]]) + np.array([0.3, -0.2])
    return GaussianMeanModel(x, sigma_x=1.0, sigma0=1.0)


def test_msgld_noise_matrix_multivariate_replay():
    """mSGLD in d = 2: one step equals theta + (h/2) g + sqrt(h) (I - (h/8) C) xi with C the exact
    (non-diagonal) covariance of g, replayed from the block generator."""
    model = _correlated_model()
    h, n, m = 0.02, 5, 64
    C = simulate.Minibatch(n).noise_cov(model)
    assert abs(C[0, 1]) > 0.1 * np.sqrt(C[0, 0] * C[1, 1])
    th0 = np.random.default_rng(1).normal(size=(m, 2))
    res = run(msgld(model, h, n), m, 1, theta0=th0, record_at=[1], seed=21, block_size=m)
    rng = block_rng(21, 0)
    idx = sample_indices(rng, model.n_data, n, m, False)
    xi = rng.standard_normal((m, 2))
    g = -th0 + (model.n_data / n) * (model.data[idx].sum(0) - n * th0)
    S = np.sqrt(h) * (np.eye(2) - h / 8 * C)
    np.testing.assert_allclose(res.snapshots[1], th0 + 0.5 * h * g + xi @ S.T, rtol=1e-12, atol=1e-14)


def test_msgld_multivariate_one_step_covariance():
    """Statistical check of the same path: Cov(theta_1) = (h/2)^2 C + S S^T, S = sqrt(h)(I - (h/8) C)."""
    model = _correlated_model()
    h, n, m = 0.02, 5, 200_000
    C = simulate.Minibatch(n).noise_cov(model)
    S = np.sqrt(h) * (np.eye(2) - h / 8 * C)
    exact_cov = (h / 2) ** 2 * C + S @ S.T
    th0 = np.array([0.4, -0.1])
    exact_mean = th0 + 0.5 * h * model.grad_log_post(th0[None, :])[0]
    res = run(msgld(model, h, n), m, 0, theta0=th0, record_at=[1], seed=5)
    y = res.snapshots[1]
    z_mean = (y.mean(0) - exact_mean) / (y.std(0, ddof=1) / np.sqrt(m))
    assert np.all(np.abs(z_mean) < 4.5), z_mean
    yc = y - y.mean(0)
    for i, j in [(0, 0), (1, 1), (0, 1)]:
        prod = yc[:, i] * yc[:, j]
        z = (prod.mean() - exact_cov[i, j]) / (prod.std(ddof=1) / np.sqrt(m))
        assert abs(z) < 4.5, (i, j, z)
    # The sqrt(h) I noise of plain SGLD would be detected: its covariance differs by many s.e.
    wrong = (h / 2) ** 2 * C + h * np.eye(2)
    z_wrong = [(np.mean(yc[:, i] * yc[:, j]) - wrong[i, j]) / (np.std(yc[:, i] * yc[:, j], ddof=1) / np.sqrt(m))
               for i, j in [(0, 0), (1, 1), (0, 1)]]
    assert max(abs(z) for z in z_wrong) > 10, z_wrong


@pytest.mark.parametrize(("make", "per_step"), [
    (lambda m: sgld(m, H, 5), 5), (lambda m: sgld(m, H, 20, replace=True), 20),
    (lambda m: msgld(m, H, 7), 7), (lambda m: euler(m, H), 50)])
def test_grads_per_chain(model, make, per_step):
    res = run(make(model), 30, 10, burn_in=4, block_size=7)
    assert res.total_steps == 13
    assert res.grads_per_chain == 13 * per_step
    part = run(make(model), 30, 10, burn_in=4, block_size=7, blocks=[2, 3])
    assert part.grads_per_chain == 13 * per_step
    res = run(make(model), 30, 2, record_at=[25])
    assert res.grads_per_chain == 25 * per_step


def test_run_parameter_errors(model):
    s = sgld(model, H, 5)
    with pytest.raises(ParameterError, match="n_chains"):
        run(s, 0, 10)
    with pytest.raises(ParameterError, match="n_steps"):
        run(s, 10, 0)
    with pytest.raises(ParameterError, match="burn_in"):
        run(s, 10, 5, burn_in=-1)
    with pytest.raises(ParameterError, match="block_size"):
        run(s, 10, 5, block_size=0)
    with pytest.raises(ParameterError, match="threads"):
        run(s, 10, 5, threads=0)
    with pytest.raises(ParameterError, match="blocks"):
        run(s, 10, 5, block_size=3, blocks=[4])
    with pytest.raises(ParameterError, match="blocks"):
        run(s, 10, 5, block_size=3, blocks=[0, 2])
    with pytest.raises(ParameterError, match="test_functions"):
        run(s, 10, 5, test_functions=["theta3"])
    with pytest.raises(ParameterError, match="record_at"):
        run(s, 10, 5, record_at=[-1])
    with pytest.raises(ParameterError, match="trace_stride"):
        run(s, 10, 5, trace_stride=0)
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 5, theta0=np.zeros((11, 1)))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 5, theta0=np.zeros((10, 2)))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 5, theta0=np.zeros((10, 1, 1)))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 5, theta0=np.zeros(3))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 5, theta0=np.full((10, 1), np.nan))
    with pytest.raises(ParameterError, match="concatenate|consecutive"):
        a = run(s, 10, 2, block_size=3, blocks=[0])
        c = run(s, 10, 2, block_size=3, blocks=[2])
        RunResult.concatenate([a, c])


def test_scalar_and_point_theta0(model3):
    """A scalar theta0 is broadcast to every coordinate; a (d,) point to every chain."""
    res = run(euler(model3, 0.01), 20, 1, theta0=0.5, record_at=[0])
    np.testing.assert_array_equal(res.snapshots[0], np.full((20, 3), 0.5))
    res = run(euler(model3, 0.01), 20, 1, theta0=[1.0, 2.0, 3.0], record_at=[0])
    np.testing.assert_array_equal(res.snapshots[0], np.tile([1.0, 2.0, 3.0], (20, 1)))
    with pytest.raises(ParameterError, match="theta0"):
        run(euler(model3, 0.01), 20, 1, theta0=[1.0, 2.0])
