"""The statistics of the verdicts, in one place: estimates with standard errors across independent chains, the
delta method, z-tests, detectable deviations and family-wise error control (Holm 1979).

Every estimate below takes one value per independent chain (or replicate), so its standard error comes from the
spread across chains, never from a tuned tolerance. Estimates that are smooth functions of several means get their
s.e. from the delta method (:func:`delta_method_variance`); the functions that use it say their gradient.

References
----------
Casella, G. & Berger, R. L. (2002). *Statistical Inference*, 2nd ed. Sec. 5.5.4 (the delta method, Theorems 5.5.24
and 5.5.28); Exercise 5.8 (the variance of the sample variance).
Cochran, W. G. (1977). *Sampling Techniques*, 3rd ed. Ch. 6 (the variance of a ratio of means).
Searle, S. R. (1971). *Linear Models*, Ch. 2 (mean and variance of a quadratic form of a normal vector).
Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scand. J. Statist.* 6, 65-70.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq

from simulate.validation import ParameterError


def _per_chain(x) -> np.ndarray:
    """``x`` as a flat float64 array of per-chain values."""
    return np.asarray(x, dtype=np.float64).ravel()


def mean_and_se(x: np.ndarray) -> tuple[float, float]:
    """Sample mean of per-chain values and its standard error.

    Parameters
    ----------
    x : array_like
        One value per independent chain (flattened).

    Returns
    -------
    mean, se : float
        The sample mean and sd / sqrt(M), sd with divisor M - 1.

    Raises
    ------
    ParameterError
        With fewer than 2 values.
    """
    x = _per_chain(x)
    if x.size < 2:
        raise ParameterError(f"need at least 2 independent chains for a standard error, got {x.size}")
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))


def column_means_and_se(x: np.ndarray, ref=0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per coordinate: the mean of per-chain vectors minus ``ref``, and its standard error.

    Parameters
    ----------
    x : array_like, shape (M, d)
        One vector per independent chain.
    ref : float or array_like of shape (d,)
        Subtracted from the mean (e.g. a reference posterior mean, giving a bias).

    Returns
    -------
    mean_minus_ref, se : ndarray, shape (d,)
        ``x.mean(0) - ref`` and sd / sqrt(M) per coordinate (sd with divisor M - 1).

    Raises
    ------
    ParameterError
        If ``x`` is not 2-D with at least 2 rows.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ParameterError(f"x must have shape (chains >= 2, d), got {x.shape}")
    return x.mean(axis=0) - ref, x.std(axis=0, ddof=1) / math.sqrt(x.shape[0])


def variance_and_se(x: np.ndarray) -> tuple[float, float]:
    """Unbiased sample variance of i.i.d. values (one per chain) and its standard error.

    Parameters
    ----------
    x : array_like
        One value per independent chain (flattened).

    Returns
    -------
    s2, se : float
        The sample variance (divisor M - 1) and sqrt((m4 - s2^2 (M - 3)/(M - 1)) / M), m4 the fourth central sample
        moment: the plug-in estimate of Var(s^2) = (mu_4 - sigma^4 (M - 3)/(M - 1))/M.

    Raises
    ------
    ParameterError
        With fewer than 4 values.

    References
    ----------
    Casella & Berger (2002), Exercise 5.8 (the variance of the sample variance); Cramer, H. (1946), Mathematical
    Methods of Statistics, eq. (27.4.2), with the sample moments in place of the population's.
    """
    x = _per_chain(x)
    M = x.size
    if M < 4:
        raise ParameterError(f"need at least 4 independent chains for a variance s.e., got {M}")
    c = x - x.mean()
    s2 = float(c @ c / (M - 1))
    m4 = float(np.mean(c**4))
    return s2, float(np.sqrt(max(m4 - s2 * s2 * (M - 3) / (M - 1), 0.0) / M))


def covariance_and_se(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Unbiased sample covariance of i.i.d. pairs (one per chain) and its standard error.

    Parameters
    ----------
    x, y : array_like
        One value each per independent chain, of equal length.

    Returns
    -------
    cov, se : float
        sum (x - xbar)(y - ybar) / (M - 1) and sd((x - xbar)(y - ybar)) / sqrt(M): the covariance is the mean of the
        centred products, whose s.e. is that of a mean (centring at the sample means changes it by O(1/M)).

    Raises
    ------
    ParameterError
        With fewer than 4 pairs or lengths that differ.

    References
    ----------
    Casella & Berger (2002), Sec. 5.5.4 (the delta method: the centring's effect is of lower order).
    """
    x, y = _per_chain(x), _per_chain(y)
    M = x.size
    if M < 4 or y.size != M:
        raise ParameterError("need matching values for at least 4 chains")
    p = (x - x.mean()) * (y - y.mean())
    return float(p.sum() / (M - 1)), float(p.std(ddof=1) / math.sqrt(M))


