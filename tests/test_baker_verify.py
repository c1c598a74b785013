"""Baker et al. (2019) claims: verdicts on correct code, and every planted bug turns a named claim to "fails"."""

from __future__ import annotations

import pytest

from verify.harness import all_hold, run_claims
from verify.mutants import load_mutants
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)
BAKER_MUTANTS = sorted(k for k in load_mutants() if k.startswith("baker."))


def _verdicts(ids, settings=FAST):
    rows = run_claims(select(ids=list(ids)), settings)
    return {c.id: verdict(c, r) for c, r in rows}, rows


@pytest.mark.slow
def test_baker_claims_as_expected_on_correct_code():
    parts = ("noise", "stationary", "theorems", "zv")  # Sec. 4-5: the former claims/baker.py
    claims = [c for c in select(papers=["baker"]) if c.run.__module__.rsplit(".", 1)[-1] in parts]
    assert len(claims) == 16
    rows = run_claims(claims, FAST)
    assert all_hold(rows), {c.id: verdict(c, r) for c, r in rows}
    assert {c.id for c in claims if c.expected == "fails"} == {"baker.saga.printed_update_no_noise",
                                                                "baker.zv.printed_sign", "baker.zv.printed_operator"}


def test_four_baker_mutants_registered():
    assert set(BAKER_MUTANTS) == {"baker.cv_different_minibatch", "baker.saga_table_not_updated",
                                  "baker.saga_noise_missing", "baker.zv_sign_flipped"}


@pytest.mark.parametrize("mutant_id", BAKER_MUTANTS)
def test_planted_bug_is_reported(mutant_id):
    mut = load_mutants()[mutant_id]
    with mut.patch():
        verdicts, rows = _verdicts(mut.claims)
    assert all(v == "fails" for v in verdicts.values()), f"{mutant_id}: {verdicts}"
    assert not all_hold(rows)


def test_cv_different_minibatch_bug_via_monkeypatch(monkeypatch):
    """The same bug planted by hand: an independent minibatch at theta_hat inflates the CV noise."""
    import verify.mutants.baker as mb
    from simulate.estimators.control_variates import ControlVariate

    monkeypatch.setattr(ControlVariate, "draw", mb._cv_draw_two)
    monkeypatch.setattr(ControlVariate, "apply", mb._cv_different_minibatch)
    _, rows = _verdicts(["baker.noise.simulated"])
    rejected = [c.label for _, r in rows for c in r.checks if c.rejected]
    assert rejected and all("CV" in lab for lab in rejected)
