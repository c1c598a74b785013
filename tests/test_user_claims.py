"""A user's claims from their own module: the CLI's --module, reruns that find the module, clear errors for a module
that does not import or an id that collides, and the pytest plugin (one test per claim, one Holm family)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from verify.__main__ import main
from verify.registry import REGISTRY

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
CLAIM = "mypkg.sgld.variance_at_most_1p5_posterior"


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    yield
    REGISTRY.pop(CLAIM, None)
    sys.modules.pop("my_bound_claims", None)


def test_user_module_runs_reports_and_reruns(examples_on_path, tmp_path, capsys):
    out = tmp_path / "mine"
    assert main(["--module", "my_bound_claims", "--paper", "mypkg", "--chains", "2000", "--out", str(out),
                 "--no-progress", "--no-figures"]) == 0
    res = json.loads((out / "results.json").read_text())
    (c,) = res["claims"]
    assert c["id"] == CLAIM and c["verdict"] == "holds" and c["seconds"] > 0
    assert res["modules"] == ["my_bound_claims"] and c["module"] == "my_bound_claims"
    last = capsys.readouterr().out.strip().splitlines()[-1]  # the run's last line names both renderings
    assert last == f"report: {out / 'report.md'} and {out / 'report.html'} (open it in a browser)"
    assert all(k["kind"] == "one-sided" for k in c["checks"])
    REGISTRY.pop(CLAIM)
    sys.modules.pop("my_bound_claims")  # a fresh process: the rerun must import the module itself
    assert main(["--rerun", str(out), "--out", str(tmp_path / "again"), "--no-progress"]) == 0
    assert "reproduced bit for bit" in capsys.readouterr().out


def test_module_alone_runs_only_its_claims_and_says_how_to_add_the_builtin_ones(examples_on_path, capsys):
    assert main(["--module", "my_bound_claims", "--list"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.strip().splitlines()] == [CLAIM]
    assert "running the 1 claims of my_bound_claims only" in err and "--paper mypkg --paper vollmer" in err
    assert main(["--module", "my_bound_claims", "--paper", "mypkg", "--paper", "chen", "--list"]) == 0
    ids = [line.split()[0] for line in capsys.readouterr().out.strip().splitlines()]
    assert CLAIM in ids and len(ids) > 10 and all(i == CLAIM or i.startswith("chen.") for i in ids)


def test_module_without_claims_is_an_error(capsys):
    assert main(["--module", "json", "--list"]) == 2
    assert "--module json registered no claims" in capsys.readouterr().err


def test_module_that_does_not_import_is_named(capsys):
    assert main(["--module", "no_such_module_xyz", "--list"]) == 2
    assert "--module 'no_such_module_xyz' could not be imported" in capsys.readouterr().err


def test_colliding_claim_id_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "collide_claims.py").write_text(
        "from verify.api import ClaimResult, claim\n"
        "@claim('vollmer.eq18.sgld_variance', paper='x', source='s', statement='s')\n"
        "def f(settings):\n    return ClaimResult()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["--module", "collide_claims", "--list"]) == 2
    err = capsys.readouterr().err
    assert "claim id 'vollmer.eq18.sgld_variance' of collide_claims collides" in err
    sys.modules.pop("collide_claims", None)


pytest_plugins = ["pytester"]


def test_pytest_plugin_one_test_per_claim(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(EXAMPLES))
    pytester.makepyfile(test_mine="def test_claim(verify_claim):\n    verify_claim.assert_as_expected()\n")
    res = pytester.runpytest_subprocess("--verify-module", "my_bound_claims",
                                        "--verify-chains", "1000", "-q")
    res.assert_outcomes(passed=1)
    res.stdout.fnmatch_lines(["*1 passed*"])


def test_pytest_plugin_failure_shows_the_counter_example(pytester, monkeypatch, tmp_path):
    (tmp_path / "wrong_claims.py").write_text(
        "from verify.api import Check, ClaimResult, claim\n"
        "@claim('mypkg.wrong', paper='mypkg', source='s', statement='a false equality')\n"
        "def f(settings):\n    return ClaimResult(checks=[Check('mean = 1', 1.0, 2.0, 0.01)])\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    pytester.makepyfile(test_mine="def test_claim(verify_claim):\n    verify_claim.assert_as_expected()\n")
    res = pytester.runpytest_subprocess("--verify-module", "wrong_claims", "-q")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*mean = 1: theory 1, simulation 2*"])


def test_pytest_plugin_without_a_claim_module_fails_saying_what_to_configure(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(EXAMPLES.parents[1]))  # this checkout's plugin, not another install's
    pytester.makepyfile(test_mine="def test_claim(verify_claim):\n    verify_claim.assert_as_expected()\n")
    res = pytester.runpytest_subprocess("-q")
    res.assert_outcomes(errors=1)  # not a silent skip: a suite that tests nothing must not be green
    assert res.ret != 0
    res.stdout.fnmatch_lines(["*no claim module is configured*verify_modules = my_pkg.my_claims*"])
