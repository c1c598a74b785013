"""``python -m verify.atlas``: evaluate every registered bound (the published ones of the claim family ``bounds``
and those of ``--module`` user modules) at every atlas point and write the atlas page.

    python -m verify.atlas                          # output/atlas/atlas.html, atlas.json, slack.md
    python -m verify.atlas --module my_bounds       # with your own bounds (docs/bounds.md)
    python -m verify.atlas --bound dalalyan2017.thm2 --out output/one

The exit code is 0 when every bound evaluated without an error (violations are findings, not errors).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from simulate.validation import ParameterError

from .atlas_page import slack_table, write_atlas_page
from .bounds import BOUNDS, atlas_result
from .registry import clear_caches, load_modules


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify.atlas", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--module", action="append", metavar="MODULE", help="also load the bounds of this module")
    p.add_argument("--bound", action="append", metavar="KEY", help="evaluate only this bound (repeatable)")
    p.add_argument("--out", type=Path, default=Path("output/atlas"), help="output folder (default output/atlas)")
    return p


def run_atlas(keys: list[str] | None = None) -> tuple[list, float]:
    """(atlas results of the registered bounds ``keys`` (all by default), seconds)."""
    keys = list(BOUNDS) if not keys else keys
    for k in keys:
        if k not in BOUNDS:
            raise ParameterError(f"unknown bound {k!r}; registered: {', '.join(BOUNDS)}")
    clear_caches()
    t0 = time.perf_counter()
    results = [atlas_result(k) for k in keys]
    return results, time.perf_counter() - t0


def atlas_main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        load_modules(args.module)
        results, seconds = run_atlas(args.bound)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    path = write_atlas_page(results, args.out, seconds)
    (args.out / "slack.md").write_text(slack_table(results))
    print(slack_table(results))
    n = sum(len(r.points) for r in results)
    errors = sum(len(r.by_status("error")) for r in results)
    print(f"{n} points, {errors} errors, {seconds:.1f} s; page {path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(atlas_main())
