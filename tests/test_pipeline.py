"""Draw-ahead runs (simulate.runtime.pipeline): a background thread draws step k+1's random numbers while step k
computes. The contract is bit identity with the plain step loop, for every sampler that allows the split."""

from __future__ import annotations

import threading
from unittest import mock

import numpy as np
import pytest
from _results import assert_runs_identical

import simulate.estimators as est
from simulate import GaussianMeanModel, ParameterError, euler, msgld, run, sgld
from simulate.models.logistic import LogisticRegressionModel
from simulate.runtime.pipeline import DrawAhead
from simulate.sampler import Sampler, StepDraws
from simulate.samplers import saga_ld, sghmc, sgld_cv, svrgld, vrsgld


@pytest.fixture(scope="module")
def toy():
    return GaussianMeanModel.simulate_data(50, theta_true=0.7, sigma_x=1.3, seed=3)


@pytest.fixture(scope="module")
def logistic():
    return LogisticRegressionModel.paper_synthetic(300, seed=5)


def _h(model) -> float:
    return 0.3 / model.grad_lipschitz


SPLIT = {
    "sgld_without": lambda m: sgld(m, _h(m), 7),
    "sgld_with": lambda m: sgld(m, _h(m), 7, replace=True),
    "sgld_n64": lambda m: sgld(m, _h(m), 64),  # the fused numba rejection draw
    "msgld": lambda m: msgld(m, _h(m), 7),
    "euler": lambda m: euler(m, _h(m)),
    "sgld_cv": lambda m: sgld_cv(m, _h(m), 7, theta_hat=np.zeros(m.dim)),
    "vrsgld": lambda m: vrsgld(m, _h(m), 40, 7, 4, replace=True),  # anchor draws every 4th step
    "svrgld": lambda m: svrgld(m, _h(m), 7, 4),  # n1 = N: exact anchor, no anchor draws
    "saga_ld": lambda m: saga_ld(m, _h(m), 7),
}
TOY_ONLY = {"msgld"}  # mSGLD needs a constant gradient-noise covariance (the Gaussian toy model)


def _model(name, toy, logistic):
    return toy if name in TOY_ONLY or name == "euler" else logistic


def _run(sampler, **kw):
    return run(sampler, 37, 13, seed=11, burn_in=2, record_at=[0, 6], trace_stride=5, threads=1,
               theta0=lambda rng, m: rng.normal(0.0, 0.3, (m, sampler.model.dim)), **kw)


@pytest.mark.parametrize("name", list(SPLIT))
def test_draw_ahead_is_bit_identical_to_the_step_loop(name, toy, logistic):
    sampler = SPLIT[name](_model(name, toy, logistic))
    assert sampler.draws_ahead
    plain = _run(sampler, draw_ahead=False)
    assert_runs_identical(_run(sampler, draw_ahead=True), plain)
    assert_runs_identical(_run(sampler), plain)  # the default (draws ahead or not, by the machine and sizes)
    # two blocks (of 20 and 17 chains) run one after the other, each with its own stream drawn ahead
    assert_runs_identical(_run(sampler, draw_ahead=True, block_size=20),
                          _run(sampler, draw_ahead=False, block_size=20))


@pytest.mark.parametrize("name", ["sgld_without", "vrsgld", "saga_ld"])
def test_apply_of_draw_is_step(name, toy, logistic):
    """sampler.apply(state, sampler.draw(M, k, rng)) == sampler.step(state, rng), step by step, same stream after."""
    sampler = SPLIT[name](_model(name, toy, logistic))
    th0 = np.full((9, sampler.model.dim), 0.1)
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    s1, s2 = sampler.init(th0.copy(), r1), sampler.init(th0.copy(), r2)
    for k in range(9):
        s1 = sampler.step(s1, r1)
        s2 = sampler.apply(s2, sampler.draw(9, k, r2))
        np.testing.assert_array_equal(s1.theta, s2.theta)
    assert r1.integers(1 << 62) == r2.integers(1 << 62)


def _arrays(state) -> list[np.ndarray]:
    """Every array of a sampler state (theta, the estimator's and the integrator's states), in order."""
    out, todo = [], [state]
    while todo:
        x = todo.pop(0)
        if isinstance(x, np.ndarray):
            out.append(x)
        elif isinstance(x, tuple):
            todo[:0] = list(x)
    return out


PURE = {**SPLIT, "sghmc_refresh": lambda m: sghmc(m, _h(m), 0.3, n=7, resample_every=2)}


