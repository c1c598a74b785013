"""Fu & Zhang claims: verdicts on correct code and on planted bugs (every check can fail)."""

from __future__ import annotations

import pytest

from verify.harness import all_as_expected, run_claims
from verify.mutants import load_mutants
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)


@pytest.mark.slow
def test_fu_zhang_claims_as_registered():
    rows = run_claims(select(papers=["fu_zhang"]), FAST)
    assert all_as_expected(rows), {c.id: verdict(c, r) for c, r in rows}
    kinds = [c.expected for c, _ in rows]
    # round three (docs/verdicts.md): Theorem 3.2's variance statement an erratum, Table 2 reading-dependent
    assert kinds.count("fails") >= 5 and kinds.count("holds as a bound") == 1 and kinds.count("depends on reading") == 2


MUTANTS = {k: v for k, v in load_mutants().items() if k.startswith("fu_zhang.")}


@pytest.mark.parametrize("mid", sorted(MUTANTS))
def test_planted_bug_is_killed(mid):
    m = MUTANTS[mid]
    with m.patch():
        rows = run_claims(select(ids=list(m.claims)), FAST)
    verdicts = {c.id: verdict(c, r) for c, r in rows}
    assert all(v == "fails" for v in verdicts.values()), f"{mid}: {verdicts}"


def test_mutants_registered():
    assert {"fu_zhang.weights_swapped", "fu_zhang.within_cluster_with_replacement",
            "fu_zhang.cluster_dropped"} <= set(MUTANTS)
