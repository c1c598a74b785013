"""Cheng et al.'s underdamped Langevin MCMC (simulate.integrators.ulmc): its step's coefficients against Van Loan's
matrix-exponential route for the linear SDE, and the exact engine's law against many simulated chains."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from simulate import GaussianMeanModel, LinearRegressionModel, control_variate, run, ulmc
from simulate.integrators.ulmc import UnderdampedLangevinMC, ulmc_coefficients
from simulate.validation import ParameterError
from theory import exact_law


@pytest.mark.parametrize("h,gamma,u", [(0.3, 2.0, 1.0), (2.0, 2.0, 0.07), (0.01, 0.5, 3.0)])
def test_coefficients_are_the_exact_frozen_gradient_flow(h, gamma, u):
    """z = (x, v, 1): dz = F z dt + G dB with the gradient b frozen; the mean map is expm(F h) and the noise
    covariance is Van Loan's integral int_0^h e^{F s} G G^T e^{F^T s} ds (Van Loan 1978, Theorem 1)."""
    b = 0.7  # u * g, a frozen gradient term
    F = np.array([[0.0, 1.0, 0.0], [0.0, -gamma, b], [0.0, 0.0, 0.0]])
    E = expm(F * h)
    c = ulmc_coefficients(h, gamma, u)
    assert E[0, 1] == pytest.approx(c["xv"], rel=1e-12)
    assert E[1, 1] == pytest.approx(c["eta"], rel=1e-12)
    assert E[0, 2] == pytest.approx(c["xg"] * b / u, rel=1e-10)
    assert E[1, 2] == pytest.approx(c["vg"] * b / u, rel=1e-10)
    F2 = F[:2, :2]
    GG = np.diag([0.0, 2.0 * gamma * u])
    van_loan = expm(np.block([[-F2, GG], [np.zeros((2, 2)), F2.T]]) * h)
    Q = van_loan[2:, 2:].T @ van_loan[:2, 2:]
    assert Q[0, 0] == pytest.approx(c["var_x"], rel=1e-8)
    assert Q[1, 1] == pytest.approx(c["var_v"], rel=1e-10)
    assert Q[0, 1] == pytest.approx(c["cov_xv"], rel=1e-8)


def _z(est, se, ref):
    return np.abs(est - ref) / se


@pytest.mark.parametrize("case", ["gaussian, v0 = 0", "gaussian, stationary momentum", "regression, CV-ULD"])
def test_engine_law_matches_simulation(case):
    rng = np.random.default_rng(0)
    if case.startswith("gaussian"):
        model = GaussianMeanModel(rng.standard_normal((5, 2)), Sigma=np.array([[1.0, 0.3], [0.3, 0.5]]), sigma0=None)
        sampler = ulmc(model, 0.3, v0_var=0.0 if "0" in case else None)
    else:
        model = LinearRegressionModel.simulate_data(50, dim=2, seed=1)
        sampler = ulmc(model, 0.5, estimator=control_variate(model, 5, model.posterior_mean))
    theta0, k, M = np.array([1.0, -1.0]), 12, 40_000
    law = exact_law(sampler, theta0=theta0)
    x = run(sampler, M, k + 1, seed=5, theta0=theta0).final  # run's n_steps counts theta_0
    m, C = law.moments(k)
    assert np.all(_z(x.mean(0), np.sqrt(np.diag(C) / M), m) < 4.5)
    var_se = np.sqrt(2.0 / M) * np.diag(C)
    assert np.all(_z(x.var(0), var_se, np.diag(C)) < 4.5)


def test_gaussian_target_stationary_momentum_and_stability_bound():
    model = GaussianMeanModel(np.zeros((1, 2)), Sigma=np.diag([1.0, 0.1]), sigma0=None)
    err = []
    for h in (0.2, 0.1):  # the stationary momentum tends to N(0, u I), its error O(h)
        s = ulmc(model, h)
        C = exact_law(s).stationary_cov(whole_state=True)
        err.append(np.abs(C[2:, 2:].diagonal() / s.integrator.u - 1).max())
    assert err[1] < 0.6 * err[0] and err[1] < 0.05
    h_max, why = s.integrator.step_bound(model.grad_lipschitz)
    assert "stability" in why and 1.0 < h_max < np.inf
    with pytest.raises(ParameterError, match="h"):
        ulmc(model, 1.01 * h_max)


@pytest.mark.parametrize("kw,match", [(dict(gamma=0.0), "gamma"), (dict(u=-1.0), "u"), (dict(v0_var=-1.0), "v0_var"),
                                      (dict(temperature=float("nan")), "temperature")])
def test_bad_parameters(kw, match):
    with pytest.raises(ParameterError, match=match):
        UnderdampedLangevinMC(**kw)
