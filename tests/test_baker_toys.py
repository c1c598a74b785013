"""Baker et al. Sec. 3 toys: models, divide-and-conquer combiners, k-NN KL, exact SG laws, planted bugs."""

from __future__ import annotations

import numpy as np
import pytest

import simulate.analysis.divide_conquer as dc
from simulate.analysis.kl import gaussian_kl, knn_kl_divergence
from simulate.models import BivariateTLocation, GaussianMeanModel, GaussianMixtureLocation, WarpedGaussian
from simulate.models.scalar_mixture import ScalarMixtureLocation
from simulate.samplers import sghmc, sgld
from simulate.validation import ParameterError
from theory import exact_law
from theory.noise.minibatch import minibatch_noise_cov
from verify.harness import run_claims
from verify.mutants import load_mutants
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)

MODELS = {
    "t": lambda: BivariateTLocation.simulate_data(200, seed=1),
    "mixture": lambda: GaussianMixtureLocation.simulate_data(300, seed=1),
    "scalar_mixture": lambda: ScalarMixtureLocation.simulate_data(300, seed=1),
    "warped": lambda: WarpedGaussian.simulate_data(200, seed=1),
    "gauss": lambda: GaussianMeanModel.simulate_data(200, dim=3, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(3),
                                                     sigma0=2.0, seed=1),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_gradients_match_finite_differences(name):
    model = MODELS[name]()
    rng = np.random.default_rng(0)
    theta = model.init_draws(rng, (3,), model.data)
    lp, g = model.log_post_and_grad(theta)
    eps = 1e-6
    for j in range(model.dim):
        e = np.zeros(model.dim)
        e[j] = eps
        fd = (model.log_post_and_grad(theta + e)[0] - model.log_post_and_grad(theta - e)[0]) / (2 * eps)
        np.testing.assert_allclose(g[:, j], fd, rtol=1e-5, atol=1e-4)
    # the Model interface agrees with the log density
    np.testing.assert_allclose(model.grad_log_post(theta), g, rtol=1e-10, atol=1e-8)


def test_data_reproducible_and_validated():
    a = WarpedGaussian.simulate_data(50, seed=3).data
    b = WarpedGaussian.simulate_data(50, seed=3).data
    assert np.array_equal(a, b)
    with pytest.raises(ParameterError, match="nu"):
        BivariateTLocation.simulate_data(10, nu=-1.0)
    with pytest.raises(ParameterError, match="Sigma"):
        GaussianMeanModel(np.zeros((5, 2)), Sigma=np.array([[1.0, 2.0], [2.0, 1.0]]), sigma0=None)
    with pytest.raises(ParameterError, match="theta_true"):
        GaussianMixtureLocation.simulate_data(10, theta_true=(0.0, 1.0))
    with pytest.raises(ParameterError, match="S must divide"):
        dc.split(10, 3)
    with pytest.raises(ParameterError, match="accept"):
        dc.weierstrass(np.zeros((2, 1, 5, 1)), np.random.default_rng(0), accept=2.0)
    with pytest.raises(ParameterError, match="method"):
        dc.subposterior_draws(MODELS["t"](), 4, 1, 10, np.random.default_rng(0), method="exact")


def test_consensus_algebra_gaussian():
    """With the exact covariances, consensus of exact subposterior draws has the posterior mean and covariance."""
    model = GaussianMeanModel.simulate_data(120, dim=2, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(2), sigma0=0.3,
                                            seed=2)
    rng = np.random.default_rng(1)
    sizes = [10, 20, 30, 60]
    draws = dc.subposterior_draws(model, 4, 50, 400, rng, sizes=sizes)
    blocks = dc.split(120, 4, sizes)
    covs = np.stack([model.tempered_posterior(len(b), model.data[b].sum(0), 0.25)[1] for b in blocks])
    comb = dc.consensus(draws, covs).reshape(-1, 2)
    mean, cov = model.posterior_mean, model.posterior_cov
    se = np.sqrt(np.diag(cov) / comb.shape[0])
    assert np.all(np.abs(comb.mean(0) - mean) < 5 * se)
    np.testing.assert_allclose(np.cov(comb.T), cov, rtol=0.05)


def test_warped_exact_draws_match_quadrature():
    model = WarpedGaussian.simulate_data(400, seed=5)
    d = model.exact_draws(np.random.default_rng(2), (40000,), float(model.data.mean()), 400)
    m2 = model.posterior_moment_theta2_sq()
    v = (d[:, 1] ** 2).var() / d.shape[0]
    assert abs((d[:, 1] ** 2).mean() - m2) < 5 * np.sqrt(v)


def test_mixture_mala_reference_is_label_symmetric():
    model = GaussianMixtureLocation.simulate_data(400, seed=4)
    ref = dc.reference_draws(model, 400, seed=3, chains=20, n_burn=100, thin=1)
    assert abs(ref[:, :2].mean() - ref[:, 2:].mean()) < 0.3


def test_scalar_mixture_log_post_cluster_means_and_labels():
    model = ScalarMixtureLocation.simulate_data(300, seed=2)
    th = np.random.default_rng(0).standard_normal((7, 2))
    np.testing.assert_allclose(model.log_post(th) - model.log_post(th[:1]),
                               model.log_post_and_grad(th)[0] - model.log_post_and_grad(th[:1])[0], atol=1e-9)
    np.testing.assert_allclose(model.log_post(th), model.log_post(model.swap_labels(th)), atol=1e-9)
    x = np.sort(model.data[:, 0])  # exact 1-D 2-means against brute force over every split
    sse = [((x[:j] - x[:j].mean()) ** 2).sum() + ((x[j:] - x[j:].mean()) ** 2).sum() for j in range(1, x.size)]
    j = int(np.argmin(sse)) + 1
    np.testing.assert_allclose(model.cluster_means().ravel(), [x[:j].mean(), x[j:].mean()])


def test_mixture_exact_reference():
    """The grid cubature of one label mode: draws agree with its mean, both labels equally, error << s.e."""
    from verify.claims.baker.mixture import mixture_reference

    model = ScalarMixtureLocation.simulate_data(1000, seed=4)
    ref = mixture_reference(model, 3)
    assert ref.error < 1e-6 and ref.between < 1e-6
    np.testing.assert_allclose(ref.b, ref.a[::-1])
    d = ref.draws
    in_a = d[:, 0] < d[:, 1]
    assert abs(in_a.mean() - 0.5) < 5 * 0.5 / np.sqrt(d.shape[0])
    se = d[in_a].std(0) / np.sqrt(in_a.sum())
    assert np.all(np.abs(d[in_a].mean(0) - ref.a) < 5 * se)


def test_kdemc_and_weierstrass_shapes_and_location():
    model = GaussianMeanModel.simulate_data(400, dim=2, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(2), sigma0=None,
                                            seed=6)
    rng = np.random.default_rng(0)
    draws = dc.subposterior_draws(model, 4, 3, 200, rng)
    mean, cov = model.posterior_mean, model.posterior_cov
    for out in (dc.kdemc(draws, rng, 200), dc.weierstrass(draws, rng, accept=0.2)):
        assert out.shape == (3, 200, 2)
        assert np.all(np.abs(out.mean(axis=(0, 1)) - mean) < 5 * np.sqrt(np.diag(cov)))


def test_knn_kl_estimator():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3000, 2)), rng.standard_normal((3000, 2))
    assert abs(knn_kl_divergence(x, y, 5)) < 0.05
    assert gaussian_kl(np.zeros(2), np.eye(2), np.zeros(2), np.eye(2)) == pytest.approx(0.0)
    assert gaussian_kl(0.0, 1.0, 1.0, 1.0) == pytest.approx(0.5)
    with pytest.raises(ParameterError, match="k must"):
        knn_kl_divergence(x[:3], y, 5)


