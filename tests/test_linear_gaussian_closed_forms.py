"""The exact engine equals the workbench's closed forms and printed forms where they describe the same quantity:
Fu & Zhang's stationary covariances (theory.chains.stratified ``*_closed``, ``sympy_stationary_vars``), the 1-D SGHMC
law (theory.chains.sghmc, sympy), ULA's covariance, Vollmer et al.'s toy chain (theory.toy.chain.ToyChain), Chen et
al.'s and the toy's finite-time MSE, and the minibatch noise covariances. The stationary laws of theory.chains
(gaussian_targets, linear_regression, sghmc.stationary_covariance, stratified's non-closed forms) are themselves
engine calls (issue 17): here they are checked to read the same sampler as one built directly; their independent
check against the solvers they replaced is tests/test_chains_engine.py. Relative tolerance 1e-9 unless noted: the
forms are computed by other algorithms (sympy, mpmath, closed forms in k or L), so equality is to rounding, not to the
last bit."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import (
    SAGA,
    AdditiveNoise,
    ControlVariate,
    GaussianLocation,
    GaussianMeanModel,
    LinearRegressionModel,
    Minibatch,
    Sampler,
    Strata,
    Stratified,
    VRMinibatch,
    euler,
    msgld,
    sghmc,
    sgld,
)
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from theory.chains import chen_mse as chen_mse
from theory.chains import gaussian_targets as baker_toys
from theory.chains import linear_regression as linreg_chains
from theory.chains import sghmc as sghmc_gaussian
from theory.chains import stratified as strat_chains
from theory.chains._engine import gaussian_target
from theory.linear_gaussian import exact_law
from theory.noise import minibatch as baker_noise
from theory.noise import stratified as strat_noise
from theory.noise import vr as vr_noise
from theory.toy import chain as toy_chain
from theory.toy import finite_time as toy_finite_time

RTOL = 1e-9


def close(x, y, rtol=RTOL):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    assert np.abs(x - y).max() <= rtol * np.abs(y).max(), (x, y)


# ------------------------------------------------------------------ Baker et al. Sec. 3 Gaussian toy (baker_toys)
@pytest.mark.parametrize("replace", [False, True])
def test_baker_toys_sgld_and_sghmc(replace):
    m = GaussianLocation.simulate_data(60, dim=3, seed=1)
    h = 0.5 / m.grad_lipschitz
    close(exact_law(sgld(m, h, 6, replace)).stationary_cov(),
          baker_toys.sgld_stationary_cov(m.data, m.Sigma, h, 6, replace))
    close(exact_law(sghmc(m, h, 0.3, n=6, replace=replace)).stationary_cov(),
          baker_toys.sghmc_stationary_cov(m.data, m.Sigma, h, 0.3, 6, replace=replace))
    law = exact_law(sghmc(m, h, 0.3, n=6, replace=replace, resample_every=4))
    assert law.period == 4
    # baker_toys gives theta at the cycle boundaries: the steps k with k mod 4 = 0 (just after a refresh)
    close(law.stationary_cov(phase=0), baker_toys.sghmc_stationary_cov(m.data, m.Sigma, h, 0.3, 6, 4, replace))


# ------------------------------------------------------------------ SGHMC on a Gaussian target (sghmc_gaussian)
def test_sghmc_gaussian_joint_stationary_covariance():
    m = GaussianLocation.simulate_data(80, dim=2, seed=2, sigma0=3.0)
    h, alpha, n = 0.4 / m.grad_lipschitz, 0.2, 8
    law = exact_law(sghmc(m, h, alpha, n=n))
    P = np.linalg.inv(law.posterior_cov)
    Q = baker_toys.minibatch_noise_cov(m.data, m.Sigma, n)
    close(law.stationary_cov(whole_state=True), sghmc_gaussian.stationary_covariance(P, alpha, h, Q))
    assert law.state_names == (("theta", 2), ("v", 2))


def test_sghmc_gaussian_1d_sympy_closed_forms(toy):
    """theory.chains.sghmc's 1-D closed forms (sympy: Var theta, Cov(theta, v), Var v, and stationary_var_theta)
    equal the engine's whole-state stationary law of SGHMC with a minibatch gradient on the Gaussian toy."""
    alpha, n = 0.3, 10
    for r in (0.05, 0.8, 2.5):
        law = exact_law(sghmc(toy, r / toy.grad_lipschitz, alpha, n=n))
        P = 1.0 / law.posterior_cov[0, 0]
        s2 = float(Minibatch(n).noise_cov(toy)[0, 0])
        vals = {sghmc_gaussian.P: P, sghmc_gaussian.alpha: alpha, sghmc_gaussian.eta: law.h, sghmc_gaussian.s2: s2}
        forms = {k: float(v.subs(vals)) for k, v in sghmc_gaussian.stationary_moments_1d().items()}
        C = law.stationary_cov(whole_state=True)
        close(C[0, 0], forms["var_theta"])
        close(C[0, 1], forms["cov_theta_v"])
        close(C[1, 1], forms["var_v"])
        close(C[0, 0], sghmc_gaussian.stationary_var_theta(P, alpha, law.h, s2))


