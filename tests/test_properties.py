"""Property-based tests (hypothesis) of the closed forms: variances are non-negative, SGLD is Euler when n = N
without replacement, and mSGLD agrees with SGLD at first order in h (Vollmer et al. eqs. 19-21, Section 4.2).
Example counts are bounded and the search is derandomized, so the tests are fast and deterministic."""

from __future__ import annotations

import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simulate.estimators.minibatch import FullGradient, Minibatch
from simulate.models.gaussian import GaussianMeanModel
from theory.noise import subset_moments as sm
from theory.noise import vr as vr_noise
from theory.numeric import lambdify_toy
from theory.schemes import METHODS
from theory.symbols import VB, A, h
from theory.toy import moments as tm
from theory.toy.chain import ToyChain
from theory.toy.constants import ToyConstants, toy_constants

FAST = settings(max_examples=40, derandomize=True, deadline=None, database=None)

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
data_sets = arrays(np.float64, st.integers(2, 30), elements=finite)
A_vals = st.floats(0.5, 1e4)
VB_vals = st.floats(0.0, 1e6)
r_vals = st.floats(1e-6, 1.999)
k_vals = st.integers(0, 10**9)


@FAST
@given(data_sets, st.data(), st.booleans())
def test_minibatch_noise_variance_non_negative(x, data, replace):
    n = data.draw(st.integers(1, x.size))
    c = toy_constants(x, n, replace)
    assert c.VB >= 0.0 and c.A > 0.0
    assert float(sm.var_B(x, n, replace)) >= -1e-9 * (1 + float(np.sum(x * x)))
    gd = vr_noise.GaussianData.of(x)
    assert vr_noise.sgld_noise_variance(gd, n, replace) >= 0.0
    assert vr_noise.minibatch_noise(x[:, None], n, replace) >= 0.0
    # Gamma (Lemma 2) is kept in the paper's double-sum form, which cancels: >= 0 up to rounding of its terms
    N = x.size
    assert vr_noise.gamma(x[:, None]) >= -1e-14 * N * float(np.sum(x * x)) / (N * N * (N - 1))
    assert vr_noise.sample_var(x[:, None]) / N >= 0.0  # the same Gamma as a sample variance: exactly non-negative


@FAST
@given(st.sampled_from(METHODS), A_vals, VB_vals, r_vals, k_vals, st.floats(0.0, 10.0))
def test_toy_chain_variances_non_negative(method, a, vb, r, k, v0):
    ch = ToyChain(method, ToyConstants(A=a, EB=0.3 * a, VB=vb, N=100, n=10, replace=False), r / a)
    assert ch.stationary_variance() > 0.0
    assert float(ch.variance(k, v0)) >= 0.0
    assert float(ch.variance(k, 0.0)) <= ch.stationary_variance() * (1 + 1e-12)  # monotone from 0 to Var_inf


@FAST
@given(data_sets, st.floats(1e-4, 1.999), st.integers(0, 10**6))
def test_sgld_equals_euler_when_n_equals_N_without_replacement(x, r, k):
    N = x.size
    c_sgld, c_euler = toy_constants(x, N, replace=False), toy_constants(x, N, replace=False)
    assert c_sgld.VB == 0.0
    hh = r / c_euler.A
    sg, eu = ToyChain("sgld", c_sgld, hh), ToyChain("euler", c_euler, hh)
    assert sg.stationary_variance() == eu.stationary_variance()
    assert float(sg.variance(k, 0.1)) == float(eu.variance(k, 0.1))
    assert float(sg.mean(k, 0.5)) == float(eu.mean(k, 0.5))


@FAST
@given(arrays(np.float64, st.integers(2, 40), elements=finite), arrays(np.float64, 5, elements=finite))
def test_minibatch_estimator_with_n_equal_N_is_the_full_gradient(x, theta):
    """Simulator side of the same fact: the size-N subset without replacement is the whole data set."""
    model = GaussianMeanModel(x)
    rng = np.random.default_rng(0)
    th = theta[:, None]
    g_full, _ = FullGradient().estimate(model, th, None, rng)
    g_mb, _ = Minibatch(model.n_data).estimate(model, th, None, rng)
    scale = 1.0 + np.abs(g_full)
    np.testing.assert_array_less(np.abs(g_mb - g_full), 1e-9 * scale * model.n_data)
    assert float(Minibatch(model.n_data).noise_cov(model)[0, 0]) == 0.0


def test_msgld_and_sgld_one_step_laws_agree_at_first_order_symbolically():
    """Per-step variance: SGLD h + h^2 V_B, mSGLD h (1 - h V_B/2)^2 + h^2 V_B: equal up to O(h^2); the means are
    identical. So the first-order (in h) bias coefficients differ only by SGLD's noise term V_B/(2A) (eq. 19)."""
    _, c_s, q_s = tm.one_step("sgld")
    _, c_m, q_m = tm.one_step("msgld")
    assert sp.simplify(c_s - c_m) == 0
    diff = sp.series(q_m - q_s, h, 0, 2).removeO()
    assert sp.simplify(diff) == 0
    c1 = tm.toy_leading_bias_coefficient
    assert sp.simplify(c1("sgld") - c1("msgld") - VB / (2 * A)) == 0
    assert sp.simplify(c1("msgld") - c1("euler")) == 0


@FAST
@given(A_vals, VB_vals, st.floats(1e-9, 1e-4))
def test_msgld_and_sgld_stationary_variances_agree_at_first_order(a, vb, r):
    """|Var_inf(SGLD) - Var_inf(mSGLD) - h V_B/(2A)| is O(h^2): below a generous multiple of (h V_B)^2/A for
    small h (the exact difference is h V_B/(2A) (1 - h V_B/4)/(1 - A h/2))."""
    hh = r / a
    cs = ToyConstants(A=a, EB=0.0, VB=vb, N=100, n=10, replace=False)
    vs, vm = ToyChain("sgld", cs, hh).stationary_variance(), ToyChain("msgld", cs, hh).stationary_variance()
    first = hh * vb / (2 * a)
    f = lambdify_toy(tm.excess_over_euler("sgld") - tm.excess_over_euler("msgld"))
    exact = float(f(a, 0.0, vb, hh, 0, 0.0, 0.0))
    assert abs(exact - first) <= 2 * (hh * vb) ** 2 / a + 2 * r * first + 1e-300
    assert abs((vs - vm) - exact) <= 1e-9 * vs
