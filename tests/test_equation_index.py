"""The per-paper equation indexes (verify/equation_index/*.json): complete, consistent with the registry, and the
rendered docs/equation_index/*.md up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify import equation_index as ei
from verify.registry import load_all

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def registry():
    return load_all()


@pytest.mark.parametrize("paper", ei.PAPERS)
def test_index_refers_to_registered_claims_and_is_complete(paper, registry):
    assert ei.problems(paper, registry) == []


@pytest.mark.parametrize("paper", ei.PAPERS)
def test_rendered_docs_are_up_to_date(paper, registry):
    committed = (ROOT / "docs" / "equation_index" / f"{paper}.md").read_text()
    assert committed == ei.render(paper, registry), "run `python -m verify.equation_index` and commit docs/"


def test_problems_catch_unknown_claims_and_missing_status(tmp_path, monkeypatch, registry):
    bad = '{"paper": "chen", "title": "t", "results": [{"id": "Lemma 2", "statement": "s", "claims": ["no.such"]},' \
          ' {"id": "Lemma 2", "statement": "s"}]}'
    (tmp_path / "chen.json").write_text(bad)
    monkeypatch.setattr(ei, "HERE", tmp_path)
    found = "\n".join(ei.problems("chen", registry))
    assert "'no.such' is not registered" in found
    assert "exactly one of" in found
    assert "duplicate" in found
    assert "is in no entry of the index" in found


def test_theory_functions_finds_closed_forms(registry):
    funcs = ei.theory_functions(registry["chen.lemma5.anchor_gap"].run)
    assert "chains.chen_anchor_gap.anchor_gap_moments" in funcs
    assert "chains.chen_anchor_gap.alpha_beta_gap" in funcs  # through the claim module's helper _gap_ratios
    assert ei.registered_verdict(registry["chen.cor4.critical_point_optimal_v1"]) == "erratum"
    assert ei.registered_verdict(registry["chen.cor4.regimes_exact_mse"]) == "holds as a bound"
    assert ei.registered_verdict(registry["vollmer.sec7.msgld_vs_sgld"]) == (
        "depends on reading (A: inconclusive; B: fails)")
