"""Exact minibatch-sum moments (theory.noise.subset_moments) vs exhaustive enumeration, eq. (16), the paper's App. 10.1
Newton-identity forms, and the simulator's index draws (Monte Carlo with s.e.)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import simulate
from simulate.estimators.subsample import sample_indices
from theory import symbols as tsym
from theory.noise import subset_moments as sm
from theory.toy import constants as gaussian_toy

Z_MAX = 4.5


def _enumerate(xs, n: int, replace: bool) -> list[Fraction]:
    fx = [Fraction(float(v)) for v in xs]
    pool = (itertools.product(range(len(fx)), repeat=n) if replace
            else itertools.combinations(range(len(fx)), n))
    sums = [sum(fx[i] for i in c) for c in pool]
    return [sum(s**p for s in sums) / len(sums) for p in range(5)]


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("N,n", [(7, 3), (7, 1), (5, 5), (6, 4), (4, 2)])
def test_moments_equal_exhaustive_enumeration(N, n, replace):
    xs = np.random.default_rng(N * 10 + n).normal(1.0, 1.5, N)
    exact = sm.subset_sum_moments(xs, n, replace)
    enum = _enumerate(xs, n, replace)
    assert list(exact) == enum  # exact rational arithmetic: identical
    for e, v in zip(exact, enum, strict=True):
        assert abs(float(e) - float(v)) <= 1e-12 * abs(float(v))


def test_with_replacement_cumulant_route_equals_partition_route():
    xs = np.random.default_rng(3).exponential(1.0, 9)
    ps = sm.power_sums(xs)
    for n in (1, 3, 9):
        assert sm.with_replacement_moments_via_cumulants(ps, 9, n) == sm.raw_moments_from_power_sums(ps, 9, n, True)
        # kappa_j(S) = n kappa_j(empirical law)
        emp = sm.cumulants_from_raw([Fraction(1)] + [ps[j] / 9 for j in range(1, 5)])
        assert list(sm.subset_sum_cumulants(xs, n, True)) == [n * k for k in emp]


def test_raw_and_cumulant_conversions_are_inverse():
    m = [Fraction(1), Fraction(2), Fraction(7), Fraction(30), Fraction(151)]
    assert sm.raw_from_cumulants(sm.cumulants_from_raw(m)) == m
    # N(mu, s^2): cumulants (mu, s^2, 0, 0)
    assert sm.raw_from_cumulants([2, 3, 0, 0]) == [1, 2, 7, 26, 115]  # mu^4 + 6 mu^2 s^2 + 3 s^4


@pytest.mark.parametrize("replace", [False, True])
def test_symbolic_forms_equal_numeric(replace):
    xs = np.random.default_rng(5).normal(0.5, 1.0, 8)
    ps = sm.power_sums(xs)
    subs = {sm.N_SYM: 8, sm.n_SYM: 3}
    subs.update({sm.POWER_SUM_SYMBOLS[i]: sp.Rational(ps[i + 1].numerator, ps[i + 1].denominator) for i in range(4)})
    exact = sm.subset_sum_moments(xs, 3, replace)
    cums = sm.subset_sum_cumulants(xs, 3, replace)
    for p in range(5):
        assert sm.raw_moment_expr(p, replace).subs(subs) == sp.Rational(exact[p].numerator, exact[p].denominator)
    for p in range(1, 5):
        assert sm.cumulant_expr(p, replace).subs(subs) == sp.Rational(cums[p - 1].numerator, cums[p - 1].denominator)


def test_paper_newton_identity_moments_are_the_without_replacement_ones():
    """App. 10.1 labels its moments 'with replacement', but they are the distinct-index (without) ones."""
    newton = sm.paper_newton_moments()
    assert sp.simplify(newton["ES2"] - sm.raw_moment_expr(2, False)) == 0
    assert sp.simplify(newton["ES3"] - sm.raw_moment_expr(3, False)) == 0
    assert sp.simplify(newton["ES2"] - sm.raw_moment_expr(2, True)) != 0


@pytest.mark.parametrize("replace", [False, True])
def test_var_B_equals_eq16(replace):
    model = simulate.GaussianMeanModel.simulate_data(1000, theta_true=1.0, seed=2016)
    x = model.data[:, 0]
    for n in (1, 10, 100, 999):
        exact = float(sm.var_B(x, n, replace, sigma_x=1.3))
        printed = gaussian_toy.toy_constants(x, n, replace, sigma_x=1.3).VB
        assert exact == pytest.approx(printed, rel=1e-12)
    # symbolically: kappa_2(B) = c^2 kappa_2(S) is eq. (16) with VarX = (p2 - p1^2/N)/(N-1)
    p1, p2 = sm.POWER_SUM_SYMBOLS[:2]
    N, n = sm.N_SYM, sm.n_SYM
    c = N / (2 * n * tsym.sigma_x**2)
    eq16 = gaussian_toy.var_B_expr(replace).subs(
        {tsym.N: N, tsym.n: n, tsym.var_x: (p2 - p1**2 / N) / (N - 1)})
    assert sp.simplify(c**2 * sm.cumulant_expr(2, replace) - eq16) == 0


def test_n_equal_N_without_replacement_is_deterministic():
    xs = np.random.default_rng(1).normal(size=6)
    kap = sm.subset_sum_cumulants(xs, 6, False)
    assert kap[1] == kap[2] == kap[3] == 0
    assert kap[0] == sum(Fraction(float(v)) for v in xs)


def test_set_partitions_are_counted_by_bell_numbers():
    for k, bell in enumerate([1, 1, 2, 5, 15, 52, 203]):
        assert sum(1 for _ in sm.set_partitions(range(k))) == bell


def test_distinct_index_sum():
    xs = [Fraction(v) for v in (1, 2, 5)]
    ps = [len(xs)] + [sum(v**m for v in xs) for m in range(1, 6)]
    brute = sum(xs[i] ** 2 * xs[j] for i in range(3) for j in range(3) if i != j)
    assert sm.distinct_index_sum((2, 1), ps) == brute
    brute3 = sum(xs[i] * xs[j] * xs[k] for i, j, k in itertools.permutations(range(3)))
    assert sm.distinct_index_sum((1, 1, 1), ps) == brute3


@pytest.mark.parametrize("replace", [False, True])
def test_simulator_draws_match_exact_moments(replace):
    """The simulator's exact minibatch draws reproduce E S^p (Monte Carlo, seeded, |z| < 4.5)."""
    rng = np.random.default_rng(2024)
    xs = rng.normal(1.0, 1.0, 50)
    exact = sm.subset_sum_moments(xs, 7, replace)
    idx = sample_indices(np.random.default_rng(11), 50, 7, 200_000, replace)
    S = xs.take(idx).sum(axis=0)
    for p in range(1, 5):
        v = S**p
        z = (v.mean() - float(exact[p])) / (v.std(ddof=1) / math.sqrt(v.size))
        assert abs(z) < Z_MAX, (p, z)


def test_bad_input_raises_parameter_error():
    xs = np.arange(5.0)
    with pytest.raises(simulate.ParameterError, match="n must satisfy 1 <= n <= 5"):
        sm.subset_sum_moments(xs, 6)
    with pytest.raises(simulate.ParameterError, match="n must satisfy"):
        sm.minibatch_term_moments(xs, 0)
    with pytest.raises(simulate.ParameterError, match="p_max must satisfy 0 <= p_max <= 8"):
        sm.subset_sum_moments(xs, 2, p_max=9)
    with pytest.raises(simulate.ParameterError, match="data"):
        sm.subset_sum_moments(np.ones((3, 2)), 2)
    with pytest.raises(simulate.ParameterError, match="NaN"):
        sm.power_sums([1.0, float("nan")])
    with pytest.raises(simulate.ParameterError, match="sigma_x"):
        sm.minibatch_term_moments(xs, 2, sigma_x=0.0)
    with pytest.raises(simulate.ParameterError, match="p must satisfy"):
        sm.raw_moment_expr(9, False)
