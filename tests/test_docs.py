"""The code in docs/ runs as written: every ```python block of the guides, in order, in one namespace per guide
(tests/_docs.py; excerpt blocks are checked verbatim against the files they name), and the claims they define hold
(at a small number of chains)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _docs import DOCS, ROOT, blocks, excerpts_missing, run_guide

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

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file: lower case, punctuation dropped, spaces to hyphens, repeats
    numbered."""
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(path.read_text()):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        k = seen.get(slug, 0)
        seen[slug] = k + 1
        out.add(slug if k == 0 else f"{slug}-{k}")
    return out


def _prose(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def _pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    """Every relative link of the README, the changelog and docs/ names a file or folder of the repository, and its
    anchor, if any, a heading of the page it links to."""
    bad = []
    for line in _prose(page.read_text()):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            rel, _, anchor = target.partition("#")
            dest = (page.parent / rel).resolve() if rel else page
            if not dest.exists() or not dest.is_relative_to(ROOT.resolve()):
                bad.append(f"{target}: no such file in the repository")
            elif anchor and dest.is_file() and anchor not in _anchors(dest):
                bad.append(f"{target}: no heading with anchor #{anchor}")
    assert not bad, "\n".join(bad)
