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


ROOT = DOCS.parent
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
