"""Closed forms that exist in more than one place are checked equal to each other and to an exact referee.

The simulator keeps its own noise covariances (mSGLD reads them) apart from theory's, on purpose: a bug in one
cannot cancel in the other. Where the same mathematics is written twice, every copy is compared here with plain
enumeration of all minibatches at small N (gradient-noise covariances and finite-population factors) or with a
fixed-point iteration of the moment map written in this file (stationary covariances). docs/twins.md lists the
groups. Stationary covariances have one home, the exact engine (``exact_law(sampler).stationary_cov()``); the
closed forms that remain (Vollmer et al.'s toy chain, Fu & Zhang's Sigma_inf, SGHMC's 1-D form) are checked here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import simulate
import theory
import theory.chains.sghmc as sg
import theory.noise.minibatch as bn
from theory.chains import stratified as strat_chains
from theory.chains.additive_noise import additive_noise_sampler
from theory.noise import stratified as strat_noise
from theory.noise import vr as vr_noise
from theory.toy.constants import toy_constants

EXACT = dict(rtol=1e-11, atol=1e-13)


def enumerate_cov(G: np.ndarray, n: int, replace: bool) -> np.ndarray:
    """Covariance of (N/n) sum_{i in S} G_i over every minibatch S (all n-subsets, or all ordered n-tuples)."""
    N = G.shape[0]
    batches = itertools.product(range(N), repeat=n) if replace else itertools.combinations(range(N), n)
    est = np.array([G[list(S)].sum(axis=0) * (N / n) for S in batches])
    c = est - est.mean(axis=0)
    return c.T @ c / est.shape[0]


def enumerate_stratified_cov(G: np.ndarray, labels: np.ndarray, b, replace: bool) -> np.ndarray:
    """Covariance of sum_k (n_k/b_k) sum_{i in S_k} G_i over every product of within-stratum minibatches."""
    groups = [np.flatnonzero(labels == k) for k in range(labels.max() + 1)]
    parts = []
    for m, bk in zip(groups, b, strict=True):
        sets = itertools.product(m, repeat=bk) if replace else itertools.combinations(m, bk)
        parts.append([G[list(S)].sum(axis=0) * (m.size / bk) for S in sets])
    est = np.array([np.sum(combo, axis=0) for combo in itertools.product(*parts)])
    c = est - est.mean(axis=0)
    return c.T @ c / est.shape[0]


def lyapunov_by_iteration(F: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """V = sum_k F^k Q F^k^T by repeated doubling (V <- V + F^j V F^j^T, F^j <- F^j F^j) until F^j vanishes."""
    V, Fj = Q.copy(), F.copy()
    for _ in range(200):
        V = V + Fj @ V @ Fj.T
        Fj = Fj @ Fj
        if np.abs(Fj).max() < 1e-300 or not np.isfinite(Fj).all():
            break
    return V


RNG = np.random.default_rng(2024)
X1 = RNG.normal(1.0, 1.3, 7)  # 1-D data
X2 = RNG.normal(0.0, 1.0, (6, 2)) @ np.array([[1.0, 0.3], [0.0, 0.7]])  # 2-D data


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("n", [1, 3])
def test_minibatch_noise_covariance_twins(n, replace):
    """Minibatch gradient noise on the Gaussian mean model and on linear regression: the simulator's
    noise_cov, theory.noise.minibatch (general, location, linreg), stratified (one stratum), theory.noise.vr and the
    toy constants' Var(B), all against enumeration."""
    sx = 1.4
    model = simulate.GaussianMeanModel(X2, sigma_x=sx)
    ref = enumerate_cov(X2 / sx**2, n, replace)
    np.testing.assert_allclose(simulate.Minibatch(n, replace).noise_cov(model), ref, **EXACT)
    np.testing.assert_allclose(bn.minibatch_noise_cov(X2 / sx**2, n, replace), ref, **EXACT)
    np.testing.assert_allclose(bn.sgld_noise_cov_location(X2, sx, n, replace), ref, **EXACT)
    np.testing.assert_allclose(strat_noise.gaussian_noise_cov(X2, np.zeros(6, int), [n], sx, replace), ref, **EXACT)
    assert vr_noise.minibatch_noise(X2 / sx**2, n, replace) == pytest.approx(np.trace(ref), rel=1e-11)
    # 1-D: Vollmer et al.'s Var(B) is Var of the minibatch part of (1/2) g; chen_gaussian's per-step variance
    ref1 = enumerate_cov(X1[:, None], n, replace)[0, 0]
    assert toy_constants(X1, n, replace).VB == pytest.approx(ref1 / 4, rel=1e-11)
    gd = vr_noise.GaussianData.of(X1)
    assert vr_noise.sgld_noise_variance(gd, n, replace) == pytest.approx(ref1, rel=1e-11)
    # linear regression at a theta: simulator (exact quadratic S(theta)) and baker_noise
    Z, y = X2, RNG.normal(size=6)
    lin = simulate.LinearRegressionModel(Z, y, sigma=0.8, sigma0=3.0)
    theta = np.array([0.4, -0.2])
    G = Z * ((y - Z @ theta) / 0.8**2)[:, None]
    ref = enumerate_cov(G, n, replace)
    np.testing.assert_allclose(simulate.Minibatch(n, replace).noise_cov(lin, theta[None])[0], ref, **EXACT)
    np.testing.assert_allclose(bn.sgld_noise_cov_linreg(Z, y, 0.8, theta, n, replace), ref, **EXACT)


