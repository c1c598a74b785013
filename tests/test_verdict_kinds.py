"""The registry's verdict kinds (issue 20): "holds as a bound" and "depends on reading" beside holds / fails, their
validation, the verdicts they give, the report (console, results.json, report.md) and the exit-code rule."""

from __future__ import annotations

import json

import pytest

from simulate.validation import ParameterError
from verify.api import BEHAVIOUR, BOUND, ClaimResult, ExactCheck, OneSidedCheck, Reading
from verify.harness import all_as_expected, run_claims
from verify.registry import Claim, Settings
from verify.report import console_table, render_markdown, write_report
from verify.verdicts import READINGS_NOT_AS_REGISTERED, verdict

FAST = Settings(chains=100, seed=1)
READINGS = (Reading("A", "the features only.", "fails"), Reading("B", "the whole datum.", "holds"))


def _claim(run, expected="holds", **kw) -> Claim:
    return Claim(id=f"test.{expected.replace(' ', '_')}", paper="test", source="none", statement="s", family="f",
                 run=run, expected=expected, **kw)


def _exact(passed: bool, part=None, expect: str = "hold") -> ExactCheck:
    return ExactCheck(f"check in {part}", passed, part=part, expect=expect)


def _bound(bound_ok: bool, behaviour_ok: bool) -> Claim:
    """A bound whose behaviour check is registered to fail (the finding's counter-example)."""
    return _claim(lambda s: ClaimResult(exact=[_exact(bound_ok), _exact(behaviour_ok, BEHAVIOUR, "fail")]),
                  "holds as a bound", finding="the bound holds; the exact value does not follow it")


def _reading(a_ok: bool, b_ok: bool, shared_ok: bool = True) -> Claim:
    """Reading A registered to fail (its check carries the counter-example), B to hold."""
    return _claim(lambda s: ClaimResult(exact=[_exact(a_ok, "A", "fail"), _exact(b_ok, "B"), _exact(shared_ok)]),
                  "depends on reading", finding="true under B only", readings=READINGS)


@pytest.mark.parametrize("bound_ok, behaviour_ok, expected", [
    (True, False, "holds as a bound"), (True, True, "holds"), (False, False, "fails"), (False, True, "fails")])
def test_bound_verdicts(bound_ok, behaviour_ok, expected):
    claim = _bound(bound_ok, behaviour_ok)
    rows = run_claims([claim], FAST)
    assert verdict(claim, rows[0][1]) == expected
    assert all_as_expected(rows) == (expected == "holds as a bound")


@pytest.mark.parametrize("a_ok, b_ok, shared_ok, expected", [
    (False, True, True, "depends on reading"), (True, False, True, READINGS_NOT_AS_REGISTERED),
    (True, True, True, "holds"), (False, False, True, "fails"), (False, True, False, "fails")])
def test_reading_verdicts(a_ok, b_ok, shared_ok, expected):
    claim = _reading(a_ok, b_ok, shared_ok)
    rows = run_claims([claim], FAST)
    assert verdict(claim, rows[0][1]) == expected
    assert all_as_expected(rows) == (expected == "depends on reading")


def test_a_rejected_one_sided_check_fails_its_part():
    """Statistical checks join the Holm family whatever their part; a rejection fails the part it names."""
    def run(settings):
        return ClaimResult(checks=[OneSidedCheck("bound side", 0.0, 1.0, 1.0, direction="greater"),
                                   OneSidedCheck("prediction", 0.0, 50.0, 1.0, direction="less", part=BEHAVIOUR,
                                                 expect="fail")])
    claim = _claim(run, "holds as a bound", finding="f")
    (_, res), = run_claims([claim], FAST)
    assert [c.rejected for c in res.checks] == [False, True] and verdict(claim, res) == "holds as a bound"


