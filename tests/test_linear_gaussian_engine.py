"""The exact engine's own consistency: the mpmath route at 50 digits near the stability edge, the h-series (sympy and
contour routes, and Vollmer et al.'s leading coefficient from theory.weak_order), the operator route against the
explicit one, large k against the stationary law, the periodic law, and the isotropic route for quadratic observables.
(Finite-k moments against brute-force enumeration: test_linear_gaussian_referee.py; the existing closed forms:
test_linear_gaussian_closed_forms.py.)"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from simulate import (
    SVRG,
    GaussianMeanModel,
    LinearRegressionModel,
    Minibatch,
    ParameterError,
    Reused,
    Sampler,
    euler,
    msgld,
    sgld,
)
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from theory import exact_law, weak_order
from theory.linear_gaussian.isotropic import isotropic_quadratic


@pytest.fixture(scope="module")
def lr():
    return LinearRegressionModel.simulate_data(30, dim=2, seed=5, scale_spread=0.8)


def test_mpmath_50_digits_near_the_stability_edge(lr):
    """Float64 agrees with mpmath at 50 digits to the rounding the conditioning allows, 1/(1 - rho) ulps."""
    hstar = exact_law(sgld(lr, 0.5 / lr.grad_lipschitz, 3)).stability_limit()
    assert hstar * lr.grad_lipschitz < 4.0  # multiplicative noise: below the deterministic bound 4/L
    for frac in (0.5, 0.999, 0.99999):
        law = exact_law(sgld(lr, frac * hstar, 3), theta0=[1.0, 0.0])
        mpl = law.mp(50)
        rho = law.spectral_radius()
        assert abs(rho - float(mpl.spectral_radius())) < 1e-12
        C, Cmp = law.stationary_cov(), mpl.stationary_cov()
        tol = 1e-14 / (1.0 - rho)
        with mpmath.workdps(50):
            rel = max(abs((mpmath.mpf(float(C[i, j])) - Cmp[i, j]) / Cmp[i, j]) for i in range(2) for j in range(2))
        assert float(rel) < tol, (frac, float(rel), tol)
        m = law.stationary_mean() - np.array(mpl.stationary_mean(), dtype=float)
        assert np.abs(m).max() < tol
        assert np.abs(law.cov(9) - np.array(mpl.moments(9)[1], dtype=float)).max() < 1e-13


def test_stability_limit_is_where_rho_crosses_one(lr):
    law = exact_law(sgld(lr, 0.5 / lr.grad_lipschitz, 3))
    hstar = law.stability_limit()
    below = exact_law(sgld(lr, 0.999 * hstar, 3)).spectral_radius()
    above = exact_law(sgld(lr, min(1.001 * hstar, 3.99 / lr.grad_lipschitz), 3)).spectral_radius()
    assert below < 1.0 < above


@pytest.mark.parametrize("make,method", [(lambda m, h: sgld(m, h, 10), "sgld"), (lambda m, h: msgld(m, h, 10), "msgld"),
                                         (lambda m, h: euler(m, h), "euler")])
def test_h_series_sympy_numeric_and_weak_order(make, method):
    """The h^1 coefficient of E theta^2 is Vollmer et al.'s leading bias coefficient (theory.weak_order, Thm. 3.3)."""
    m = GaussianMeanModel.simulate_data(100, theta_true=1.0, seed=2016)
    law = exact_law(make(m, 0.1 / m.A))
    a, b = law.expansion(3, "sympy"), law.expansion(3, "numeric")
    for j in range(4):
        assert np.abs(a.cov[j] - b.cov[j]).max() <= 1e-8 * np.abs(a.cov[j]).max()
    mu, P = law.posterior_mean[0], 1.0 / law.posterior_cov[0, 0]
    assert a.cov[0][0, 0] == pytest.approx(1 / P, rel=1e-14) and a.mean[0][0] == pytest.approx(mu, rel=1e-14)
    x = m.data[:, 0]
    var_g = 0.0 if method == "euler" else float(np.var(x) * 100**2 / 10 * (90 / 99))
    th = weak_order.theta
    c1 = weak_order.leading_bias_coefficient(P / 2 * (th - mu) ** 2, th**2, method, var_g / 4)
    assert a.cov[1][0, 0] + 2 * mu * a.mean[1][0] == pytest.approx(float(c1), rel=1e-10)


def test_h_series_numeric_route_on_a_periodic_multiplicative_chain(lr):
    law = exact_law(Sampler(lr, SVRG(3, 2), SGHMC(0.3), 0.1 / lr.grad_lipschitz))
    s = law.expansion(2, "numeric", phase=1)
    assert np.allclose(s.cov[0], law.posterior_cov, rtol=1e-9) and np.allclose(s.mean[0], law.posterior_mean)
    h = 1e-4 / lr.grad_lipschitz  # the series predicts the law at a small h
    small = exact_law(Sampler(lr, SVRG(3, 2), SGHMC(0.3), h))
    pred = s.cov[0] + h * s.cov[1] + h * h * s.cov[2]
    assert np.abs(small.stationary_cov(phase=1) - pred).max() < 1e-6 * np.abs(pred).max()


