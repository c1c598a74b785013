"""The closed forms of issue 20 (Chen et al. Lemma 5/3, Fu & Zhang Theorem 3.3, Baker et al. Lemmas 1-4, Vollmer et
al. eq. (9) and Figure 3) against independent brute-force recursions, an ODE, fixed points and the exact engine, and
their bad-input errors. The planted bugs that the claims built on them catch are in test_fidelity_planted_bugs.py."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from simulate import GaussianMeanModel
from simulate.models.linear_regression import LinearRegressionModel
from simulate.samplers import sgld, vrsgld
from simulate.validation import ParameterError
from theory import exact_law
from theory.bounds import baker_lemmas as bl
from theory.bounds.fu_zhang import thm33_bias_bound_constants
from theory.bounds.vollmer import cheapest_mse2
from theory.chains import chen_anchor_gap as ag
from theory.chains.stratified import time_average_bias
from theory.noise.vr import GaussianData, vr_noise_variance
from theory.printed import vollmer as vp
from theory.symbols import VB, A, h


@pytest.fixture(scope="module")
def gd() -> GaussianData:
    rng = np.random.default_rng(4)
    return GaussianData.of(1.0 + rng.standard_normal(200))


def _anchor_gap_by_recursion(gd: GaussianData, hh: float, n1: int, m: int, L: int, theta0: float):
    """Mean and covariance of (e_l, e_s, xi) propagated step by step (xi redrawn at epoch starts)."""
    rho = 1 - hh * gd.P / 2
    V = vr_noise_variance(gd, n1, 1)
    mean = np.array([theta0 - gd.mu[0], 0.0, 0.0])
    cov = np.zeros((3, 3))
    means, seconds = [], []
    for ell in range(L):
        if ell % m == 0:  # anchor refresh: e_s = e, xi fresh
            P = np.array([[1.0, 0, 0], [1.0, 0, 0], [0, 0, 0]])
            mean, cov = P @ mean, P @ cov @ P.T
            cov[2, 2] = V
        d = np.array([1.0, -1.0, 0.0])
        means.append(d @ mean)
        seconds.append(d @ cov @ d + (d @ mean) ** 2)
        F = np.array([[rho, 0, hh / 2], [0, 1, 0], [0, 0, 1]])
        mean, cov = F @ mean, F @ cov @ F.T
        cov[0, 0] += hh
    return np.array(means), np.array(seconds)


@pytest.mark.parametrize("m", [1, 3, 7])
def test_anchor_gap_matches_a_moment_recursion(gd, m):
    hh = 0.1 / gd.P
    mean, second = ag.anchor_gap_moments(gd, hh, 50, 1, m, 25, 0.0)
    rm, rs = _anchor_gap_by_recursion(gd, hh, 50, m, 25, 0.0)
    np.testing.assert_allclose(mean, rm, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(second, rs, rtol=1e-10, atol=1e-14)
    gap = np.abs(ag.alpha_beta_gap(gd, hh, 50, 1, m, 25, 0.0)).max()
    assert gap <= ag.lemma5_constant(gd, 0.0) * (m - 1) * hh * (1 + 1e-12)


def test_cp_bias_matches_brute_force_sums():
    a, hh, T = 40.0, 0.3 / 40.0, 37
    Sigma = np.array([[30.0, 4.0], [4.0, 10.0]])
    mu, theta0 = np.array([0.5, -1.0]), np.array([1.5, 0.2])
    rho = 1 - hh * a / 2
    Q = hh * np.eye(2) + hh * hh * Sigma / 4
    m, C, s1, s2 = theta0 - mu, np.zeros((2, 2)), np.zeros(2), 0.0
    for _ in range(T):
        m, C = rho * m, rho * rho * C + Q
        s1 += m
        s2 += float((mu + m) @ (mu + m) + np.trace(C))
    b = time_average_bias(a, hh, Sigma, mu, theta0, T)
    np.testing.assert_allclose(b["theta"], s1 / T, rtol=1e-12)
    assert b["sq_norm"] == pytest.approx(s2 / T - (mu @ mu + 2 / a), rel=1e-10)
    KT, Kh = thm33_bias_bound_constants(a, hh, Sigma, mu, theta0)
    assert abs(b["sq_norm"]) <= KT / (T * hh) + Kh * hh


def test_ou_distance_moment_matches_the_ode():
    model = LinearRegressionModel.simulate_data(300, dim=2, seed=1)
    G = model.precision / model.n_data
    phi0, phi_hat, t = np.array([1.0, -2.0]), np.array([0.3, 0.1]), 1.7

    def rhs(_, y):
        m, V = y[:2], y[2:].reshape(2, 2)
        return np.concatenate([-0.5 * G @ m, (-0.5 * (G @ V + V @ G) + np.eye(2)).ravel()])

    sol = solve_ivp(rhs, (0, t), np.concatenate([phi0, np.zeros(4)]), rtol=1e-11, atol=1e-12)
    m, V = sol.y[:2, -1], sol.y[2:, -1].reshape(2, 2)
    expected = float((m - phi_hat) @ (m - phi_hat) + np.trace(V))
    assert bl.ou_distance_moment(model, phi0, phi_hat, t) == pytest.approx(expected, rel=1e-8)
    assert bl.ou_distance_moment(model, phi0, phi_hat, t) <= bl.lemma2_bound(model, phi0, phi_hat)


def test_lemma4_value_is_the_information_identity():
    model = LinearRegressionModel.simulate_data(500, dim=2, seed=2)
    a = np.array([0.6, -0.8])
    val, bound = bl.lemma4_sides(model, a)
    assert val == pytest.approx(float(a @ model.precision @ a) / 4) and val <= bound


def test_printed_eq9_variance_is_the_fixed_point_and_not_first_order():
    A_, h_, V_ = 500.0, 1e-4, 3000.0
    var = vp.eq9_printed_variance_value(A_, h_, V_)
    s2 = h_ * (1 - 2 * h_ * V_) ** 2
    assert var == pytest.approx((1 - A_ * h_) ** 2 * var + h_ * h_ * V_ + s2, rel=1e-12)
    assert float(vp.eq9_printed_stationary_variance().subs({A: A_, h: h_, VB: V_})) == pytest.approx(var, rel=1e-12)
    assert sp.simplify(vp.eq9_printed_excess_series().coeff(h, 1) + 3 * VB / (2 * A)) == 0


@pytest.mark.parametrize("call", [
    lambda gd: ag.anchor_gap_moments(gd, 0.1 / gd.P, 50, 1, 0, 10, 0.0),
    lambda gd: ag.anchor_gap_moments(gd, 5.0 / gd.P, 50, 1, 3, 10, 0.0),
    lambda gd: time_average_bias(1.0, 2.5, np.eye(2), np.zeros(2), np.ones(2), 10),
    lambda gd: time_average_bias(1.0, 0.5, np.eye(3), np.zeros(2), np.ones(2), 10),
    lambda gd: thm33_bias_bound_constants(1.0, 0.5, np.eye(2), np.zeros(2), np.ones(3)),
    lambda gd: bl.ou_distance_moment(LinearRegressionModel.simulate_data(20, dim=2), np.zeros(2), np.zeros(2), -1.0),
    lambda gd: bl.ou_distance_moment(LinearRegressionModel.simulate_data(20, dim=2), np.zeros(3), np.zeros(2), 1.0),
    lambda gd: vp.eq9_printed_variance_value(10.0, 0.3, 1.0),
    lambda gd: cheapest_mse2("sgld", np.arange(10.0), 100, [2], r_bounds=(0.5, 0.1)),
    lambda gd: cheapest_mse2("sgld", np.arange(10.0), 100, [11]),
])
def test_bad_input_raises_parameter_error(gd, call):
    with pytest.raises(ParameterError):
        call(gd)


def test_anchor_gap_equals_the_exact_engine(gd):
    """theory.chains.chen_anchor_gap against the engine's whole-state law of simulate.samplers.vrsgld (the anchor in
    the state after step l - 1 is step l's anchor except at an epoch start, where D_l = 0)."""
    model = GaussianMeanModel(gd.x, sigma_x=gd.sigma, sigma0=1.0)
    hh, m, L = 0.1 / gd.P, 4, 13
    mean, second = ag.anchor_gap_moments(gd, hh, 50, 1, m, L, 0.0)
    law = exact_law(vrsgld(model, hh, 50, 1, m), theta0=np.zeros(1))
    names = [name for name, _ in law.state_names]
    i, j = names.index("theta"), names.index("anchor")
    for ell in range(L):
        mu_l, c = law.moments(ell, whole_state=True)
        d = 0.0 if ell % m == 0 else mu_l[i] - mu_l[j]
        s2 = 0.0 if ell % m == 0 else c[i, i] + c[j, j] - 2 * c[i, j] + d * d
        assert mean[ell] == pytest.approx(d, abs=1e-13)
        assert second[ell] == pytest.approx(s2, rel=1e-9, abs=1e-15)


