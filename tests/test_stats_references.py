"""The referee's own statistics against independent references (issue: "the referee's statistics have no referee").

* Holm's step-down procedure against statsmodels' ``multipletests(method="holm")`` on random families with ties and
  unsorted input (a slip that takes a check's position in the family instead of its rank fails here);
* the detectable deviation against the power it promises, by simulation: a check whose true deviation is the
  detectable deviation is rejected with probability 0.9 at the family's threshold, two-sided and one-sided, z and
  Student t (a slip that uses the one-sided tail for a two-sided check fails here);
* the z and p of each check kind against scipy's own tests.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats as sps

from verify.checks import Check, OneSidedCheck
from verify.stats import detectable_deviation, holm, mean_and_se

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


@functools.cache
def _families(seed: int = 2024, n_families: int = 150) -> tuple:
    """Random p-value families: sizes 1..60, a share of small p-values, ties (rounded and repeated values) and
    unsorted order; with statsmodels' decisions."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_families):
        m = int(rng.integers(1, 61))
        p = rng.uniform(size=m) ** rng.choice([1.0, 3.0, 8.0])
        if rng.uniform() < 0.5:
            p = np.round(p, int(rng.integers(2, 4)))  # ties
        if m > 3 and rng.uniform() < 0.5:
            p[rng.integers(0, m, size=m // 3)] = p[0]  # repeated values
        p, alpha = rng.permutation(p), float(rng.choice([0.01, 0.05, 0.1]))
        out.append((p, alpha, multipletests(p, alpha=alpha, method="holm")[0]))
    return tuple(out)


def test_holm_matches_statsmodels_on_random_families_with_ties():
    n_differ, n_rejecting = 0, 0
    for p, alpha, ref in _families():
        ours = holm(p, alpha)
        n_differ += int(not np.array_equal(ours, ref))
        n_rejecting += int(ref.any() and not ref.all())
    assert n_differ == 0
    assert n_rejecting > 20  # the families exercise partial rejection, where rank and position differ


def test_holm_by_position_instead_of_rank_is_caught():
    """The planted slip: thresholds alpha / (m - i) by the check's position i in the family, not by its rank."""

    def holm_by_position(p, alpha):
        m = p.size
        rejected = np.zeros(m, dtype=bool)
        for i in np.argsort(p):
            if p[i] <= alpha / (m - i):
                rejected[i] = True
            else:
                break
        return rejected

    differ = sum(not np.array_equal(holm_by_position(p, a), ref) for p, a, ref in _families())
    assert differ > 10


def _rejection_rate(shift: float, se: float, alpha: float, m: int, one_sided: bool, df: int | None,
                    reps: int, rng) -> float:
    """Share of checks rejected at the family's strictest threshold when E estimate - theory = shift (the check's
    own p-value against alpha / m, as Holm's first step judges it)."""
    if df is None:
        est = shift + se * rng.standard_normal(reps)
        se_hat = np.full(reps, se)
    else:  # se estimated from df + 1 replicates of sd se * sqrt(df + 1)
        x = shift + se * np.sqrt(df + 1) * rng.standard_normal((reps, df + 1))
        est = x.mean(axis=1)
        se_hat = x.std(axis=1, ddof=1) / np.sqrt(df + 1)
    z = est / se_hat
    law = sps.norm if df is None else sps.t(df)
    # the p-values of OneSidedCheck("less") and Check, vectorised (each checked against scipy's tests below)
    p = law.sf(z) if one_sided else 2.0 * sps.norm.sf(np.abs(z))
    return float(np.mean(p <= alpha / m))


@pytest.mark.parametrize("one_sided, df", [(False, None), (True, None), (True, 4), (True, 19)])
def test_detectable_deviation_has_the_power_it_promises(one_sided, df):
    rng = np.random.default_rng(7 + (df or 0) + one_sided)
    se, alpha, m, reps = 0.3, 0.01, 854, 4000
    mde = detectable_deviation(se, alpha, m, one_sided=one_sided, df=df)
    rate = _rejection_rate(mde, se, alpha, m, one_sided, df, reps, rng)
    # binomial s.e. of the rate at 0.9: sqrt(0.09 / 4000) = 0.0047; 4.5 s.e. either way
    assert abs(rate - 0.9) < 4.5 * np.sqrt(0.09 / reps), rate


def test_detectable_deviation_two_sided_with_the_one_sided_tail_is_caught():
    """The planted slip: a two-sided check's detectable deviation computed with the one-sided tail alpha / m promises
    90% power that the two-sided test does not have."""
    rng = np.random.default_rng(11)
    se, alpha, m, reps = 1.0, 0.01, 854, 4000
    slipped = detectable_deviation(se, alpha, m, one_sided=True)
    rate = _rejection_rate(slipped, se, alpha, m, False, None, reps, rng)
    assert rate < 0.9 - 4.5 * np.sqrt(0.09 / reps), rate


def test_t_detectable_deviation_exceeds_the_normal_one():
    """Few replicates cost power: the t-test's detectable deviation is larger than the z-test's, and tends to it."""
    z = detectable_deviation(1.0, 0.01, 100, one_sided=True)
    t4 = detectable_deviation(1.0, 0.01, 100, one_sided=True, df=4)
    t1000 = detectable_deviation(1.0, 0.01, 100, one_sided=True, df=1000)
    assert t4 > 1.5 * z
    assert t1000 == pytest.approx(z, rel=0.01)


def test_two_sided_check_matches_scipy():
    rng = np.random.default_rng(3)
    for _ in range(50):
        theory, est, se = rng.normal(), rng.normal(), rng.uniform(0.1, 2.0)
        c = Check("c", theory, est, se)
        assert c.z == pytest.approx((est - theory) / se, rel=1e-15)
        assert c.p == pytest.approx(2 * sps.norm.sf(abs(c.z)), rel=1e-12)


@pytest.mark.parametrize("direction, alternative", [("greater", "less"), ("less", "greater")])
def test_one_sided_t_check_matches_scipy_ttest(direction, alternative):
    """OneSidedCheck with df = M - 1 on the mean of M replicates is scipy's one-sample t-test: the claim
    E >= theory ("greater") is rejected by the alternative E < theory, and vice versa."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        M = int(rng.integers(3, 30))
        x = rng.normal(0.3, 1.0, size=M)
        theory = float(rng.normal(0.3, 0.5))
        mean, se = mean_and_se(x)
        c = OneSidedCheck("c", theory, mean, se, direction=direction, df=M - 1)
        ref = sps.ttest_1samp(x, theory, alternative=alternative)
        assert c.z == pytest.approx(ref.statistic, rel=1e-10)
        assert c.p == pytest.approx(ref.pvalue, rel=1e-10)


def test_one_sided_z_check_matches_scipy_normal_tail():
    c = OneSidedCheck("c", 1.0, 0.8, 0.1, direction="greater")
    assert c.p == pytest.approx(sps.norm.cdf(-2.0), rel=1e-12)
    c = OneSidedCheck("c", 1.0, 1.25, 0.1, direction="less")
    assert c.p == pytest.approx(sps.norm.sf(2.5), rel=1e-12)
