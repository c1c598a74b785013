"""The code in docs/ runs as written: every ```python block of the guides, in order, in one namespace per guide
(tests/_docs.py; excerpt blocks are checked verbatim against the files they name), and the claims they define hold
(at a small number of chains)."""

from __future__ import annotations

import pytest
from _docs import blocks, excerpts_missing, run_guide

from verify.harness import run_claims
from verify.registry import REGISTRY, Settings
from verify.report import verdict

GUIDES = [("add_a_sampler.md", "docs.psgld.posterior"), ("add_a_claim.md", "docs.sgld.stationary_mean")]


@pytest.mark.parametrize(("guide", "claim_id"), GUIDES)
def test_guide_code_runs_and_its_claim_holds(guide, claim_id):
    assert blocks(guide), f"{guide} has no python blocks"
    assert excerpts_missing(guide) == []
    try:
        run_guide(guide)
        rows = run_claims([REGISTRY[claim_id]], Settings(chains=2000, seed=3))
        (claim, res), = rows
        assert verdict(claim, res) == "holds", res
    finally:
        REGISTRY.pop(claim_id, None)
