"""Logistic regression (Vollmer et al. Section 7), the Remark 7 covariance estimator, MALA, quadrature, the
control-variate runner, the real data set, and the Section 7 claims (including a planted bug they catch)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit, log_expit

import simulate.estimators as est_mod
from simulate import GaussianMeanModel, Minibatch, ParameterError, msgld, run, sgld
from simulate.analysis.reference import laplace_cv_run, mala, mala_reference, posterior_moments_quadrature
from simulate.estimators.estimated_cov import (
    EstimatedCovMinibatch,
    covariance_factor,
    estimated_covariance,
    nonpositive_fraction,
)
from simulate.models.datasets import breast_cancer_design, breast_cancer_model, standardise_with_intercept
from simulate.models.logistic import LogisticRegressionModel, log_sigmoid, sigmoid_neg
from simulate.samplers import msgld_estimated_cov
from verify.harness import as_expected, run_claims
from verify.registry import Settings, select
from verify.report import verdict

EXACT = dict(rtol=1e-12, atol=1e-12)
CLAIM_IDS = ["vollmer.sec7.reference", "vollmer.sec7.sgld_bias_vs_n", "vollmer.sec7.msgld_vs_sgld",
             "vollmer.rem7.estimated_covariance"]


def small_model(N: int = 40, d: int = 3, seed: int = 0, sigma0: float = 1.3) -> LogisticRegressionModel:
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.standard_normal((N, d - 1)), np.ones((N, 1))])
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    return LogisticRegressionModel(X, y, sigma0=sigma0)


@pytest.fixture(scope="module")
def paper():
    return LogisticRegressionModel.paper_synthetic()


# ---------------------------------------------------------------- model: gradients, covariance, bounds

def brute_log_lik_terms(model, theta):
    """log sigma(y_i x_i^T theta_m) for every datum, (M, N), with scipy."""
    return log_expit((theta @ model.X.T) * model.y)


@pytest.mark.parametrize("d", [1, 3, 12])
def test_gradients_match_finite_differences(d):
    model = small_model(N=30, d=d, seed=d)
    rng = np.random.default_rng(1)
    theta = rng.normal(scale=0.7, size=(4, d))
    eps = 1e-6
    fd_post = np.empty_like(theta)
    fd_each = np.empty((model.n_data, 4, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = eps
        fd_post[:, j] = (model.log_post(theta + e) - model.log_post(theta - e)) / (2 * eps)
        fd_each[:, :, j] = ((brute_log_lik_terms(model, theta + e) - brute_log_lik_terms(model, theta - e))
                            / (2 * eps)).T
    np.testing.assert_allclose(model.grad_log_post(theta), fd_post, rtol=1e-6, atol=1e-6)
    lp, g = model.log_post_and_grad(theta)
    np.testing.assert_allclose(lp, model.log_post(theta), **EXACT)
    np.testing.assert_allclose(g, model.grad_log_post(theta), **EXACT)
    np.testing.assert_allclose(model.log_lik_full(theta), brute_log_lik_terms(model, theta).sum(1), rtol=1e-12)
    # per-datum gradients for arbitrary (n, M) indices, narrow integer dtype, repeated indices
    idx = rng.integers(0, model.n_data, size=(7, 4)).astype(np.int16)
    per = model.grad_log_lik(theta, idx)
    assert per.shape == (7, 4, d)
    want = np.stack([fd_each[idx[:, m], m, :] for m in range(4)], axis=1)
    np.testing.assert_allclose(per, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.grad_log_lik_sum(theta, idx), per.sum(0), **EXACT)
    full = np.broadcast_to(np.arange(model.n_data)[:, None], (model.n_data, 4))
    np.testing.assert_allclose(model.grad_log_lik_full(theta), model.grad_log_lik(theta, full).sum(0), **EXACT)


def test_per_datum_grad_cov_and_hessian_brute_force():
    model = small_model(N=25, d=3, seed=5)
    theta = np.random.default_rng(2).normal(size=(3, 3))
    full = np.broadcast_to(np.arange(model.n_data)[:, None], (model.n_data, 3))
    per = model.grad_log_lik(theta, full)
    for m in range(3):
        np.testing.assert_allclose(model.per_datum_grad_cov(theta)[m], np.cov(per[:, m, :].T, bias=True), **EXACT)
    # -Hessian by finite differences of the gradient; the Lipschitz bound dominates it everywhere
    eps = 1e-6
    H = model.neg_hessian_log_post(theta)
    for j in range(3):
        e = np.zeros(3)
        e[j] = eps
        col = -(model.grad_log_post(theta + e) - model.grad_log_post(theta - e)) / (2 * eps)
        np.testing.assert_allclose(H[:, :, j], col, rtol=1e-6, atol=1e-6)
    assert model.grad_lipschitz >= np.linalg.eigvalsh(H).max()
    assert model.grad_lipschitz == pytest.approx(1 / 1.3**2 + np.linalg.eigvalsh(model.X.T @ model.X)[-1] / 4)


def test_sigmoid_helpers_are_accurate_and_overflow_free():
    x = np.concatenate([np.linspace(-800, 800, 20001), [-1e300, 1e300]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        a, b = sigmoid_neg(x), log_sigmoid(x)
    np.testing.assert_allclose(a, expit(-x), rtol=0, atol=3e-16)
    np.testing.assert_allclose(b, log_expit(x), rtol=1e-14, atol=1e-15)


def test_paper_synthetic_design(paper):
    assert (paper.n_data, paper.dim) == (1000, 3)
    np.testing.assert_array_equal(paper.X[:, 2], 1.0)
    assert set(np.unique(paper.y)) == {-1.0, 1.0}
    again = LogisticRegressionModel.paper_synthetic()
    np.testing.assert_array_equal(again.y, paper.y)
    mode = paper.posterior_mode()
    np.testing.assert_allclose(paper.grad_log_post(mode[None, :]), 0.0, atol=1e-9)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize(("make", "name"), [
    (lambda: LogisticRegressionModel(np.ones((3, 2)), np.array([0.0, 1.0, 1.0])), "y"),
    (lambda: LogisticRegressionModel(np.ones((3, 2)), np.array([1.0, -1.0])), "y"),
    (lambda: LogisticRegressionModel(np.ones(3), np.array([1.0, -1.0, 1.0])), "X"),
    (lambda: LogisticRegressionModel(np.array([[1.0, np.nan], [0, 1]]), np.array([1.0, -1.0])), "X"),
    (lambda: LogisticRegressionModel(np.ones((2, 2)), np.array([1.0, np.nan])), "y"),
    (lambda: LogisticRegressionModel(np.ones((2, 2)), np.array([1.0, -1.0]), sigma0=0.0), "sigma0"),
    (lambda: LogisticRegressionModel.paper_synthetic(n_data=0), "n_data"),
    (lambda: LogisticRegressionModel.paper_synthetic(beta_true=[1.0, np.inf]), "beta_true"),
    (lambda: small_model().check_theta(np.zeros((4, 2))), "theta"),
    (lambda: sgld(small_model(), 0.01, 1).init(np.full((2, 3), np.nan), np.random.default_rng()), "theta0"),
    (lambda: msgld_estimated_cov(small_model(), 0.01, 1), "n"),
    (lambda: msgld_estimated_cov(small_model(), 0.01, 5, cov_multiplier=-1.0), "cov_multiplier"),
    (lambda: estimated_covariance(np.ones((1, 2, 3)), 10, False), "n"),
    (lambda: posterior_moments_quadrature(small_model(d=4)), "dim"),
    (lambda: posterior_moments_quadrature(small_model(), order=2), "order"),
    (lambda: mala(small_model().log_post_and_grad, np.zeros((2, 3)), 0.1, 5, np.random.default_rng(),
                  precond=np.eye(2)), "precond"),
    (lambda: mala(small_model().log_post_and_grad, np.zeros((2, 3)), -0.1, 5, np.random.default_rng()), "h"),
    (lambda: standardise_with_intercept(np.ones((5, 2))), "features"),
])
def test_bad_input_names_the_parameter(make, name):
    with pytest.raises(ParameterError, match=name):
        make()


# ---------------------------------------------------------------- Remark 7: exact unbiasedness by enumeration

@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("which", ["logistic", "gaussian"])
def test_remark7_covariance_is_unbiased_by_enumeration(which, replace):
    N, n = 7, 3
    if which == "logistic":
        model = small_model(N=N, d=2, seed=3)
        theta = np.array([[0.4, -0.3]])
    else:
        model = GaussianMeanModel.simulate_data(N, theta_true=[0.5, -1.0], dim=2, seed=4)
        theta = np.array([[0.2, 0.1]])
    if replace:  # every ordered n-tuple, equally likely
        cols = list(itertools.product(range(N), repeat=n))
    else:  # every n-subset, equally likely
        cols = list(itertools.combinations(range(N), n))
    idx = np.array(cols, dtype=np.int16).T  # (n, K)
    K = idx.shape[1]
    th = np.repeat(theta, K, axis=0)
    per = model.grad_log_lik(th, idx)
    cov_hat = estimated_covariance(per, N, replace)  # (K, d, d)
    g = model.grad_log_prior(th) + per.sum(0) * (N / n)
    exact = Minibatch(n, replace).noise_cov(model, theta)
    exact = exact[0] if exact.ndim == 3 else exact
    np.testing.assert_allclose(cov_hat.mean(0), exact, **EXACT)
    np.testing.assert_allclose(np.cov(g.T, bias=True), exact, **EXACT)  # the covariance it estimates
    np.testing.assert_allclose(g.mean(0), model.grad_log_post(theta)[0], **EXACT)
    assert covariance_factor(N, n, replace) == (N * N / n if replace else N * (N - n) / n)


def test_estimator_state_carries_covhat_of_the_same_minibatch(paper):
    est = EstimatedCovMinibatch(20)
    theta = np.tile(paper.posterior_mode(), (6, 1))
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    g, state = est.estimate(paper, theta, est.init(paper, 6, rng_a), rng_a)
    g_ref, _ = Minibatch(20).estimate(paper, theta, None, rng_b)
    np.testing.assert_allclose(g, g_ref, **EXACT)  # same draws, same gradient as Minibatch
    assert state.cov.shape == (6, 3, 3)
    np.testing.assert_allclose(state.cov, np.swapaxes(state.cov, 1, 2), **EXACT)
    assert np.all(np.linalg.eigvalsh(state.cov) > -1e-9)
    # with the plain Sampler the estimator keeps noise_cov = the exact Cov(g): exact-covariance mSGLD
    np.testing.assert_allclose(est.noise_cov(paper, theta), Minibatch(20).noise_cov(paper, theta), **EXACT)


def test_estimated_cov_sampler_coupling_and_limits(paper):
    h = 0.002
    # n = N: Covhat = 0, so Remark 7 mSGLD is Euler = SGLD with n = N, draw for draw
    a = run(msgld_estimated_cov(paper, h, paper.n_data), 8, 5, seed=3, theta0=[1.0, -1.0, 0.5])
    b = run(sgld(paper, h, paper.n_data), 8, 5, seed=3, theta0=[1.0, -1.0, 0.5])
    np.testing.assert_allclose(a.final, b.final, rtol=1e-13, atol=1e-13)
    # same seed, n < N: the same minibatches drive SGLD, exact mSGLD and Remark 7 mSGLD, so they stay close
    runs = {k: run(s, 200, 1, seed=4, theta0=[1.2, -1.0, 0.56], record_at=[1], test_functions=()).snapshots[1]
            for k, s in {"sgld": sgld(paper, h, 50), "exact": msgld(paper, h, 50),
                         "covhat": msgld_estimated_cov(paper, h, 50)}.items()}
    step = np.abs(runs["sgld"] - np.array([1.2, -1.0, 0.56])).mean()
    assert np.abs(runs["exact"] - runs["covhat"]).mean() < 0.2 * step


def test_small_minibatch_instability_is_allowed(paper):
    """I - (h/8) Covhat loses positive definiteness for small n (the paper's instability): it runs, no error."""
    h = 0.002
    est = EstimatedCovMinibatch(10)
    theta = np.tile(paper.posterior_mode(), (2000, 1))
    _, st = est.estimate(paper, theta, None, np.random.default_rng(1))
    assert nonpositive_fraction(st.cov, h) > 0.5
    _, st150 = EstimatedCovMinibatch(150).estimate(paper, theta, None, np.random.default_rng(1))
    assert nonpositive_fraction(st150.cov, h) == 0.0
    res = run(msgld_estimated_cov(paper, h, 10), 50, 200, seed=2, theta0=paper.posterior_mode())
    assert np.all(np.isfinite(res.time_averages["theta"]))


# ---------------------------------------------------------------- reference: quadrature and MALA

def test_quadrature_matches_scipy_quad_in_one_dimension():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 1)) + 0.3
    y = np.where(rng.random(60) < expit(0.8 * X[:, 0]), 1.0, -1.0)
    model = LogisticRegressionModel(X, y, sigma0=2.0)
    lp = lambda b: float(model.log_post(np.array([[b]]))[0])  # noqa: E731
    c = lp(model.posterior_mode()[0])
    Z = integrate.quad(lambda b: math.exp(lp(b) - c), -10, 10, epsabs=0, epsrel=1e-13, limit=200)[0]
    m1 = integrate.quad(lambda b: b * math.exp(lp(b) - c), -10, 10, epsabs=0, epsrel=1e-13, limit=200)[0] / Z
    m2 = integrate.quad(lambda b: b * b * math.exp(lp(b) - c), -10, 10, epsabs=0, epsrel=1e-13, limit=200)[0] / Z
    q = posterior_moments_quadrature(model, 16)
    assert q.mean_error < 1e-10
    np.testing.assert_allclose(q.mean[0], m1, rtol=1e-9)
    np.testing.assert_allclose(q.second[0, 0], m2, rtol=1e-9)


