"""Unit tests: linear regression model, SGLD-CV, SAGA-LD and ZV post-processing (Baker et al. 2019)."""

from __future__ import annotations

import numpy as np
import pytest

from simulate.analysis.zv import run_with_gradients, zv_controls, zv_estimate, zv_from_model
from simulate.estimators.control_variates import ControlVariate, control_variate
from simulate.estimators.mode import sgd_mode
from simulate.estimators.saga import SAGA, check_table_fits
from simulate.models.base import ModelBase
from simulate.models.linear_regression import LinearRegressionModel
from simulate.samplers import saga_ld, sghmc_cv, sgld_cv
from simulate.validation import ParameterError
from theory.noise import minibatch as bn


@pytest.fixture(scope="module")
def model() -> LinearRegressionModel:
    return LinearRegressionModel.simulate_data(60, dim=2, seed=3)


def test_linreg_gradients_and_posterior(model):
    th = np.array([[0.3, -0.2], [1.0, 2.0]])
    idx = np.broadcast_to(np.arange(model.n_data)[:, None], (model.n_data, 2))
    full = model.grad_log_lik(th, idx).sum(axis=0)
    assert np.allclose(full, model.grad_log_lik_full(th))
    assert np.allclose(model.grad_log_lik_sum(th, idx), full)
    assert np.allclose(model.grad_log_post(model.posterior_mean[None]), 0, atol=1e-9)
    assert np.allclose(model.per_datum_grad_cov(th), ModelBase.per_datum_grad_cov(model, th))
    per = model.grad_log_lik(th[:1], idx[:, :1])[:, 0]
    assert np.allclose(bn.linreg_grads(model.Z, model.y, model.sigma, th[0]), per)


@pytest.mark.parametrize("kw", [dict(Z=np.ones((3, 2)), y=np.ones(4)), dict(Z=np.ones((3, 2)), y=np.ones(3), sigma=0),
                                dict(Z=np.full((3, 2), np.nan), y=np.ones(3))])
def test_linreg_rejects_bad_input(kw):
    with pytest.raises(ParameterError):
        LinearRegressionModel(**kw)


def test_cv_unbiased_same_minibatch_and_exact_cov(model):
    theta_hat = model.posterior_mean + 0.05
    cv = ControlVariate.at(model, 4, theta_hat)
    th = np.tile(model.posterior_mean + np.array([0.1, -0.1]), (100_000, 1))
    g, _ = cv.estimate(model, th, None, np.random.default_rng(0))
    exact = model.grad_log_post(th[:1])[0]
    cov = cv.noise_cov(model, th[:1])[0]
    assert np.allclose(cov, bn.cv_noise_cov_linreg(model.Z, model.sigma, th[0], theta_hat, 4))
    se = np.sqrt(np.diag(cov) / th.shape[0])
    assert np.all(np.abs(g.mean(0) - exact) < 5 * se)
    # at theta = theta_hat the estimate is exact (same minibatch at both points)
    g0, _ = cv.estimate(model, np.tile(theta_hat, (5, 1)), None, np.random.default_rng(1))
    assert np.allclose(g0, model.grad_log_post(theta_hat[None]), atol=1e-9)
    assert cv.grads_per_step(model) == 8 and cv.setup_grads == model.n_data


def test_sgd_mode_close_and_cost(model):
    me = sgd_mode(model, 5, n_iter=4000, seed=1)
    sd = np.sqrt(np.diag(model.posterior_cov))
    assert np.all(np.abs(me.theta_hat - model.posterior_mean) < sd)
    assert me.grads == 5 * 4000 + model.n_data * me.refine_steps and me.refine_steps >= 1
    plain = sgd_mode(model, 5, n_iter=4000, seed=1, refine=0)  # the paper's plain SGD: no full-gradient steps
    assert plain.grads == 5 * 4000 and plain.refine_steps == 0
    cv = control_variate(model, 5, opt_iters=2000)
    assert cv.setup_grads == model.n_data + 5 * 2000 + model.n_data * cv.mode_search.refine_steps
    with pytest.raises(ParameterError):
        sgd_mode(model, 5, step=-1.0)
    with pytest.raises(ParameterError):
        ControlVariate.at(model, 5, np.zeros(3))
    with pytest.raises(ParameterError):
        sgld_cv(model, 0.1 / model.grad_lipschitz, 0, theta_hat=model.posterior_mean)


def test_saga_invariant_and_n_equals_N_is_full_gradient(model):
    rng = np.random.default_rng(0)
    M = 7
    th = model.posterior_mean + 0.1 * rng.standard_normal((M, 2))
    full = SAGA(model.n_data)
    g, st = full.estimate(model, th.copy(), full.init(model, M, rng), rng)
    assert np.allclose(g, model.grad_log_post(th))
    s = SAGA(5)
    st = s.init(model, M, rng)
    for _ in range(6):
        g, st = s.estimate(model, th + 0.01 * rng.standard_normal(th.shape), st, rng)
    assert np.allclose(st.total, st.table.sum(axis=1))


def test_saga_memory_check_names_parameters():
    with pytest.raises(ParameterError, match="n_chains"):
        check_table_fits(10**6, 10**6, 10)
    assert check_table_fits(2, 10, 2) == 320


def test_saga_printed_map_has_no_noise(model):
    s = saga_ld(model, 0.5 / model.grad_lipschitz, model.n_data, noise=False)
    assert s.integrator.noise_scale(0.1) == 0.0


def test_zv_linear_exact_gradients_zero_variance_for_gaussian_mean(model):
    rng = np.random.default_rng(0)
    L = np.linalg.cholesky(model.posterior_cov)
    th = model.posterior_mean + rng.standard_normal((500, 3, 2)) @ L.T
    vals, means = zv_from_model(model, th)
    assert np.allclose(means, model.posterior_mean, atol=1e-9)  # linear f, exact gradients: zero variance
    h = zv_controls(th, np.stack([model.grad_log_post(t) for t in th]), degree=2)
    assert h.shape == (500, 3, 5)
    assert np.all(np.abs(h.mean(axis=(0, 1))) < 5 * h.std(axis=(0, 1)) / np.sqrt(1500))  # mean-zero controls


def test_zv_printed_sign_increases_variance(model):
    s = sgld_cv(model, 0.3 / model.grad_lipschitz, 5, theta_hat=model.posterior_mean)
    tr, gr = run_with_gradients(s, 64, 300, seed=1, theta0=model.posterior_mean, burn_in=20)
    _, m_ok = zv_estimate(tr, gr)
    _, m_bad = zv_estimate(tr, gr, sign="printed")
    plain = tr.mean(axis=0)
    assert np.all(m_ok.var(0) < plain.var(0)) and np.all(m_bad.var(0) > plain.var(0))
    with pytest.raises(ParameterError):
        zv_estimate(tr, gr, sign="plus")
    with pytest.raises(ParameterError):
        zv_estimate(tr, gr, degree=3)


def test_sghmc_cv_builds(model):
    s = sghmc_cv(model, 0.1 / model.grad_lipschitz, 0.5, 5, theta_hat=model.posterior_mean)
    assert s.grads_per_step() == 10


def test_zv_quadratic_operator_printed_differs_by_three():
    rng = np.random.default_rng(0)
    th = rng.standard_normal((10, 2, 1))
    g = rng.standard_normal((10, 2, 1))
    diff = zv_controls(th, g, 2, operator="printed") - zv_controls(th, g, 2)
    assert np.allclose(diff[..., 0], 0) and np.allclose(diff[..., 1], 3.0)
    with pytest.raises(ParameterError):
        zv_controls(th, g, 2, operator="mira")
