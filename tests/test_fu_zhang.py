"""Fu & Zhang CP-SG-MCMC: strata, allocation, the stratified estimator, theory, SGRLD and the ArviZ export."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp

from simulate.analysis.inference_data import ess, to_inference_data
from simulate.estimators.allocation import allocate, continuous_allocation
from simulate.estimators.minibatch import Minibatch
from simulate.estimators.strata import Strata, kmeans_strata
from simulate.estimators.stratified import Stratified, stratified_estimator
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.models.gaussian import GaussianMeanModel
from simulate.models.lda import LDAModel, document_strata, synthetic_lda_corpus, topic_error
from simulate.runtime.runner import run
from simulate.samplers import cp_sghmc, cp_sgld, sgld, sgrld
from simulate.validation import ParameterError
from theory import exact_law
from theory.bounds import fu_zhang as fz_bounds
from theory.chains import sghmc as sg
from theory.chains import stratified as strat_chains
from theory.chains.additive_noise import additive_noise_sampler
from theory.noise import stratified as strat_noise
from verify.claims.fu_zhang.noise import enumerate_estimates


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([c + s * rng.standard_normal((n, 2)) for c, s, n in
                           (((0, 0), 0.5, 60), ((5, 0), 1.5, 40), ((0, 5), 3.0, 80))])


# ------------------------------------------------------------------ strata and allocation

def test_kmeans_strata_partition_and_variance():
    x = _blobs()
    st = kmeans_strata(x, 3, max_iter=20, seed=1)
    assert st.k == 3 and st.n_data == x.shape[0]
    assert sorted(np.concatenate(st.members).tolist()) == list(range(x.shape[0]))
    for i, m in enumerate(st.members):
        assert np.all(st.labels[m] == i)
        assert st.within_var[i] == pytest.approx(np.mean(np.sum((x[m] - x[m].mean(0)) ** 2, axis=1)))
    assert st.seconds >= 0 and 1 <= st.n_iter <= 20


def test_kmeans_is_seeded():
    x = _blobs()
    a, b = kmeans_strata(x, 4, max_iter=2, seed=5), kmeans_strata(x, 4, max_iter=2, seed=5)
    assert np.array_equal(a.labels, b.labels)


def test_kmeans_bad_input():
    with pytest.raises(ParameterError, match="k must satisfy"):
        kmeans_strata(np.zeros((5, 2)), 6)
    with pytest.raises(ParameterError, match="fewer than k"):
        kmeans_strata(np.zeros((5, 2)), 3)
    with pytest.raises(ParameterError, match="NaN"):
        kmeans_strata(np.array([[np.nan, 1.0], [0.0, 1.0]]), 1)


def test_from_labels_rejects_empty_cluster():
    with pytest.raises(ParameterError, match="empty clusters"):
        Strata.from_labels(np.array([0, 0, 2]))


@pytest.mark.parametrize("rule", ["neyman", "proportional", "uniform"])
def test_allocation_bounds_and_sum(rule):
    st = kmeans_strata(_blobs(), 3, seed=1)
    for b in (3, 4, 17, 100, 179, 180):
        bi = allocate(st, b, rule)
        assert bi.sum() == b and np.all(bi >= 1) and np.all(bi <= st.sizes)


def test_allocation_infeasible_raises():
    st = kmeans_strata(_blobs(), 3, seed=1)
    with pytest.raises(ParameterError, match="k <= b <= N"):
        allocate(st, 2)
    with pytest.raises(ParameterError, match="k <= b <= N"):
        allocate(st, 181)
    with pytest.raises(ParameterError, match="1 <= b_i <= n_i"):
        allocate(st, 10, np.array([0, 5, 5]))


def test_neyman_continuous_matches_eq14_when_unconstrained_and_caps_otherwise():
    n, v = np.array([50, 30, 20]), np.array([1.0, 4.0, 0.25])
    t = continuous_allocation(n * np.sqrt(v), n, 20)
    assert np.allclose(t, fz_bounds.thm32_allocation(n, v, 20))
    t = continuous_allocation(np.array([1.0, 1e-6, 1e-6]), np.array([5, 30, 30]), 20)
    assert t[0] == pytest.approx(5) and np.all(t[1:] >= 1) and t.sum() == pytest.approx(20)
    assert continuous_allocation(np.array([0.0, 1.0]), np.array([4, 4]), 5).tolist() == [1.0, 4.0]


def test_rounded_neyman_is_integer_optimum_on_small_data():
    rng = np.random.default_rng(3)
    for _ in range(5):
        sizes = rng.integers(4, 12, size=3)
        x = np.concatenate([rng.standard_normal((s, 1)) * rng.choice([0.3, 1, 3]) for s in sizes])
        st = Strata.from_labels(np.repeat(np.arange(3), sizes), x)
        b = 9
        allocs = [a for a in itertools.product(*[range(1, s + 1) for s in sizes]) if sum(a) == b]
        obj = {a: fz_bounds.surrogate_objective(st.sizes, st.within_var, a) for a in allocs}
        best = min(obj.values())
        got = fz_bounds.surrogate_objective(st.sizes, st.within_var, allocate(st, b, "neyman"))
        assert got <= best * 1.05  # largest-remainder rounding is near the integer optimum


# ------------------------------------------------------------------ the estimator

def _small():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 2)) * 2
    st = Strata.from_labels(np.array([0, 0, 0, 0, 1, 1, 2, 2, 2]), x)
    return GaussianMeanModel(x, sigma_x=1.5, sigma0=3.0), st


@pytest.mark.parametrize("replace", [False, True])
def test_noise_cov_equals_enumerated_covariance(replace):
    model, st = _small()
    est = Stratified(st, (2, 1, 2), replace)
    theta = np.array([0.3, -0.5])
    g = enumerate_estimates(est, model, theta)
    c = g - g.mean(0)
    assert np.allclose(c.T @ c / g.shape[0], est.noise_cov(model))
    assert np.allclose(est.noise_cov(model, theta[None, :])[0], est.noise_cov(model))
    assert np.allclose(est.noise_cov(model),
                       strat_noise.gaussian_noise_cov(model.data, st.labels, (2, 1, 2), 1.5, replace))


def test_estimator_validation():
    model, st = _small()
    with pytest.raises(ParameterError, match="sizes"):
        Stratified(st, (2, 1))
    with pytest.raises(ParameterError, match="sizes\\[1\\]"):
        Stratified(st, (2, 3, 1))
    Stratified(st, (2, 3, 1), replace=True)  # with replacement b_i may exceed n_i
    other = GaussianMeanModel(np.zeros((4, 2)))
    with pytest.raises(ParameterError, match="strata cover"):
        cp_sgld(other, 0.01, st, 5)


def test_k1_equals_sgld_bitwise():
    model = GaussianMeanModel.simulate_data(200, theta_true=[1.0, -1.0], dim=2, seed=3)
    h = 0.5 / model.grad_lipschitz
    a = run(cp_sgld(model, h, Strata.single(200, model.data), 10), 50, 30, seed=4)
    b = run(sgld(model, h, 10), 50, 30, seed=4)
    assert np.array_equal(a.final, b.final)
    est = stratified_estimator(Strata.single(200, model.data), 10)
    assert np.allclose(est.noise_cov(model), Minibatch(10).noise_cov(model))


def test_cp_sghmc_runs_and_is_centred():
    x = _blobs()
    model = GaussianMeanModel(x, sigma0=10.0)
    st = kmeans_strata(x, 3, seed=1)
    s = cp_sghmc(model, 0.5 / model.grad_lipschitz, 0.5, st, 12)
    assert s.name == "cp-sghmc"
    r = run(s, 2000, 100, burn_in=50, seed=2, theta0=model.posterior_mean)
    m = r.time_averages["theta"].mean(0)
    assert np.all(np.abs(m - model.posterior_mean) < 5 * r.time_averages["theta"].std(0) / np.sqrt(2000))


# ------------------------------------------------------------------ theory

def test_stationary_closed_forms_match_the_engine_and_sympy():
    """Sigma_inf = (I + h Sigma/4)/(a (1 - h a/4)) (theory.chains.stratified) and SGHMC's theta block
    (2 - alpha)(2 alpha I + h Sigma)/(a alpha (4 - 2 alpha - a h)) equal the engine's laws of the additive-noise chains
    and, in 1-D, the sympy solutions of the moment fixed points."""
    S = np.array([[2.0, 0.3], [0.3, 1.0]])
    P = 3.0 * np.eye(2)
    assert np.allclose(exact_law(additive_noise_sampler(P, 0.2, S, Langevin())).stationary_cov(),
                       strat_chains._sigma_inf(3.0, 0.2, S))
    assert np.allclose(exact_law(additive_noise_sampler(P, 0.2, S, SGHMC(0.3))).stationary_cov(),
                       (2 - 0.3) * (2 * 0.3 * np.eye(2) + 0.2 * S) / (3.0 * 0.3 * (4 - 2 * 0.3 - 3.0 * 0.2)))
    a, h, s2, V = sp.symbols("a h s2 V", positive=True)
    sgld = sp.solve(sp.Eq(V, (1 - h * a / 2) ** 2 * V + h + h**2 * s2 / 4), V)[0]
    assert sp.simplify(sgld - (1 + h * s2 / 4) / (a * (1 - h * a / 4))) == 0
    var = sg.stationary_moments_1d()["var_theta"]
    assert sp.simplify(var - (2 - sg.alpha) * (2 * sg.alpha + sg.eta * sg.s2)
                       / (sg.P * sg.alpha * (4 - 2 * sg.alpha - sg.P * sg.eta))) == 0


def test_variance_decomposition_and_is():
    rng = np.random.default_rng(0)
    g = rng.standard_normal((12, 2)) + np.repeat(np.arange(3), 4)[:, None] * 2
    lab = np.repeat(np.arange(3), 4)
    # k = 1 is the uniform minibatch
    assert strat_noise.stratified_variance(g, np.zeros(12, int), [4], False) == pytest.approx(
        strat_noise.uniform_variance(g, 4, False))
    # proportional <= uniform (with replacement), the difference is the between-cluster term
    prop = strat_noise.stratified_variance(g, lab, [2, 2, 2], True)
    means = np.array([g[lab == i].mean(0) for i in range(3)])
    between = 12 / 6 * np.sum(4 * np.sum((means - g.mean(0)) ** 2, axis=1))
    assert strat_noise.uniform_variance(g, 6, True) - prop == pytest.approx(between)
    p = strat_noise.is_optimal_probabilities(g)
    assert strat_noise.is_variance(g, p) == pytest.approx(strat_noise.is_min_variance(g))
    assert strat_noise.is_variance(g, np.full(12, 1 / 12)) >= strat_noise.is_min_variance(g)


def test_lagrange_sympy_k2():
    sol, val = fz_bounds.thm32_lagrange_sympy(2)
    n1, n2, v1, v2, b = sp.symbols("n1 n2 v1 v2 b", positive=True)
    assert sp.simplify(sol[0] - b * n1 * sp.sqrt(v1) / (n1 * sp.sqrt(v1) + n2 * sp.sqrt(v2))) == 0


# ------------------------------------------------------------------ SGRLD and ArviZ

def test_synthetic_corpus_shapes_and_seed():
    c = synthetic_lda_corpus(50, 3, 20, 10, seed=2)
    assert c.docs.shape == (50, 10) and c.docs.min() >= 0 and c.docs.max() < 20
    assert c.counts().sum() == 500
    assert np.array_equal(c.docs, synthetic_lda_corpus(50, 3, 20, 10, seed=2).docs)


def test_sgrld_and_cp_sgrld_recover_topics():
    c = synthetic_lda_corpus(200, 3, 20, 15, seed=4)
    model = LDAModel(c, 3, alpha=0.1, beta=0.1, sweeps=3, burn_sweeps=1)
    st = document_strata(c, 3, seed=0)
    for s in (sgrld(model, 0.01, 15), sgrld(model, 0.01, 15, st)):
        r = run(s, 6, 1, burn_in=200, seed=5, theta0=model.initial_theta, test_functions=("theta",))
        err = topic_error(model, r.final, c.topics)
        assert np.median(err) < 0.15, (s.name, err)
        assert np.all(r.final >= 0)
    with pytest.raises(ParameterError, match="Gibbs"):
        st_est = Stratified(st, tuple(allocate(st, 15, "proportional").tolist()))
        st_est.noise_cov(model, np.ones((1, model.dim)))


def test_inference_data_export_and_ess():
    model = GaussianMeanModel.simulate_data(100, theta_true=[0.0, 1.0], dim=2, seed=1)
    r = run(sgld(model, 0.5 / model.grad_lipschitz, 10), 4, 1, burn_in=400, seed=1, trace_stride=2,
            theta0=model.posterior_mean)
    idata = to_inference_data(r, burn_in=100, coords=["a", "b"])
    post = idata.posterior["theta"]
    assert post.shape == (4, r.trace.shape[0] - 50, 2)
    assert list(post.coords["theta_dim"].values) == ["a", "b"]
    e = ess(r, burn_in=100)
    assert e.shape == (2,) and np.all(e > 50)
    with pytest.raises(ParameterError, match="trace"):
        to_inference_data(run(sgld(model, 0.001, 10), 2, 2, seed=1))
    with pytest.raises(ParameterError, match="shape"):
        to_inference_data(np.zeros((3, 4)))


def test_inference_data_stats_many_chains_and_container_ess():
    """Both ArviZ majors (0.x: InferenceData, 1.x: DataTree): sample_stats group, M > T without ArviZ's mix-up
    warning, and ess() of the container equal to ess() of the array it came from."""
    import warnings

    import arviz as az

    rng = np.random.default_rng(3)
    trace = rng.standard_normal((6, 10, 2))  # T = 6 < M = 10 chains
    lp = rng.standard_normal((6, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        idata = to_inference_data(trace, burn_in=2, sample_stats={"log_post": lp})
    assert idata.posterior["theta"].shape == (10, 4, 2)
    np.testing.assert_array_equal(idata.posterior["theta"].values, np.swapaxes(trace[2:], 0, 1))
    np.testing.assert_array_equal(idata.sample_stats["log_post"].values, lp[2:].T)
    assert list(idata.posterior["theta"].coords["draw"].values) == [2, 3, 4, 5]
    np.testing.assert_array_equal(ess(idata), ess(trace, burn_in=2))
    # tail ESS (Vehtari et al. 2021): the smaller of the 5% and 95% quantile ESS, whatever ArviZ's default
    long = np.cumsum(rng.standard_normal((200, 4, 2)), axis=0) * 0.1 + rng.standard_normal((200, 4, 2))
    quantile_ess = [az.ess(to_inference_data(long), method="quantile", prob=p)["theta"].values for p in (0.05, 0.95)]
    np.testing.assert_allclose(ess(long, method="tail"), np.minimum(*quantile_ess), rtol=1e-12)
    with pytest.raises(ParameterError, match="sample_stats"):
        to_inference_data(trace, sample_stats={"log_post": lp[:, :3]})


def test_expanded_mean_update_formula():
    from simulate.integrators.sgrld import ExpandedMeanLangevin

    rng = np.random.default_rng(0)
    theta = rng.gamma(1.0, 1.0, size=(3, 6))
    g = rng.standard_normal((3, 6))
    xi = rng.standard_normal((3, 6))
    h = 0.05
    want = np.abs(theta + 0.5 * h * g + np.sqrt(h * theta) * xi)
    got = theta.copy()
    ExpandedMeanLangevin().update(got, g.copy(), xi.copy(), h, np.sqrt(h))
    assert np.allclose(got, want)


def test_lda_weighted_sum_is_sum_of_expectations_shape_and_zero_total():
    c = synthetic_lda_corpus(30, 3, 12, 8, seed=1)
    model = LDAModel(c, 3)
    theta = model.initial_theta(np.random.default_rng(0), 5)
    idx = np.tile(np.arange(4)[:, None], (1, 5))
    g = model.grad_log_lik_sum(theta, idx, np.random.default_rng(1)).reshape(5, 3, 12)
    # sum_w (n_dkw - pi_kw n_dk.) = 0 for every topic: the drift keeps sum_w theta_kw's expectation tied to beta
    assert np.allclose(g.sum(axis=2), 0.0)
    with pytest.raises(ParameterError, match="Gibbs"):
        model.grad_log_lik(theta, idx)


def test_time_average_cov_matches_explicit_linear_algebra_and_large_T_limit():
    a, h, S, b, T = 2.0, 0.3, np.array([[1.5]]), 5, 40
    rho, Q = 1 - h * a / 2, h + h * h * 1.5 / 4
    C = np.zeros((b + T, b + T - 1))  # theta_k - mu = C[k] @ e
    for k in range(1, b + T):
        C[k] = C[k - 1] * rho
        C[k, k - 1] += 1
    avg = C[b:b + T].mean(axis=0)
    assert strat_chains.sgld_time_average_cov(a, h, S, b, T)[0, 0] == pytest.approx(np.sum(avg**2) * Q, rel=1e-12)
    big = strat_chains.sgld_time_average_cov(a, h, S, 0, 10**6)[0, 0] * 10**6
    assert big == pytest.approx(4 / (a * a * h) + 1.5 / a**2, rel=1e-4)
