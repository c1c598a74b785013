"""The mutation harness (python -m verify.mutants): registry sanity, patches that plant and remove their bug, and a
small subset of mutants run end to end through the harness (fresh processes, kill matrix, exit code)."""

from __future__ import annotations

import json
from html import escape

import numpy as np
import pytest

import simulate.estimators as est
import simulate.estimators.vr as vr
import simulate.integrators as integ
import simulate.runtime.runner as runner_mod
from verify.mutants import load_mutants
from verify.mutants._harness import CONTROL, SENTINELS, kill_matrix, main, plan, run_one
from verify.registry import load_all

#: Every function or method a core mutant may replace; each must be restored when the patch exits.
TARGETS = [(integ.Langevin, "noise_scale"), (integ.Langevin, "update"), (integ.ModifiedLangevin, "noise_matrix"),
           (est.Minibatch, "scale"), (est.Minibatch, "apply"), (est.Minibatch, "finite_population_factor"),
           (est.FullGradient, "init"), (est.FullGradient, "apply"), (est.minibatch, "sample_indices"),
           (runner_mod._BlockSpec, "run_block"), (runner_mod, "_initial_state"), (vr.VRMinibatch, "draw"),
           (vr.VRMinibatch, "apply")]


def test_registry_has_at_least_15_core_mutants_naming_registered_claims():
    muts = load_mutants()
    core = [m for m in muts if m.startswith("core.")]
    assert len(core) >= 15
    reg = load_all()
    todo = plan(list(muts), SENTINELS)
    assert all(set(ids) <= set(reg) for ids in todo.values())
    assert all(s in todo[core[0]] for s in SENTINELS)


@pytest.mark.parametrize("mid", sorted(m for m in load_mutants() if m.startswith("core.")))
def test_core_patch_plants_and_removes_its_bug(mid):
    before = {(t, n): getattr(t, n) for t, n in TARGETS}
    with load_mutants()[mid].patch():
        changed = [(t, n) for t, n in TARGETS if getattr(t, n) is not before[(t, n)]]
    assert changed, f"{mid} patches nothing the harness knows"
    assert all(getattr(t, n) is before[(t, n)] for t, n in TARGETS)


def test_noise_mutant_changes_the_injected_noise():
    with load_mutants()["core.noise_sqrt_2h"].patch():
        assert integ.Langevin().noise_scale(0.5) == pytest.approx(1.0)
    assert integ.Langevin().noise_scale(0.5) == pytest.approx(np.sqrt(0.5))


def test_control_row_on_correct_code_passes():
    row = run_one(None, ["chen.alg1.vr_estimator_moments"], _settings())
    assert row["mutant"] == CONTROL and not row["killed"] and row["error"] is None
    assert row["cells"]["chen.alg1.vr_estimator_moments"]["verdict"] == "holds"


def test_in_process_row_kills_a_vr_mutant():
    row = run_one("core.vr_correction_scale_n1", ["chen.alg1.vr_estimator_moments"], _settings())
    assert row["killed"] and row["cells"]["chen.alg1.vr_estimator_moments"]["verdict"] == "fails"
    text = kill_matrix([row], ["chen.alg1.vr_estimator_moments"])
    assert "core.vr_correction_scale_n1" in text and " K " in text + " "


def test_harness_end_to_end_subset(tmp_path, capsys):
    """Three mutants through the CLI (fresh processes, control first): all killed, exit code 0, JSON written."""
    out = tmp_path / "kill.json"
    ids = ["core.vr_shared_minibatch", "core.vr_correction_scale_n1", "core.euler_stale_gradient"]
    page = tmp_path / "kill.html"
    rc = main([a for m in ids for a in ("--mutant", m)] + ["--no-sentinels", "--chains", "2000", "--jobs", "2",
                                                           "--json", str(out), "--html", str(page)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "kill rate: 3/3 = 100%" in text and "control (correct code): passes" in text
    res = json.loads(out.read_text())
    assert res["killed"] == res["mutants"] == 3
    assert [r["mutant"] for r in res["rows"]][0] == CONTROL
    html = page.read_text()  # the heat map page: every mutant a row, offline
    assert "<svg" in html and "3/3</b> mutants killed" in html and "http://" not in html and "https://" not in html
    assert all(m in html for m in ids) and escape(res["descriptions"][ids[0]]) in html
    from verify.mutants._report import render_kill_matrix

    assert render_kill_matrix(res) == html  # rebuilt from the JSON record alone


def test_a_harmless_patch_survives(monkeypatch):
    """A patch that plants nothing is not killed (the kill comes from the bug, not from the harness)."""
    from verify.mutants import MUTANTS, Mutant

    monkeypatch.setitem(MUTANTS, "core.zz_harmless", Mutant(
        "core.zz_harmless", "plants nothing", lambda: _null(), ("chen.lemma2.gamma_nonnegative",)))
    row = run_one("core.zz_harmless", ["chen.lemma2.gamma_nonnegative"], _settings())
    assert not row["killed"]


def _null():
    from contextlib import nullcontext

    return nullcontext()


def _settings():
    from verify.registry import Settings

    return Settings(chains=2000, seed=7, alpha=0.01)