@pytest.mark.parametrize("exact", [[_exact(True, "C")], [_exact(True, "A")]], ids=["unknown part", "part missing"])
def test_checks_naming_parts_the_claim_does_not_have_are_an_error(exact):
    claim = _claim(lambda s: ClaimResult(exact=exact), "depends on reading", finding="f", readings=READINGS)
    (_, res), = run_claims([claim], FAST)
    assert verdict(claim, res) == "error" and "part" in res.error


def test_a_holds_claim_may_not_name_parts():
    claim = _claim(lambda s: ClaimResult(exact=[_exact(True, BOUND)]))
    (_, res), = run_claims([claim], FAST)
    assert verdict(claim, res) == "error"


@pytest.mark.parametrize("kw, match", [
    (dict(expected="holds sometimes"), "expected must be one of"),
    (dict(expected="holds as a bound"), "needs its finding"),
    (dict(expected="depends on reading", finding="f", readings=READINGS[:1]), "at least two readings"),
    (dict(expected="depends on reading", finding="f", readings=(READINGS[1], Reading("C", "t.", "holds"))),
     "must differ in their verdicts"),
    (dict(expected="holds", readings=READINGS), "readings are for"),
    (dict(expected="depends on reading", finding="f", readings=(READINGS[0], READINGS[0])), "different names"),
])
def test_registration_is_validated(kw, match):
    with pytest.raises(ParameterError, match=match):
        _claim(lambda s: ClaimResult(), **kw)
    with pytest.raises(ParameterError, match="expected must be one of"):
        Reading("A", "text", "holds as a bound")


def test_report_shows_parts_readings_findings_and_counts(tmp_path):
    claims = [_bound(True, False), _reading(False, True)]
    rows = run_claims(claims, FAST)
    table = console_table(rows, FAST, 0)
    assert "[behaviour] check in behaviour" in table and "reading A: fails (registered: fails)" in table
    assert "1 hold as bounds only, 1 depend on reading" in table and "0 unexpected" in table
    write_report(rows, FAST, tmp_path, [], figures=False)
    results = json.loads((tmp_path / "results.json").read_text())
    s = results["summary"]
    assert (s["bounds"], s["readings"], s["unexpected"]) == (1, 1, 0)
    bound, reading = results["claims"]
    assert bound["parts"] == {"bound": "holds", "behaviour": "fails"} and bound["finding"]
    assert [(r["name"], r["verdict"], r["expected"]) for r in reading["readings"]] == [("A", "fails", "fails"),
                                                                                     ("B", "holds", "holds")]
    assert reading["exact"][0]["part"] == "A"
    md = render_markdown(results)
    assert "**Holds as a bound, does not predict the exact behaviour** (registered verdict)" in md
    assert "- Reading A: the features only. Verdict under it: **fails** (registered: fails" in md
    assert md == (tmp_path / "report.md").read_text()


def test_mean_check_and_add_put_each_check_where_it_belongs():
    """mean_check gives a z-test, or an exact check labelled as such when every chain is equal; ClaimResult.add
    sends statistical checks to the Holm family and exact ones beside it, in order."""
    import numpy as np

    from verify.api import Check, mean_check

    spread = mean_check("mean", 0.0, np.array([-1.0, 1.0, 0.5]))
    flat = mean_check("mean", 1.0, np.ones(5))
    one_sided = mean_check("at least", 0.0, np.ones(4), direction="greater", df=3)
    assert type(spread) is Check and isinstance(flat, ExactCheck) and flat.passed and "judged exactly" in flat.label
    assert isinstance(one_sided, ExactCheck) and one_sided.passed and "degenerate" in one_sided.label
    assert isinstance(mean_check("at least", 0.0, np.array([1.0, 2.0]), direction="greater"), OneSidedCheck)
    res = ClaimResult().add(spread, flat, one_sided)
    assert res.checks == [spread] and res.exact == [flat, one_sided]


def test_claims_register_only_through_the_decorator():
    import verify.api

    assert "claim" in verify.api.__all__
    assert not hasattr(verify.api, "register") and not hasattr(verify.api, "Claim")
