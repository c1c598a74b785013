"""1-D potential models and the additive Gaussian gradient-noise estimator (simulate.models.potentials,
simulate.estimators.additive_noise)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy import stats as sps

from simulate import (
    ChainDivergedError,
    FullGradient,
    Langevin,
    Minibatch,
    ModifiedLangevin,
    ParameterError,
    Sampler,
    run,
)
from simulate.estimators.additive_noise import AdditiveNoise
from simulate.models.potentials import PotentialModel, compile_expr, double_well, quartic, theta
from theory import weak_order as wo

Z_MAX = 4.5
MODELS = {
    "quartic": quartic(),
    "quartic+quadratic": quartic(quadratic=0.5, scale=2.0),
    "double_well": double_well(),
    "logcosh": PotentialModel(sp.log(sp.cosh(theta)) + theta**2 / 4, name="logcosh"),
}


def test_symbol_is_shared_with_theory():
    assert theta == wo.theta


@pytest.mark.parametrize("name", sorted(MODELS))
def test_gradient_matches_finite_differences(name):
    model = MODELS[name]
    x = np.linspace(-2.5, 2.5, 41)[:, None]
    eps = 1e-5
    fd = -(model.potential(x + eps) - model.potential(x - eps)) / (2 * eps)
    np.testing.assert_allclose(model.grad_log_post(x), fd, rtol=1e-7, atol=1e-7)
    assert model.grad_log_post(x).shape == (41, 1)
    # and the model's drift is twice the paper's f = -U'/2
    f = sp.lambdify(theta, wo.drift(model.U))
    np.testing.assert_allclose(model.grad_log_post(x), 2 * f(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("expr", [theta**4 / 4 - theta**2 + 3, 2 * theta**6 - theta, sp.Integer(5), theta,
                                  sp.exp(-theta**2) + theta**2, theta**4 - theta**2])
def test_compile_expr_matches_lambdify(expr):
    x = np.linspace(-3, 3, 13)[:, None]
    ref = np.broadcast_to(sp.lambdify(theta, expr)(x), x.shape)
    np.testing.assert_allclose(compile_expr(expr)(x), ref, rtol=1e-13, atol=1e-12)
    assert compile_expr(expr)(x).shape == x.shape


def test_horner_does_not_modify_input():
    x = np.linspace(-1, 1, 5)[:, None]
    x0 = x.copy()
    compile_expr(theta**3 + theta)(x)
    compile_expr(theta**4 + 1)(x)
    np.testing.assert_array_equal(x, x0)


@pytest.mark.parametrize("name", ["quartic", "double_well"])
def test_expectation_matches_theory_quadrature(name):
    model = MODELS[name]
    for phi in (theta**2, theta**4, sp.cos(theta)):
        assert model.expectation(phi) == pytest.approx(wo.expectation(model.U, phi), rel=1e-10, abs=1e-12)


def test_quartic_moments_closed_form():
    # pi ∝ exp(-theta^4/4): E theta^4 = 1 (integration by parts: E[U' theta] = 1), E theta^2 = 2 Gamma(3/4)/Gamma(1/4)
    model = quartic()
    assert model.expectation(theta**4) == pytest.approx(1.0, rel=1e-11)
    assert model.expectation(theta**2) == pytest.approx(2 * math.gamma(0.75) / math.gamma(0.25), rel=1e-11)


@pytest.mark.parametrize("name", ["quartic", "double_well", "logcosh"])
def test_sample_target_is_the_target(name):
    """Kolmogorov-Smirnov against the CDF by quadrature, and the mean of theta^2 within s.e."""
    model = MODELS[name]
    x = model.sample_target(np.random.default_rng(11), 50_000)
    assert x.shape == (50_000, 1)
    g, dens, cum = model._cdf_grid()
    cdf = lambda t: np.interp(t, g, cum / cum[-1])  # noqa: E731
    assert sps.kstest(x[:, 0], cdf).pvalue > 1e-4
    m2, se = x[:, 0].__pow__(2).mean(), x[:, 0].__pow__(2).std() / math.sqrt(x.shape[0])
    assert abs(m2 - model.expectation(theta**2)) < Z_MAX * se


def test_sample_target_is_reproducible():
    model = quartic()
    a = model.sample_target(np.random.default_rng(3), 100)
    b = model.sample_target(np.random.default_rng(3), 100)
    np.testing.assert_array_equal(a, b)


def test_additive_noise_covariance_shapes_and_law():
    model = quartic()
    th = np.linspace(-1, 1, 200_000)[:, None]
    est = AdditiveNoise(4.0)
    assert est.noise_cov(model, th).shape == (1, 1) and est.noise_cov(model, None)[0, 0] == 4.0
    g, _ = est.estimate(model, th, None, np.random.default_rng(0))
    r = g - model.grad_log_post(th)
    assert abs(r.mean()) < Z_MAX * 2.0 / math.sqrt(r.size)
    v, se = r.var(), math.sqrt(2.0) * 4.0 / math.sqrt(r.size)
    assert abs(v - 4.0) < Z_MAX * se
    # theta-dependent variance, as a sympy expression or a callable
    for var in (1 + theta**2, lambda x: 1.0 + x * x):
        est = AdditiveNoise(var)
        cov = est.noise_cov(model, th)
        assert cov.shape == (th.shape[0], 1, 1)
        np.testing.assert_allclose(cov[:, 0, 0], 1 + th[:, 0] ** 2)
        g, _ = est.estimate(model, th, None, np.random.default_rng(1))
        z = (g - model.grad_log_post(th)) / np.sqrt(1 + th**2)
        assert abs(z.var() - 1.0) < Z_MAX * math.sqrt(2.0 / z.size)


@pytest.mark.parametrize("method", ["euler", "sgld", "msgld"])
def test_one_step_law_of_the_samplers(method):
    """From a fixed theta_0: E theta_1 = theta_0 + (h/2)(-U'), Var theta_1 = wo.step_variance (Sections 4.1-4.2)."""
    model = double_well()
    h, V, M, th0 = 0.05, 4.0, 200_000, 0.7
    est = FullGradient() if method == "euler" else AdditiveNoise(V)
    integ = ModifiedLangevin() if method == "msgld" else Langevin()
    res = run(Sampler(model, est, integ, h), M, 0, record_at=[1], theta0=th0, test_functions=(), seed=5)
    x = res.snapshots[1][:, 0]
    mean = th0 + 0.5 * h * float(model.grad_log_post(np.array([[th0]]))[0, 0])
    var = wo.step_variance(method, h, 0.0 if method == "euler" else V)
    assert abs(x.mean() - mean) < Z_MAX * math.sqrt(var / M)
    assert abs(x.var(ddof=1) - var) < Z_MAX * var * math.sqrt(2.0 / M)


def test_msgld_with_theta_dependent_variance_runs_per_chain():
    model = quartic()
    sampler = Sampler(model, AdditiveNoise(1 + theta**2), ModifiedLangevin(), 0.02)
    res = run(sampler, 64, 20, theta0=model.sample_target, seed=1)
    assert np.all(np.isfinite(res.time_averages["theta2"]))
    # one step from a fixed point has the per-chain mSGLD variance h (1 - h V/8)^2 + h^2 V/4
    res = run(sampler, 200_000, 0, record_at=[1], theta0=1.0, test_functions=(), seed=2)
    var = wo.step_variance("msgld", 0.02, 2.0)
    assert abs(res.snapshots[1].var(ddof=1) - var) < Z_MAX * var * math.sqrt(2.0 / 200_000)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_divergence_raises_a_clear_error():
    model = quartic()
    sampler = Sampler(model, FullGradient(), Langevin(), 0.5)
    with pytest.raises(ChainDivergedError, match="reduce the step size h"):
        run(sampler, 10, 50, theta0=10.0, seed=0)
    assert issubclass(ChainDivergedError, ParameterError)


def test_stability_helpers():
    assert quartic().grad_lipschitz is None
    assert PotentialModel(theta**2 / 2).grad_lipschitz == 1.0
    assert quartic().max_stable_step(2.0) == pytest.approx(4.0 / 12.0)
    assert double_well().max_stable_step(1.0) == pytest.approx(4.0 / 8.0)
    with pytest.raises(ParameterError, match="h must satisfy"):
        Sampler(PotentialModel(theta**2 / 2), FullGradient(), Langevin(), 4.5)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: PotentialModel(theta**3), "U must tend to \\+inf"),
    (lambda: PotentialModel(sp.Symbol("a") * theta**2), "only"),
    (lambda: PotentialModel("not an expression ("), "sympy expression"),
    (lambda: PotentialModel(sp.Integer(3)), "depend on theta"),
    (lambda: quartic(quadratic=-1.0), "quadratic must satisfy"),
    (lambda: quartic(scale=0.0), "scale must satisfy"),
    (lambda: double_well(depth=-1.0), "depth must satisfy"),
    (lambda: double_well(minimum=0.0), "minimum must satisfy"),
    (lambda: AdditiveNoise(-1.0), "variance must satisfy"),
    (lambda: AdditiveNoise(float("nan")), "variance must satisfy"),
    (lambda: quartic().max_stable_step(0.0), "radius must satisfy"),
    (lambda: quartic().sample_target(np.random.default_rng(0), 0), "m must satisfy"),
    (lambda: run(Sampler(quartic(), Minibatch(1), Langevin(), 0.1), 2, 3), "no data"),
    (lambda: AdditiveNoise(lambda x: -x * x - 1.0).estimate(quartic(), np.ones((3, 1)), None,
                                                             np.random.default_rng(0)), "variance V"),
])
def test_bad_input_raises_parameter_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
