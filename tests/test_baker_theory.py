"""Unit tests of theory.noise.minibatch, theory.chains.linear_regression and theory.bounds.baker, and limits of the
exact engine's stationary laws of Baker et al.'s samplers on linear regression."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from simulate.models.linear_regression import LinearRegressionModel
from simulate.samplers import saga_ld, sghmc, sghmc_cv, sgld, sgld_cv
from simulate.validation import ParameterError
from theory import exact_law
from theory.bounds import baker as baker_bounds
from theory.chains import linear_regression as linreg_chains
from theory.noise import minibatch as bn


def test_k_factor():
    N, n = sp.symbols("N n", positive=True, integer=True)
    assert sp.simplify(bn.k_factor_sympy(True) - N / n) == 0
    assert sp.simplify(bn.k_factor_sympy(False) - N * (N - n) / (n * (N - 1))) == 0
    assert bn.k_factor(10, 10) == 0.0
    with pytest.raises(ParameterError):
        bn.k_factor(10, 11)


@pytest.mark.parametrize("replace", [False, True])
def test_enumeration_matches_formula(replace):
    G = np.random.default_rng(2).standard_normal((6, 3))
    mean, cov = bn.enumerate_noise(G, 2, replace)
    assert np.allclose(mean, 0, atol=1e-12)
    assert np.allclose(cov, bn.minibatch_noise_cov(G, 2, replace))


def test_stationary_cov_limits():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 2))
    y = Z @ [1.0, -1.0] + rng.standard_normal(40)
    A, r = bn.linreg_parts(Z, y, 1.0)
    P = A.sum(0) + np.eye(2) / 100
    h = 0.3 / np.linalg.eigvalsh(P)[-1]
    # n = N: no gradient noise -> ULA; CV at theta_hat = mu has noise ~ (theta - mu)^2 but still >= ULA
    m = LinearRegressionModel(Z, y, 1.0, 10.0)
    S_full = exact_law(sgld(m, h, 40)).stationary_cov()
    assert np.allclose(S_full, linreg_chains.ula_stationary_cov(P, h))
    S_sgld = exact_law(sgld(m, h, 2)).stationary_cov()
    S_cv = exact_law(sgld_cv(m, h, 2, theta_hat=np.linalg.solve(P, r.sum(0)))).stationary_cov()
    ula = linreg_chains.ula_stationary_cov(P, h)
    assert np.trace(ula) < np.trace(S_cv) < np.trace(S_sgld)
    with pytest.raises(ParameterError):
        exact_law(sgld(m, 100 * h, 1)).stationary_cov()


def test_location_nreq_closed_form_matches_search():
    s = baker_bounds.Scalar1D.location(np.random.default_rng(1).normal(1, 1, 3000), 1.0, 1.0)
    for nu in (0.1, 0.01):
        cf, A, J = baker_bounds.location_nreq_closed_form(s, nu, 0.05, 100, 1.0)
        assert cf == baker_bounds.n_required(s, nu, 0.05, 100, 1.0)
    assert baker_bounds.n_required(s, 1e-9, 0.05, 100, 1.0) is None


def test_zv_gaussian_identities():
    ex = baker_bounds.zv_gaussian_sympy()
    mu, p, v = 0.7, 50.0, 30.0
    R, Rh = baker_bounds.zv_gaussian("R", mu, p, v), baker_bounds.zv_gaussian("R_hat", mu, p, v)
    assert np.isclose(Rh, R / (1 + v / p))
    zv = baker_bounds.zv_gaussian
    assert np.isclose(zv("var_printed", mu, p, v) - zv("Vf", mu, p, v), 3 * Rh)
    rr = 1 + 2 * mu**2 * p
    assert np.isclose(baker_bounds.zv_gaussian("ratio", mu, p, v), rr / (1 + (rr - 1) * v / (p + v)))
    assert "a_star" in ex


def test_saga_and_sghmc_cv_stationary_limits():
    rng = np.random.default_rng(4)
    Z = rng.standard_normal((6, 2))
    y = Z @ [1.0, -1.0] + rng.standard_normal(6)
    A, r = bn.linreg_parts(Z, y, 1.0)
    P = A.sum(0) + np.eye(2) / 9
    h = 0.4 / np.linalg.eigvalsh(P)[-1]
    m = LinearRegressionModel(Z, y, 1.0, 3.0)
    S_full = exact_law(saga_ld(m, h, 6)).stationary_cov()
    assert np.allclose(S_full, linreg_chains.ula_stationary_cov(P, h))  # n = N: SAGA is exactly the full-gradient chain
    S2 = exact_law(saga_ld(m, h, 2)).stationary_cov()
    assert np.trace(S2) > np.trace(S_full)
    with pytest.raises(ParameterError, match="SAGA's table"):  # the engine's size limit on the d (N + 1)-dim state
        big = LinearRegressionModel(np.ones((200, 2)), np.ones(200), 1.0, 3.0)
        exact_law(saga_ld(big, 1e-4, 20)).stationary_cov()
    mu = np.linalg.solve(P, r.sum(0))
    # n = N: no gradient noise
    Sa = exact_law(sghmc_cv(m, 0.1 * h, 0.5, 6, mu)).stationary_cov()
    Sb = exact_law(sghmc(m, 0.1 * h, 0.5, n=1)).stationary_cov()
    assert np.all(np.linalg.eigvalsh(Sa) > 0) and np.trace(Sb) > np.trace(Sa)


def test_scalar_noise_sympy_matches_linreg_formulas_and_orders():
    rng = np.random.default_rng(7)
    z = rng.standard_normal(30) * np.exp(0.3 * rng.standard_normal(30))
    y = 0.8 * z + rng.standard_normal(30)
    s = baker_bounds.Scalar1D.linreg(z, y, 1.0, 10.0)
    th, thh = s.mu + 0.2, s.mu - 0.1
    for replace in (False, True):
        sg = bn.scalar_noise_var("sgld", 30, 4, th, thh, s.mu, s.Scc, s.Scb, s.Sbb, replace)
        assert np.isclose(sg, bn.sgld_noise_cov_linreg(z[:, None], y, 1.0, [th], 4, replace)[0, 0])
        cv = bn.scalar_noise_var("cv", 30, 4, th, thh, s.mu, s.Scc, s.Scb, s.Sbb, replace)
        assert np.isclose(cv, bn.cv_noise_cov_linreg(z[:, None], 1.0, [th], [thh], 4, replace)[0, 0])
    ex = bn.scalar_noise_sympy(False)
    a, b, sc, sb = sp.symbols("a b s_c s_b", real=True)
    assert sp.simplify(ex["sgld_order"] - sc) == 0
    assert sp.simplify(ex["cv_order"] - sb * (a - b) ** 2) == 0
