"""``python -m verify.conformance``: run blackjax, SGMCMCJax and posteriors against the exact law of what they declare.

    python -m verify.conformance [--only blackjax,sgmcmcjax,posteriors] [--chains M] [--seed S] [--alpha A]
                                 [--out output/conformance] [--quick]

Prints the table (Markdown), writes report.md and results.json to ``--out``; exit code 0 when every case gets its
expected verdict (a library that is not installed is reported as skipped, with the reason).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from simulate.validation import ParameterError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verify.conformance", description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated libraries (blackjax, sgmcmcjax, posteriors)")
    ap.add_argument("--chains", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20161)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--out", default="output/conformance")
    ap.add_argument("--quick", action="store_true", help="1000 chains (a smoke run; low power)")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)  # tensordict's notices on posteriors' states
    from .cases import library_cases
    from .report import summary_table, write
    from .suite import run_cases

    try:
        cases = library_cases([s.strip().lower() for s in args.only.split(",") if s.strip()] or None)
        chains = 1000 if args.quick else args.chains
        t0 = time.perf_counter()
        results = run_cases(cases, chains=chains, seed=args.seed, alpha=args.alpha,
                            progress=lambda s: print(f"[{time.perf_counter() - t0:6.1f} s] {s}", flush=True))
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    settings = {"chains": chains, "seed": args.seed, "alpha": args.alpha,
                "seconds": round(time.perf_counter() - t0, 1)}
    path = write(results, settings, Path(args.out))
    print()
    print(summary_table(results))
    print()
    for r in results:
        print(f"{r.case.library} {r.case.algorithm} ({r.problem or '-'}): {r.sentence()}")
    bad = [r for r in results if not r.as_expected]
    print(f"\n{len(results)} cases, {sum(len(r.checks) for r in results)} checks in one Holm family at alpha = "
          f"{args.alpha}; {len(bad)} not as expected; {settings['seconds']} s; report: {path}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
