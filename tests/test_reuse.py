"""The K-step minibatch reuse estimator (simulate.estimators.reuse.Reused): same draws within a block, fresh ones at
block
starts, K = 1 identical to the inner estimator, the draw/apply split bit for bit, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import (
    ControlVariate,
    GaussianMeanModel,
    LinearRegressionModel,
    Minibatch,
    ParameterError,
    Reused,
    Sampler,
    Strata,
    Stratified,
    run,
)
from simulate.estimators.minibatch import FullGradient
from simulate.estimators.saga import SAGA
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC


def _model():
    return LinearRegressionModel.simulate_data(40, dim=2, seed=3)


def test_k1_is_the_inner_estimator_bit_for_bit():
    m = _model()
    h = 0.3 / m.grad_lipschitz
    a = run(Sampler(m, Minibatch(5), Langevin(), h), 64, 30, seed=4)
    b = run(Sampler(m, Reused(Minibatch(5), 1), Langevin(), h), 64, 30, seed=4)
    assert np.array_equal(a.final, b.final)
    assert np.array_equal(a.time_averages["theta2"], b.time_averages["theta2"])


@pytest.mark.parametrize("inner", [Minibatch(4), Minibatch(4, replace=True), "cv", "strat"])
def test_indices_are_reused_within_a_block_and_redrawn_at_its_start(inner):
    m = _model()
    if inner == "cv":
        inner = ControlVariate.at(m, 4, m.posterior_mean + 0.1)
    elif inner == "strat":
        inner = Stratified(Strata.from_labels(np.arange(40) % 2), (2, 3))
    est = Reused(inner, 3)
    rng = np.random.default_rng(0)
    state = est.init(m, 8, rng)
    draws = []
    for step in range(7):
        d = est.draw(m, 8, step, rng)
        assert (d is None) == (step % 3 != 0)
        theta = rng.standard_normal((8, 2))
        g, state = est.apply(m, theta, state, d)
        draws.append(state.draws)
        # the estimate is the inner estimator's on the block's draws
        if isinstance(inner, Stratified):
            ref = inner.combine(m, theta, state.draws.sets)
        else:
            ref = inner.apply(m, theta, None, state.draws)[0]
        assert np.array_equal(g, ref)
    assert draws[0] is draws[1] is draws[2] and draws[3] is draws[4] is draws[5]
    assert draws[3] is not draws[0] and draws[6] is not draws[3]


def test_draw_ahead_path_gives_the_same_numbers():
    m = _model()
    s = Sampler(m, Reused(Minibatch(5), 4), Langevin(), 0.3 / m.grad_lipschitz)
    assert s.draws_ahead
    a = run(s, 200, 25, seed=9, draw_ahead=True)
    b = run(s, 200, 25, seed=9, draw_ahead=False)
    assert np.array_equal(a.final, b.final)


def test_frozen_additive_noise_on_the_gaussian_mean_model():
    """Additive noise: within a block the gradient error g - grad log post is the same at every theta."""
    m = GaussianMeanModel.simulate_data(30, dim=1, seed=1)
    est = Reused(Minibatch(3), 5)
    rng = np.random.default_rng(2)
    state = est.init(m, 100, rng)
    errs = []
    for step in range(5):
        theta = rng.standard_normal((100, 1))
        g, state = est.apply(m, theta, state, est.draw(m, 100, step, rng))
        errs.append(g - m.grad_log_post(theta))
    assert all(np.allclose(e, errs[0], rtol=0, atol=1e-12) for e in errs)
    assert np.std(errs[0]) > 0


def test_composes_with_sghmc_and_full_gradient():
    m = _model()
    h = 0.1 / m.grad_lipschitz
    r = run(Sampler(m, Reused(Minibatch(5), 2), SGHMC(0.3), h), 50, 10, seed=1)
    assert np.all(np.isfinite(r.final))
    a = run(Sampler(m, Reused(FullGradient(), 3), Langevin(), h), 20, 10, seed=2)
    b = run(Sampler(m, FullGradient(), Langevin(), h), 20, 10, seed=2)
    assert np.array_equal(a.final, b.final)


def test_bad_input():
    with pytest.raises(ParameterError, match="K"):
        Reused(Minibatch(2), 0)
    with pytest.raises(ParameterError, match="inner"):
        Reused(SAGA(2), 2)
    with pytest.raises(ParameterError, match="inner"):
        Reused(Reused(Minibatch(2), 2), 2)
    m = _model()
    est = Reused(Minibatch(2), 2)
    state = est.init(m, 3, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="wrong step"):
        est.apply(m, np.zeros((3, 2)), state, None)
    with pytest.raises(ParameterError, match="n must satisfy"):
        Sampler(m, Reused(Minibatch(99), 2), Langevin(), 0.1 / m.grad_lipschitz)
