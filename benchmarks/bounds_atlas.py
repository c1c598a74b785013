"""The atlas's budget (issue 25): every published bound at every atlas point (at least 2000 points) in under two
minutes on the 2-core machine, the page under 5 MB. Prints the figures (points, seconds per bound, page size) and
the slack table, and writes output/atlas/ (the page, atlas.json, slack.md).

    python benchmarks/bounds_atlas.py            # the whole atlas, on 2 processes (the machine's 2 cores)
    python benchmarks/bounds_atlas.py --jobs 1   # one process, timed per bound (wall and CPU)
    python benchmarks/bounds_atlas.py --quick    # two bounds on three small problems (a smoke run)

The last line is key=value figures: points=..., seconds=... (wall), cpu_seconds=... (the process's CPU time: on the
shared machine the wall time also counts other jobs), page_mb=..., within_budget=0|1 (wall time).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from theory.atlas import evaluate_bound, evaluate_bounds  # noqa: E402
from theory.bounds.literature import DK_W2, PUBLISHED, VW_KL  # noqa: E402
from verify.atlas_page import slack_table, write_atlas_page  # noqa: E402

BUDGET_S, PAGE_MB, MIN_POINTS = 120.0, 5.0, 2000


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="two bounds on three small problems")
    p.add_argument("--out", type=Path, default=ROOT / "output" / "atlas")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2, the machine's cores; 1: timed per bound)")
    args = p.parse_args(argv)
    bounds = PUBLISHED
    if args.quick:
        small = ("gauss_p1", "gaussian_mean", "regression_small")
        bounds = tuple(dataclasses.replace(b, problems=small) for b in (DK_W2, VW_KL))
    t0 = time.perf_counter()
    if args.jobs > 1:
        results = evaluate_bounds(bounds, jobs=args.jobs)
        cpu = math.nan
    else:
        c0, results = time.process_time(), []
        for b in bounds:
            t, c = time.perf_counter(), time.process_time()
            results.append(evaluate_bound(b))
            print(f"{b.key:48s} {len(results[-1].points):5d} points {time.perf_counter() - t:7.1f} s wall "
                  f"{time.process_time() - c:7.1f} s CPU", flush=True)
        cpu = time.process_time() - c0
    seconds = time.perf_counter() - t0
    t = time.perf_counter()
    page = write_atlas_page(results, args.out, seconds)
    page_s = time.perf_counter() - t
    (args.out / "slack.md").write_text(slack_table(results))
    print(slack_table(results))
    points = sum(len(r.points) for r in results)
    mb = page.stat().st_size / 1e6
    ok = points >= MIN_POINTS and seconds <= BUDGET_S and mb <= PAGE_MB
    print(f"{points} points in {seconds:.1f} s wall on {args.jobs} processes, {cpu:.1f} s CPU (one process) (budget "
          f"{BUDGET_S:.0f} s), page {mb:.2f} MB in "
          f"{page_s:.1f} s (budget {PAGE_MB:.0f} MB): {page}")
    print(f"points={points} seconds={seconds:.1f} cpu_seconds={cpu:.1f} page_seconds={page_s:.1f} page_mb={mb:.2f} "
          f"within_budget={int(ok or args.quick)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
