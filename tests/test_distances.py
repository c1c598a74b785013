"""theory.distances against independent routes: scipy quadrature in 1-D, scipy's noncentral chi-square for the
Gil-Pelaez inversion, Monte Carlo in p dimensions, closed forms of special cases, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from simulate.validation import ParameterError
from theory.distances import (
    _prob_positive,
    gelbrich_w2,
    kl_gaussian,
    kl_grid_1d,
    kl_lower_from_moments,
    renyi_gaussian,
    tv_gaussian,
    tv_grid_1d,
    w2_gaussian,
    w2_grid_1d,
)

CASES_1D = [(0.0, 1.0, 0.3, 1.5), (0.0, 1.0, 2.0, 0.5), (1.0, 2.0, 1.0, 2.0001), (0.0, 1.0, 0.1, 1.0)]


def _pdf(x, m, s):
    return stats.norm.pdf(x, m, s)


@pytest.mark.parametrize("a,s,b,t", CASES_1D)
def test_one_dimensional_closed_forms_against_quadrature(a, s, b, t):
    lo, hi = min(a, b) - 30 * max(s, t), max(a, b) + 30 * max(s, t)
    diff = lambda x: _pdf(x, a, s) - _pdf(x, b, t)  # noqa: E731
    grid = np.linspace(lo, hi, 200_001)
    signs = np.nonzero(np.diff(np.sign(diff(grid))))[0]
    kinks = [optimize.brentq(diff, grid[i], grid[i + 1], xtol=1e-14) for i in signs]  # where |f1 - f2| has a kink
    tv = 0.5 * integrate.quad(lambda x: abs(diff(x)), lo, hi, points=kinks + [a, b], limit=400)[0]
    assert tv_gaussian(a, s * s, b, t * t) == pytest.approx(tv, abs=1e-10)
    kl = integrate.quad(lambda x: _pdf(x, a, s) * (stats.norm.logpdf(x, a, s) - stats.norm.logpdf(x, b, t)),
                        lo, hi, limit=400)[0]
    assert kl_gaussian(a, s * s, b, t * t) == pytest.approx(kl, rel=1e-9, abs=1e-13)
    # W2 in 1-D: the quantile coupling of two Gaussians, sqrt((a - b)^2 + (s - t)^2)
    assert w2_gaussian(a, s * s, b, t * t) == pytest.approx(math.hypot(a - b, s - t), rel=1e-12)
    for alpha in (0.5, 0.9, 1.3):
        integrand = lambda x, al=alpha: math.exp(al * stats.norm.logpdf(x, a, s)  # noqa: E731
                                                 + (1 - al) * stats.norm.logpdf(x, b, t))
        ref = math.log(integrate.quad(integrand, -np.inf, np.inf, limit=400)[0]) / (alpha - 1)
        assert renyi_gaussian(alpha, a, s * s, b, t * t) == pytest.approx(ref, rel=1e-8, abs=1e-12)


def test_renyi_is_infinite_where_the_integral_diverges_and_tends_to_kl():
    assert renyi_gaussian(2.5, 0.3, 1.69, 0.0, 1.0) == math.inf  # 2.5/1.69 - 1.5 < 0: the integrand grows
    assert renyi_gaussian(1 + 1e-6, 0.3, 1.69, 0.0, 1.0) == pytest.approx(kl_gaussian(0.3, 1.69, 0.0, 1.0), rel=1e-5)


@pytest.mark.parametrize("p,lam,s,c0", [(2, 0.7, [0.3, -1.0], -1.2), (2, -0.4, [0.5, 0.5], 0.9),
                                        (5, 0.05, [0.1] * 5, -0.2), (3, 2.0, [0, 0, 0], -0.01)])
def test_gil_pelaez_inversion_against_the_noncentral_chi_square(p, lam, s, c0):
    s = np.array(s, dtype=float)
    nc = float(np.sum(s**2))
    law = stats.ncx2(p, nc) if nc > 0 else stats.chi2(p)
    ref = law.sf(-c0 / lam) if lam > 0 else law.cdf(-c0 / lam)
    assert _prob_positive(np.full(p, lam), s, 0.0, c0) == pytest.approx(ref, abs=1e-10)


@pytest.mark.parametrize("p", [2, 5])
def test_tv_in_p_dimensions_against_monte_carlo(p):
    rng = np.random.default_rng(p)
    A, B = rng.standard_normal((2, p, p))
    S1, S2 = A @ A.T / p + np.eye(p), B @ B.T / p + np.eye(p)
    m1, m2 = 0.3 * rng.standard_normal(p), np.zeros(p)
    x = stats.multivariate_normal(m1, S1).rvs(400_000, random_state=3)
    g = np.maximum(0.0, 1.0 - np.exp(stats.multivariate_normal(m2, S2).logpdf(x)
                                      - stats.multivariate_normal(m1, S1).logpdf(x)))
    se = g.std() / math.sqrt(g.size)
    assert abs(tv_gaussian(m1, S1, m2, S2) - g.mean()) < 4 * se


def test_tv_equal_covariances_and_symmetry():
    S = np.array([[2.0, 0.3], [0.3, 1.0]])
    d = np.array([0.4, -0.2])
    delta = math.sqrt(d @ np.linalg.solve(S, d))
    assert tv_gaussian(d, S, np.zeros(2), S) == pytest.approx(2 * stats.norm.cdf(delta / 2) - 1, abs=1e-14)
    S2 = np.diag([1.5, 0.7])
    assert tv_gaussian(d, S, np.zeros(2), S2) == pytest.approx(tv_gaussian(np.zeros(2), S2, d, S), abs=1e-10)


def test_w2_general_route_agrees_with_the_commuting_form_and_rotation():
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    a, b = np.array([1.0, 2.0, 3.5, 0.2]), np.array([1.1, 1.0, 3.0, 0.2])
    exact = math.sqrt(np.sum((np.sqrt(a) - np.sqrt(b)) ** 2) + 0.5**2)
    m = np.array([0.5, 0, 0, 0])
    assert w2_gaussian(m, np.diag(a), np.zeros(4), np.diag(b)) == pytest.approx(exact, rel=1e-13)
    assert w2_gaussian(U @ m, U @ np.diag(a) @ U.T, np.zeros(4), U @ np.diag(b) @ U.T) == pytest.approx(exact,
                                                                                                      rel=1e-7)


def test_gelbrich_bounds_w2_of_non_gaussian_laws_from_below():
    # a two-point law against a Gaussian: W2 by the 1-D quantile formula, above the Gelbrich bound
    x = np.linspace(-8, 8, 4001)
    mix = 0.5 * (_pdf(x, -1.0, 0.3) + _pdf(x, 1.0, 0.3))
    var = 1.0 + 0.09
    w2 = w2_grid_1d(x, mix, _pdf(x, 0.0, 1.0))
    assert gelbrich_w2(0.0, var, 0.0, 1.0) <= w2
    # KL(mixture || N(0, 1)) >= KL of the Gaussian with the mixture's moments
    assert kl_lower_from_moments(0.0, var, 0.0, 1.0) <= kl_grid_1d(x, mix, _pdf(x, 0.0, 1.0))


def test_grid_distances_reproduce_the_gaussian_closed_forms():
    x = np.linspace(-15, 15, 6001)
    f, g = _pdf(x, 0.3, 1.3), _pdf(x, 0.0, 1.0)
    assert w2_grid_1d(x, f, g) == pytest.approx(w2_gaussian(0.3, 1.69, 0.0, 1.0), rel=1e-4)
    assert tv_grid_1d(x, f, g) == pytest.approx(tv_gaussian(0.3, 1.69, 0.0, 1.0), abs=1e-6)
    assert kl_grid_1d(x, f, g) == pytest.approx(kl_gaussian(0.3, 1.69, 0.0, 1.0), rel=1e-8)


@pytest.mark.parametrize("call,match", [
    (lambda: w2_gaussian([0.0, 1.0], np.eye(3), [0.0, 0.0], np.eye(2)), "shape"),
    (lambda: w2_gaussian([0.0, np.nan], np.eye(2), [0.0, 0.0], np.eye(2)), "finite"),
    (lambda: kl_gaussian(0.0, -1.0, 0.0, 1.0), "positive semi-definite"),
    (lambda: kl_gaussian(0.0, 1.0, 0.0, 0.0), "positive definite"),
    (lambda: w2_gaussian([0.0], [[1.0]], [0.0, 0.0], np.eye(2)), "one dimension"),
    (lambda: renyi_gaussian(1.0, 0.0, 1.0, 0.0, 1.0), "alpha"),
    (lambda: tv_gaussian(0.0, np.array([[1.0, 2.0], [0.0, 1.0]]), 0.0, 1.0), "shape|symmetric"),
    (lambda: tv_grid_1d([0.0, 1.0, 0.5], [1, 1, 1], [1, 1, 1]), "increasing"),
    (lambda: tv_grid_1d(np.linspace(0, 1, 5), np.full(5, 3.0), np.ones(5)), "integrate to 1"),
])
def test_bad_input_is_a_parameter_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_gil_pelaez_with_weights_of_very_different_sizes():
    """A weight 10^5 times smaller than the other (a chain's covariance matching the target in one direction)."""
    rng = np.random.default_rng(7)
    lam, s, c0 = np.array([0.5, 1e-5]), np.array([0.3, 0.0]), -0.2
    w = rng.standard_normal((2_000_000, 2))
    q = ((w + s) ** 2) @ lam + c0
    est, se = (q > 0).mean(), (q > 0).std() / math.sqrt(q.size)
    assert abs(_prob_positive(lam, s, 0.0, c0) - est) < 4 * se
