"""Finite-time theory of the toy chain (theory.toy.finite_time): closed forms in M vs the augmented recursion and
brute-force sums, asymptotics, random-data expectations, the simulator (Monte Carlo with s.e.), and planted bugs
that the verify claims must report."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import simulate
import simulate.estimators as est
from simulate import GaussianMeanModel, msgld, run, sgld
from theory.numeric import lambdify_toy
from theory.toy import data_average as tda
from theory.toy import finite_time as tft
from theory.toy import finite_time_sympy as tfs
from theory.toy import moments as tm
from verify.harness import run_claims
from verify.registry import Settings, select
from verify.report import verdict

Z_MAX = 4.5
TOL = mpmath.mpf("1e-25")
DATA = np.random.default_rng(2016).normal(1.0, 1.0, 1000)
SMALL = np.random.default_rng(4).exponential(1.0, 12)  # skewed: third/fourth cumulants of B matter


def _rel(x, ref):
    return abs(x - ref) / max(abs(ref), mpmath.mpf(10) ** -30)


@pytest.fixture(scope="module")
def chains():
    return {
        ("euler", None, False, 0.5): tft.toy_finite_time("euler", DATA, r=0.5),
        ("sgld", 10, False, 0.05): tft.toy_finite_time("sgld", DATA, 10, r=0.05),
        ("sgld", 10, True, 0.3): tft.toy_finite_time("sgld", DATA, 10, replace=True, r=0.3),
        ("msgld", 10, True, 0.05): tft.toy_finite_time("msgld", DATA, 10, replace=True, r=0.05),
        ("msgld", 50, False, 0.2): tft.toy_finite_time("msgld", DATA, 50, r=0.2),
        ("sgld", 1, False, 0.9): tft.toy_finite_time("sgld", DATA, 1, r=0.9),
        ("sgld", 3, False, 1.5): tft.toy_finite_time("sgld", SMALL, 3, r=1.5, theta0=-0.7),  # a < 0
        ("msgld", 2, True, 0.4): tft.toy_finite_time("msgld", SMALL, 2, replace=True, r=0.4, theta0=2.0),
    }


# ---------------------------------------------------------------------------------------------- exactness

@pytest.mark.parametrize("M", [1, 2, 10, 10**6, 10**9])
def test_closed_form_equals_matrix_power_recursion(chains, M):
    for key, ch in chains.items():
        rec = ch.recursion(M)
        with mpmath.workdps(ch.dps):
            for q in tfs.QUANTITIES:
                assert _rel(ch.evaluate(q, M), rec[q]) < TOL, (key, q, M)


def test_closed_form_and_recursion_equal_brute_force_double_sums(chains):
    for key, ch in chains.items():
        enum = ch.enumeration(30)
        rec = ch.recursion(30)
        with mpmath.workdps(ch.dps):
            for q in tfs.QUANTITIES:
                assert _rel(ch.evaluate(q, 30), enum[q]) < TOL, (key, q)
                assert _rel(rec[q], enum[q]) < TOL, (key, q)


def test_moments_in_k_equal_iterated_recurrence(chains):
    for key, ch in chains.items():
        with mpmath.workdps(ch.dps):
            for k in (0, 1, 2, 7, 60):
                for p in range(5):
                    assert _rel(ch.moment(k, p), ch.moment_recursion(k, p)) < TOL, (key, k, p)


def test_cross_moments_equal_brute_force(chains):
    ch = chains[("msgld", 2, True, 0.4)]
    with mpmath.workdps(ch.dps):
        Q = ch._transition_Q()
        for i, j in ((0, 1), (3, 9), (5, 5)):
            u = [ch.moment_recursion(i, 2 + q) for q in range(3)]  # E theta_i^2 theta_j^q at j = i
            w = [ch.moment_recursion(i, 1 + q) for q in range(2)]
            for _ in range(j - i):
                u = [mpmath.fsum(Q[r][q] * u[q] for q in range(r + 1)) for r in range(3)]
                w = [mpmath.fsum(Q[r][q] * w[q] for q in range(r + 1)) for r in range(2)]
            assert _rel(ch.cross_moment(i, j, 2), u[2]) < TOL
            assert _rel(ch.cross_moment(i, j, 1), w[1]) < TOL


def test_geometric_primitives_equal_direct_sums():
    """The sympy closed forms of sum_k a^{lk} and sum_{i<j} a^{li} a^{m(j-i)} at exact rational a."""
    aa = sp.Rational(3, 7)
    for MM in (1, 2, 5, 9):
        for ell in range(5):
            direct = sum(aa ** (ell * k) for k in range(MM))
            assert sp.simplify(tfs.geom_sum(ell).subs({tfs.a: aa, tfs.z: aa**MM, tfs.M: MM}) - direct) == 0
            for m in range(3):
                direct = sum(aa ** (ell * i + m * (j - i)) for j in range(MM) for i in range(j))
                val = tfs.pair_sum(ell, m).subs({tfs.a: aa, tfs.z: aa**MM, tfs.M: MM})
                assert sp.simplify(val - direct) == 0, (ell, m, MM)


def test_stationary_moments_match_eqs_17_18_21(chains):
    for (method, _, _, _), ch in chains.items():
        args = (float(ch.A), float(ch.b[1]), float(ch.var_B), float(ch.h), 0, 0, 0)
        mean = lambdify_toy(tm.toy_stationary_mean(method))(*args)
        var = lambdify_toy(tm.stationary_variance(method))(*args)
        assert float(ch.stationary_moment(1)) == pytest.approx(mean, rel=1e-12)
        assert float(ch.stationary_moment(2)) == pytest.approx(var + mean**2, rel=1e-12)


def test_msgld_noise_and_euler_constants(chains):
    ch = chains[("msgld", 10, True, 0.05)]
    with mpmath.workdps(ch.dps):
        assert _rel(ch.noise_var, ch.h * (1 - ch.h * ch.var_B / 2) ** 2) < TOL
    e = chains[("euler", None, False, 0.5)]
    assert e.var_B == 0 and e.cumulants_B[2] == 0 and e.cumulants_B[3] == 0


# ---------------------------------------------------------------------------------------------- asymptotics

def test_asymptotic_variance_and_mse2_expansion(chains):
    """sigma_as^2 (docs/papers/vollmer.md sec. 4.4) = lim M Var S2; MSE2 = bias^2 + (sigma_as^2 + 2 bias C)/M + e2/M^2
    exactly up to a^M terms; the cross term 2 bias C is not negligible (bias^2 + sigma_as^2/M alone is off by
    O(1/M))."""
    for key in [("euler", None, False, 0.5), ("sgld", 10, False, 0.05), ("msgld", 10, True, 0.05),
                ("sgld", 3, False, 1.5)]:
        ch = chains[key]
        with mpmath.workdps(ch.dps):
            sig = ch.asymptotic_variance()
            b, C = ch.bias_theta2(), ch.transient_coefficient()
            e0, e1, e2 = ch.expansion("mse2")
            assert _rel(e0, b**2) < TOL and _rel(e1, sig + 2 * b * C) < TOL
            for M in (10**7, 10**8, 10**9):
                assert _rel(ch.mse2(M), e0 + e1 / M + e2 / M**2) < TOL
                assert abs(M * ch.var_s2(M) / sig - 1) < 100 / (M * (1 - abs(ch.a)))
                assert abs(M * (ch.mse2(M) - b**2) - sig - 2 * b * C) < 10 * abs(e2) / M + TOL
            es2_0, es2_1, _ = ch.expansion("es2")
            assert _rel(es2_0, ch.stationary_moment(2)) < TOL and _rel(es2_1, C) < TOL


def test_notes_sigma_as_orders_of_magnitude():
    """docs/papers/vollmer.md sec. 10 (another data set): SGLD n=10 r=0.1: 0.472; SGLD n=50 r=0.5: 0.0913; Euler r=0.3:
    0.0267."""
    for method, n, r, ref in (("sgld", 10, 0.1, 0.4721623), ("sgld", 50, 0.5, 0.0913137), ("euler", None, 0.3,
                                                                                            0.02669410)):
        val = float(tft.toy_finite_time(method, DATA, n, r=r).asymptotic_variance())
        assert val == pytest.approx(ref, rel=0.25)  # ~ 8 mu_p^2 Var_inf / r: data-set dependent via mu_p, VarX


# ---------------------------------------------------------------------------------------------- random data

def test_expected_power_sum_monomials():
    t, s = 1.3, 0.7
    m1, m2 = t, t**2 + s**2
    m3, m4 = t**3 + 3 * t * s**2, t**4 + 6 * t**2 * s**2 + 3 * s**4
    N = 9
    with mpmath.workdps(40):
        assert float(tda.expected_power_sum_monomial((2, 0, 0, 0), N, t, s)) == pytest.approx(
            N * m2 + N * (N - 1) * m1**2, rel=1e-14)
        assert float(tda.expected_power_sum_monomial((1, 1, 0, 0), N, t, s)) == pytest.approx(
            N * m3 + N * (N - 1) * m1 * m2, rel=1e-14)
        assert float(tda.expected_power_sum_monomial((0, 2, 0, 0), N, t, s)) == pytest.approx(
            N * m4 + N * (N - 1) * m2**2, rel=1e-14)


@pytest.mark.parametrize("quantity,method,N,n,replace,M,r", [
    ("mse2", "euler", 6, None, False, 15, 0.4),
    ("mse2", "msgld", 6, 2, True, 15, 0.4),
    ("ere", "sgld", 7, 3, False, 12, 0.6),
    ("mse1", "sgld", 5, 1, False, 10, 0.5),
])
@pytest.mark.slow
def test_exact_expectation_over_data_matches_monte_carlo(quantity, method, N, n, replace, M, r):
    exact = float(tda.expected_over_data(quantity, method, N, n, M, replace=replace, r=r))
    mean, se = tda.expected_over_data_mc(quantity, method, N, n, M, 1500, seed=N * M, replace=replace, r=r)
    assert abs(mean - exact) / se < Z_MAX


def test_random_data_targets_from_notes():
    """docs/papers/vollmer.md sec. 10 (10-data-set Monte Carlo): Euler r = N^-1/4, M = N^1.5: 2.2e-4 (N=100), 1.43e-6
    (1000); SGLD n = 1, h = N^-1.25: 1.1e-2, 2.1e-3.  Our exact E_X: 2.544e-4, 1.4456e-6 and 1.0258e-2, 2.2458e-3."""
    for N, e_ref, s_ref in ((100, 2.2e-4, 1.1e-2), (1000, 1.43e-6, 2.1e-3)):
        M = round(N**1.5)
        e = float(tda.expected_over_data("mse2", "euler", N, None, M, r=N**-0.25))
        s = float(tda.expected_over_data("mse2", "sgld", N, 1, M, h=N**-1.25))
        assert e == pytest.approx(e_ref, rel=0.2)
        assert s == pytest.approx(s_ref, rel=0.1)
    assert float(tda.expected_over_data("mse2", "euler", 100, None, 1000, r=100**-0.25)) == pytest.approx(
        2.5443739e-4, rel=1e-7)


# ---------------------------------------------------------------------------------------------- simulation

@pytest.mark.parametrize("maker,n,replace,r,M", [(sgld, 2, False, 0.5, 40), (msgld, 3, True, 0.3, 30)])
def test_simulation_matches_closed_forms(maker, n, replace, r, M):
    model = GaussianMeanModel(SMALL)
    sampler = maker(model, r / model.A, n, replace)
    th = tft.from_sampler(sampler, theta0=0.5)
    res = run(sampler, 40_000, M, seed=17, theta0=0.5, record_at=(M - 1,))
    S2, S1 = res.time_averages["theta2"][:, 0], res.time_averages["theta"][:, 0]
    t2 = float(th.target2)
    mu = float(th.posterior_mean)
    per_chain = {"mse2": (S2 - t2) ** 2, "mse1": (S1 - mu) ** 2,
                 "ere": (S2 - S1**2) / float(th.posterior_var) - 1, "es2": S2}
    for q, v in per_chain.items():
        z = (v.mean() - float(th.evaluate(q, M))) / (v.std(ddof=1) / math.sqrt(v.size))
        assert abs(z) < Z_MAX, (q, z)
    snap = res.snapshots[M - 1][:, 0]
    for p in (3, 4):
        v = snap**p
        z = (v.mean() - float(th.moment(M - 1, p))) / (v.std(ddof=1) / math.sqrt(v.size))
        assert abs(z) < Z_MAX, (p, z)


# ---------------------------------------------------------------------------------------------- verify claims

FINITE_IDS = ["vollmer.eq22.mse2_finite_time", "vollmer.sec2.mse1_finite_time", "vollmer.eq68.ere_finite_time",
              "vollmer.app10.higher_moments", "vollmer.app10.closed_form_exact", "vollmer.app10_2.random_data_mse2"]
FAST = Settings(chains=2000, seed=7, alpha=0.01)


def _verdicts(ids, settings=FAST):
    rows = run_claims(select(ids=ids), settings)
    return {c.id: verdict(c, r) for c, r in rows}, rows


@pytest.mark.slow
def test_finite_time_claims_hold_on_correct_code():
    verdicts, rows = _verdicts(FINITE_IDS)
    assert set(verdicts.values()) == {"holds"}, verdicts
    assert all(r.figure is not None for _, r in rows)


@pytest.fixture
def slipped_theory(monkeypatch):
    """The paper's printed slip in App. 10.1: (1-Ah)^{j-i} instead of (1-Ah)^{2(j-i)} on E theta_i^4."""
    original = tfs.cross_kernel_22

    def slip(yy):
        alpha, beta, _ = original(yy)
        return alpha, beta, yy

    monkeypatch.setattr(tfs, "cross_kernel_22", slip)
    tfs.clear_derivation_cache()
    yield
    monkeypatch.undo()
    tfs.clear_derivation_cache()


