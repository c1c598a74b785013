"""The stationary laws of the papers' chains are the exact engine's (``exact_law(sampler).stationary_cov()``): each
equals the solver the engine replaced (kept in tests/_chain_references.py: scipy Lyapunov solves, vectorised fixed
points, SAGA's enumeration of all minibatches) to 1e-12 relative, on several inputs. Also: the engine's law of the
additive-noise estimator with a covariance matrix (simulate.AdditiveNoise), against hand-written moment recursions and
the simulator."""

from __future__ import annotations

import numpy as np
import pytest
from _chain_references import (
    old_saga_stationary_cov_linreg,
    old_sghmc_cv_stationary_cov_linreg,
    old_sghmc_stationary_cov,
    old_sgld_stationary_cov,
    old_stationary_cov_linreg,
    old_stationary_covariance,
    old_strat_sghmc_stationary_cov,
    old_strat_sgld_stationary_cov,
)

from simulate import (
    AdditiveNoise,
    GaussianMeanModel,
    LinearRegressionModel,
    ParameterError,
    Reused,
    Sampler,
    run,
)
from simulate.integrators.langevin import Langevin, ModifiedLangevin
from simulate.integrators.sghmc import SGHMC
from simulate.samplers import saga_ld, sghmc, sghmc_cv, sgld, sgld_cv
from theory.chains import stratified
from theory.chains.additive_noise import additive_noise_sampler, gaussian_target
from theory.linear_gaussian import exact_law

RTOL = 1e-12


def close(x, y, rtol=RTOL):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    assert x.shape == y.shape, (x.shape, y.shape)
    assert np.abs(x - y).max() <= rtol * np.abs(y).max(), (x, y)


def _spd(d: int, seed: int, scale: float = 1.0) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((d, d + 2))
    return scale * X @ X.T / (d + 2)


# ------------------------------------------------------------------ linear regression (Baker et al.)
LR = [LinearRegressionModel.simulate_data(30, dim=2, seed=2019), LinearRegressionModel.simulate_data(25, dim=3, seed=7)]


def _moments(sampler, **kw):
    law = exact_law(sampler)
    return law.stationary_mean(), law.stationary_cov(**kw)


@pytest.mark.parametrize("m", LR, ids=["d2", "d3"])
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("r", [0.1, 0.5, 1.2])
def test_stationary_cov_linreg_sgld_and_cv(m, replace, r):
    h = r / m.grad_lipschitz
    args = (m.Z, m.y, m.sigma, m.sigma0, h, 5)
    for got, ref in zip(_moments(sgld(m, h, 5, replace)), old_stationary_cov_linreg(*args, "sgld", replace=replace),
                        strict=True):
        close(got, ref)
    that = m.posterior_mean + 0.05 * np.arange(1, m.dim + 1)
    for got, ref in zip(_moments(sgld_cv(m, h, 5, that, replace)),
                        old_stationary_cov_linreg(*args, "cv", that, replace), strict=True):
        close(got, ref)


def test_stationary_cov_linreg_unit_features_and_full_batch():
    x = np.random.default_rng(3).normal(1.0, 1.3, 40)
    h = 0.3 / (40 / 1.3**2)
    m = LinearRegressionModel(np.ones((40, 1)), x, 1.3, 2.0)
    for n in (3, 40):
        for got, ref in zip(_moments(sgld(m, h, n)), old_stationary_cov_linreg(np.ones((40, 1)), x, 1.3, 2.0, h, n),
                            strict=True):
            close(got, ref)


@pytest.mark.parametrize("N,n,d,seed,r", [(6, 2, 2, 2019, 0.3), (6, 2, 2, 2019, 0.6), (6, 6, 2, 1, 0.5),
                                          (8, 3, 2, 5, 0.6), (7, 2, 3, 11, 0.3)])
