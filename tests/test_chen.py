"""Chen et al. (vrSG-MCMC): exactness of theory.bounds.chen, theory.noise.vr, theory.chains.chen_mse and planted-bug
tests showing
that the chen claims' verdicts change when the code under test is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import simulate.estimators.vr as vr
import simulate.integrators as integ
from simulate import GaussianMeanModel, Minibatch, ParameterError
from simulate.estimators.subsample import sample_indices
from theory.bounds import chen as cb
from theory.chains import chen_mse
from theory.noise import vr as vr_noise
from theory.printed import chen as chen_printed
from theory.toy.finite_time import toy_finite_time
from verify.harness import run_claims
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)


def _verdicts(ids):
    rows = run_claims(select(ids=ids), FAST)
    return {c.id: verdict(c, r) for c, r in rows}


@pytest.fixture(scope="module")
def gd() -> vr_noise.GaussianData:
    x = np.random.default_rng(1).standard_normal(60) + 1.0
    return vr_noise.GaussianData.of(x)


# ------------------------------------------------------------------------------------------ bounds (sympy)

def test_budget_calculus():
    assert sp.simplify(cb.budget_optimal_step() - (cb.n / (2 * cb.T)) ** sp.Rational(1, 3)) == 0
    assert sp.simplify(cb.budget_optimal_step_wb() - 2 * cb.budget_optimal_step()) == 0
    assert sp.simplify(cb.critical_point() - 8 * cb.T / (27 * cb.N**6 * cb.Gamma**3)) == 0
    assert sp.simplify(cb.critical_point(True) - 2 * cb.T / (cb.N**6 * cb.Gamma**3)) == 0
    d2 = cb.second_derivative_in_n()
    assert sp.simplify(d2 + sp.Rational(2, 9) * cb.n ** sp.Rational(-4, 3) * cb.T ** sp.Rational(-2, 3)) == 0
    assert cb.critical_point_kind() == "maximiser" == cb.critical_point_kind(True)
    # the budget form is Theorem 3 with L = T/n
    e = cb.budget_bound() - cb.C * ((cb.N - cb.n) * cb.N**2 * cb.Gamma / cb.T + cb.n / (cb.T * cb.h) + cb.h**2)
    assert sp.simplify(e) == 0


def test_regimes_of_the_bound():
    N, g = 1000, 1e-3
    t1, t2 = (float(e.subs({cb.N: N, cb.Gamma: g})) for e in cb.regime_thresholds())
    tx = float(cb.endpoint_tie().subs({cb.N: N, cb.Gamma: g}))
    assert t1 < tx < t2
    assert cb.best_n_of_bound(N, t1 / 2, g) == N and cb.best_n_of_bound(N, 2 * t2, g) == 1
    assert cb.best_n_of_bound(N, tx * 0.9, g) == N and cb.best_n_of_bound(N, tx * 1.1, g) == 1
    assert math.isclose(cb.bound_value(N, 1, tx, g), cb.bound_value(N, N, tx, g), rel_tol=1e-9)
    assert cb.corollary_case(N, t1 / 2, g) == N and cb.corollary_case(N, 2 * t2, g) == 1
    assert cb.corollary_case(N, tx, g) == 0


def test_bounds_bad_input():
    with pytest.raises(ParameterError, match="n must satisfy"):
        cb.bound_value(10, 11, 1e3, 1e-3)
    with pytest.raises(ParameterError, match="T"):
        cb.bound_value(10, 1, -1.0, 1e-3)


# ------------------------------------------------------------------------------------------ algebra

def test_gamma_is_sample_variance_over_N():
    a = np.random.default_rng(2).standard_normal((9, 3))
    assert math.isclose(vr_noise.gamma(a), vr_noise.sample_var(a) / 9, rel_tol=1e-12)


def test_enumeration_matches_closed_forms():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 2)) + 1
    b = a + rng.standard_normal((6, 2))
    for n in (1, 2, 5):
        mean, mse = vr_noise.enumerate_minibatch(a, n)
        assert np.allclose(mean, a.sum(0))
        assert math.isclose(mse, vr_noise.minibatch_noise(a, n), rel_tol=1e-10)
        assert math.isclose(mse, (6 - n) * 36 * vr_noise.gamma(a) / n, rel_tol=1e-10)
    mean, mse = vr_noise.enumerate_vr(a, b, 4, 2)
    assert np.allclose(mean, a.sum(0))
    assert math.isclose(mse, vr_noise.vr_noise(a, b, 4, 2), rel_tol=1e-10)
    dec = vr_noise.A_term(a, 2) + vr_noise.B_term(b, 4, 2) + vr_noise.C_term(a, b, 2)
    assert math.isclose(dec, mse, rel_tol=1e-10)
    printed = vr_noise.A_term(a, 2) + vr_noise.B_term(b, 4, 2) + vr_noise.C_term(a, b, 2, printed=True)
    assert not math.isclose(printed, mse, rel_tol=1e-3)
    # the printed C equals the corrected one when alpha = beta (symmetric cross terms)
    assert math.isclose(vr_noise.C_term(a, a, 2), vr_noise.C_term(a, a, 2, printed=True), rel_tol=1e-10)
    # a shared anchor/correction batch keeps the mean but changes the variance
    mean_s, mse_s = vr_noise.enumerate_vr(a, b, 4, 2, shared_batch=True)
    assert np.allclose(mean_s, a.sum(0)) and not math.isclose(mse_s, mse, rel_tol=1e-3)


def test_lambda_forms(gd):
    b = gd.alpha(0.3)
    lam = vr_noise.lambda_corrected(b, 20, 5)
    assert math.isclose(lam, gd.N**3 * 15 * vr_noise.gamma(b) / 100, rel_tol=1e-10)
    assert math.isclose(lam, vr_noise.gaussian_lambda(gd, 20, 5), rel_tol=1e-10)
    assert chen_printed.lambda_printed(b, 20, 5, literal=True) < 0
    # the Gaussian closed forms do not depend on theta
    for th in (-1.0, 0.2, 2.5):
        a = gd.alpha(th)
        assert math.isclose(vr_noise.A_term(a, 5), vr_noise.gaussian_A(gd, 5), rel_tol=1e-9)
        assert math.isclose(vr_noise.B_term(a, 20, 5), vr_noise.gaussian_B(gd, 20, 5), rel_tol=1e-9)
        assert math.isclose(vr_noise.C_term(a, gd.alpha(th + 0.4), 5), vr_noise.gaussian_C(gd, 5), rel_tol=1e-9)
    assert math.isclose(vr_noise.gaussian_A(gd, 5) - vr_noise.gaussian_lambda(gd, 20, 5),
                        vr_noise.vr_noise_variance(gd, 20, 5),
                        rel_tol=1e-10)


@pytest.mark.parametrize("replace", [False, True])
def test_sgld_noise_matches_simulator_covariance(gd, replace):
    model = GaussianMeanModel(gd.x)
    cov = Minibatch(7, replace).noise_cov(model)[0, 0]
    assert math.isclose(vr_noise.sgld_noise_variance(gd, 7, replace), cov, rel_tol=1e-10)
    assert math.isclose(vr_noise.noise_cumulants(gd, 7, replace)[0], cov, rel_tol=1e-10)


# ------------------------------------------------------------------------------------------ exact MSE

def test_mse_matches_toy_finite_time(gd):
    h = 0.3 / gd.P
    ch = toy_finite_time("sgld", gd.x[:, 0], 5, h=h, theta0=0.2)
    for L in (1, 7, 120):
        m1 = float(ch.mse1(L))
        assert math.isclose(chen_mse.mse_theta_sgld(gd, h, L, 5, theta0=0.2), m1, rel_tol=1e-9)
        assert math.isclose(chen_mse.mse_theta(gd, h, L, vr_noise.sgld_noise_variance(gd, 5), 1, 0.2), m1, rel_tol=1e-9)
        assert math.isclose(chen_mse.mse_theta2(gd, h, L, vr_noise.noise_cumulants(gd, 5), 1, 0.2), float(ch.mse2(L)),
                            rel_tol=1e-9)


def _brute_force_vr_mse1(gd, h, L, V, m, theta0):
    """Var of the average from the explicit covariance of (eta_0 .. eta_{L-2}) (new, independent of mse_theta)."""
    rho = 1 - h * gd.P / 2
    W = np.zeros((L, max(L - 1, 1)))
    for k in range(L):
        for j in range(k):
            W[k, j] = rho ** (k - 1 - j)
    j = np.arange(max(L - 1, 1))
    cov = h * np.eye(len(j)) + h * h / 4 * V * (j[:, None] // m == j[None, :] // m)
    var = np.ones(L) @ W @ cov @ W.T @ np.ones(L) / L**2
    e0 = theta0 - gd.mu[0]
    return float((e0 * np.sum(rho ** np.arange(L)) / L) ** 2 + var)


@pytest.mark.parametrize("m", [1, 3, 10])
def test_vr_mse_theta_brute_force(gd, m):
    h = 0.2 / gd.P
    V = vr_noise.vr_noise_variance(gd, 20, 4)
    for L in (2, 25):
        assert math.isclose(chen_mse.mse_theta(gd, h, L, V, m, 0.5), _brute_force_vr_mse1(gd, h, L, V, m, 0.5),
                            rel_tol=1e-10)
    assert math.isclose(chen_mse.vr_mse(gd, h, 25, chen_mse.VRConfig(20, 4, m), theta0=0.5),
                        _brute_force_vr_mse1(gd, h, 25, V, m, 0.5), rel_tol=1e-10)


def test_vr_mse_theta2_gaussian_limit_and_epochs(gd):
    h = 0.2 / gd.P
    cum = vr_noise.noise_cumulants(gd, 20)
    # the Gaussian-noise approximation differs only through kappa_3, kappa_4
    exact = chen_mse.mse_theta2(gd, h, 40, cum, 5)
    approx = chen_mse.mse_theta2(gd, h, 40, cum, 5, gaussian_noise=True)
    assert exact != approx and abs(exact / approx - 1) < 0.05
    # frozen noise inflates the MSE relative to independent noise
    assert chen_mse.mse_theta2(gd, h, 200, cum, 10, 1.0) > chen_mse.mse_theta2(gd, h, 200, cum, 1, 1.0)


def test_gaussian_bad_input(gd):
    with pytest.raises(ParameterError, match="h must satisfy"):
        chen_mse.mse_theta(gd, 5 / gd.P, 10, 1.0)
    with pytest.raises(ParameterError, match="n2"):
        chen_mse.VRConfig(10, 10, 2).check(gd.N)
    with pytest.raises(ParameterError, match="phi"):
        chen_mse.vr_mse(gd, 0.1 / gd.P, 10, chen_mse.VRConfig(10, 2, 2), phi="theta3")
    with pytest.raises(ParameterError, match="n must satisfy"):
        vr_noise.minibatch_noise(np.ones((4, 1)), 5)
    with pytest.raises(ParameterError, match="alpha"):
        vr_noise.gamma(np.ones((1, 2)))


# ------------------------------------------------------------------------------------------ planted bugs

@pytest.mark.slow
def test_chen_claims_hold_or_fail_as_registered():
    rows = run_claims(select(papers=["chen"]), FAST)
    assert all(verdict(c, r) == c.expected for c, r in rows), {c.id: verdict(c, r) for c, r in rows}


def test_planted_printed_C_is_reported(monkeypatch):
    orig = vr_noise.C_term
    monkeypatch.setattr(vr_noise, "C_term", lambda a, b, n2, printed=False: orig(a, b, n2, printed=True))
    assert _verdicts(["chen.prop10.decomposition_corrected"])["chen.prop10.decomposition_corrected"] == "fails"


def test_planted_printed_lambda_is_reported(monkeypatch):
    monkeypatch.setattr(vr_noise, "lambda_corrected", chen_printed.lambda_printed)
    assert _verdicts(["chen.thm6.lambda_corrected_positive"])["chen.thm6.lambda_corrected_positive"] == "fails"


def test_planted_shared_minibatch_is_reported(monkeypatch):
    """vr estimator reusing the anchor batch for the correction (Algorithm 1 draws them independently)."""
    orig = vr_noise.vr_estimates
    monkeypatch.setattr(vr_noise, "vr_estimates", lambda a, b, n1, n2, shared_batch=False: orig(a, b, n1, n2, True))
    assert _verdicts(["chen.appbc.unbiased_and_eq7"])["chen.appbc.unbiased_and_eq7"] == "fails"


_VR_APPLY = vr.VRMinibatch.apply


def _apply_refreshing_every_step(self, model, theta, state, draws):
    """Planted bug: the anchor is refreshed at every step (a fresh anchor batch each time)."""
    if draws.anchor is None:
        draws = draws._replace(anchor=vr.sample_indices(np.random.default_rng(state.step), model.n_data,
                                                        self.anchor_size(model), theta.shape[0], self.replace))
    return _VR_APPLY(self, model, theta, state._replace(step=0), draws)


@pytest.mark.parametrize("bug", ["anchor refreshed every step", "noise sqrt(2h) (Chen's eps read as h)"])
@pytest.mark.slow
def test_planted_simulator_bug_is_reported(monkeypatch, bug):
    if bug.startswith("anchor"):
        monkeypatch.setattr(vr.VRMinibatch, "apply", _apply_refreshing_every_step)
    else:
        monkeypatch.setattr(integ.Langevin, "noise_scale", lambda self, h: float(np.sqrt(2 * h)))
    assert _verdicts(["chen.gaussian.exact_mse_formulas"])["chen.gaussian.exact_mse_formulas"] == "fails"


_SHARED: dict = {}


def _draw_shared_batch(self, model, n_chains, step, rng):
    """Planted bug: the correction batch is the first n2 indices of the anchor batch (not an independent draw)."""
    anchor = None
    if step % self.m == 0:
        anchor = sample_indices(rng, model.n_data, self.n1, n_chains, self.replace)
        _SHARED["idx"] = anchor
    return vr.VRDraws(anchor, _SHARED["idx"][: self.n2])


def test_planted_shared_minibatch_in_simulator_is_reported(monkeypatch):
    monkeypatch.setattr(vr.VRMinibatch, "draw", _draw_shared_batch)
    assert _verdicts(["chen.alg1.vr_estimator_moments"])["chen.alg1.vr_estimator_moments"] == "fails"