@pytest.mark.parametrize("replace", [False, True])
def test_control_variate_noise_twins(replace):
    """SGLD-CV noise on linear regression: simulator ControlVariate.noise_cov and baker_noise.cv_noise_cov_linreg
    (and SVRG's, the same formula at its anchor) against enumeration of the differences g_i(theta) - g_i(hat)."""
    Z, y = X2, RNG.normal(size=6)
    lin = simulate.LinearRegressionModel(Z, y, sigma=0.8, sigma0=3.0)
    theta, hat = np.array([0.4, -0.2]), np.array([0.1, 0.3])
    grads = lambda t: Z * ((y - Z @ t) / 0.8**2)[:, None]  # noqa: E731
    ref = enumerate_cov(grads(theta) - grads(hat), 2, replace)
    cv = simulate.ControlVariate.at(lin, 2, hat, replace)
    np.testing.assert_allclose(cv.noise_cov(lin, theta[None])[0], ref, **EXACT)
    np.testing.assert_allclose(bn.cv_noise_cov_linreg(Z, 0.8, theta, hat, 2, replace), ref, **EXACT)
    if not replace:
        np.testing.assert_allclose(bn.svrg_noise_cov_linreg(Z, 0.8, theta, hat, 2), ref, **EXACT)


@pytest.mark.parametrize("replace", [False, True])
def test_stratified_noise_twins(replace):
    """Stratified minibatches (Fu & Zhang eq. 10): simulator Stratified.noise_cov and theory.noise.stratified's Gaussian
    covariance and Lemma 3.4 variance against enumeration of every product of within-stratum minibatches."""
    labels = np.array([0, 1, 0, 1, 1, 0])
    b = (2, 1)
    sx = 1.4
    model = simulate.GaussianMeanModel(X2, sigma_x=sx)
    ref = enumerate_stratified_cov(X2 / sx**2, labels, b, replace)
    est = simulate.Stratified(simulate.Strata.from_labels(labels), np.array(b), replace)
    np.testing.assert_allclose(est.noise_cov(model), ref, **EXACT)
    np.testing.assert_allclose(strat_noise.gaussian_noise_cov(X2, labels, b, sx, replace), ref, **EXACT)
    assert strat_noise.stratified_variance(X2 / sx**2, labels, b, replace) == pytest.approx(np.trace(ref), rel=1e-11)