def test_saga_stationary_cov_linreg(N, n, d, seed, r):
    m = LinearRegressionModel.simulate_data(N, dim=d, seed=seed)
    args = (m.Z, m.y, m.sigma, m.sigma0, r / m.grad_lipschitz, n)
    for got, want in zip(_moments(saga_ld(m, r / m.grad_lipschitz, n)), old_saga_stationary_cov_linreg(*args),
                         strict=True):
        close(got, want)


@pytest.mark.parametrize("m", LR, ids=["d2", "d3"])
@pytest.mark.parametrize("method", ["cv", "sgld"])
@pytest.mark.parametrize("replace", [False, True])
def test_sghmc_cv_stationary_cov_linreg(m, method, replace):
    that = m.posterior_mean + 0.03
    for r, alpha in ((0.2, 0.3), (0.05, 0.9), (0.1, 0.5)):
        h = r / m.grad_lipschitz
        sampler = (sghmc_cv(m, h, alpha, 5, that, replace) if method == "cv"
                   else sghmc(m, h, alpha, n=5, replace=replace))
        args = (m.Z, m.y, m.sigma, m.sigma0, h, alpha, 5, that, method, replace)
        for got, ref in zip(_moments(sampler), old_sghmc_cv_stationary_cov_linreg(*args), strict=True):
            close(got, ref)


def test_linreg_errors_name_the_parameter():
    m = LR[0]
    with pytest.raises(ParameterError, match="not mean-square stable"):
        exact_law(sgld(m, 3.9 / m.grad_lipschitz, 1)).stationary_cov()
    with pytest.raises(ParameterError, match="SAGA's table"):
        big = LinearRegressionModel.simulate_data(200, dim=2, seed=1)
        exact_law(saga_ld(big, 0.1 / big.grad_lipschitz, 5)).stationary_cov()


# ------------------------------------------------------------------ Gaussian location toy (Baker et al. Sec. 3.4)
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("d", [1, 3])
def test_gaussian_location_model(replace, d):
    m = GaussianMeanModel.simulate_data(60, dim=d, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(d), sigma0=None,
                                        seed=d)
    lam = float(np.linalg.eigvalsh(m.n_data * m.P)[-1])
    for r in (0.1, 0.5, 1.5):
        close(exact_law(sgld(m, r / lam, 6, replace)).stationary_cov(),
              old_sgld_stationary_cov(m.data, m.Sigma, r / lam, 6, replace))
    for r, alpha in ((0.1, 0.3), (0.5, 1.0)):
        for L in (None, 1, 3, 4):
            law = exact_law(sghmc(m, r / lam, alpha, n=6, replace=replace, resample_every=L))
            close(law.stationary_cov(phase=None if law.period == 1 else 0),
                  old_sghmc_stationary_cov(m.data, m.Sigma, r / lam, alpha, 6, L, replace))


# ------------------------------------------------------------------ SGHMC on a Gaussian target (theory.chains.sghmc)
def _sghmc_joint(P, alpha, h, Sg):
    return exact_law(additive_noise_sampler(P, h, Sg, SGHMC(alpha))).stationary_cov(whole_state=True)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_sghmc_stationary_covariance(d):
    P = _spd(d, d, 3.0) + np.eye(d)
    lam = float(np.linalg.eigvalsh(P)[-1])
    # eta P = 3.9 with alpha = 0.02 is next to the stability limit 3.96: the fixed point is ill-conditioned there, and
    # both solvers agree with the engine's 50-digit route to ~1e-12 only (d = 4: old 1.4e-12, engine 7.6e-13)
    for alpha, r, scale, rtol in ((0.1, 0.5, 0.0, RTOL), (0.9, 0.05, 1e4, RTOL), (0.02, 3.9, 10.0, 1e-11),
                                  (0.5, 1.0, 1.0, RTOL)):
        Sg = _spd(d, 10 + d, scale)
        close(_sghmc_joint(P, alpha, r / lam, Sg), old_stationary_covariance(P, alpha, r / lam, Sg), rtol)
    close(_sghmc_joint(1001.0, 0.3, 1e-3, 2.5e4), old_stationary_covariance(1001.0, 0.3, 1e-3, 2.5e4))