@pytest.mark.parametrize("s2", [0.0, 2.5])
def test_stratified_sympy_stationary_vars(s2):
    """Fu & Zhang's sympy stationary variances (SGLD; SGHMC's theta and v) equal the engine's law of SGLD / SGHMC with
    additive gradient noise of variance s2 (simulate.AdditiveNoise) on N(c/a, 1/a)."""
    a, h, alpha = 3.0, 0.2, 0.3
    forms = strat_chains.sympy_stationary_vars()
    syms = {str(x): x for e in forms.values() for x in e.free_symbols}
    vals = {syms[k]: v for k, v in {"a": a, "h": h, "alpha": alpha, "s2": s2}.items() if k in syms}
    m = gaussian_target(np.array([[a]]))
    sgld_law = exact_law(Sampler(m, AdditiveNoise(s2), Langevin(), h))
    close(sgld_law.stationary_cov()[0, 0], float(forms["sgld"].subs(vals)))
    C = exact_law(Sampler(m, AdditiveNoise(s2), SGHMC(alpha), h)).stationary_cov(whole_state=True)
    close(C[0, 0], float(forms["sghmc_theta"].subs(vals)))
    close(C[1, 1], float(forms["sghmc_v"].subs(vals)))


# ---------------------------------------------------------- Fu & Zhang stationary laws (theory.chains.stratified)
@pytest.mark.parametrize("replace", [False, True])
def test_stratified_sgld_sghmc_and_time_average(replace):
    m = GaussianMeanModel.simulate_data(40, theta_true=[0.5, -0.3], dim=2, seed=3, sigma_x=1.5, sigma_theta=2.0)
    labels = np.arange(40) % 3
    sizes = (3, 2, 2)
    est = Stratified(Strata.from_labels(labels), sizes, replace)
    a = 1 / m.sigma_theta**2 + m.n_data / m.sigma_x**2
    Sig = strat_noise.gaussian_noise_cov(m.data, labels, sizes, m.sigma_x, replace)
    h = 0.6 / a
    law = exact_law(Sampler(m, est, Langevin(), h))
    close(law.stationary_cov(), strat_chains.sgld_stationary_cov(a, h, Sig))
    close(law.stationary_cov(), strat_chains.sgld_stationary_cov_closed(a, h, Sig))
    hmc = exact_law(Sampler(m, est, SGHMC(0.25), h))
    close(hmc.stationary_cov(whole_state=True), strat_chains.sghmc_stationary_cov(a, h, 0.25, Sig))
    close(hmc.stationary_cov(), strat_chains.sghmc_stationary_cov_closed(a, h, 0.25, Sig))
    # time-average covariance from theta_0 = the posterior mean (the form's setting), window [b, b + T)
    start = exact_law(Sampler(m, est, Langevin(), h), theta0=law.posterior_mean)
    C = strat_chains.sgld_time_average_cov(a, h, Sig, 5, 40)
    for u in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 1.0])):
        close(start.time_average(u, n_steps=40, burn_in=5).variance, u @ C @ u)


