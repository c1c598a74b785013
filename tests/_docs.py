"""Running a guide of docs/: its ```python blocks in order, in one namespace. A block whose first line is
``# excerpt of <file>`` is not run: it must appear verbatim in that file of the repository (the guide shows the code
that runs). A block containing ``...`` is a sketch of a shape and is skipped."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXCERPT = re.compile(r"# excerpt of (\S+)\n")


def blocks(guide: str) -> list[str]:
    """The guide's python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", (DOCS / guide).read_text(), flags=re.S)


def excerpts_missing(guide: str) -> list[str]:
    """Excerpt blocks that do not appear verbatim in the file they name."""
    out = []
    for code in blocks(guide):
        m = EXCERPT.match(code)
        if m and code[m.end():].rstrip("\n") not in (ROOT / m.group(1)).read_text():
            out.append(f"{m.group(1)}: {code[m.end():][:80]!r}")
    return out


def run_guide(guide: str) -> dict:
    """Execute the guide's runnable blocks in one namespace and return it."""
    namespace: dict = {"__name__": f"docs_{guide.split('.')[0]}"}
    for code in blocks(guide):
        if EXCERPT.match(code) or "..." in code:
            continue
        exec(compile(code, guide, "exec"), namespace)
    return namespace