@pytest.mark.parametrize("name", ["sgld_without", "vrsgld", "saga_ld", "sghmc_refresh"])
def test_step_is_pure_unless_inplace(name, toy, logistic):
    """``step`` and ``apply`` leave their input untouched (SAGA's table, the anchors, SGHMC's momentum included) and
    give, bit for bit, what ``inplace=True`` gives by advancing the input's arrays (the runner's loop)."""
    sampler = PURE[name](_model(name, toy, logistic))
    rng = np.random.default_rng(4)
    state = sampler.init(np.full((9, sampler.model.dim), 0.1), rng)
    for _ in range(3):  # past SAGA's table fill and into an epoch
        state = sampler.step(state, rng)
    before = [a.copy() for a in _arrays(state)]
    r_pure, r_in = np.random.default_rng(5), np.random.default_rng(5)
    pure = sampler.step(state, r_pure)
    for a, b in zip(_arrays(state), before, strict=True):
        np.testing.assert_array_equal(a, b)
    inplace = sampler.step(state, r_in, inplace=True)
    assert inplace.theta is state.theta  # advanced in place
    for a, b in zip(_arrays(pure), _arrays(inplace), strict=True):
        np.testing.assert_array_equal(a, b)
    if sampler.draws_ahead:
        state = pure
        draws = sampler.draw(9, state.step, rng)
        xi = draws.xi.copy()
        before = [a.copy() for a in _arrays(state)]
        split = sampler.apply(state, draws)
        np.testing.assert_array_equal(draws.xi, xi)
        for a, b in zip(_arrays(state), before, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(split.theta, sampler.apply(state, draws, inplace=True).theta)


def test_planted_out_of_order_draws_are_caught(logistic):
    """The identity check can fail: a draw that takes the noise before the indices changes the numbers."""
    sampler = SPLIT["sgld_without"](logistic)
    plain = _run(sampler, draw_ahead=False)

    def swapped(self, n_chains, step, rng):
        xi = rng.standard_normal((n_chains, self.model.dim))
        return StepDraws(self.estimator.draw(self.model, n_chains, step, rng), xi)

    with mock.patch.object(Sampler, "draw", swapped):
        bad = _run(sampler, draw_ahead=True)
    with pytest.raises(AssertionError):
        assert_runs_identical(bad, plain)


def test_samplers_that_cannot_split(toy, logistic):
    """Draws that depend on the state keep the step loop: an integrator that draws in its update (SGHMC's momentum
    refresh) and a state-dependent noise matrix (mSGLD on logistic regression). SGHMC without refresh splits (its
    momentum is state, but its draws are not), and a patched ``apply`` (a planted bug) runs on either path."""
    assert sghmc(toy, 0.01, 0.1, n=5).draws_ahead
    assert not sghmc(toy, 0.01, 0.1, n=5, resample_every=3).draws_ahead
    assert not msgld(logistic, _h(logistic), 7).draws_ahead
    s = sgld(toy, _h(toy), 5)
    with mock.patch.object(est.Minibatch, "apply", lambda self, model, theta, state, idx: (theta * 0, state)):
        r = run(s, 4, 3, seed=0, theta0=np.ones(1), draw_ahead=True)
        np.testing.assert_array_equal(r.time_averages["theta"][:, 0] != 1.0, True)  # the patched apply ran
    with pytest.raises(ParameterError, match="draws_ahead"):
        sghmc(toy, 0.01, 0.1, n=5, resample_every=3).draw(3, 0, np.random.default_rng(0))


def test_wrong_draws_are_refused(logistic):
    s = SPLIT["vrsgld"](logistic)
    rng = np.random.default_rng(0)
    state = s.init(np.zeros((5, logistic.dim)), rng)
    with pytest.raises(ParameterError, match="l mod m"):
        s.apply(state, s.draw(5, 1, rng))  # the draws of step 1 (no anchor) given to step 0
    with pytest.raises(ParameterError, match="xi"):
        s.apply(state, s.draw(4, 0, rng))


def test_draw_ahead_errors_and_shutdown():
    seen = []

    def draw(k):
        if k == 3:
            raise RuntimeError("draw 3 failed")
        seen.append(k)
        return k

    with DrawAhead(draw, 6) as ahead:
        assert [ahead.next() for _ in range(3)] == [0, 1, 2]
        with pytest.raises(RuntimeError, match="draw 3"):
            ahead.next()
    with DrawAhead(lambda k: k, 1000, depth=2) as ahead:
        assert ahead.next() == 0
        thread = ahead._thread
    thread.join(1.0)
    assert not thread.is_alive()  # the consumer left early: the producer stopped, not blocked on a full queue
    with DrawAhead(lambda k: k, 2) as ahead:
        ahead.next(), ahead.next()
        with pytest.raises(IndexError):
            ahead.next()
    assert threading.active_count() >= 1


def test_shared_kernels_split_work_items_between_threads(logistic):
    """The team's kernels (atomic tickets): items taken by a helper thread, by the owner, or all by one thread give
    the parallel kernel's numbers; a second call on a spent ticket does nothing."""
    from simulate._fast import _logistic as _kernels
    from simulate._fast import _team

    rng = np.random.default_rng(2)
    M = 203  # 26 work items, the last one partial
    theta = rng.normal(0.0, 0.5, (M, logistic.dim))
    idx = rng.integers(0, logistic.n_data, (9, M)).astype(np.int16)
    want = logistic.grad_log_lik_sum(theta, idx)
    args = (logistic._Zp, theta, idx)
    out = np.full((M, logistic.dim), np.nan)
    ticket = np.zeros(2, np.int64)
    _kernels.grad_sum_shared(*args, out, logistic._blocks, ticket)
    np.testing.assert_array_equal(out, want)
    assert tuple(ticket) == (_kernels.n_items(M) + 1, 0)  # every item claimed, no thread inside
    out[:] = np.nan
    _kernels.grad_sum_shared(*args, out, logistic._blocks, ticket)  # spent: touches nothing
    assert np.isnan(out).all()

    team = _team.Team()
    stop = threading.Event()
    helped = []

    def helper():
        while not stop.is_set():
            helped.append(team.help())

    t = threading.Thread(target=helper)
    t.start()
    try:
        for _ in range(20):
            out = np.full((M, logistic.dim), np.nan)
            team.run(_kernels.grad_sum_shared, (*args, out, logistic._blocks))
            np.testing.assert_array_equal(out, want)
            hat = np.zeros_like(theta)
            d = np.full_like(out, np.nan)
            team.run(_kernels.diff_sum_shared, (*args[:2], hat, idx, d, logistic._blocks))
            np.testing.assert_array_equal(d, logistic.grad_log_lik_diff_sum(theta, hat, idx))
    finally:
        stop.set()
        t.join()
    assert _team.current() is None  # only a draw-ahead consumer has a team