@pytest.mark.slow
def test_paper_exponent_slip_is_reported(slipped_theory):
    verdicts, rows = _verdicts(["vollmer.eq22.mse2_finite_time", "vollmer.app10.closed_form_exact"])
    assert verdicts == {"vollmer.eq22.mse2_finite_time": "fails", "vollmer.app10.closed_form_exact": "fails"}


def test_with_replacement_draws_where_without_is_claimed_are_reported(monkeypatch):
    monkeypatch.setattr(est.minibatch, "sample_indices", lambda rng, N, n, M, replace: np.random.Generator.integers(
        rng, 0, N, size=(n, M)))
    verdicts, rows = _verdicts(["vollmer.eq22.mse2_finite_time"])
    assert verdicts["vollmer.eq22.mse2_finite_time"] == "fails"
    rejected = [c.label for _, r in rows for c in r.checks if c.rejected]
    assert rejected and all("without" in lab for lab in rejected)


# ---------------------------------------------------------------------------------------------- bad input

def test_bad_input_raises_parameter_error(chains):
    ch = chains[("sgld", 10, False, 0.05)]
    with pytest.raises(simulate.ParameterError, match="M must satisfy 1 <= M"):
        ch.mse2(0)
    with pytest.raises(simulate.ParameterError, match="quantity must be one of"):
        ch.evaluate("mse3", 10)
    with pytest.raises(simulate.ParameterError, match="p must satisfy 0 <= p <= 4"):
        ch.moment(3, 5)
    with pytest.raises(simulate.ParameterError, match="j must satisfy"):
        ch.cross_moment(5, 2)
    with pytest.raises(simulate.ParameterError, match="h must satisfy 0 < h <"):
        tft.toy_finite_time("sgld", DATA, 10, h=2.0 / 500.5)
    with pytest.raises(simulate.ParameterError, match="r must satisfy 0 < r < 2"):
        tft.toy_finite_time("sgld", DATA, 10, r=2.0)
    with pytest.raises(simulate.ParameterError, match="n must satisfy 1 <= n <= 1000"):
        tft.toy_finite_time("sgld", DATA, 1001, r=0.1)
    with pytest.raises(simulate.ParameterError, match="method must be one of"):
        tft.toy_finite_time("sgd", DATA, 10, r=0.1)
    with pytest.raises(simulate.ParameterError, match="exactly one of h"):
        tft.toy_finite_time("sgld", DATA, 10)
    with pytest.raises(simulate.ParameterError, match="dps must satisfy"):
        tft.toy_finite_time("sgld", DATA, 10, r=0.1, dps=10)
    with pytest.raises(simulate.ParameterError, match="euler needs a constant B"):
        tft.ToyFiniteTime("euler", ch.A, ch.h, ch.b, ch.theta0)
    with pytest.raises(simulate.ParameterError, match="N must satisfy 2 <= N"):
        tda.expected_over_data("mse2", "euler", 1, None, 10, r=0.1)
    with pytest.raises(simulate.ParameterError, match="M must satisfy"):
        tda.expected_over_data("mse2", "euler", 10, None, 0, r=0.1)
