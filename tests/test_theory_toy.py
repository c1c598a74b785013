"""Toy-model theory: sympy derivations vs the paper's printed forms, closed forms vs recurrences,
numeric evaluation vs mpmath, and the simulator vs the theory at finite steps (Monte Carlo, with s.e.)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import simulate
import simulate.integrators
import theory
from simulate import GaussianMeanModel, euler, msgld, run, sgld
from theory.numeric import evaluate_mp
from theory.printed import vollmer as vp
from theory.schemes import METHODS
from theory.symbols import EB, VB, A, h, k, m0, v0
from theory.toy import moments as tm
from theory.toy.chain import toy_chain

Z_MAX = 4.5


def _is_zero(expr) -> bool:
    return sp.simplify(expr) == 0


# ---------------------------------------------------------------- derivations vs printed forms (exact)

def test_stationary_variance_matches_printed():
    assert _is_zero(tm.stationary_variance("sgld") - vp.eq18_stationary_variance())
    assert _is_zero(tm.stationary_variance("euler") - vp.eq18_stationary_variance().subs(VB, 0))
    assert _is_zero(tm.stationary_variance("msgld") - vp.eq21_stationary_variance_msgld())


@pytest.mark.parametrize("method", METHODS)
def test_stationary_mean_matches_printed(method):
    assert _is_zero(tm.toy_stationary_mean(method) - vp.eq17_stationary_mean())


def test_first_order_series():
    assert _is_zero(tm.bias_series("sgld", 1) - tm.bias_series("euler", 1) - vp.eq19_excess_first_order())
    assert _is_zero(tm.bias_series("euler", 1) - vp.euler_bias_first_order())
    assert _is_zero(tm.bias_series("msgld", 1) - vp.euler_bias_first_order())
    assert _is_zero(tm.toy_leading_bias_coefficient("euler") - sp.Rational(1, 4))
    assert _is_zero(tm.toy_leading_bias_coefficient("msgld") - sp.Rational(1, 4))
    assert _is_zero(tm.toy_leading_bias_coefficient("sgld") - (sp.Rational(1, 4) + VB / (2 * A)))
    assert tm.leading_excess_order("sgld") == 1
    assert tm.leading_excess_order("msgld") == 2
    assert tm.leading_excess_order("euler") == 0
    # The mSGLD excess at second order is h^2 V_B^2 / (8 A) (eq. 21 expanded), with the sign of a variance.
    assert _is_zero(tm.bias_series("msgld", 2, tm.excess_over_euler("msgld")) - h**2 * VB**2 / (8 * A))


def test_bias_and_excess_definitions():
    for method in METHODS:
        assert _is_zero(tm.asymptotic_bias_theta2(method) - (tm.stationary_variance(method) - 1 / (2 * A)))
        assert _is_zero(tm.excess_over_euler(method)
                        - (tm.stationary_variance(method) - tm.stationary_variance("euler")))
    assert _is_zero(tm.posterior_variance() - 1 / (2 * A))


def test_stability_bound():
    assert _is_zero(tm.stability_bound() - 2 / A)


def test_unknown_method():
    with pytest.raises(simulate.ParameterError, match="method"):
        tm.one_step("sgd")


# ---------------------------------------------------------------- closed forms in k vs the recurrences

@pytest.mark.parametrize("method", METHODS)
def test_closed_forms_equal_iterated_recurrences_symbolic(method):
    mean_k, var_k = tm.mean_at_step(method), tm.variance_at_step(method)
    f_m, f_v = tm.mean_recurrence(method), tm.variance_recurrence(method)
    m, v = m0, v0
    for j in range(7):
        assert _is_zero(mean_k.subs(k, j) - m), (method, j)
        assert _is_zero(var_k.subs(k, j) - v), (method, j)
        m, v = sp.expand(f_m(m)), sp.expand(f_v(v))


@pytest.mark.parametrize("method", METHODS)
def test_closed_forms_equal_iterated_recurrences_rational(method):
    """The same with random exact rationals (including A h > 1, still inside the stability bound)."""
    rng = np.random.default_rng(17)
    mean_k, var_k = tm.mean_at_step(method), tm.variance_at_step(method)
    f_m, f_v = tm.mean_recurrence(method), tm.variance_recurrence(method)
    for _ in range(4):
        a_ = sp.Rational(Fraction(float(rng.uniform(0.5, 30))).limit_denominator(1000))
        r = sp.Rational(Fraction(float(rng.uniform(0.01, 1.95))).limit_denominator(1000))
        vals = {A: a_, h: r / a_, EB: sp.Rational(int(rng.integers(-50, 50)), 7),
                VB: sp.Rational(int(rng.integers(0, 500)), 3), m0: sp.Rational(int(rng.integers(-9, 9)), 4),
                v0: sp.Rational(int(rng.integers(0, 9)), 5)}
        m, v = vals[m0], vals[v0]
        for j in range(7):
            assert sp.nsimplify(mean_k.subs(vals).subs(k, j)) == m
            assert sp.simplify(var_k.subs(vals).subs(k, j) - v) == 0
            m, v = f_m(m).subs(vals), f_v(v).subs(vals)


@pytest.mark.parametrize("method", METHODS)
def test_stationary_is_limit_of_closed_form(method):
    a = 1 - A * h
    # var_k - var_inf = a^{2k} (v_0 - var_inf) and mean_k - mean_inf = a^k (m_0 - mean_inf), exactly.
    # (a^{2k} is written (-a)^{2k}, the form rsolve returns; sympy does not cancel the sign of an even power.)
    assert _is_zero(tm.variance_at_step(method) - tm.stationary_variance(method)
                    - (-a) ** (2 * k) * (v0 - tm.stationary_variance(method)))
    assert _is_zero(tm.mean_at_step(method) - tm.toy_stationary_mean(method)
                    - a**k * (m0 - tm.toy_stationary_mean(method)))


# ---------------------------------------------------------------- toy constants

@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize(("sx", "st"), [(1.0, 1.0), (0.6, 3.0)])
def test_toy_constants_hand_formulas(replace, sx, st):
    x = np.random.default_rng(1).normal(0.8, sx, size=37)
    N, n = 37, 6
    c = theory.toy_constants(x, n, replace, sx, st)
    var_x = np.sum((x - x.mean()) ** 2) / (N - 1)
    A_ = 0.5 * (1 / st**2 + N / sx**2)  # eq. (15)
    EB_ = x.sum() / (2 * sx**2)
    VB_ = N * ((N - 1) if replace else (N - n)) / n * var_x / (4 * sx**4)  # eq. (16)
    np.testing.assert_allclose([c.A, c.EB, c.VB], [A_, EB_, VB_], rtol=1e-12)
    assert (c.N, c.n, c.replace) == (N, n, replace)
    np.testing.assert_allclose(c.posterior_mean, EB_ / A_, rtol=1e-12)
    np.testing.assert_allclose(c.posterior_var, 1 / (2 * A_), rtol=1e-12)
    # They agree with the simulator's model.
    model = GaussianMeanModel(x, sigma_x=sx, sigma0=st)
    np.testing.assert_allclose(c.A, model.A, rtol=1e-12)
    np.testing.assert_allclose(c.posterior_mean, model.posterior_mean[0], rtol=1e-12)
    np.testing.assert_allclose(c.posterior_var, model.posterior_var, rtol=1e-12)


def test_toy_constants_full_batch():
    x = np.random.default_rng(2).normal(size=20)
    assert theory.toy_constants(x, 20, replace=False).VB == 0.0
    assert theory.toy_constants(x, 20, replace=True).VB > 0.0
    # Var(B) decreases in n for both schemes.
    vb = [theory.toy_constants(x, n, False).VB for n in (1, 2, 5, 10, 19)]
    assert all(a > b for a, b in zip(vb, vb[1:], strict=False))


def test_toy_chain_reads_the_sampler():
    model = GaussianMeanModel.simulate_data(30, seed=3, sigma_x=1.2, sigma0=0.8)
    c = toy_chain(sgld(model, 0.01, 4, replace=True))
    assert (c.method, c.h, c.constants.n, c.constants.replace) == ("sgld", 0.01, 4, True)
    ref = theory.toy_constants(model.data, 4, True, 1.2, 0.8)
    assert c.constants == ref
    e = toy_chain(euler(model, 0.01))
    assert e.method == "euler" and e.constants.n == 30 and e.constants.VB == 0.0
    assert toy_chain(msgld(model, 0.01, 4)).method == "msgld"
    with pytest.raises(simulate.ParameterError):
        toy_chain(sgld(GaussianMeanModel.simulate_data(30, dim=2), 0.01, 4))


def test_exact_law_on_the_toy_is_vollmer_closed_forms():
    """theory.exact_law(sampler) is the engine's exact law of the sampler (any dimension); on the 1-D toy it equals
    Vollmer et al.'s closed forms (toy_chain)."""
    model = GaussianMeanModel.simulate_data(30, seed=3, sigma_x=1.2, sigma0=0.8)
    for s in (sgld(model, 0.01, 4, replace=True), euler(model, 0.01), msgld(model, 0.01, 4)):
        law, c = theory.exact_law(s, theta0=[0.5]), toy_chain(s)
        assert isinstance(law, theory.ExactLaw) and law.sampler is s
        np.testing.assert_allclose(law.stationary_cov()[0, 0], c.stationary_variance(), rtol=1e-12)
        np.testing.assert_allclose(law.mean(7)[0], c.mean(7, 0.5), rtol=1e-12)
    assert theory.exact_law(sgld(GaussianMeanModel.simulate_data(30, dim=2), 0.01, 4)).d == 2