def test_sgld_stationary_covariance_twins():
    """Stationary covariance of SGLD on a Gaussian target: toy_chain (Vollmer et al.'s closed form) and exact_law (the
    exact engine), both read from the sampler, the engine's law of the same chain written with additive noise and of
    linear regression with unit features (the Gaussian mean model), and Fu & Zhang's Sigma_inf, against a fixed-point
    iteration of V = F V F^T + Q."""
    sx, s0, n = 1.3, 2.0, 3
    model = simulate.GaussianMeanModel(X1, sigma_x=sx, sigma0=s0)
    h = 0.6 / model.grad_lipschitz
    a = model.grad_lipschitz
    Sigma = simulate.Minibatch(n).noise_cov(model)
    F = np.array([[1 - 0.5 * h * a]])
    ref = lyapunov_by_iteration(F, h * np.eye(1) + 0.25 * h * h * Sigma)[0, 0]
    assert theory.toy.chain.toy_chain(simulate.sgld(model, h, n)).stationary_variance() == pytest.approx(ref, rel=1e-12)
    assert theory.exact_law(simulate.sgld(model, h, n)).stationary_cov()[0, 0] == pytest.approx(ref, rel=1e-12)
    additive = additive_noise_sampler(a, h, Sigma, simulate.Langevin())
    assert theory.exact_law(additive).stationary_cov()[0, 0] == pytest.approx(ref, rel=1e-12)
    assert strat_chains._sigma_inf(a, h, Sigma)[0, 0] == pytest.approx(ref, rel=1e-12)
    unit = simulate.LinearRegressionModel(np.ones((X1.size, 1)), X1, sx, s0)
    assert theory.exact_law(simulate.sgld(unit, h, n)).stationary_cov()[0, 0] == pytest.approx(ref, rel=1e-12)
    # the Gaussian location model with a full Sigma and a flat prior: precision N Sigma^{-1}
    Sig2 = np.diag([1.5, 0.7])
    loc = simulate.GaussianMeanModel(X2, Sigma=Sig2, sigma0=None)
    P = X2.shape[0] * np.linalg.inv(Sig2)
    h2 = 0.5 / np.linalg.eigvalsh(P)[-1]
    F2 = np.eye(2) - 0.5 * h2 * P
    Q2 = h2 * np.eye(2) + 0.25 * h2**2 * bn.minibatch_noise_cov(X2 @ np.linalg.inv(Sig2), 2)
    np.testing.assert_allclose(theory.exact_law(simulate.sgld(loc, h2, 2)).stationary_cov(),
                               lyapunov_by_iteration(F2, Q2), **EXACT)


def test_sghmc_stationary_covariance_twins():
    """SGHMC on a Gaussian target: the exact engine (additive noise, and the minibatch chain on the Gaussian location
    model without momentum refresh) and the 1-D sympy form of theory.chains.sghmc against a fixed-point iteration of
    the (theta, v) moment map."""
    a, alpha, h, s2 = 3.0, 0.3, 0.2, 0.8
    F, Q = sg.transition(np.array([[a]]), alpha, h, np.array([[s2]]))
    ref = lyapunov_by_iteration(F, Q)
    additive = additive_noise_sampler(a, h, s2, simulate.SGHMC(alpha))
    np.testing.assert_allclose(theory.exact_law(additive).stationary_cov(whole_state=True), ref, **EXACT)
    assert sg.stationary_var_theta(a, alpha, h, s2) == pytest.approx(ref[0, 0], rel=1e-12)
    Sig2 = np.diag([1.5, 0.7])
    loc = simulate.GaussianMeanModel(X2, Sigma=Sig2, sigma0=None)
    P = X2.shape[0] * np.linalg.inv(Sig2)
    h2 = 0.1 / np.linalg.eigvalsh(P)[-1]
    F2, Q2 = sg.transition(P, alpha, h2, bn.minibatch_noise_cov(X2 @ np.linalg.inv(Sig2), 2))
    np.testing.assert_allclose(theory.exact_law(simulate.sghmc(loc, h2, alpha, n=2)).stationary_cov(),
                               lyapunov_by_iteration(F2, Q2)[:2, :2], **EXACT)