def test_additive_noise_sampler_errors():
    with pytest.raises(ParameterError, match="not mean-square stable|h must satisfy"):
        _sghmc_joint(1.0, 0.5, 3.5, 0.0)
    with pytest.raises(ParameterError, match="shape"):
        additive_noise_sampler(np.eye(2), 0.1, np.eye(3), Langevin())
    with pytest.raises(ParameterError, match="precision must be positive definite"):
        gaussian_target(np.diag([1.0, -1.0]))


# ------------------------------------------------------------------ Fu & Zhang (theory.chains.stratified)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_stratified_sgld_and_sghmc(d):
    for a, h, alpha in ((3.0, 0.2, 0.3), (50.0, 0.01, 0.25), (1.0, 3.5, 0.5), (200.0, 1e-3, 1.0)):
        S = _spd(d, int(a), 4.0)
        P = a * np.eye(d)
        close(exact_law(additive_noise_sampler(P, h, S, Langevin())).stationary_cov(),
              old_strat_sgld_stationary_cov(a, h, S))
        close(stratified._sigma_inf(a, h, S), old_strat_sgld_stationary_cov(a, h, S))
        hh = h * (4 - 2 * alpha) / 4  # SGHMC's stability bound is (4 - 2 alpha)/a
        close(_sghmc_joint(P, alpha, hh, S), old_strat_sghmc_stationary_cov(a, hh, alpha, S))


# ------------------------------------------------------------------ the engine's additive-noise law
def _by_hand(P, Sig, h, integ: str, k_max: int, K: int = 1, refresh: int | None = None, alpha: float = 0.3):
    """Cov theta_k, k = 0..k_max, from theta_0 = 0 (mean 0 target): the moment recursion of the state (theta, v, e)
    written out for each integrator (e the frozen noise of Reused(., K))."""
    d = P.shape[0]
    eye, Z = np.eye(d), np.zeros((d, d))
    S = np.zeros((3 * d, 3 * d))
    S[d:2 * d, d:2 * d] = h * eye if integ == "sghmc" else Z  # v_0 ~ N(0, h I)
    out = [S[:d, :d].copy()]
    for k in range(k_max):
        if K > 1 and k % K == 0:  # draw the frozen error e ~ N(0, Sig)
            S[2 * d:, :], S[:, 2 * d:] = 0.0, 0.0
            S[2 * d:, 2 * d:] = Sig
        fresh = Sig if K == 1 else Z
        if integ == "sghmc":
            A = np.block([[eye - h * P, (1 - alpha) * eye, h * eye], [-h * P, (1 - alpha) * eye, h * eye],
                          [Z, Z, eye]])
            W = h * h * fresh + 2 * alpha * h * eye
            Q = np.block([[W, W, Z], [W, W, Z], [Z, Z, Z]])
        else:
            A = np.block([[eye - 0.5 * h * P, Z, 0.5 * h * eye], [Z, Z, Z], [Z, Z, eye]])
            G = np.sqrt(h) * (eye - h / 8 * Sig) if integ == "msgld" else np.sqrt(h) * eye
            Q = np.zeros((3 * d, 3 * d))
            Q[:d, :d] = G @ G.T + 0.25 * h * h * fresh
        S = A @ S @ A.T + Q
        if refresh is not None and (k + 1) % refresh == 0:
            S[d:2 * d, :], S[:, d:2 * d] = 0.0, 0.0
            S[d:2 * d, d:2 * d] = h * eye
        out.append(S[:d, :d].copy())
    return out