def test_cp_bias_equals_the_exact_engine():
    """time_average_bias for plain SGLD (one stratum) against the engine's E theta_l, Cov theta_l, l = 1..T."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 2)) + np.array([1.0, -2.0])
    model = GaussianMeanModel(x, sigma_x=1.0, sigma0=10.0)
    a, n, T = model.grad_lipschitz, 8, 15
    hh = 0.3 / a
    N = x.shape[0]
    Sigma = (N - n) / (N - 1) * N**2 / n * np.cov(x.T, bias=True)  # minibatch noise of grad log p, sigma_x = 1
    theta0 = model.posterior_mean + np.array([0.4, -0.3])
    b = time_average_bias(a, hh, Sigma, model.posterior_mean, theta0, T)
    law = exact_law(sgld(model, hh, n), theta0=theta0)
    traj = [(mk, ck) for k, mk, ck in law.trajectory(T) if k]
    mu = model.posterior_mean
    assert b["theta"] == pytest.approx(np.mean([mk - mu for mk, _ in traj], axis=0), rel=1e-9)
    sq = np.mean([mk @ mk + np.trace(ck) for mk, ck in traj]) - (mu @ mu + 2 / a)
    assert b["sq_norm"] == pytest.approx(sq, rel=1e-8)


def test_printed_eq9_variance_equals_the_exact_engine():
    from simulate.estimators.minibatch import Minibatch
    from simulate.integrators import PrintedEq9Langevin
    from simulate.sampler import Sampler
    from theory.toy.constants import toy_constants

    x = np.random.default_rng(5).normal(1.0, 1.0, 60)
    model = GaussianMeanModel(x[:, None], sigma_x=1.0, sigma0=1.0)
    c = toy_constants(model.data, 6)
    hh = 0.2 / c.A
    engine = exact_law(Sampler(model, Minibatch(6), PrintedEq9Langevin(), hh)).stationary_cov()[0, 0]
    assert vp.eq9_printed_variance_value(c.A, hh, c.VB) == pytest.approx(engine, rel=1e-10)


def test_cheapest_mse2_is_the_minimum_over_its_grid():
    """At a given cost, no (n, r) of the grid beats cheapest_mse2 (the budget constraint turned around)."""
    from theory.toy.finite_time import toy_finite_time

    x = np.random.default_rng(2).normal(1.0, 1.0, 200)
    c = cheapest_mse2("sgld", x, 400, (5, 20))
    assert c.M == 400 // c.n and c.n in (5, 20)
    for n in (5, 20):
        for r in (0.05, 0.2, 0.5, 0.9):
            assert float(toy_finite_time("sgld", x, n, r=r).mse2(400 // n)) >= c.mse2 * (1 - 1e-6)