# ------------------------------------------------------------------ Baker et al. linear regression (baker_theorems)
@pytest.fixture(scope="module")
def lr():
    return LinearRegressionModel.simulate_data(30, dim=2, seed=2019)


@pytest.mark.parametrize("replace", [False, True])
def test_baker_stationary_cov_linreg_sgld_and_cv(lr, replace):
    h = 0.5 / lr.grad_lipschitz
    mu_e, S_e = (lambda L: (L.stationary_mean(), L.stationary_cov()))(exact_law(sgld(lr, h, 5, replace)))
    mu, S = linreg_chains.stationary_cov_linreg(lr.Z, lr.y, lr.sigma, lr.sigma0, h, 5, "sgld", replace=replace)
    close(mu_e, mu)
    close(S_e, S)
    that = lr.posterior_mean + np.array([0.05, -0.03])
    cv = Sampler(lr, ControlVariate.at(lr, 5, that, replace), Langevin(), h)
    mu, S = linreg_chains.stationary_cov_linreg(lr.Z, lr.y, lr.sigma, lr.sigma0, h, 5, "cv", theta_hat=that,
                                                 replace=replace)
    close(exact_law(cv).stationary_cov(), S)
    close(exact_law(cv).stationary_mean(), mu)


def test_baker_saga_and_ula(lr):
    m = LinearRegressionModel.simulate_data(6, dim=2, seed=2019)
    h = 0.5 / m.grad_lipschitz
    mu, S = linreg_chains.saga_stationary_cov_linreg(m.Z, m.y, m.sigma, m.sigma0, h, 2)
    law = exact_law(Sampler(m, SAGA(2), Langevin(), h))
    close(law.stationary_cov(), S)
    close(law.stationary_mean(), mu)
    h = 0.5 / lr.grad_lipschitz
    close(exact_law(euler(lr, h)).stationary_cov(), linreg_chains.ula_stationary_cov(lr.precision, h))


@pytest.mark.parametrize("method", ["cv", "sgld"])
def test_baker_sghmc_cv_linreg(lr, method):
    h, alpha = 0.2 / lr.grad_lipschitz, 0.3
    that = lr.posterior_mean + np.array([0.05, -0.03])
    est = ControlVariate.at(lr, 5, that) if method == "cv" else Minibatch(5)
    _, S = linreg_chains.sghmc_cv_stationary_cov_linreg(lr.Z, lr.y, lr.sigma, lr.sigma0, h, alpha, 5, that, method)
    close(exact_law(Sampler(lr, est, SGHMC(alpha), h)).stationary_cov(), S)


# ------------------------------------------------------------------ Vollmer et al. toy chain (toy_chain)
@pytest.fixture(scope="module")
def toy():
    return GaussianMeanModel.simulate_data(200, theta_true=1.0, seed=2016)


@pytest.mark.parametrize("make", [lambda m, h: sgld(m, h, 10), lambda m, h: sgld(m, h, 10, True),
                                  lambda m, h: msgld(m, h, 10), lambda m, h: euler(m, h)])
def test_toy_chain_read_from_the_sampler(toy, make):
    s = make(toy, 0.3 / toy.A)
    chain = toy_chain.toy_chain(s)
    law = exact_law(s, theta0=[0.4], cov0=[[0.01]])
    close(law.stationary_mean(), chain.stationary_mean())
    close(law.stationary_cov(), chain.stationary_variance())
    for k in (0, 1, 7, 150):
        close(law.mean(k), chain.mean(k, 0.4))
        close(law.cov(k), chain.variance(k, 0.01))
    close(law.spectral_radius(), chain.mixing_factor() ** 2, 1e-12)


# ------------------------------------------------------------------ Chen et al. exact MSE (chen_gaussian)
def test_chen_mse_sgld_and_vrsgld(toy):
    gd = vr_noise.GaussianData.of(toy.data[:, 0], toy.sigma_x, toy.sigma_theta)
    h = 0.4 / gd.P
    for L in (1, 17, 1000, 10**7):
        law = exact_law(sgld(toy, h, 10), theta0=[0.2])
        close(law.time_average_mse(np.ones(1), n_steps=L), chen_mse.mse_theta_sgld(gd, h, L, 10, theta0=0.2))
    cfg = chen_mse.VRConfig(20, 5, 4)
    vr = exact_law(Sampler(toy, VRMinibatch(20, 5, 4), Langevin(), h), theta0=[0.2])
    for L in (1, 9, 300):
        close(vr.time_average_mse(np.ones(1), n_steps=L), chen_mse.vr_mse(gd, h, L, cfg, "theta", 0.2))
        close(vr.time_average_mse(quadratic=np.eye(1), n_steps=L), chen_mse.vr_mse(gd, h, L, cfg, "theta2", 0.2),
              1e-8)


