"""``python -m verify.equation_index [OUT_DIR]``: check the per-paper indexes against the registry and render them
as Markdown (default docs/equation_index)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..registry import load_all
from . import PAPERS, problems, write_all


def main(argv: list[str]) -> int:
    registry = load_all()
    errors = [p for paper in PAPERS for p in problems(paper, registry)]
    for e in errors:
        print(e, file=sys.stderr)
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "docs" / "equation_index"
    for p in write_all(out, registry):
        print(p)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
