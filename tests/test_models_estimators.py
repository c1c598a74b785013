"""Models, gradient estimators (checked exactly by enumerating every minibatch), validation, conventions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import simulate
import theory
from simulate import (
    FullGradient,
    GaussianMeanModel,
    Minibatch,
    ParameterError,
    euler,
    from_chen_step,
    msgld,
    run,
    sgld,
    to_chen_step,
)
from simulate.models import ModelBase

EXACT = dict(rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- GaussianMeanModel

@pytest.mark.parametrize("dim", [1, 3])
@pytest.mark.parametrize(("sx", "st"), [(1.0, 1.0), (0.7, 2.5)])
def test_posterior_closed_form(dim, sx, st):
    rng = np.random.default_rng(dim)
    x = rng.normal(1.5, sx, size=(23, dim))
    model = GaussianMeanModel(x, sigma_x=sx, sigma0=st)
    N = 23
    var = 1.0 / (1.0 / st**2 + N / sx**2)  # eq. (12)
    mean = x.sum(0) / sx**2 * var
    assert model.n_data == N and model.dim == dim
    np.testing.assert_allclose(model.posterior_var, var, **EXACT)
    np.testing.assert_allclose(model.posterior_mean, mean, **EXACT)
    np.testing.assert_allclose(model.A, 0.5 * (1 / st**2 + N / sx**2), **EXACT)
    assert model.grad_lipschitz == pytest.approx(2 * model.A, rel=1e-15)
    # The gradient of log posterior vanishes at the posterior mean and is -(theta - mu)/var (Gaussian).
    np.testing.assert_allclose(model.grad_log_post(mean[None, :]), 0.0, atol=1e-12 * np.abs(x).sum() / sx**2)
    th = rng.normal(size=(5, dim))
    np.testing.assert_allclose(model.grad_log_post(th), -(th - mean) / var, **EXACT)
    # And it is the prior term plus the sum of the per-datum terms.
    per = (x[:, None, :] - th[None, :, :]) / sx**2
    np.testing.assert_allclose(model.grad_log_post(th), -th / st**2 + per.sum(0), **EXACT)


def test_one_dimensional_data_is_a_column():
    m1 = GaussianMeanModel(np.array([0.1, 0.5, -0.3]))
    m2 = GaussianMeanModel(np.array([[0.1], [0.5], [-0.3]]))
    assert m1.data.shape == (3, 1) and m1.dim == 1
    np.testing.assert_array_equal(m1.posterior_mean, m2.posterior_mean)


def test_simulate_data_is_seeded():
    a = GaussianMeanModel.simulate_data(30, theta_true=[1.0, 2.0], dim=2, seed=4)
    b = GaussianMeanModel.simulate_data(30, theta_true=[1.0, 2.0], dim=2, seed=4)
    c = GaussianMeanModel.simulate_data(30, theta_true=[1.0, 2.0], dim=2, seed=5)
    np.testing.assert_array_equal(a.data, b.data)
    assert a.data.shape == (30, 2)
    assert not np.array_equal(a.data, c.data)


@pytest.mark.parametrize("dim", [1, 3])
def test_grad_sum_paths_agree(dim):
    """GaussianMeanModel's fast sums equal the generic Model implementations (per-datum grads summed)."""
    model = GaussianMeanModel.simulate_data(40, theta_true=np.arange(dim) * 0.5, sigma_x=1.7, dim=dim, seed=2)
    rng = np.random.default_rng(0)
    th = rng.normal(size=(11, dim))
    for n in (1, 6, 40):
        idx = rng.integers(0, 40, size=(n, 11))
        per = model.grad_log_lik(th, idx)
        assert per.shape == (n, 11, dim)
        np.testing.assert_allclose(model.grad_log_lik_sum(th, idx), per.sum(0), **EXACT)
        np.testing.assert_allclose(model.grad_log_lik_sum(th, idx), ModelBase.grad_log_lik_sum(model, th, idx), **EXACT)
    np.testing.assert_allclose(model.grad_log_lik_full(th), ModelBase.grad_log_lik_full(model, th), **EXACT)
    np.testing.assert_allclose(model.grad_log_post(th), ModelBase.grad_log_post(model, th), **EXACT)
    # per_datum_grad_cov: the theta-free override equals the generic per-chain computation.
    generic = ModelBase.per_datum_grad_cov(model, th)
    assert generic.shape == (11, dim, dim)
    for m in range(11):
        np.testing.assert_allclose(generic[m], model.per_datum_grad_cov(), **EXACT)


