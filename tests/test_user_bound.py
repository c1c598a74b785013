"""A user's own bound from a module outside the repository (written into tmp_path): ``python -m verify --module``
runs its claim beside the built-in ones, the pytest plugin turns it into a test, ``python -m verify.atlas`` draws
its panel; a bound that returns NaN / a negative number / raises gets the verdict "error" naming the bound and the
point while the rest still reports."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from verify.__main__ import main
from verify.atlas import atlas_main
from verify.bounds import BOUNDS
from verify.registry import REGISTRY

GOOD = '''
from verify.bounds import bound


@bound("mybounds.ula_w2", metric="w2", sampler="ula", source="my note, eq. (3)", problems=("gauss_p1",),
       assumptions=lambda c: None if c.step <= 1.0 / c.M else "needs step <= 1/M")
def ula_w2(c):
    """(1 - m step)^K W0 + 2 (M/m) (step p)^(1/2)"""
    return (1 - c.m * c.step) ** c.K * c.w0 + 2.0 * c.kappa * (c.step * c.p) ** 0.5


@bound("mybounds.too_small", metric="w2", sampler="ula", source="a wrong note", problems=("gauss_p1",))
def too_small(c):
    """0.001 (step p)^(1/2): far below the exact bias"""
    return 0.001 * (c.step * c.p) ** 0.5


@bound("mybounds.broken", metric="kl", sampler="ula", source="a broken note", problems=("gauss_p1",))
def broken(c):
    """NaN beyond K = 100, negative at K = 1"""
    if c.K == 1:
        return -1.0
    return float("nan") if c.K > 100 else 1e9
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_user_bounds.py").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for key in ("mybounds.ula_w2", "mybounds.too_small", "mybounds.broken"):
        REGISTRY.pop(key, None)
        BOUNDS.pop(key, None)
    sys.modules.pop("my_user_bounds", None)


def test_user_bound_runs_from_a_module_outside_the_repository(user_module, tmp_path):
    out = tmp_path / "report"
    code = main(["--module", "my_user_bounds", "--paper", "mybounds", "--out", str(out), "--no-progress",
                 "--no-figures"])
    claims = {c["id"]: c for c in json.loads((out / "results.json").read_text())["claims"]}
    assert claims["mybounds.ula_w2"]["verdict"] == "holds"
    small = claims["mybounds.too_small"]
    assert small["verdict"] == "fails"
    assert any("violations; worst: bound" in k["detail"] for k in small["exact"] if not k["passed"])
    broken = claims["mybounds.broken"]
    assert broken["verdict"] == "error"
    assert "mybounds.broken" in broken["error"] and "K = 1" in broken["error"]  # names the bound and the point
    assert code == 1  # the failing and erroring bounds are not registered as such


def test_user_bound_gets_the_atlas_page(user_module, tmp_path, capsys):
    out = tmp_path / "atlas"
    code = atlas_main(["--module", "my_user_bounds", "--bound", "mybounds.ula_w2", "--bound", "mybounds.broken",
                       "--out", str(out)])
    assert code == 1  # an erroring bound: the page is still written, with every other point
    page = (out / "atlas.html").read_text()
    assert "mybounds.ula_w2" in page and "value returned -1.0" in page and "data:image/png;base64," in page
    summary = json.loads((out / "atlas.json").read_text())
    assert {b["key"] for b in summary["bounds"]} == {"mybounds.ula_w2", "mybounds.broken"}
    assert "| mybounds.ula_w2 |" in (out / "slack.md").read_text()


def test_unknown_problem_and_sampler_are_named(tmp_path, monkeypatch, capsys):
    (tmp_path / "bad_bounds.py").write_text(
        "from verify.bounds import bound\n"
        "@bound('badb.x', metric='w2', sampler='ula', source='s', problems=('no_such_problem',))\n"
        "def f(c):\n    return 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["--module", "bad_bounds", "--list"]) == 2
    assert "unknown atlas problem 'no_such_problem'" in capsys.readouterr().err
    sys.modules.pop("bad_bounds", None)
    (tmp_path / "bad_sampler.py").write_text(
        "from verify.bounds import bound\n"
        "@bound('badb.y', metric='w2', sampler='saga_ld', source='s', problems=('diabetes',))\n"
        "def f(c):\n    return 1.0\n")
    assert main(["--module", "bad_sampler", "--list"]) == 2
    assert "sampler 'saga_ld' does not run on problem 'diabetes'" in capsys.readouterr().err
    sys.modules.pop("bad_sampler", None)


pytest_plugins = ["pytester"]


def test_pytest_plugin_runs_a_user_bound(pytester, monkeypatch, tmp_path):
    (tmp_path / "plugin_bounds.py").write_text(GOOD.replace("mybounds.", "pluginb."))
    root = Path(__file__).resolve().parents[1]  # this checkout's verify, not an installed copy
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(root)]))
    pytester.makepyfile(test_mine="def test_claim(verify_claim):\n    verify_claim.assert_as_expected()\n")
    res = pytester.runpytest_subprocess("--verify-module", "plugin_bounds", "-q")
    res.assert_outcomes(passed=1, failed=2)
    res.stdout.fnmatch_lines(["*violations; worst: bound*"])