@pytest.mark.parametrize("est,integ,hl", [(Minibatch(4), Langevin(), 0.3), (Minibatch(4, True), SGHMC(0.2), 0.1),
                                          (SVRG(3, 1), Langevin(), 0.3)])
def test_operator_route_equals_explicit_route(lr, est, integ, hl):
    s = Sampler(lr, est, integ, hl / lr.grad_lipschitz)
    a, b = exact_law(s, theta0=[1.0, 1.0]), exact_law(s, theta0=[1.0, 1.0])
    b.explicit = False
    assert np.allclose(a.stationary_cov(), b.stationary_cov(), rtol=1e-11, atol=0)
    assert a.spectral_radius() == pytest.approx(b.spectral_radius(), rel=1e-9)  # dense eigenvalues vs Arnoldi
    for L in (3, 1000, 10**9):
        assert a.time_average_mse(np.array([1.0, -1.0]), n_steps=L, burn_in=7) == pytest.approx(
            b.time_average_mse(np.array([1.0, -1.0]), n_steps=L, burn_in=7), rel=1e-10)


def test_large_k_reaches_the_stationary_law_and_powers_equal_iteration(lr):
    s = Sampler(lr, SVRG(3, 4), SGHMC(0.3, resample_every=2), 0.2 / lr.grad_lipschitz)
    law = exact_law(s, theta0=[2.0, -1.0], cov0=np.eye(2) * 0.01)
    assert law.period == 4
    k = 4 * 10**4 + 3
    assert np.allclose(law.cov(k), law.stationary_cov(phase=3), rtol=1e-10)
    assert np.allclose(law.mean(k), law.stationary_mean(phase=3), rtol=1e-10)
    law.explicit = False  # iterate instead of matrix powers
    k = 4 * 70 + 1
    it = law.cov(k)
    law.explicit = True
    assert np.allclose(law.cov(k), it, rtol=1e-12)
    avg = law.stationary_cov(phase="average")
    means = [law.stationary_mean(phase=p) for p in range(4)]
    manual = np.mean([law.stationary_cov(phase=p) + np.outer(mu, mu) for p, mu in enumerate(means)], axis=0)
    manual -= np.outer(np.mean(means, axis=0), np.mean(means, axis=0))
    assert np.allclose(avg, manual)


def test_whole_state_and_reuse_frozen_noise():
    m = GaussianMeanModel.simulate_data(40, theta_true=[0.5, -0.3], dim=2, seed=3)
    law = exact_law(Sampler(m, Reused(Minibatch(4), 3), Langevin(), 0.3 / m.grad_lipschitz))
    assert law.period == 3 and law.state_names == (("theta", 2), ("frozen", 2))
    C = law.stationary_cov(phase=1, whole_state=True)
    assert C.shape == (4, 4) and np.all(np.linalg.eigvalsh(C) > 0)
    # the frozen gradient error has the minibatch noise covariance at every phase
    e = C[2:, 2:]
    assert np.allclose(e, law.stationary_cov(phase=2, whole_state=True)[2:, 2:])


@pytest.mark.parametrize("integ", [Langevin(), SGHMC(0.3)])
def test_isotropic_route_equals_the_direct_route_for_d_2(integ):
    m = GaussianMeanModel.simulate_data(30, theta_true=[1.0, -2.0], dim=2, seed=8)
    law = exact_law(Sampler(m, Minibatch(3), integ, 0.4 / m.grad_lipschitz), theta0=[0.0, 1.0])
    B = np.array([[1.0, 0.4], [0.4, 0.3]])
    if law.kernel.layout.n <= 4:
        for b, L in ((0, 4), (10, 10**6)):
            x = law.time_average(quadratic=B, n_steps=L, burn_in=b)
            y = isotropic_quadratic(law, B, L, b, x.target)
            assert x.mse == pytest.approx(y.mse, rel=1e-10) and x.mean == pytest.approx(y.mean, rel=1e-12)
    else:
        with pytest.raises(ParameterError, match="quadratic: on isotropic models .* first-order integrator"):
            law.time_average(quadratic=B, n_steps=4)


def test_quadratic_observable_of_the_gaussian_mean_model_in_d_6():
    m = GaussianMeanModel.simulate_data(25, theta_true=np.linspace(-1, 1, 6), dim=6, seed=9)
    law = exact_law(sgld(m, 0.4 / m.grad_lipschitz, 5), theta0=np.ones(6))
    ta = law.time_average(quadratic=np.eye(6), n_steps=200, burn_in=20)
    # the sum over coordinates of the one-coordinate answers gives the mean exactly
    means = [law.time_average(quadratic=np.diag(np.eye(6)[j]), n_steps=200, burn_in=20).mean for j in range(6)]
    assert ta.mean == pytest.approx(sum(means), rel=1e-12)
    assert ta.variance > sum(law.time_average(quadratic=np.diag(np.eye(6)[j]), n_steps=200, burn_in=20).variance
                             for j in range(6)) * 0.5
