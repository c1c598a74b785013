"""Reports record everything that can change a number and everything they show; reruns compare every number,
say which parts of the environment differ, and never overwrite a report; a claim that raises is reported as an
error while the others still run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify import report as report_mod
from verify.__main__ import main
from verify.harness import run_claims
from verify.registry import REGISTRY, Claim, ClaimResult, Settings

FAST = ["--claim", "chen.alg1.vr_estimator_moments", "--claim", "vollmer.eq22.mse2_finite_time",
        "--chains", "400", "--seed", "11", "--no-progress", "--no-figures"]


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    out = tmp_path_factory.mktemp("first")
    assert main([*FAST, "--out", str(out)]) == 0
    return out


def test_report_records_environment_seed_params_and_reruns_bit_for_bit(first, tmp_path, capsys):
    res = json.loads((first / "results.json").read_text())
    assert res["settings"]["seed"] == 11 and res["settings"]["chains"] == 400 and res["settings"]["alpha"] == 0.01
    needed = {"python", "platform", "sgmcmc-workbench", "numpy", "scipy", "sympy", "mpmath", "numba", "llvmlite",
              "arviz", "dask", "blas", "numpy_simd", "numba_target", "cpu", "cpu_flags", "libc", "git"}
    assert needed <= set(res["environment"])
    assert res["argv"][:len(FAST)] == FAST
    params = [k["params"] for c in res["claims"] for k in c["checks"]]
    assert params and any(p for p in params) and all(isinstance(p, dict) for p in params)
    for c in res["claims"]:  # everything the report shows
        assert {"statement", "source", "erratum", "notes", "exact", "seconds", "error", "family"} <= set(c)
        assert c["seconds"] > 0
    md = (first / "report.md").read_text()
    assert "base seed: 11" in md and "sgmcmc-workbench" in md and "numba" in md
    assert main(["--rerun", str(first / "results.json"), "--out", str(tmp_path / "again"), "--no-progress"]) == 0
    assert "same environment" in capsys.readouterr().out
    again = json.loads((tmp_path / "again" / "results.json").read_text())
    assert [c["checks"] for c in again["claims"]] == [c["checks"] for c in res["claims"]]  # incl. params, z, p
    assert again["rerun"]["reproduced"] == "bit for bit"


def test_markdown_is_rebuilt_from_results_json_alone(first, tmp_path):
    assert report_mod.main([str(first / "results.json"), str(tmp_path / "rebuilt.md")]) == 0
    assert (tmp_path / "rebuilt.md").read_text() == (first / "report.md").read_text()


def test_rerun_never_writes_over_a_report(first, tmp_path, monkeypatch, capsys):
    before = (first / "results.json").read_text()
    assert main(["--rerun", str(first), "--out", str(first), "--no-progress"]) == 2
    assert "--out must differ" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    (tmp_path / "output" / "verify").mkdir(parents=True)
    assert main(["--rerun", str(first), "--out", "output/verify", "--no-progress"]) == 2
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep")
    assert main(["--rerun", str(first), "--out", "full", "--no-progress"]) == 2
    assert main(["--rerun", str(first), "--no-progress"]) == 0  # a fresh folder of its own, beside the report
    made = sorted(first.parent.glob(f"{first.name}-rerun-*"))
    assert len(made) == 1 and (made[0] / "results.json").exists() and (made[0] / "report.html").exists()
    assert f"rerun report: {made[0] / 'report.md'} and {made[0] / 'report.html'}" in capsys.readouterr().out
    assert not (tmp_path / "output" / "verify-reruns").exists()  # not under the working directory
    assert (first / "results.json").read_text() == before


def test_rerun_names_environment_differences_and_accepts_only_rounding(first, tmp_path, capsys):
    res = json.loads((first / "results.json").read_text())
    res["environment"]["numba"] = "0.0.1"
    res["environment"]["blas"] = "openblas 0.0 Haswell"
    res["claims"][0]["checks"][0]["estimate"] *= 1 + 1e-13
    src = tmp_path / "src"
    src.mkdir()
    (src / "results.json").write_text(json.dumps(res))
    assert main(["--rerun", str(src), "--out", str(tmp_path / "r1"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "numba: 0.0.1 ->" in out and "blas: openblas 0.0 Haswell ->" in out and "reproduced to rounding" in out
    res["claims"][0]["checks"][0]["estimate"] *= 1 + 1e-6  # more than rounding: not reproduced
    (src / "results.json").write_text(json.dumps(res))
    assert main(["--rerun", str(src), "--out", str(tmp_path / "r2"), "--no-progress"]) == 1


def _raises(settings):
    raise RuntimeError("planted failure inside a claim")


def test_a_claim_that_raises_is_reported_as_error_and_the_run_goes_on(tmp_path, monkeypatch):
    bad = Claim("test.raises", "vollmer", "nowhere", "raises on purpose", "test", _raises)
    monkeypatch.setitem(REGISTRY, bad.id, bad)
    rc = main(["--claim", "test.raises", "--claim", "vollmer.eq22.mse2_finite_time", "--chains", "200",
               "--out", str(tmp_path), "--no-progress", "--no-figures"])
    assert rc == 1
    res = json.loads((tmp_path / "results.json").read_text())
    by_id = {c["id"]: c for c in res["claims"]}
    assert by_id["test.raises"]["verdict"] == "error"
    assert "planted failure inside a claim" in by_id["test.raises"]["error"]
    assert by_id["vollmer.eq22.mse2_finite_time"]["verdict"] == "holds"
    assert res["summary"]["errors"] == 1
    assert "planted failure inside a claim" in (tmp_path / "report.md").read_text()


def test_a_run_removes_the_figures_of_the_previous_report_only(tmp_path):
    (tmp_path / "old_family.png").write_bytes(b"x")
    (tmp_path / "mine.png").write_bytes(b"y")
    (tmp_path / "results.json").write_text(json.dumps({"claims": [{"figure": "old_family.png"}]}))
    claim = Claim("test.ok", "vollmer", "nowhere", "holds", "test", lambda s: ClaimResult())
    rows = run_claims([claim], Settings(chains=10))
    report_mod.write_report(rows, Settings(chains=10), tmp_path, [], figures=True)
    assert not (tmp_path / "old_family.png").exists() and (tmp_path / "mine.png").exists()


def test_detectable_deviation_in_results_list_and_target_mde(first, capsys):
    from verify.stats import detectable_deviation

    res = json.loads((first / "results.json").read_text())
    m = res["summary"]["statistical_checks"]
    k = res["claims"][1]["checks"][0]
    assert k["mde"] == pytest.approx(detectable_deviation(k["se"], 0.01, m))
    assert k["mde_rel"] == pytest.approx(k["mde"] / abs(k["theory"]))
    assert "detects (90% power)" in (first / "report.md").read_text()
    assert main(["--claim", "vollmer.eq22.mse2_finite_time", "--list", "--out", str(first)]) == 0
    assert "detects" in capsys.readouterr().out
    # planning: chains scale with (pilot mde / target)^2, and the plan is printed before the run
    from verify.__main__ import plan_for_target
    from verify.registry import select

    claims = select(ids=["vollmer.eq22.mse2_finite_time", "chen.alg1.vr_estimator_moments"])
    s = plan_for_target(claims, Settings(chains=400, seed=11), 0.05, first)
    chains = dict(s.chains_by_claim)
    mdes = {c["id"]: report_mod.claim_mde(c) for c in res["claims"]}
    for cid, n in chains.items():
        assert n == max(4, int(np.ceil(400 * (mdes[cid] / 0.05) ** 2)))
    assert "estimated time" in capsys.readouterr().out
    assert s.for_claim("vollmer.eq22.mse2_finite_time").chains == chains["vollmer.eq22.mse2_finite_time"]


def test_a_vanished_standard_error_prints_z_in_scientific_format_and_says_why(tmp_path):
    """Every chain at one point to rounding: s.e. 1e-17, z = 1e15. The table, report.md and report.html print z as
    +1.00e+15 (not 1000000000000000.00) and say that the s.e. vanished because the chains collapsed."""
    from verify.checks import Check
    from verify.report_html import render_html

    claim = Claim(id="t.collapsed", paper="t", source="s", statement="chains at a point", family="t.collapsed",
                  run=lambda settings: None)
    res = ClaimResult(checks=[Check("E theta", 1.0, 1.01, 1e-17), Check("E theta^2", 1.0, 1.001, 1e-3)])
    settings = Settings(chains=100, seed=0)
    table = report_mod.console_table([(claim, res)], settings, 2)
    assert "+1.00e+15" in table and "+1.00 " in table and table.count("the s.e. vanished") == 1
    report_mod.write_report([(claim, res)], settings, tmp_path, [], figures=False)
    md = (tmp_path / "report.md").read_text()
    assert "| +1.00e+15 |" in md and "| 1.00e+15 |" in md and "- check 1: the s.e. vanished" in md
    html = render_html(json.loads((tmp_path / "results.json").read_text()), tmp_path)
    assert ">+1.00e+15<" in html and "check 1: the s.e. vanished" in html and "collapsed to a point" in html


def test_rerun_compares_checks_of_readings_that_share_a_label():
    """The readings of one claim ask the same question, so their checks share labels and differ in part: the rerun
    compares each with its own record (keyed by claim, part and label), not one reading with the other's."""
    from verify.__main__ import _compare
    from verify.api import OneSidedCheck

    res = ClaimResult(checks=[OneSidedCheck("n=10: |bias|^2 >= 1", 1.0, 71.2, 4.4, part="A"),
                              OneSidedCheck("n=10: |bias|^2 >= 1", 1.0, 0.068, 0.0024, part="B")])
    claim = Claim("test.readings", "test", "nowhere", "s", "test", lambda s: res)
    old = {"claims": [{"id": "test.readings", "verdict": report_mod.verdict(claim, res),
                       "checks": [dict(label=k.label, part=k.part, theory=k.theory, estimate=k.estimate, se=k.se)
                                  for k in res.checks]}]}
    assert _compare(old, [(claim, res)]) == ([], 0.0, [])
    old["claims"][0]["checks"][0]["estimate"] = 71.3
    diffs, worst, _ = _compare(old, [(claim, res)])
    assert len(diffs) == 1 and "(part A)" in diffs[0] and 0 < worst < 0.01