# ---------------------------------------------------------------- estimators, by exhaustive enumeration

N_SMALL, n_SMALL = 8, 3


def _small_model(sigma_x=0.8, sigma0=1.9):
    x = np.array([0.3, -1.2, 2.5, 0.9, 0.0, -0.4, 1.7, 3.1])
    assert x.size == N_SMALL
    return GaussianMeanModel(x, sigma_x=sigma_x, sigma0=sigma0)


def _all_estimates(model, est, theta, batches):
    """The estimate for every minibatch in ``batches`` (each equally likely), shape (K, M, d)."""
    out = []
    for b in batches:
        idx = np.broadcast_to(np.asarray(b)[:, None], (len(b), theta.shape[0]))
        g = model.grad_log_lik_sum(theta, idx) * est.scale(model) + model.grad_log_prior(theta)
        out.append(g)
    return np.array(out)


def _moments(gs):
    mean = gs.mean(0)
    c = gs - mean
    return mean, np.einsum("kmi,kmj->mij", c, c) / gs.shape[0]


@pytest.mark.parametrize("replace", [False, True])
def test_minibatch_exact_by_enumeration(replace):
    model = _small_model()
    est = Minibatch(n_SMALL, replace)
    theta = np.array([[-0.5], [0.0], [1.3]])
    if replace:
        batches = list(itertools.product(range(N_SMALL), repeat=n_SMALL))
        assert len(batches) == N_SMALL**n_SMALL
    else:
        batches = list(itertools.combinations(range(N_SMALL), n_SMALL))
        assert len(batches) == 56
    mean, cov = _moments(_all_estimates(model, est, theta, batches))
    # Unbiased for the full gradient, at every theta.
    np.testing.assert_allclose(mean, model.grad_log_post(theta), **EXACT)
    # Exact covariance: (N^2 / n) S f, S = population covariance of the per-datum gradients.
    S = np.var(model.data[:, 0]) / model.sigma_x**4
    f = 1.0 if replace else (N_SMALL - n_SMALL) / (N_SMALL - 1)
    expect = N_SMALL**2 / n_SMALL * S * f
    for m in range(theta.shape[0]):
        np.testing.assert_allclose(cov[m], est.noise_cov(model), **EXACT)
        np.testing.assert_allclose(cov[m, 0, 0], expect, **EXACT)
    assert est.finite_population_factor(model) == pytest.approx(f, rel=1e-15)
    # Var(g) = 4 Var(B) (g = -2 A theta + 2 B on the toy model), with Var(B) from eq. (16).
    c = theory.toy_constants(model.data, n_SMALL, replace, model.sigma_x, model.sigma0)
    np.testing.assert_allclose(cov[0, 0, 0], 4 * c.VB, **EXACT)
    np.testing.assert_allclose(mean[:, 0], -2 * c.A * theta[:, 0] + 2 * c.EB, **EXACT)


def test_minibatch_exact_by_enumeration_multivariate():
    """d = 2, without replacement: the full (non-diagonal) covariance matrix, all C(8, 3) subsets."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N_SMALL, 2)) @ np.array([[1.0, 0.6], [0.0, 0.7]])
    model = GaussianMeanModel(x, sigma_x=1.4)
    est = Minibatch(n_SMALL)
    theta = rng.normal(size=(2, 2))
    batches = list(itertools.combinations(range(N_SMALL), n_SMALL))
    mean, cov = _moments(_all_estimates(model, est, theta, batches))
    np.testing.assert_allclose(mean, model.grad_log_post(theta), **EXACT)
    xc = x - x.mean(0)
    S = xc.T @ xc / N_SMALL / 1.4**4
    expect = N_SMALL**2 / n_SMALL * (N_SMALL - n_SMALL) / (N_SMALL - 1) * S
    for m in range(2):
        np.testing.assert_allclose(cov[m], expect, **EXACT)
        np.testing.assert_allclose(cov[m], est.noise_cov(model), **EXACT)
    assert abs(expect[0, 1]) > 0.1


def test_minibatch_estimate_matches_its_draw():
    """Minibatch.estimate uses sample_indices on the same generator, then the model's gradient sum."""
    model = _small_model()
    theta = np.linspace(-1, 1, 9)[:, None]
    for replace in (False, True):
        est = Minibatch(n_SMALL, replace)
        g, state = est.estimate(model, theta, None, np.random.default_rng(4))
        assert state is None and g.shape == (9, 1)
        idx = simulate.estimators.subsample.sample_indices(np.random.default_rng(4), N_SMALL, n_SMALL, 9, replace)
        expect = model.grad_log_lik_sum(theta, idx) * N_SMALL / n_SMALL + model.grad_log_prior(theta)
        np.testing.assert_allclose(g, expect, **EXACT)