@pytest.mark.parametrize("case", ["sgld", "msgld", "sghmc", "sghmc_refresh", "reused_sgld", "reused_sghmc"])
def test_additive_noise_law_matches_hand_recursion(case):
    P = _spd(2, 1, 5.0) + np.eye(2)
    Sig = _spd(2, 2, 3.0)
    model = gaussian_target(P)
    h = 0.3 / model.grad_lipschitz
    est = AdditiveNoise(Sig)
    K = 3 if case.startswith("reused") else 1
    if K > 1:
        est = Reused(est, K)
    integ = {"msgld": ModifiedLangevin(), "sghmc": SGHMC(0.3), "sghmc_refresh": SGHMC(0.3, 4),
             "reused_sghmc": SGHMC(0.3)}.get(case, Langevin())
    law = exact_law(Sampler(model, est, integ, h))
    kind = "sghmc" if "sghmc" in case else ("msgld" if case == "msgld" else "sgld")
    ref = _by_hand(P, Sig, h, kind, 13, K, 4 if case == "sghmc_refresh" else None)
    for k in (0, 1, 2, 5, 13):
        close(law.cov(k), ref[k], 1e-12)
        assert np.abs(law.mean(k)).max() < 1e-15


def test_additive_noise_series_and_mp():
    """The h-series of SGLD with additive noise on N(0, I/a): (I + h Sigma/4)/(a (1 - h a/4)) = I/a + h (Sigma + a I)
    /(4 a) + O(h^2) (Fu & Zhang's closed form), and the 50-digit route agrees with float64."""
    a, Sig = 3.0, _spd(2, 4, 2.0)
    law = exact_law(Sampler(gaussian_target(a * np.eye(2)), AdditiveNoise(Sig), Langevin(), 0.1))
    series = law.expansion(2, "sympy")
    close(np.array(series.cov[0], dtype=float), np.eye(2) / a)
    close(np.array(series.cov[1], dtype=float), (Sig + a * np.eye(2)) / (4 * a))
    close(np.array(law.mp().stationary_cov(), dtype=float), law.stationary_cov())


def test_additive_noise_matrix_in_the_simulator():
    P, Sig = np.diag([4.0, 1.0]), np.array([[2.0, 0.6], [0.6, 0.5]])
    model = gaussian_target(P)
    est = AdditiveNoise(Sig)
    np.testing.assert_array_equal(est.noise_cov(model), Sig)
    th = np.zeros((200_000, 2))
    g, _ = est.estimate(model, th, None, np.random.default_rng(0))
    C = np.cov(g.T)
    assert np.abs(C - Sig).max() < 5 * np.sqrt(2.0 / th.shape[0]) * 2.0  # 5 s.e. of the largest entry
    h = 0.2
    sampler = Sampler(model, Reused(est, 3), SGHMC(0.4), h)
    res = run(sampler, 40_000, 0, seed=3, theta0=np.zeros(2), record_at=[7], test_functions=())
    x = res.snapshots[7]
    C7 = exact_law(sampler).cov(7)
    se = np.sqrt((C7[0, 0] * C7[1, 1] + np.diag(C7)[:, None] * np.diag(C7)[None, :]) / x.shape[0])
    assert np.all(np.abs(np.cov(x.T) - C7) < 5 * se)


@pytest.mark.parametrize("bad,match", [
    (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semi-definite"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "finite"),
    (np.ones((2, 3)), "square"),
])
def test_additive_noise_matrix_bad_input(bad, match):
    with pytest.raises(ParameterError, match=match):
        AdditiveNoise(bad)


def test_additive_noise_dimension_and_theta_dependent_variance():
    with pytest.raises(ParameterError, match=r"\(2, 2\) covariance needs a model of dimension 2"):
        Sampler(gaussian_target(np.eye(3)), AdditiveNoise(np.eye(2)), Langevin(), 0.1)
    m = GaussianMeanModel.simulate_data(10, seed=1)
    with pytest.raises(ParameterError, match="theta-dependent variance"):
        exact_law(Sampler(m, AdditiveNoise(lambda x: 1 + x * x), Langevin(), 0.01)).stationary_cov()