def delta_method_variance(gradient: np.ndarray, cov: np.ndarray, n: int = 1):
    """The delta method: the variance of f(means) to first order, g^T Sigma g / n.

    Parameters
    ----------
    gradient : ndarray, shape (k,)
        The gradient g of f at the sample means.
    cov : ndarray, shape (k, k)
        The covariance of the per-chain values (with ``n`` the number of chains), or, with ``n = 1``, the
        covariance of the means themselves.
    n : int
        The number of independent chains the means average (1 when ``cov`` is already that of the means).

    Returns
    -------
    float
        g @ cov @ g / n.

    References
    ----------
    Casella & Berger (2002), Sec. 5.5.4, Theorem 5.5.28 (the multivariate delta method).
    """
    return gradient @ cov @ gradient / n


def stationary_variance_and_se(avg_theta2: np.ndarray, avg_theta: np.ndarray) -> tuple[float, float]:
    """Var_pi(theta) from per-chain time averages of theta^2 and theta (chains independent).

    Parameters
    ----------
    avg_theta2, avg_theta : array_like
        Per-chain time averages a2 of theta^2 and a1 of theta, of equal length M >= 4.

    Returns
    -------
    var, se : float
        mean(a2) - [mean(a1)^2 - var(a1)/M] (the bracket is unbiased for (E a1)^2), and its s.e. by the delta method
        with gradient (1, -2 mean(a1)) and the sample covariance of (a2, a1).

    Raises
    ------
    ParameterError
        With fewer than 4 chains or lengths that differ.

    References
    ----------
    Casella & Berger (2002), Sec. 5.5.4 (the delta method).
    """
    a2, a1 = _per_chain(avg_theta2), _per_chain(avg_theta)
    M = a1.size
    if M < 4 or a2.size != M:
        raise ParameterError("need matching per-chain averages for at least 4 chains")
    m1 = a1.mean()
    cov = np.cov(np.vstack([a2, a1]))
    est = float(a2.mean() - (m1 * m1 - cov[1, 1] / M))
    g = np.array([1.0, -2.0 * m1])
    return est, float(np.sqrt(delta_method_variance(g, cov, M)))


def stationary_covariance_and_se(a_xy, a_x, a_y) -> tuple[float, float]:
    """Cov_pi(x, y) from per-chain time averages of x y, x and y (chains independent).

    Parameters
    ----------
    a_xy, a_x, a_y : array_like
        Per-chain time averages, of equal length M >= 4.

    Returns
    -------
    cov, se : float
        mean(a_xy) - [mean(a_x) mean(a_y) - cov(a_x, a_y)/M] and its s.e. by the delta method with gradient
        (1, -mean(a_y), -mean(a_x)).

    Raises
    ------
    ParameterError
        With fewer than 4 chains or lengths that differ.

    References
    ----------
    Casella & Berger (2002), Sec. 5.5.4 (the delta method).
    """
    axy, ax, ay = (_per_chain(a) for a in (a_xy, a_x, a_y))
    M = ax.size
    if M < 4 or axy.size != M or ay.size != M:
        raise ParameterError("need matching per-chain averages for at least 4 chains")
    cov = np.cov(np.vstack([axy, ax, ay]))
    est = float(axy.mean() - (ax.mean() * ay.mean() - cov[1, 2] / M))
    g = np.array([1.0, -ay.mean(), -ax.mean()])
    return est, float(np.sqrt(delta_method_variance(g, cov, M)))


def squared_norm_bias_and_se(x: np.ndarray, ref: np.ndarray, ref_err: float = 0.0) -> tuple[float, float]:
    """|E x - ref|^2 from per-chain vectors, unbiased, with its standard error.

    Parameters
    ----------
    x : ndarray, shape (M, d)
        One vector per independent chain.
    ref : ndarray, shape (d,)
        The reference (e.g. the exact posterior mean).
    ref_err : float
        The reference's numerical error per coordinate, combined in quadrature through its contribution
        2 |b| sqrt(d) ref_err.

    Returns
    -------
    est, se : float
        |xbar - ref|^2 - tr C with C = Cov(x)/M the covariance of the mean (E|xbar - ref|^2 = |b|^2 + tr C), and
        sqrt(4 b^T C b + 2 tr C^2 + (2 |b| sqrt(d) ref_err)^2): the variance of the quadratic form |xbar - ref|^2 of
        a normal vector (its first term is the delta method's, gradient 2b) plus the reference's error (new).

    References
    ----------
    Searle (1971), Ch. 2 (the variance of a quadratic form of a normal vector); Casella & Berger (2002),
    Sec. 5.5.4.
    """
    M, d = x.shape
    b = x.mean(axis=0) - ref
    C = np.atleast_2d(np.cov(x.T)) / M
    est = float(b @ b - np.trace(C))
    var = delta_method_variance(2.0 * b, C) + 2.0 * np.trace(C @ C) + (2.0 * np.linalg.norm(b) * math.sqrt(d)
                                                                        * ref_err) ** 2
    return est, float(math.sqrt(var))