def test_minibatch_unbiased_monte_carlo():
    """The same facts for the sampled estimator (not the enumeration helper), with standard errors."""
    model = _small_model()
    M = 100_000
    theta = np.full((M, 1), 0.4)
    for replace in (False, True):
        est = Minibatch(n_SMALL, replace)
        g, _ = est.estimate(model, theta, None, np.random.default_rng(10 + replace))
        exact_mean = model.grad_log_post(theta[:1])[0, 0]
        exact_var = est.noise_cov(model)[0, 0]
        z_mean = (g.mean() - exact_mean) / (g.std(ddof=1) / np.sqrt(M))
        c = g[:, 0] - g.mean()
        z_var = (np.mean(c**2) - exact_var) / np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / M)
        assert abs(z_mean) < 4.5 and abs(z_var) < 4.5, (replace, z_mean, z_var)


def test_full_gradient_and_n_equals_N():
    model = _small_model()
    theta = np.array([[0.2], [-0.7]])
    g, _ = FullGradient().estimate(model, theta, None, np.random.default_rng(0))
    np.testing.assert_array_equal(g, model.grad_log_post(theta))
    np.testing.assert_array_equal(FullGradient().noise_cov(model), np.zeros((1, 1)))
    est = Minibatch(N_SMALL, False)
    g2, _ = est.estimate(model, theta, None, np.random.default_rng(0))
    np.testing.assert_allclose(g2, g, **EXACT)
    assert est.noise_cov(model)[0, 0] == 0.0
    assert theory.toy_constants(model.data, N_SMALL, False).VB == 0.0
    assert FullGradient().grads_per_step(model) == N_SMALL and est.grads_per_step(model) == N_SMALL


# ---------------------------------------------------------------- validation

@pytest.fixture(scope="module")
def model():
    return GaussianMeanModel.simulate_data(50, seed=1)


def test_bad_step_size(model):
    for h in (0.0, -0.1, np.nan, np.inf):
        with pytest.raises(ParameterError, match=r"\bh\b"):
            sgld(model, h, 5)
    h_max = 2.0 / model.A
    for make in (lambda h: sgld(model, h, 5), lambda h: msgld(model, h, 5), lambda h: euler(model, h)):
        with pytest.raises(ParameterError, match=r"\bh\b.*stab"):
            make(h_max)
        with pytest.raises(ParameterError, match=r"\bh\b"):
            make(1.5 * h_max)
        make(0.999 * h_max)  # just inside the bound is allowed


def test_bad_minibatch_size(model):
    for n in (0, -1, 51):
        with pytest.raises(ParameterError, match=r"\bn\b"):
            sgld(model, 0.01, n)
        with pytest.raises(ParameterError, match=r"\bn\b"):
            msgld(model, 0.01, n)
    with pytest.raises(ParameterError, match=r"\bn\b"):
        sgld(model, 0.01, 2.5)
    sgld(model, 0.01, 50)


def test_bad_replace(model):
    for bad in (1, 0, "yes", None):
        with pytest.raises(ParameterError, match="replace"):
            sgld(model, 0.01, 5, replace=bad)