# ------------------------------------------------------------------ Vollmer et al. finite-time MSE (toy_finite_time)
@pytest.mark.parametrize("method", ["sgld", "msgld", "euler"])
def test_toy_finite_time_mse1_mse2(toy, method):
    s = {"sgld": sgld(toy, 0.5 / toy.A, 10), "msgld": msgld(toy, 0.5 / toy.A, 10), "euler": euler(toy, 0.5 / toy.A)}
    ft = toy_finite_time.from_sampler(s[method], theta0=0.7)
    law = exact_law(s[method], theta0=[0.7])
    for L in (1, 5, 400, 10**6):
        close(law.time_average_mse(np.ones(1), n_steps=L), float(ft.mse1(L)), 1e-8)
        close(law.time_average_mse(quadratic=np.eye(1), n_steps=L), float(ft.mse2(L)), 1e-8)


def test_baker_noise_covariance_is_the_engine_operator(lr):
    """The per-step gradient-noise covariance of SGLD at theta (theory.noise.minibatch) is the engine's noise operator
    applied to (theta, 1)(theta, 1)^T."""
    from theory.linear_gaussian.affine import Parts
    from theory.linear_gaussian.noise import NoiseOperator, Scheme

    theta = np.array([0.7, -0.2])
    for replace in (False, True):
        op = NoiseOperator(Parts.of(lr.affine_parts()), Scheme.minibatch(lr.n_data, 4, replace))
        th = np.append(theta, 1.0)
        close(op.apply(np.outer(th, th)), baker_noise.sgld_noise_cov_linreg(lr.Z, lr.y, lr.sigma, theta, 4, replace))


def test_gaussian_targets_noise_covariance_is_the_engine_operator():
    """theory.chains.gaussian_targets.minibatch_noise_cov (Baker et al. Sec. 3.4 toy, theta-free) is the engine's
    noise operator at any theta."""
    from theory.linear_gaussian.affine import Parts
    from theory.linear_gaussian.noise import NoiseOperator, Scheme

    m = GaussianLocation.simulate_data(30, dim=3, seed=5)
    th = np.array([0.3, -0.1, 0.2, 1.0])
    for replace in (False, True):
        op = NoiseOperator(Parts.of(m.affine_parts()), Scheme.minibatch(m.n_data, 4, replace))
        close(op.apply(np.outer(th, th)), baker_toys.minibatch_noise_cov(m.data, m.Sigma, 4, replace))


# ------------------------------------------------------------------ SGHMC small-step series (sghmc_gaussian)
def test_sghmc_excess_variance_series(toy):
    """The h^1 coefficient of the engine's series of Var theta is theory.chains.sghmc's leading excess,
    eta (s2 / (2 alpha P) + 1 / (2 (2 - alpha))) with s2 the gradient-noise variance (1-D, alpha fixed)."""
    import sympy as sp

    alpha, n = 0.4, 10
    law = exact_law(sghmc(toy, 0.01 / toy.grad_lipschitz, alpha, n=n))
    series = law.expansion(2, "sympy")
    P = 1.0 / law.posterior_cov[0, 0]
    s2 = float(baker_noise.minibatch_noise_cov(toy.data / toy.sigma_x**2, n)[0, 0])
    lead = sghmc_gaussian.excess_variance_series(2)
    c1 = float(lead.coeff(sghmc_gaussian.eta, 1).subs({sghmc_gaussian.P: P, sghmc_gaussian.alpha: alpha,
                                                        sghmc_gaussian.s2: s2}))
    close(series.cov[1][0, 0], c1)
    assert isinstance(lead, sp.Expr)