def paired_squared_norm_difference_and_se(x1: np.ndarray, x2: np.ndarray, ref: np.ndarray,
                                          ref_err: float = 0.0) -> tuple[float, float]:
    """|E x1 - ref|^2 - |E x2 - ref|^2 from coupled per-chain vectors (chain m of x1 and x2 share random numbers).

    Parameters
    ----------
    x1, x2 : ndarray, shape (M, d)
        Per-chain vectors of two coupled samplers.
    ref : ndarray, shape (d,)
        The reference.
    ref_err : float
        The reference's numerical error per coordinate (combined in quadrature).

    Returns
    -------
    est, se : float
        With u = x1 - x2 and v = x1 + x2 - 2 ref the difference is E u . E v, estimated without bias by
        ubar . vbar - tr Cov(u, v)/M; its s.e. by the delta method with gradient (vbar, ubar) and the joint sample
        covariance of (u, v), plus the reference's error (new).

    References
    ----------
    Casella & Berger (2002), Sec. 5.5.4 (the delta method).
    """
    M, d = x1.shape
    u, v = x1 - x2, x1 + x2 - 2.0 * ref
    ub, vb = u.mean(axis=0), v.mean(axis=0)
    S = np.cov(np.hstack([u, v]).T) / M
    est = float(ub @ vb - np.trace(S[:d, d:]))
    g = np.concatenate([vb, ub])
    var = delta_method_variance(g, S) + (2.0 * np.linalg.norm(ub) * math.sqrt(d) * ref_err) ** 2
    return est, float(math.sqrt(var))


