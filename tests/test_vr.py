"""Variance-reduced estimators (Chen, Wang, Zhang, Su, Carin 2019, Algorithm 1; SVRG-LD, Dubey et al. 2016).

* unbiasedness by exhaustive enumeration of all (anchor, correction) minibatch pairs on N = 6 data, at fixed
  (theta, theta_tilde), through the real ``estimate`` code path (the index draws are replaced by the enumeration);
* n1 = N is SVRG-LD (exact anchor, no anchor draws);
* Gaussian mean model (docs/papers/chen.md sec. 5): the correction term is batch independent, so the vr gradient
  error is the n1-anchor error frozen for an epoch; with m = 1 it is bit-identical to SGLD(n = n1) and has the
  SGLD variance N (N - n1) / n1 s_x^2 / sigma_x^4;
* reproducibility (blocks / concatenate), cost accounting, input errors.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pytest
from _results import assert_runs_identical

import simulate.estimators.vr as vr
from simulate import (
    SVRG,
    GaussianMeanModel,
    LogisticRegressionModel,
    Minibatch,
    ParameterError,
    RunResult,
    Sampler,
    VRMinibatch,
    VRState,
    msgld,
    run,
    sgld,
    svrgld,
    vrsgld,
)
from simulate.estimators.subsample import sample_indices
from simulate.integrators.langevin import ModifiedLangevin

H = 0.02


def _gauss6() -> GaussianMeanModel:
    return GaussianMeanModel.simulate_data(6, theta_true=[0.4, -0.3], sigma_x=1.2, dim=2, seed=11)


def _logistic6() -> LogisticRegressionModel:
    return LogisticRegressionModel.paper_synthetic(n_data=6, seed=5, sigma0=2.0)


class _Scripted:
    """Stand-in for sample_indices that returns prescribed (n, M) index arrays in order."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays = list(arrays)
        self.calls: list[tuple[int, int, int, bool]] = []

    def __call__(self, rng, n_data: int, n: int, n_chains: int, replace: bool) -> np.ndarray:
        self.calls.append((n_data, n, n_chains, replace))
        out = self.arrays.pop(0)
        assert out.shape == (n, n_chains), (out.shape, n, n_chains)
        return out


def _enumeration(N: int, n1: int, n2: int, replace: bool) -> tuple[np.ndarray, np.ndarray]:
    """All (anchor, correction) index pairs: anchor (n1, M) and correction (n2, M), M = #anchors x #corrections."""
    gen = (lambda n: list(product(range(N), repeat=n))) if replace else (lambda n: list(combinations(range(N), n)))
    anchors, corrs = gen(n1), gen(n2)
    A = np.array([a for a in anchors for _ in corrs], dtype=np.intp).T
    B = np.array([b for _ in anchors for b in corrs], dtype=np.intp).T
    return np.ascontiguousarray(A), np.ascontiguousarray(B)