def test_sg_theory_limits():
    """n = N: no minibatch noise, SGLD is ULA with V = (I - hP/4)^{-1} P^{-1} (commuting case, exact)."""
    model = GaussianMeanModel.simulate_data(100, dim=2, theta_true=0.0, Sigma=np.eye(2), sigma0=None, seed=1)
    h = 0.01
    V = exact_law(sgld(model, h, 100)).stationary_cov()
    np.testing.assert_allclose(V, np.eye(2) / (100 * (1 - h * 100 / 4)), rtol=1e-12)
    # SGHMC without resampling, no minibatch noise, alpha = 1: v' = h g + sqrt(2h) xi, theta' = theta + v' is ULA
    # with step 2h in the workbench convention
    Vh = exact_law(sghmc(model, h, 1.0, n=100)).stationary_cov()
    np.testing.assert_allclose(Vh, exact_law(sgld(model, 2 * h, 100)).stationary_cov(), rtol=1e-10)


def _iterate_cov(data, Sigma, h, alpha, n, L, cycles=4000):
    """Brute force: iterate the joint (theta, v) covariance step by step with v redrawn every L steps."""
    N, d = data.shape
    P = N * np.linalg.inv(Sigma)
    Q = minibatch_noise_cov(data @ np.linalg.inv(Sigma), n)  # g_i = Sigma^-1 (x_i - theta): theta-free noise
    eye = np.eye(d)
    F = np.block([[eye - h * P, (1 - alpha) * eye], [-h * P, (1 - alpha) * eye]])
    W = h * h * Q + 2 * alpha * h * eye
    Nz = np.block([[W, W], [W, W]])
    C = np.zeros((2 * d, 2 * d))
    for _ in range(cycles):
        C[:d, d:] = 0.0
        C[d:, :d] = 0.0
        C[d:, d:] = h * eye
        for _ in range(L):
            C = F @ C @ F.T + Nz
    return C[:d, :d]


def test_sghmc_cycle_lyapunov_matches_brute_force():
    model = GaussianMeanModel.simulate_data(200, dim=2, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(2), sigma0=None,
                                            seed=8)
    lam = float(np.linalg.eigvalsh(200 * model.P)[-1])
    h, alpha = 0.2 / lam, 0.3
    V = exact_law(sghmc(model, h, alpha, n=20, resample_every=3)).stationary_cov(phase=0)  # just after a redraw
    np.testing.assert_allclose(V, _iterate_cov(model.data, model.Sigma, h, alpha, 20, 3), rtol=1e-9)


@pytest.mark.slow
def test_default_claims_hold():
    ids = [c.id for c in select(papers=["baker"]) if c.id.startswith("baker.sec3.") and not c.out_of_scope]
    rows = run_claims(select(ids=ids), FAST)
    assert {c.id: verdict(c, r) for c, r in rows} == {i: "holds" for i in ids}


MUTANTS = {k: m for k, m in load_mutants().items() if k.startswith("baker_toys.")}


@pytest.mark.parametrize("mid", sorted(MUTANTS))
def test_planted_bug_is_caught(mid):
    m = MUTANTS[mid]
    with m.patch():
        rows = run_claims(select(ids=list(m.claims)), FAST)
    verdicts = {c.id: verdict(c, r) for c, r in rows}
    assert all(v == "fails" for v in verdicts.values()), f"{mid}: {verdicts}"
