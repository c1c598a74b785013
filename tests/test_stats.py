"""The statistics behind the verdicts: standard errors are calibrated and Holm controls the family."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import ParameterError
from verify.stats import (
    column_means_and_se,
    covariance_and_se,
    delta_method_variance,
    holm,
    mean_and_se,
    paired_squared_norm_difference_and_se,
    ratio_of_means_and_se,
    squared_norm_bias_and_se,
    stationary_variance_and_se,
    variance_and_se,
    weighted_polyfit,
    z_test,
)


def test_holm_matches_hand_computation():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005 <= .05/4, 0.01 <= .05/3, 0.03 > .05/2 -> stop
    assert holm(p, 0.05).tolist() == [True, False, False, True]
    assert not holm(np.array([0.2, 0.3]), 0.05).any()


def test_z_test_rejects_bad_se():
    with pytest.raises(ParameterError, match="se must be finite"):
        z_test(1.0, 0.0, 1.0)
    with pytest.raises(ParameterError, match="se must be finite"):
        z_test(1.0, float("nan"), 1.0)


@pytest.mark.parametrize("dist", ["normal", "exponential"])
def test_variance_se_is_calibrated(dist):
    """Across 400 replicates the z-scores of the variance estimate have mean ~0 and sd ~1."""
    rng = np.random.default_rng(3)
    M, R = 2000, 400
    x = rng.standard_normal((R, M)) if dist == "normal" else rng.exponential(size=(R, M))
    zs = []
    for row in x:
        v, se = variance_and_se(row)
        zs.append((v - 1.0) / se)
    zs = np.array(zs)
    # the sd of R sample z's has s.e. ~ 1/sqrt(2R) = 0.035; the mean has s.e. 0.05
    assert abs(zs.mean()) < 4 * 0.05 + 0.05  # plus O(1/sqrt(M)) skewness bias of the delta method
    assert abs(zs.std() - 1.0) < 4 * 0.035


def test_stationary_variance_se_is_calibrated_on_ar1():
    """Time averages of a stationary AR(1): the delta-method s.e. across chains matches the spread."""
    rng = np.random.default_rng(5)
    a, mu, R, M, L = 0.8, 2.0, 300, 400, 200
    v = 1.0 / (1 - a * a)
    zs = []
    for _ in range(R):
        x = mu + np.sqrt(v) * rng.standard_normal(M)
        s1, s2 = np.zeros(M), np.zeros(M)
        for _ in range(L):
            s1 += x
            s2 += x * x
            x = mu + a * (x - mu) + rng.standard_normal(M)
        est, se = stationary_variance_and_se(s2 / L, s1 / L)
        zs.append((est - v) / se)
    zs = np.array(zs)
    assert abs(zs.mean()) < 4 / np.sqrt(R) + 0.05
    assert abs(zs.std() - 1.0) < 4 / np.sqrt(2 * R) + 0.05


def test_mean_and_se_needs_two_chains():
    with pytest.raises(ParameterError, match="at least 2"):
        mean_and_se(np.array([1.0]))


def test_weighted_polyfit_recovers_exact_polynomial():
    x = np.array([0.1, 0.2, 0.3, 0.5])
    y = 2 * x - 3 * x**2 + 0.5 * x**3
    c, cov = weighted_polyfit(x, y, np.ones_like(x), 3)
    np.testing.assert_allclose(c, [2, -3, 0.5], rtol=1e-10)
    assert cov.shape == (3, 3)


def test_delta_method_variance_is_the_quadratic_form():
    g, cov = np.array([1.0, -2.0]), np.array([[2.0, 0.5], [0.5, 1.0]])
    assert delta_method_variance(g, cov, 4) == pytest.approx((2.0 - 2.0 + 4.0) / 4)
    assert delta_method_variance(g, cov / 4) == pytest.approx(delta_method_variance(g, cov, 4))


def _z_scores(estimates: list[tuple[float, float]], truth: float) -> np.ndarray:
    return np.array([(e - truth) / s for e, s in estimates])


def test_ratio_and_squared_norm_estimates_are_calibrated():
    """Across 400 replicates the delta-method z-scores of a ratio of means, of |E x - ref|^2 and of a paired
    difference of squared norms have mean ~0 and sd ~1 (s.e. of the sd ~ 0.035), where the bias is resolved (|b|^2
    many s.e.; near |b| = 0 the quadratic form is skewed and its z-scores are not normal)."""
    rng = np.random.default_rng(11)
    R, M = 400, 2000
    b = np.array([0.2, -0.1])
    ratio, sq, paired = [], [], []
    for _ in range(R):
        den = 2.0 + rng.standard_normal(M)
        num = 0.5 * den + 0.3 * rng.standard_normal(M)
        ratio.append(ratio_of_means_and_se(num, den))
        x = b + rng.standard_normal((M, 2))
        sq.append(squared_norm_bias_and_se(x, np.zeros(2)))
        paired.append(paired_squared_norm_difference_and_se(x, x - b + 0.1 * rng.standard_normal((M, 2)),
                                                            np.zeros(2)))
    for zs in (_z_scores(ratio, 0.5), _z_scores(sq, float(b @ b)), _z_scores(paired, float(b @ b))):
        assert abs(zs.mean()) < 4 * 0.05 + 0.05 and abs(zs.std() - 1.0) < 4 * 0.035 + 0.05


def test_covariance_se_is_calibrated():
    rng = np.random.default_rng(12)
    zs = []
    for _ in range(400):
        x = rng.standard_normal(1000)
        y = 0.6 * x + 0.8 * rng.standard_normal(1000)
        c, se = covariance_and_se(x, y)
        zs.append((c - 0.6) / se)
    zs = np.array(zs)
    assert abs(zs.mean()) < 0.25 and abs(zs.std() - 1.0) < 0.2


def test_column_means_and_se_match_mean_and_se_per_coordinate():
    x = np.random.default_rng(13).standard_normal((50, 3))
    m, se = column_means_and_se(x, np.ones(3))
    for j in range(3):
        assert (m[j] + 1.0, se[j]) == pytest.approx(mean_and_se(x[:, j]))
    with pytest.raises(ParameterError, match="shape"):
        column_means_and_se(x[:1])