def test_mala_targets_the_gaussian_posterior_exactly():
    """MALA on the conjugate Gaussian model (known posterior); tolerance 4.5 s.e. across independent chains."""
    model = GaussianMeanModel.simulate_data(20, theta_true=[1.0, -0.5], dim=2, seed=11)
    mu, var = model.posterior_mean, model.posterior_var

    def lpg(theta):
        return -0.5 * ((theta - mu) ** 2).sum(1) / var, model.grad_log_post(theta)

    rng = np.random.default_rng(12)
    M = 4000
    res = mala(lpg, np.zeros((M, 2)), 3.0 * var, 60, rng, burn_in=40)  # big steps: MH must correct them
    assert 0.2 < res.acceptance < 0.95
    m = res.time_averages.mean(0)
    se = res.time_averages.std(0, ddof=1) / math.sqrt(M)
    assert np.all(np.abs(m - mu) < 4.5 * se)
    v = res.time_averages_sq.mean(0) - m**2
    se_v = res.time_averages_sq.std(0, ddof=1) / math.sqrt(M) * 2
    assert np.all(np.abs(v - var) < 4.5 * se_v)


def test_mala_reference_agrees_with_quadrature(paper):
    q = posterior_moments_quadrature(paper, 12)
    r = mala_reference(paper, 400, 60, seed=5, burn_in=10)
    se = r.time_averages.std(0, ddof=1) / math.sqrt(400)
    assert np.all(np.abs(r.time_averages.mean(0) - q.mean) < 4.5 * se)


