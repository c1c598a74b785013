"""The verify harness: verdicts on correct code, and failures on planted bugs (the checks can fail)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import simulate.estimators as est
import simulate.estimators.control_variates as cvmod
import simulate.integrators as integ
import simulate.runtime.runner as runner_mod
from verify.__main__ import main
from verify.harness import all_hold, run_claims
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)


def _verdicts(ids, settings=FAST):
    rows = run_claims(select(ids=ids), settings)
    return {c.id: verdict(c, r) for c, r in rows}, rows


@pytest.mark.slow
def test_all_default_claims_hold_on_correct_code(tmp_path):
    """The four papers' claims in one run, at 2000 chains: every verdict as registered, the report and figures
    written. The other families run in their own tests (engine: test_linear_gaussian_verify, grid:
    test_grid_claims, bounds: test_bounds_atlas, brosse: test_brosse); `make verify` runs them all."""
    papers = [a for p in ("vollmer", "chen", "baker", "fu_zhang") for a in ("--paper", p)]
    rc = main(["--chains", "2000", "--seed", "7", "--out", str(tmp_path), "--no-progress", *papers])
    assert rc == 0
    assert (tmp_path / "report.md").exists()
    res = json.loads((tmp_path / "results.json").read_text())
    assert all(c["verdict"] in (c["expected"], "out of scope") for c in res["claims"])
    assert any(c["expected"] == "holds" for c in res["claims"])
    names = {p.name for p in tmp_path.iterdir()}
    assert "report.html" in names
    for c in res["claims"]:  # each claim's own figures only, never a family figure of other claims
        assert (c["check_figure"] in names) if c["checks"] else c["check_figure"] is None
        assert c["figure"] is None or c["figure"] == f"fig-{c['id']}.png" in names


# Each planted bug is realistic (cf. the noise-scale typo in TFP's SGLD) and must turn a verdict to "fails".
PLANTED = {
    "noise sqrt(2h) instead of sqrt(h)": (
        lambda mp: mp.setattr(integ.Langevin, "noise_scale", lambda self, h: float(np.sqrt(2 * h))),
        ["vollmer.eq18.sgld_variance", "vollmer.eq18.euler_variance"]),
    "minibatch N/n scale dropped": (
        lambda mp: mp.setattr(est.Minibatch, "scale", lambda self, model: 1.0),
        ["vollmer.eq17.stationary_mean"]),
    "mSGLD correction with the wrong sign": (
        lambda mp: mp.setattr(integ.ModifiedLangevin, "noise_matrix",
                              lambda self, h, cov: np.sqrt(h) * (np.eye(cov.shape[-1]) + (h / 8.0) * cov)),
        ["vollmer.eq21.msgld_variance", "vollmer.eq21.msgld_leading_coefficient"]),
    "with replacement used where without is claimed": (
        lambda mp: mp.setattr(est.minibatch, "sample_indices",
                              lambda rng, N, n, M, replace: runner_mod.np.random.Generator.integers(
                                  rng, 0, N, size=(n, M))),
        ["vollmer.eq18.sgld_variance"]),
    "CV centre by plain averaged SGD (no full-gradient refinement)": (
        lambda mp: mp.setattr(cvmod, "sgd_mode", _sgd_mode_unrefined), ["baker.a3.default_centre"]),
    "prior gradient dropped from the estimate": (
        lambda mp: mp.setattr(est.Minibatch, "apply", _apply_without_prior),
        ["vollmer.eq17.stationary_mean"]),
}


_SGD_MODE = cvmod.sgd_mode


def _sgd_mode_unrefined(*args, **kwargs):
    return _SGD_MODE(*args, **{**kwargs, "refine": 0})


def _apply_without_prior(self, model, theta, state, idx):
    return model.grad_log_lik_sum(theta, idx) * self.scale(model), state


@pytest.mark.parametrize("bug", sorted(PLANTED))
@pytest.mark.slow
def test_planted_bug_is_reported(bug, monkeypatch):
    plant, ids = PLANTED[bug]
    plant(monkeypatch)
    verdicts, rows = _verdicts(ids)
    assert "fails" in verdicts.values(), f"{bug}: verdicts {verdicts}"
    assert not all_hold(rows)


def test_without_replacement_planted_bug_changes_only_without_cases(monkeypatch):
    """The with-replacement mutant is caught through the without-replacement configurations."""
    PLANTED["with replacement used where without is claimed"][0](monkeypatch)
    _, rows = _verdicts(["vollmer.eq18.sgld_variance"])
    rejected = [c.label for _, r in rows for c in r.checks if c.rejected]
    assert rejected and all("without" in lab for lab in rejected)


def test_cli_bad_input_exits_2_with_message(capsys):
    assert main(["--paper", "nosuchpaper"]) == 2
    assert "paper must be one of" in capsys.readouterr().err
    assert main(["--claim", "nosuchclaim"]) == 2
    assert "unknown claim id" in capsys.readouterr().err
    assert main(["--chains", "0"]) == 2
    assert "--chains" in capsys.readouterr().err
    assert main(["--alpha", "1.5"]) == 2
    assert "--alpha" in capsys.readouterr().err


def test_unexpected_verdict_of_an_erratum_fails_the_run():
    """An erratum registered as 'fails' that suddenly holds is reported as unexpected (exit code 1)."""
    from verify.harness import all_as_expected
    from verify.registry import Claim, ClaimResult

    fake = Claim(id="test.erratum", paper="test", source="none", statement="s", family="f",
                 run=lambda s: ClaimResult(), expected="fails", erratum="printed formula wrong")
    rows = run_claims([fake], FAST)
    assert verdict(fake, rows[0][1]) == "holds" and not all_as_expected(rows)
    with pytest.raises(ValueError, match="needs its erratum"):
        Claim(id="x", paper="p", source="s", statement="s", family="f", run=lambda s: None, expected="fails")


def test_cli_list(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "vollmer.eq18.sgld_variance" in out


def test_single_claim_selection_is_reproducible():
    a, ra = _verdicts(["vollmer.sec2.finite_k_moments"])
    b, rb = _verdicts(["vollmer.sec2.finite_k_moments"])
    za = [c.z for _, r in ra for c in r.checks]
    zb = [c.z for _, r in rb for c in r.checks]
    assert za == zb and a == b


def test_rerun_reproduces_bit_for_bit_and_detects_tampering(tmp_path):
    first = tmp_path / "first"
    assert main(["--claim", "vollmer.sec2.finite_k_moments", "--chains", "500", "--out", str(first),
                 "--no-progress", "--no-figures"]) == 0
    assert main(["--rerun", str(first), "--out", str(tmp_path / "again"), "--no-progress"]) == 0
    res = json.loads((first / "results.json").read_text())
    res["claims"][0]["checks"][3]["estimate"] *= 1 + 1e-15  # the smallest change must be noticed
    (first / "results.json").write_text(json.dumps(res))
    assert main(["--rerun", str(first), "--out", str(tmp_path / "third"), "--no-progress"]) == 1


def test_rerun_bad_path_exits_2(tmp_path, capsys):
    assert main(["--rerun", str(tmp_path / "missing")]) == 2
    assert "--rerun needs a results.json" in capsys.readouterr().err
