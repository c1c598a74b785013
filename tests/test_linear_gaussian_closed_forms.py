"""The exact engine equals the workbench's closed forms and printed forms where they describe the same quantity:
Fu & Zhang's CP-SGLD stationary covariance Sigma_inf (theory.chains.stratified, with SGHMC's theta block written out
here), the 1-D SGHMC law (theory.chains.sghmc, sympy), ULA's covariance, Vollmer et al.'s toy chain
(theory.toy.chain.ToyChain), Chen et al.'s and the toy's finite-time MSE, and the minibatch noise covariances. The
papers' stationary laws themselves are the engine's (``exact_law(sampler).stationary_cov()``; a chain with a
theta-free noise is ``theory.chains.additive_noise.additive_noise_sampler``); their independent check against the
solvers they replaced is tests/test_chains_engine.py. Relative tolerance 1e-9 unless noted: the forms are computed by
other algorithms (sympy, mpmath, closed forms in k or L), so equality is to rounding, not to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import (
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
from theory.chains import linear_regression as linreg_chains
from theory.chains import sghmc as sghmc_gaussian
from theory.chains import stratified as strat_chains
from theory.chains.additive_noise import additive_noise_sampler
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


# ------------------------------------------------------------------ SGHMC on a Gaussian target (sghmc_gaussian)
def test_sghmc_gaussian_joint_stationary_covariance():
    m = GaussianMeanModel.simulate_data(80, dim=2, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(2), sigma0=3.0,
                                        seed=2)
    h, alpha, n = 0.4 / m.grad_lipschitz, 0.2, 8
    law = exact_law(sghmc(m, h, alpha, n=n))
    P = np.linalg.inv(law.posterior_cov)
    Q = baker_noise.minibatch_noise_cov(m.data @ m.P, n)  # g_i = Sigma^-1 (x_i - theta): theta-free noise
    additive = exact_law(additive_noise_sampler(P, h, Q, SGHMC(alpha)))
    close(law.stationary_cov(whole_state=True), additive.stationary_cov(whole_state=True))
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


# ---------------------------------------------------------- Fu & Zhang stationary laws (theory.chains.stratified)
@pytest.mark.parametrize("replace", [False, True])
def test_stratified_sgld_sghmc_and_time_average(replace):
    m = GaussianMeanModel.simulate_data(40, theta_true=[0.5, -0.3], dim=2, seed=3, sigma_x=1.5, sigma0=2.0)
    labels = np.arange(40) % 3
    sizes = (3, 2, 2)
    est = Stratified(Strata.from_labels(labels), sizes, replace)
    a = 1 / m.sigma0**2 + m.n_data / m.sigma_x**2
    Sig = strat_noise.gaussian_noise_cov(m.data, labels, sizes, m.sigma_x, replace)
    h = 0.6 / a
    law = exact_law(Sampler(m, est, Langevin(), h))
    P = a * np.eye(2)
    close(law.stationary_cov(), exact_law(additive_noise_sampler(P, h, Sig, Langevin())).stationary_cov())
    close(law.stationary_cov(), strat_chains._sigma_inf(a, h, Sig))
    hmc = exact_law(Sampler(m, est, SGHMC(0.25), h))
    close(hmc.stationary_cov(whole_state=True),
          exact_law(additive_noise_sampler(P, h, Sig, SGHMC(0.25))).stationary_cov(whole_state=True))
    alpha = 0.25  # the theta block in closed form (new): (2 - alpha)(2 alpha I + h Sigma)/(a alpha (4 - 2 alpha - a h))
    close(hmc.stationary_cov(), (2 - alpha) * (2 * alpha * np.eye(2) + h * Sig) / (a * alpha * (4 - 2 * alpha - a * h)))
    # time-average covariance from theta_0 = the posterior mean (the form's setting), window [b, b + T)
    start = exact_law(Sampler(m, est, Langevin(), h), theta0=law.posterior_mean)
    C = strat_chains.sgld_time_average_cov(a, h, Sig, 5, 40)
    for u in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 1.0])):
        close(start.time_average(u, n_steps=40, burn_in=5).variance, u @ C @ u)


# ------------------------------------------------------------------ Baker et al. linear regression (baker_theorems)
@pytest.fixture(scope="module")
def lr():
    return LinearRegressionModel.simulate_data(30, dim=2, seed=2019)


def test_baker_ula(lr):
    h = 0.5 / lr.grad_lipschitz
    close(exact_law(euler(lr, h)).stationary_cov(), linreg_chains.ula_stationary_cov(lr.precision, h))


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
    gd = vr_noise.GaussianData.of(toy.data[:, 0], toy.sigma_x, toy.sigma0)
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


def test_location_model_noise_covariance_is_the_engine_operator():
    """theory.noise.minibatch.minibatch_noise_cov of the per-datum gradients' theta-free part Sigma^-1 x_i (Baker et
    al. Sec. 3.4 toy) is the engine's noise operator at any theta."""
    from theory.linear_gaussian.affine import Parts
    from theory.linear_gaussian.noise import NoiseOperator, Scheme

    m = GaussianMeanModel.simulate_data(30, dim=3, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(3), sigma0=None,
                                        seed=5)
    th = np.array([0.3, -0.1, 0.2, 1.0])
    for replace in (False, True):
        op = NoiseOperator(Parts.of(m.affine_parts()), Scheme.minibatch(m.n_data, 4, replace))
        close(op.apply(np.outer(th, th)), baker_noise.minibatch_noise_cov(m.data @ m.P, 4, replace))


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
