"""Orderings are shown, not presumed (issue 28 item 1), and every check has its expected outcome (item 4): the
OrderingCheck's two one-sided tests against scipy, its outcomes in the Holm family, the family-wise error of falsely
shown orderings, the chains that decide an undecided one, the verdict "inconclusive" and its registration, and
checks whose outcome differs from their ``expect`` failing the run."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

from simulate.validation import ParameterError
from verify.api import Check, ClaimResult, ExactCheck, OneSidedCheck, OrderingCheck, Reading, mean_check
from verify.checks import family_size, judge
from verify.harness import all_as_expected, run_claims
from verify.registry import Claim, Settings
from verify.report import console_table, render_markdown, write_report
from verify.stats import detectable_deviation, sample_size_factor
from verify.verdicts import as_expected, unexpected_checks, verdict

FAST = Settings(chains=100, seed=1)


def _claim(run, expected="holds", cid="test.ordering", **kw) -> Claim:
    return Claim(id=cid, paper="test", source="none", statement="s", family="f", run=run, expected=expected, **kw)


# ------------------------------------------------------------------------------------------ the check itself
@pytest.mark.parametrize("direction", ["greater", "less"])
@pytest.mark.parametrize("df", [None, 7])
def test_the_two_p_values_are_the_one_sided_tails(direction, df):
    """p tests 'the ordering does not hold' (effect <= 0), p_contra the opposite; they add up to 1."""
    c = OrderingCheck("x", 1.0, 1.3, 0.2, direction=direction, df=df)
    law = sps.norm if df is None else sps.t(df)
    z_favour = 1.5 if direction == "greater" else -1.5
    assert c.z == pytest.approx(1.5) and c.z_favour == pytest.approx(z_favour)
    assert c.p == pytest.approx(law.sf(z_favour)) and c.p_contra == pytest.approx(law.cdf(z_favour))
    assert c.effect == pytest.approx(0.3 if direction == "greater" else -0.3)


@pytest.mark.parametrize("estimate, outcome", [(0.05, "inconclusive"), (8.0, "holds"), (-8.0, "fails")])
def test_outcomes_in_a_family(estimate, outcome):
    """A tie is inconclusive (never holds), a large effect in favour is shown, a reversed ordering is contradicted;
    an ordering puts two hypotheses into the family."""
    checks = [OrderingCheck("ordering", 0.0, estimate, 1.0), *(Check(f"c{i}", 0.0, 0.0, 1.0) for i in range(9))]
    assert judge(checks, 0.01) == family_size(checks) == 11
    c = checks[0]
    assert c.outcome == outcome and c.shown == (outcome == "holds") and c.rejected == (outcome == "fails")


def test_the_chains_that_decide_an_inconclusive_ordering():
    """needed_factor: at that many times the chains the s.e. shrinks by its square root, and the effect is exactly
    the detectable deviation (90% power at the family's strictest one-sided threshold)."""
    c = OrderingCheck("tie", 0.0, 0.5, 1.0)
    judge([c], 0.01)
    assert c.outcome == "inconclusive"
    c.chains = 1000
    f = c.needed_factor
    assert detectable_deviation(1.0 / math.sqrt(f), 0.01, 2, one_sided=True) == pytest.approx(0.5)
    assert c.chains_needed == math.ceil(1000 * f)
    assert "inconclusive at this power" in c.decision_text() and str(c.chains_needed) in c.decision_text()
    # the paper's stated effect plans the chains where the claim gives it
    s = OrderingCheck("tie", 0.0, 0.01, 1.0, stated_effect=2.0)
    judge([s], 0.01)
    assert s.needed_factor == pytest.approx(sample_size_factor(2.0, 1.0, 0.01, 2))
    assert "the paper's effect" in s.decision_text()


def test_sample_size_factor_for_a_t_test_plans_replicates():
    """With df the factor is an integer number of replicates at which the noncentral t reaches 90% power."""
    f = sample_size_factor(0.5874, 0.0751, 0.01, 1000, df=9)
    k = round(f * 10)
    assert k * 1.0 == pytest.approx(f * 10)
    assert detectable_deviation(0.0751 * math.sqrt(10 / k), 0.01, 1000, one_sided=True, df=k - 1) <= 0.5874
    assert detectable_deviation(0.0751 * math.sqrt(10 / (k - 1)), 0.01, 1000, one_sided=True, df=k - 2) > 0.5874
    assert sample_size_factor(0.0, 1.0, 0.01, 10) == math.inf


@pytest.mark.parametrize("kw, match", [
    (dict(direction="up"), "direction"), (dict(se=0.0), "se must be"), (dict(df=0), "df must be"),
    (dict(stated_effect=-1.0), "stated_effect"), (dict(stated_effect=math.nan), "stated_effect"),
    (dict(expect="maybe"), "expect must be one of"),
])
def test_bad_input_is_refused(kw, match):
    args = dict(label="x", theory=0.0, estimate=1.0, se=kw.pop("se", 1.0), direction="greater")
    with pytest.raises(ParameterError, match=match):
        OrderingCheck(**{**args, **kw})
    with pytest.raises(ParameterError, match="expect must be one of"):
        ExactCheck("x", True, expect="sometimes")


def test_a_degenerate_ordering_is_judged_strictly():
    """mean_check(ordering=True) with no spread: a tie is not shown, a strict difference is."""
    tie = mean_check("a > b", 0.0, np.zeros(5), direction="greater", ordering=True)
    up = mean_check("a > b", 0.0, np.ones(5), direction="greater", ordering=True)
    bound = mean_check("a >= b", 0.0, np.zeros(5), direction="greater")
    assert isinstance(tie, ExactCheck) and not tie.passed and up.passed and bound.passed
    assert isinstance(mean_check("a > b", 0.0, np.array([1.0, 2.0]), direction="greater", ordering=True),
                      OrderingCheck)


def test_falsely_shown_orderings_are_controlled_with_the_family():
    """Families of 10 ties (effect exactly 0, independent z; 20 hypotheses): the share of families in which Holm
    shows or contradicts any ordering (both are false rejections) is at most alpha, and close to it: each tie is
    falsely decided with probability 2 alpha/20, so the union over the ten is about alpha."""
    rng = np.random.default_rng(5)
    alpha, runs, any_false = 0.1, 600, 0
    for _ in range(runs):
        checks = [OrderingCheck("tie", 0.0, float(z), 1.0) for z in rng.standard_normal(10)]
        judge(checks, alpha)
        any_false += any(c.outcome != "inconclusive" for c in checks)
    rate = any_false / runs
    assert sps.binomtest(any_false, runs).proportion_ci(0.99).low <= alpha and rate > 0.05


# ------------------------------------------------------------------------------------------ verdicts
def _ordering_claim(estimate: float, expected="holds", **kw) -> Claim:
    return _claim(lambda s: ClaimResult(checks=[OrderingCheck("A better than B", 0.0, estimate, 1.0)]), expected,
                  **kw)


@pytest.mark.parametrize("estimate, got", [(0.3, "inconclusive"), (20.0, "holds"), (-20.0, "fails")])
def test_a_claim_is_inconclusive_when_an_ordering_is_undecided(estimate, got):
    claim = _ordering_claim(estimate)
    (_, res), = run_claims([claim], FAST)
    assert verdict(claim, res) == got and as_expected(claim, res) == (got == "holds")


def test_inconclusive_is_registered_only_with_its_reason():
    with pytest.raises(ParameterError, match="needs its finding"):
        _ordering_claim(0.3, "inconclusive")
    claim = _ordering_claim(0.3, "inconclusive", finding="effect 0.3 +- 1; 1e6 chains would decide it")
    assert all_as_expected(run_claims([claim], FAST))
    decided = _ordering_claim(20.0, "inconclusive", finding="registered before the chains were raised")
    assert not all_as_expected(run_claims([decided], FAST))  # a decided claim needs its registration updated
    reading = Reading("A", "the first reading.", "inconclusive")
    assert reading.expected == "inconclusive"


def test_a_reading_can_be_inconclusive():
    readings = (Reading("A", "first.", "inconclusive"), Reading("B", "second.", "fails"))

    def run(settings):
        return ClaimResult(checks=[OrderingCheck("tie", 0.0, 0.2, 1.0, part="A"),
                                   OrderingCheck("reversed", 0.0, -20.0, 1.0, part="B", expect="fail")])
    claim = _claim(run, "depends on reading", finding="A undecided, B contradicted", readings=readings)
    (_, res), = run_claims([claim], FAST)
    assert verdict(claim, res) == "depends on reading" and as_expected(claim, res)


# ------------------------------------------------------------------------------------------ expected outcomes
def _erratum(hold_passes: bool, fail_passes: bool = False) -> Claim:
    """An erratum with its counter-example (expect="fail") and a check that must hold."""
    return _claim(lambda s: ClaimResult(exact=[ExactCheck("counter-example", fail_passes, expect="fail"),
                                               ExactCheck("consistency of two routes", hold_passes,
                                                          kind="consistency")]),
                  "fails", cid="test.erratum", erratum="the printed formula is wrong")


def test_an_erratum_does_not_mask_its_other_checks(tmp_path):
    """The erratum fails as registered only when its counter-example fails and every other check holds; a
    consistency check that misses is an unexpected result, named on the console and in the report."""
    good, masked, lost = _erratum(True), _erratum(False), _erratum(True, fail_passes=True)
    rows = run_claims([good], FAST)
    assert verdict(good, rows[0][1]) == "fails" and all_as_expected(rows)
    rows = run_claims([masked], FAST)
    (_, res), = rows
    assert verdict(masked, res) == "fails" and not all_as_expected(rows)
    assert [k.label for k in unexpected_checks(masked, res)] == ["consistency of two routes"]
    table = console_table(rows, FAST, 0)
    assert "UNEXPECTED CHECKS (1; each fails the run)" in table
    assert 'test.erratum: check "consistency of two routes" registered to hold, but fails' in table
    write_report(rows, FAST, tmp_path, [], figures=False)
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["schema"] == 5 and results["summary"]["unexpected"] == 1
    assert results["summary"]["unexpected_checks"] == 1
    assert results["claims"][0]["unexpected_checks"] == [dict(label="consistency of two routes", part=None,
                                                              expect="hold", outcome="fails")]
    assert "**UNEXPECTED** (fails the run): check consistency of two routes" in render_markdown(results)
    rows = run_claims([lost], FAST)
    assert verdict(lost, rows[0][1]) == "holds" and not all_as_expected(rows)


def test_statistical_checks_carry_their_expectation_too():
    """A bound's behaviour check registered to fail that is rejected is as expected; one registered to hold that
    is rejected is not; the report lists outcome and expectation of every check."""
    def run(settings):
        return ClaimResult(checks=[OneSidedCheck("bound", 0.0, 1.0, 1.0, direction="greater"),
                                   Check("prediction", 0.0, 50.0, 1.0, part="behaviour", expect="fail"),
                                   Check("mean", 0.0, 60.0, 1.0, part="behaviour")])
    claim = _claim(run, "holds as a bound", finding="f")
    rows = run_claims([claim], FAST)
    (_, res), = rows
    assert verdict(claim, res) == "holds as a bound"
    assert [k.label for k in unexpected_checks(claim, res)] == ["mean"]
    assert "REJECTED (expected to fail)" in console_table(rows, FAST, 3)