def test_bad_model_inputs():
    with pytest.raises(ParameterError, match="sigma_x"):
        GaussianMeanModel(np.zeros(5), sigma_x=0.0)
    with pytest.raises(ParameterError, match="sigma_x"):
        GaussianMeanModel(np.zeros(5), sigma_x=-1.0)
    with pytest.raises(ParameterError, match="sigma0"):
        GaussianMeanModel(np.zeros(5), sigma0=0.0)
    with pytest.raises(ParameterError, match="data"):
        GaussianMeanModel(np.array([0.0, np.nan, 1.0]))
    with pytest.raises(ParameterError, match="data"):
        GaussianMeanModel(np.array([0.0, np.inf]))
    with pytest.raises(ParameterError, match="data"):
        GaussianMeanModel(np.zeros((2, 2, 2)))
    with pytest.raises(ParameterError, match="data"):
        GaussianMeanModel(np.zeros(0))
    with pytest.raises(ParameterError, match="n_data"):
        GaussianMeanModel.simulate_data(0)


def test_bad_run_inputs(model):
    s = sgld(model, 0.01, 5)
    with pytest.raises(ParameterError, match="n_chains"):
        run(s, 0, 10)
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 10, theta0=np.zeros((10, 3)))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 10, theta0=np.zeros((9, 1)))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 10, theta0=np.zeros(2))
    with pytest.raises(ParameterError, match="theta0"):
        run(s, 10, 10, theta0=lambda rng, m: np.zeros((m, 2)))
    with pytest.raises(ParameterError, match="test_functions"):
        run(s, 10, 10, test_functions=["theta", "cosine"])
    with pytest.raises(ParameterError, match="theta0"):
        s.init(np.array([[np.nan]]), np.random.default_rng(0))


def test_parameter_error_is_value_error():
    assert issubclass(ParameterError, ValueError)


def test_theory_rejects_bad_inputs(model):
    with pytest.raises(ParameterError, match="method"):
        theory.ToyChain("sgd", theory.toy_constants(model.data, 5), 0.01)
    c = theory.toy_constants(model.data, 5)
    with pytest.raises(ParameterError, match=r"\bh\b"):
        theory.ToyChain("sgld", c, 2.0 / c.A)
    with pytest.raises(ParameterError, match=r"\bn\b"):
        theory.toy_constants(model.data, 0)
    with pytest.raises(ParameterError, match="data"):
        theory.toy_constants(np.zeros((4, 2)), 2)


# ---------------------------------------------------------------- conventions

@pytest.mark.parametrize("eps", [1e-6, 0.003, 0.5, 7.0])
def test_chen_step_convention(eps):
    assert from_chen_step(eps) == 2 * eps
    assert to_chen_step(from_chen_step(eps)) == eps
    assert from_chen_step(to_chen_step(eps)) == eps


def test_chen_step_rejects_bad_values():
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ParameterError, match="eps"):
            from_chen_step(bad)
        with pytest.raises(ParameterError, match=r"\bh\b"):
            to_chen_step(bad)


def test_chen_convention_same_map():
    """theta + eps g + sqrt(2 eps) xi with eps = h/2 is the workbench step theta + (h/2) g + sqrt(h) xi."""
    model = _small_model()
    h = 0.05
    eps = to_chen_step(h)
    th = np.array([[0.3]])
    xi = np.array([[0.77]])
    chen = th + eps * model.grad_log_post(th) + np.sqrt(2 * eps) * xi
    s = euler(model, h)
    work = th.copy()
    s.integrator.update(work, model.grad_log_post(th), xi.copy(), h, s._noise)
    np.testing.assert_allclose(work, chen, **EXACT)


def test_langevin_update_one_pass_equals_the_numpy_sequence():
    """Langevin.update's numba pass gives the bits of grad *= h/2; theta += grad; xi *= s; theta += xi, for
    contiguous and strided states (the latter takes the numpy path)."""
    from simulate.integrators.langevin import Langevin

    rng = np.random.default_rng(5)
    for shape in ((1000, 20), (37, 1), (5, 3)):
        th, g, xi = rng.standard_normal(shape), rng.standard_normal(shape) * 1e3, rng.standard_normal(shape)
        want = th.copy()
        g2, x2 = g * (0.5 * 0.013), xi * 0.3
        want += g2
        want += x2
        got = th.copy()
        Langevin().update(got, g.copy(), xi.copy(), 0.013, 0.3)
        np.testing.assert_array_equal(got, want)
        strided = np.asfortranarray(th)
        Langevin().update(strided, g.copy(), xi.copy(), 0.013, 0.3)
        np.testing.assert_array_equal(strided, want)