def test_control_variate_has_the_plain_expectation_and_far_smaller_variance(paper):
    r = laplace_cv_run(sgld(paper, 0.002, 50), 150, 200, burn_in=60, seed=3)
    M = r.plain.shape[0]
    se_plain = r.plain.std(0, ddof=1) / math.sqrt(M)
    se_cv = r.cv.std(0, ddof=1) / math.sqrt(M)
    assert np.all(se_cv < se_plain / 5)
    diff = r.plain - r.cv  # = linear - mode: expectation exactly 0
    assert np.all(np.abs(diff.mean(0)) < 4.5 * diff.std(0, ddof=1) / math.sqrt(M))
    np.testing.assert_allclose(r.mode, paper.posterior_mode())


# ---------------------------------------------------------------- real data set

def test_breast_cancer_design_and_model():
    X, y = breast_cancer_design()
    assert X.shape == (569, 31) and y.shape == (569,)
    assert set(np.unique(y)) == {-1.0, 1.0}
    np.testing.assert_allclose(X[:, :30].mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X[:, :30].std(0), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(X[:, 30], 1.0)
    model = breast_cancer_model()
    mode = model.posterior_mode()
    np.testing.assert_allclose(model.grad_log_post(mode[None, :]), 0.0, atol=1e-8)
    assert np.mean(np.sign(X @ mode) == y) > 0.95  # the fit separates the classes


# ---------------------------------------------------------------- Figure 7 helper

@pytest.mark.slow
def test_figure7_curves_shapes_and_start():
    from verify.claims.vollmer._logistic_runs import figure7_curves, paper_model

    out = figure7_curves(ns=(1000, 10), n_runs=5, n_iter=50, n_points=6, seed=1)
    ks = out["iterations"]
    assert ks[0] == 1 and ks[-1] == 50
    mu = out["reference"]
    for key, v in out["mse"].items():
        assert v.shape == ks.shape
        np.testing.assert_allclose(v[0], mu @ mu, **EXACT)  # K = 1: the average is theta_0 = 0
        assert out["se"][key][0] == 0.0
    np.testing.assert_allclose(out["passes"][10], ks * 10 / paper_model().n_data)
    with pytest.raises(ParameterError, match="n_runs"):
        figure7_curves(n_runs=1)


# ---------------------------------------------------------------- claims: verdicts, and a planted bug

SMALL = Settings(chains=400, seed=3, alpha=0.01)


@pytest.mark.slow
def test_section7_claims_verdicts_on_correct_code():
    rows = run_claims(select(ids=CLAIM_IDS), SMALL)
    v = {c.id: verdict(c, r) for c, r in rows}
    assert v["vollmer.sec7.reference"] == "holds"
    assert v["vollmer.sec7.sgld_bias_vs_n"] == "holds"
    assert v["vollmer.rem7.estimated_covariance"] == "holds"
    # the paper's "mSGLD worse than SGLD for n = 50" is shown under reading A (eq. (9) as printed) and contradicted
    # under reading B (eq. (54) with the Remark 7 covariance divided by 4); reading A's n = 150 is a tie
    # (inconclusive, never "holds")
    assert v["vollmer.sec7.msgld_vs_sgld"] == "depends on reading"
    assert all(as_expected(c, r) for c, r in rows)
    res = dict((c.id, r) for c, r in rows)["vollmer.sec7.msgld_vs_sgld"]
    outcome = {(c.part, c.label.split(":")[0]): c.outcome for c in res.checks}
    assert outcome[("B", "n=50")] == "fails" and outcome[("A", "n=50")] == "holds"
    assert outcome[("A", "n=150")] == "inconclusive" and outcome[("B", "n=150")] == "holds"


@pytest.mark.slow
def test_planted_bug_minibatch_scale_dropped_is_reported(monkeypatch):
    monkeypatch.setattr(est_mod.Minibatch, "scale", lambda self, model: 1.0)
    rows = run_claims(select(ids=["vollmer.rem7.estimated_covariance"]), SMALL)
    (claim, res), = rows
    assert verdict(claim, res) == "fails"
    assert any(c.rejected and "E g[" in c.label for c in res.checks)


def test_planted_bug_labels_flipped_in_the_full_gradient_is_reported(monkeypatch):
    def flipped(self, theta):
        return sigmoid_neg(-(theta @ self._Z.T)) @ (-self._Z)

    monkeypatch.setattr(LogisticRegressionModel, "grad_log_lik_full", flipped)
    rows = run_claims(select(ids=["vollmer.sec7.reference"]), SMALL)
    (claim, res), = rows
    assert verdict(claim, res) == "fails"