# ---------------------------------------------------------------- numeric evaluation

@pytest.fixture(scope="module")
def toy_model():
    return GaussianMeanModel.simulate_data(50, theta_true=0.6, seed=8)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("ah", [1e-5, 0.01, 0.3, 1.0, 1.7])
def test_toychain_numpy_matches_mpmath(toy_model, method, ah):
    c = theory.toy_constants(toy_model.data, 5)
    chain = theory.ToyChain(method, c, ah / c.A)
    b50 = chain.bias_theta2(dps=50)
    np.testing.assert_allclose(chain.bias_theta2(), b50, rtol=1e-12)
    vals = {A: c.A, EB: c.EB, VB: 0.0 if method == "euler" else c.VB, h: chain.h, m0: 0.25, v0: 0.5}
    # mpmath at 50 digits of the symbolic forms, with the inputs read as the same doubles.
    for kk in (0, 1, 3, 40):
        vals[k] = kk
        np.testing.assert_allclose(chain.mean(kk, 0.25), float(evaluate_mp(tm.mean_at_step(method), vals)),
                                   rtol=1e-12)
        np.testing.assert_allclose(chain.variance(kk, 0.5),
                                   float(evaluate_mp(tm.variance_at_step(method), vals)), rtol=1e-12)
    np.testing.assert_allclose(chain.stationary_variance(),
                               float(evaluate_mp(tm.stationary_variance(method), vals)), rtol=1e-12)
    np.testing.assert_allclose(chain.stationary_mean(), c.posterior_mean, rtol=1e-12)
    # An independent mpmath evaluation of the printed bias (eqs. 18/21 minus 1/(2A)).
    with mpmath.workdps(50):
        a_, hh = mpmath.mpf(c.A), mpmath.mpf(chain.h)
        vb = mpmath.mpf(0 if method == "euler" else c.VB)
        den = 2 * a_ - a_**2 * hh
        extra = hh**2 * vb**2 / 4 if method == "msgld" else hh * vb
        printed = float((1 + extra) / den - 1 / (2 * a_))
    np.testing.assert_allclose(b50, printed, rtol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_toychain_variance_converges_to_stationary(toy_model, method):
    c = theory.toy_constants(toy_model.data, 5)
    chain = theory.ToyChain(method, c, 0.5 / c.A)
    v_inf = chain.stationary_variance()
    ks = np.array([0, 1, 2, 5, 10, 20])
    v = chain.variance(ks, 0.3)
    np.testing.assert_allclose(v - v_inf, chain.mixing_factor() ** (2 * ks) * (0.3 - v_inf), rtol=1e-9, atol=1e-15)
    assert np.all(np.diff(np.abs(v - v_inf)) < 0)
    np.testing.assert_allclose(chain.variance(200, 0.3), v_inf, rtol=1e-12)
    np.testing.assert_allclose(chain.mean(200, 5.0), c.posterior_mean, rtol=1e-12)
    np.testing.assert_allclose(chain.variance(0, 0.0), 0.0, atol=1e-15 * v_inf)
    np.testing.assert_allclose(chain.variance(0, 0.3), 0.3, rtol=1e-14)


# ---------------------------------------------------------------- simulator vs theory (Monte Carlo)

MC_CHAINS = 200_000
MC_STEPS = (1, 3)


def _mc_z(model, sampler, law, seed, theta0=0.0):
    """z-scores of the sample mean and variance of theta_k (k in MC_STEPS) against the theory (``law``: the exact
    law of theory.exact_law, started at the same theta0)."""
    res = run(sampler, MC_CHAINS, 0, theta0=np.array([theta0]), record_at=MC_STEPS, seed=seed)
    out = {}
    for kk in MC_STEPS:
        x = res.snapshots[kk][:, 0]
        mean, c = x.mean(), x - x.mean()
        s2, m4 = np.mean(c**2), np.mean(c**4)
        z_mean = (mean - law.mean(kk)[0]) / (np.sqrt(s2) / np.sqrt(MC_CHAINS))
        z_var = (s2 - law.cov(kk)[0, 0]) / np.sqrt((m4 - s2**2) / MC_CHAINS)
        out[kk] = (float(z_mean), float(z_var))
    return out


MC_SAMPLERS = {
    "sgld": lambda m: sgld(m, 0.02, 5),
    "sgld_replace": lambda m: sgld(m, 0.02, 5, replace=True),
    "sgld_bitmap": lambda m: sgld(m, 0.02, 20),
    "msgld": lambda m: msgld(m, 0.02, 5),
    "euler": lambda m: euler(m, 0.02),
}


@pytest.mark.parametrize("name", list(MC_SAMPLERS))
def test_simulator_matches_theory_at_finite_steps(toy_model, name):
    sampler = MC_SAMPLERS[name](toy_model)
    zs = _mc_z(toy_model, sampler, theory.exact_law(sampler), seed=31)
    for kk, (z_mean, z_var) in zs.items():
        assert abs(z_mean) < Z_MAX and abs(z_var) < Z_MAX, (name, kk, z_mean, z_var)


def test_simulator_matches_theory_from_offset_start(toy_model):
    sampler = sgld(toy_model, 0.03, 5)
    zs = _mc_z(toy_model, sampler, theory.exact_law(sampler, theta0=[-2.0]), seed=32, theta0=-2.0)
    for kk, (z_mean, z_var) in zs.items():
        assert abs(z_mean) < Z_MAX and abs(z_var) < Z_MAX, (kk, z_mean, z_var)


def test_monte_carlo_check_can_fail_wrong_noise(toy_model, monkeypatch):
    """With 2h injected noise instead of h the same comparison rejects the simulator."""
    monkeypatch.setattr(simulate.integrators.Langevin, "noise_scale", lambda self, hh: float(np.sqrt(2 * hh)))
    sampler = sgld(toy_model, 0.02, 5)
    assert sampler._noise == pytest.approx(np.sqrt(0.04))
    zs = _mc_z(toy_model, sampler, theory.exact_law(sampler), seed=31)
    assert abs(zs[3][1]) > 10, zs


def test_monte_carlo_check_can_fail_wrong_scheme(toy_model):
    """Theory for with-replacement minibatches (larger Var(B)) is rejected for a without-replacement run."""
    sampler = sgld(toy_model, 0.02, 5, replace=False)
    wrong = theory.exact_law(sgld(toy_model, 0.02, 5, replace=True))
    zs = _mc_z(toy_model, sampler, wrong, seed=31)
    assert abs(zs[3][1]) > 10, zs
