"""The code in docs/ runs as written: every ```python block of the guides, in order, in one namespace per guide,
and the claims they define hold (at a small number of chains)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verify.harness import run_claims
from verify.registry import REGISTRY, Settings
from verify.report import verdict

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)


@pytest.mark.parametrize(("guide", "claim_id"), [("add_a_sampler.md", "docs.psgld.stationary_variance"),
                                                   ("add_a_claim.md", "docs.sgld.stationary_mean")])
def test_guide_code_runs_and_its_claim_holds(guide, claim_id):
    blocks = _blocks(guide)
    assert blocks, f"{guide} has no python blocks"
    namespace: dict = {"__name__": f"docs_{guide.split('.')[0]}"}
    try:
        for code in blocks:
            if "..." in code:  # a sketch of the shape, not runnable
                continue
            exec(compile(code, guide, "exec"), namespace)
        rows = run_claims([REGISTRY[claim_id]], Settings(chains=2000, seed=3))
        (claim, res), = rows
        assert verdict(claim, res) == "holds", res
    finally:
        REGISTRY.pop(claim_id, None)