def ratio_of_means_and_se(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """E num / E den from paired per-chain values, with its delta-method standard error.

    Parameters
    ----------
    num, den : array_like
        One value each per independent chain, of equal length.

    Returns
    -------
    rho, se : float
        mean(num) / mean(den) and sqrt(c_nn - 2 rho c_nd + rho^2 c_dd) / |mean(den)|, c the covariance of the two
        means: the delta method with gradient (1, -rho)/mean(den), written out.

    References
    ----------
    Cochran (1977), Ch. 6 (the variance of a ratio estimate); Casella & Berger (2002), Sec. 5.5.4.
    """
    num, den = _per_chain(num), _per_chain(den)
    if num.size < 2 or den.size != num.size:
        raise ParameterError("need matching values for at least 2 chains")
    mn, md = num.mean(), den.mean()
    rho = mn / md
    cov = np.cov(np.vstack([num, den])) / len(num)
    return float(rho), math.sqrt(max(cov[0, 0] - 2 * rho * cov[0, 1] + rho**2 * cov[1, 1], 0.0)) / abs(md)


def z_test(estimate: float, se: float, theory: float) -> tuple[float, float]:
    """z = (estimate - theory)/se and its two-sided normal p-value.

    Raises
    ------
    ParameterError
        If ``se`` is not finite and positive.
    """
    if not (np.isfinite(se) and se > 0):
        raise ParameterError(f"se must be finite and > 0, got {se!r}")
    z = (estimate - theory) / se
    return float(z), float(2.0 * sps.norm.sf(abs(z)))


def detectable_deviation(se: float, alpha: float, n_checks: int, one_sided: bool = False,
                         power: float = 0.9, df: int | None = None) -> float:
    """The smallest deviation a check detects with a stated power in a Holm family.

    The check is judged at the family's strictest threshold, alpha / n_checks (Bonferroni's, which Holm's first step
    uses), so the deviation returned is detected with at least ``power`` whatever the check's rank.

    Parameters
    ----------
    se : float
        The check's standard error.
    alpha : float
        Family-wise level of the run.
    n_checks : int
        Number of statistical checks in the family.
    one_sided : bool
        True for a one-sided check (the tail alpha / n_checks on one side), False for a two-sided one (alpha / (2
        n_checks) on each side).
    power : float
        The detection probability asked for.
    df : int or None
        Degrees of freedom when the check's s.e. comes from ``df + 1`` replicates (Student t); None for a z-test.

    Returns
    -------
    float
        |E[estimate] - theory| detected with probability ``power``: (z_{1 - tail} + z_power) se for a z-test (the
        opposite tail of a two-sided test, below Phi(-2 z_{1 - tail}), is neglected), and for a t-test the
        noncentrality delta / se at which a noncentral t with ``df`` degrees of freedom exceeds t_{df, 1 - tail}
        with probability ``power``, times se.

    References
    ----------
    Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6, 65-70; the power of
    the one-sample t-test through the noncentral t distribution (e.g. Lehmann & Romano, Testing Statistical
    Hypotheses, 3rd ed., Sec. 5.2).
    """
    tail = alpha / max(n_checks, 1) / (1.0 if one_sided else 2.0)
    if df is None:
        return float((sps.norm.isf(tail) + sps.norm.ppf(power)) * se)
    crit = sps.t.isf(tail, df)

    def shortfall(nc: float) -> float:
        return float(sps.nct.sf(crit, df, nc) - power)

    hi = crit + sps.norm.ppf(power) + 1.0
    while shortfall(hi) < 0:
        hi *= 2.0
    return float(brentq(shortfall, 0.0, hi, xtol=1e-12, rtol=1e-12) * se)


def sample_size_factor(effect: float, se: float, alpha: float, n_checks: int, power: float = 0.9,
                       df: int | None = None) -> float:
    """How many times the independent chains (or replicates) behind ``se`` must grow for a one-sided test at the
    family's strictest threshold to detect ``effect`` with probability ``power``.

    The s.e. of a mean over K independent chains scales as 1/sqrt(K), so K' = K f chains give se / sqrt(f), and f is
    the smallest factor at which :func:`detectable_deviation` (one-sided) falls to ``|effect|``.

    Parameters
    ----------
    effect : float
        The effect to detect (its sign is ignored).
    se : float
        The s.e. at the present number of chains K (finite and > 0).
    alpha, n_checks, power
        As for :func:`detectable_deviation`.
    df : int or None
        None for a z-test; else the s.e. comes from ``df + 1`` replicates and a Student t test with K' - 1 degrees
        of freedom at K' replicates is planned (the factor is then K'/K, K' an integer found by bisection).

    Returns
    -------
    float
        The factor f (1 or less when the present chains suffice; ``inf`` for a zero effect).

    Raises
    ------
    ParameterError
        When ``se`` is not finite and positive.

    References
    ----------
    The sample size of a one-sided z- or t-test for a stated power (e.g. Lehmann & Romano, Testing Statistical
    Hypotheses, 3rd ed., Sec. 3.4 and 5.2), at Holm's strictest threshold alpha / n_checks (Holm 1979).
    """
    if not (np.isfinite(se) and se > 0):
        raise ParameterError(f"se must be finite and > 0, got {se!r}")
    if effect == 0 or not math.isfinite(effect):
        return math.inf if effect == 0 else 0.0
    if df is None:
        return float((detectable_deviation(se, alpha, n_checks, one_sided=True, power=power) / abs(effect)) ** 2)
    units = df + 1

    def detects(k: int) -> bool:
        return detectable_deviation(se * math.sqrt(units / k), alpha, n_checks, one_sided=True, power=power,
                                    df=k - 1) <= abs(effect)

    lo, hi = 2, max(units, 2)
    if detects(lo):
        return lo / units
    while not detects(hi):
        lo, hi = hi, hi * 2
        if hi > 2**40:
            return math.inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if detects(mid) else (mid, hi)
    return hi / units


def holm(pvalues, alpha: float) -> np.ndarray:
    """Holm's step-down procedure: boolean mask of rejected hypotheses at family-wise level ``alpha`` (Holm 1979)."""
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    order = np.argsort(p)
    rejected = np.zeros(m, dtype=bool)
    for rank, i in enumerate(order):
        if p[i] <= alpha / (m - rank):
            rejected[i] = True
        else:
            break
    return rejected


def weighted_polyfit(x, y, se, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares y ~ sum_{j=1..degree} c_j x^j (no intercept); returns (c, cov(c)), weights 1/se^2."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = 1.0 / np.asarray(se, dtype=np.float64)
    X = np.vstack([x**j for j in range(1, degree + 1)]).T
    Xw = X * w[:, None]
    cov = np.linalg.inv(Xw.T @ Xw)
    c = cov @ (Xw.T @ (y * w))
    return c, cov


__all__ = ["column_means_and_se", "covariance_and_se", "delta_method_variance", "detectable_deviation", "holm",
           "mean_and_se", "paired_squared_norm_difference_and_se", "ratio_of_means_and_se", "sample_size_factor",
           "squared_norm_bias_and_se", "stationary_covariance_and_se", "stationary_variance_and_se",
           "variance_and_se", "weighted_polyfit", "z_test"]