def _theta_pair(d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.normal(size=d), rng.normal(size=d)


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("make", [_gauss6, _logistic6], ids=["gauss", "logistic"])
def test_unbiased_by_exhaustive_enumeration(monkeypatch, make, replace):
    """E g = grad log posterior(theta) exactly, averaging over every anchor and correction minibatch."""
    model = make()
    N, n1, n2 = 6, 3, 2
    A, B = _enumeration(N, n1, n2, replace)
    M = A.shape[1]
    th_tilde, th = _theta_pair(model.dim)
    theta_tilde = np.tile(th_tilde, (M, 1))
    theta = np.tile(th, (M, 1))
    est = VRMinibatch(n1, n2, m=2, replace=replace)
    script = _Scripted([A, B, B])  # step 0: anchor draw, correction draw; step 1: correction draw
    monkeypatch.setattr(vr, "sample_indices", script)
    state = est.init(model, M, None)
    g0, state = est.estimate(model, theta_tilde, state, None)
    # At the refresh the correction is exactly zero: g0 = (N/n1) sum_{pi} grad_i(theta_tilde) + prior.
    expected0 = model.grad_log_lik_sum(theta_tilde, A) * (N / n1) + model.grad_log_prior(theta_tilde)
    np.testing.assert_allclose(g0, expected0, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(g0.mean(axis=0), model.grad_log_post(th_tilde[None])[0], rtol=1e-12, atol=1e-12)
    g1, state = est.estimate(model, theta, state, None)
    assert state.step == 2
    np.testing.assert_array_equal(state.theta_tilde, theta_tilde)
    np.testing.assert_allclose(g1.mean(axis=0), model.grad_log_post(th[None])[0], rtol=1e-12, atol=1e-12)
    assert [c[1] for c in script.calls] == [n1, n2, n2]
    assert all(c == (N, c[1], M, replace) for c in script.calls)
    # The estimator is not trivially exact: the gradient varies across minibatch pairs.
    assert g1.std(axis=0).max() > 1e-3


@pytest.mark.parametrize("make", [_gauss6, _logistic6], ids=["gauss", "logistic"])
def test_svrg_anchor_exact_and_unbiased(monkeypatch, make):
    """n1 = N (SVRG-LD): no anchor draw, g_tilde = sum_{i=1}^N grad_i(theta_tilde); E g = full gradient."""
    model = make()
    N, n2 = 6, 2
    B = np.ascontiguousarray(np.array(list(combinations(range(N), n2)), dtype=np.intp).T)
    M = B.shape[1]
    th_tilde, th = _theta_pair(model.dim)
    theta_tilde, theta = np.tile(th_tilde, (M, 1)), np.tile(th, (M, 1))
    for est in (SVRG(n2, 3), VRMinibatch(N, n2, 3)):
        script = _Scripted([B, B])
        monkeypatch.setattr(vr, "sample_indices", script)
        state = est.init(model, M, None)
        _, state = est.estimate(model, theta_tilde, state, None)
        np.testing.assert_array_equal(state.g_tilde, model.grad_log_lik_full(theta_tilde))
        g, state = est.estimate(model, theta, state, None)
        np.testing.assert_allclose(g.mean(axis=0), model.grad_log_post(th[None])[0], rtol=1e-12, atol=1e-12)
        assert [c[1] for c in script.calls] == [n2, n2]
        assert est.anchor_size(model) == N


def test_svrg_equals_vr_with_n1_equal_N():
    """SVRG(n2, m) and VRMinibatch(N, n2, m) give bit-identical runs (same draws, same arithmetic)."""
    model = GaussianMeanModel.simulate_data(30, theta_true=0.5, seed=2)
    a = run(svrgld(model, H, 4, 3), 200, 20, seed=4, block_size=64)
    b = run(vrsgld(model, H, 30, 4, 3), 200, 20, seed=4, block_size=64)
    np.testing.assert_array_equal(a.final, b.final)
    np.testing.assert_array_equal(a.time_averages["theta2"], b.time_averages["theta2"])
    assert a.grads_per_chain == b.grads_per_chain == 19 * (2 * 4 + 30 / 3)


@pytest.mark.parametrize(("n1", "replace"), [(20, False), (40, False), (12, True)],
                         ids=["pairwise_or_bitmap", "complement", "replace"])
@pytest.mark.parametrize("n2", [1, 7])
def test_gauss_m1_bit_identical_to_sgld(n1, n2, replace):
    """m = 1, Gaussian model: theta_tilde = theta, correction exactly 0, g = the SGLD(n = n1) draw, bit for bit."""
    model = GaussianMeanModel.simulate_data(50, theta_true=[0.7, 0.1], dim=2, seed=3)
    theta = np.random.default_rng(0).normal(size=(500, 2))
    est = VRMinibatch(n1, n2, 1, replace)
    rng = np.random.default_rng(8)
    g_vr, state = est.estimate(model, theta, est.init(model, 500, rng), rng)
    rng2 = np.random.default_rng(8)
    g_sgld, _ = Minibatch(n1, replace).estimate(model, theta, None, rng2)
    np.testing.assert_array_equal(g_vr, g_sgld)
    assert state.step == 1


def test_gauss_anchor_error_frozen_for_an_epoch(monkeypatch):
    """docs/papers/chen.md sec. 5: g_l - grad log post(theta_l) = (N/sigma^2)(xbar_pi - xbar), pi the epoch's anchor."""
    model = GaussianMeanModel.simulate_data(50, theta_true=[0.7, -0.2], sigma_x=1.3, dim=2, seed=6)
    N, n1, n2, m, M = 50, 20, 5, 4, 300
    anchors: list[np.ndarray] = []

    def recording(rng, n_data, n, n_chains, replace):
        idx = sample_indices(rng, n_data, n, n_chains, replace)
        if n == n1:
            anchors.append(np.array(idx))
        return idx

    monkeypatch.setattr(vr, "sample_indices", recording)
    est = VRMinibatch(n1, n2, m)
    rng = np.random.default_rng(1)
    state = est.init(model, M, rng)
    theta = rng.normal(size=(M, 2))
    xbar = model.data.mean(axis=0)
    errs = []
    for step in range(3 * m):
        g, state = est.estimate(model, theta, state, rng)
        e = g - model.grad_log_post(theta)
        pi = anchors[step // m]
        xbar_pi = model.data.take(pi, axis=0).mean(axis=0)  # (M, d)
        np.testing.assert_allclose(e, N / model.sigma_x**2 * (xbar_pi - xbar), rtol=0, atol=1e-11)
        errs.append(e)
        theta += rng.normal(size=theta.shape)  # in place, as the integrator does: the anchor must be a copy
    assert len(anchors) == 3
    assert not np.allclose(errs[0], errs[m])


@pytest.mark.parametrize(("m", "calls"), [(1, 1), (5, 3)])
def test_gauss_noise_variance_equals_sgld_n1(m, calls):
    """Var of the vr gradient error at a fixed theta = N (N - n1)/n1 s_x^2 / sigma_x^4 (SGLD with n = n1)."""
    model = GaussianMeanModel.simulate_data(50, theta_true=0.3, sigma_x=1.3, seed=9)
    N, n1, n2, M = 50, 20, 7, 200_000
    est = VRMinibatch(n1, n2, m)
    rng = np.random.default_rng(21)
    theta = np.full((M, 1), 0.25)
    state = est.init(model, M, rng)
    for _ in range(calls):  # with m = 5 the last call is inside an epoch (correction term nonzero)
        g, state = est.estimate(model, theta, state, rng)
        theta += 0.1
    theta -= 0.1
    e = (g - model.grad_log_post(theta))[:, 0]
    s2 = model.data[:, 0].var(ddof=1)
    v = N * (N - n1) / n1 * s2 / model.sigma_x**4
    z_mean = e.mean() / (e.std(ddof=1) / np.sqrt(M))
    e2 = e * e
    z_var = (e2.mean() - v) / (e2.std(ddof=1) / np.sqrt(M))
    assert abs(z_mean) < 4.5 and abs(z_var) < 4.5, (z_mean, z_var, e2.mean(), v)


# ---------------------------------------------------------------------------------------------- reproducibility


VR_SAMPLERS = {
    "vrsgld": lambda m: vrsgld(m, H, 20, 5, 3),
    "vrsgld_complement": lambda m: vrsgld(m, H, 40, 5, 7),
    "vrsgld_replace": lambda m: vrsgld(m, H, 20, 5, 3, replace=True),
    "svrgld": lambda m: svrgld(m, H, 5, 4),
}


@pytest.mark.parametrize("name", list(VR_SAMPLERS))
def test_blocks_concatenate_bit_identical(name):
    model = GaussianMeanModel.simulate_data(50, theta_true=0.7, sigma_x=1.3, seed=3)
    sampler = VR_SAMPLERS[name](model)
    kw = dict(seed=17, burn_in=3, record_at=[0, 5, 12], trace_stride=4, block_size=300)
    full = run(sampler, 1000, 20, **kw)
    parts = [run(sampler, 1000, 20, blocks=[b], **kw) for b in range(4)]
    assert_runs_identical(RunResult.concatenate(parts[::-1]), full)
    assert_runs_identical(run(sampler, 1000, 20, **kw), full)
    other = run(sampler, 1000, 20, **{**kw, "seed": 18})
    assert not np.array_equal(other.final, full.final)


def test_logistic_run_reproducible_and_finite():
    model = LogisticRegressionModel.paper_synthetic(n_data=200, seed=1)
    sampler = vrsgld(model, 0.01, 50, 5, 10)
    kw = dict(seed=3, block_size=40, theta0=np.zeros(3))
    full = run(sampler, 100, 25, **kw)
    parts = [run(sampler, 100, 25, blocks=[b], **kw) for b in range(3)]
    assert_runs_identical(RunResult.concatenate(parts), full)
    assert np.all(np.isfinite(full.final))


def test_state_is_vrstate_and_init_draws_nothing():
    model = GaussianMeanModel.simulate_data(50, seed=3)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    state = VRMinibatch(20, 5, 3).init(model, 7, rng)
    assert rng.bit_generator.state == before
    assert isinstance(state, VRState) and state.step == 0 and state.theta_tilde.shape == (7, 1)


# ---------------------------------------------------------------------------------------------- cost, errors
def test_grads_per_step():
    model = GaussianMeanModel.simulate_data(1000, seed=1)
    s = vrsgld(model, 1e-4, 100, 10, 10)
    assert s.grads_per_step() == 2 * 10 + 100 / 10 == 30.0
    assert s.estimator.paper_grads_per_step(model) == 100 / 10 + 10 == 20.0
    t = svrgld(model, 1e-4, 10, 10)
    assert t.grads_per_step() == 2 * 10 + 1000 / 10 == 120.0
    assert t.estimator.paper_grads_per_step(model) == 110.0
    assert sgld(model, 1e-4, 10).grads_per_step() == 10.0
    res = run(s, 10, 7, burn_in=2)
    assert res.grads_per_chain == 8 * 30.0


@pytest.mark.parametrize(("args", "match"), [
    ((5, 5, 1), "n2 must"), ((5, 7, 1), "n2 must"), ((5, 0, 1), "n2 must"), ((51, 5, 1), "n1 must"),
    ((1, 1, 1), "n1 must"), ((5.0, 2, 1), "n1 must"), ((5, 2, 0), "m must"), ((5, 2, 1.5), "m must"),
    ((5, True, 1), "n2 must"),
])
def test_bad_parameters(args, match):
    model = GaussianMeanModel.simulate_data(50, seed=3)
    with pytest.raises(ParameterError, match=match):
        vrsgld(model, H, *args)


def test_bad_replace_and_svrg_n2():
    model = GaussianMeanModel.simulate_data(50, seed=3)
    with pytest.raises(ParameterError, match="replace"):
        vrsgld(model, H, 10, 2, 3, replace="yes")
    with pytest.raises(ParameterError, match=r"n2 must .* n2 < n1 = 50"):
        svrgld(model, H, 50, 3)
    with pytest.raises(ParameterError, match="m must"):
        svrgld(model, H, 5, 0)


def test_noise_cov_not_defined():
    model = GaussianMeanModel.simulate_data(50, seed=3)
    with pytest.raises(ParameterError, match="mSGLD"):
        VRMinibatch(10, 2, 3).noise_cov(model, None)
    with pytest.raises(ParameterError, match="mSGLD"):
        Sampler(model, SVRG(2, 3), ModifiedLangevin(), H)
    msgld(model, H, 5)  # the ordinary mSGLD is unaffected
