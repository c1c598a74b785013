"""Standard errors across independent chains, z-tests, and family-wise error control (Holm 1979)."""

from __future__ import annotations

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq

from simulate.validation import ParameterError


def mean_and_se(x: np.ndarray) -> tuple[float, float]:
    """The sample mean of per-chain values and its standard error sd / sqrt(M).

    Parameters
    ----------
    x : array_like
        One value per independent chain (e.g. each chain's time average); at least 2.

    Returns
    -------
    mean : float
        The sample mean.
    se : float
        Its standard error, the sample standard deviation (ddof = 1) over sqrt(M).

    Raises
    ------
    simulate.validation.ParameterError
        For fewer than 2 values.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size < 2:
        raise ParameterError(f"need at least 2 independent chains for a standard error, got {x.size}")
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))


def variance_and_se(x: np.ndarray) -> tuple[float, float]:
    """The unbiased sample variance of i.i.d. values (one per chain) and its standard error.

    Parameters
    ----------
    x : array_like
        One value per independent chain (e.g. each chain's state at step k); at least 4.

    Returns
    -------
    variance : float
        s^2 with divisor M - 1.
    se : float
        Its standard error, se^2 = (m4 - s^4 (M - 3)/(M - 1)) / M with m4 the fourth central sample moment.

    Raises
    ------
    simulate.validation.ParameterError
        For fewer than 4 values.

    References
    ----------
    The variance of the sample variance: Cramer, H. (1946), Mathematical Methods of Statistics, eq. (27.4.2),
    with the sample moments in place of the population's.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    M = x.size
    if M < 4:
        raise ParameterError(f"need at least 4 independent chains for a variance s.e., got {M}")
    c = x - x.mean()
    s2 = float(c @ c / (M - 1))
    m4 = float(np.mean(c**4))
    return s2, float(np.sqrt(max(m4 - s2 * s2 * (M - 3) / (M - 1), 0.0) / M))


def stationary_variance_and_se(avg_theta2: np.ndarray, avg_theta: np.ndarray) -> tuple[float, float]:
    """The stationary variance Var_pi(theta) from each chain's time averages of theta^2 and theta.

    Parameters
    ----------
    avg_theta2 : array_like
        Per chain, the time average of theta^2 (one coordinate).
    avg_theta : array_like
        Per chain, the time average of theta, from the same chains; at least 4 chains.

    Returns
    -------
    variance : float
        mean(a2) - [mean(a1)^2 - var(a1)/M] (the bracket is unbiased for (E a1)^2).
    se : float
        Its standard error by the delta method, gradient (1, -2 mean(a1)) and the sample covariance of (a2, a1).

    Raises
    ------
    simulate.validation.ParameterError
        For fewer than 4 chains or averages of different lengths.
    """
    a2 = np.asarray(avg_theta2, dtype=np.float64).ravel()
    a1 = np.asarray(avg_theta, dtype=np.float64).ravel()
    M = a1.size
    if M < 4 or a2.size != M:
        raise ParameterError("need matching per-chain averages for at least 4 chains")
    m1 = a1.mean()
    cov = np.cov(np.vstack([a2, a1]))
    est = float(a2.mean() - (m1 * m1 - cov[1, 1] / M))
    g = np.array([1.0, -2.0 * m1])
    return est, float(np.sqrt(g @ cov @ g / M))


def z_test(estimate: float, se: float, theory: float) -> tuple[float, float]:
    """z = (estimate - theory)/se and its two-sided normal p-value."""
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


def holm(pvalues, alpha: float) -> np.ndarray:
    """Holm's step-down procedure: boolean mask of rejected hypotheses at family-wise level ``alpha``."""
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
    """Weighted least squares y ~ sum_{j=1..degree} c_j x^j (no intercept); returns (c, cov(c))."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = 1.0 / np.asarray(se, dtype=np.float64)
    X = np.vstack([x**j for j in range(1, degree + 1)]).T
    Xw = X * w[:, None]
    cov = np.linalg.inv(Xw.T @ Xw)
    c = cov @ (Xw.T @ (y * w))
    return c, cov
