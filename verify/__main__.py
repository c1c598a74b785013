"""``python -m verify``: run the claim registry, print a table, write a report.

Exit code 0 only when every claim holds, except registered errata, which must fail (with their counter-example).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simulate.validation import ParameterError, check_int

from .registry import Settings, select
from .report import console_table, versions, write_report
from .runner import all_as_expected, run_claims


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python -m verify", description=__doc__)
    p.add_argument("--paper", action="append", help="run only this paper's claims (repeatable)")
    p.add_argument("--claim", action="append", help="run only this claim id (repeatable)")
    p.add_argument("--chains", type=int, default=Settings.chains, help="chains per simulation")
    p.add_argument("--seed", type=int, default=Settings.seed, help="base seed")
    p.add_argument("--alpha", type=float, default=Settings.alpha, help="family-wise false-alarm level")
    p.add_argument("--workers", type=int, default=Settings.workers,
                   help="run the claims on K Dask worker processes (a LocalCluster); results are bit-identical "
                        "to --workers 1")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the claims on an existing Dask cluster (scheduler address, e.g. tcp://host:8786)")
    p.add_argument("--out", default="output/verify", help="report folder (default: output/verify)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the claims and exit")
    p.add_argument("--rerun", metavar="REPORT",
                   help="re-run the claims of a report (its results.json or folder) with its settings and check "
                        "that every number is reproduced bit for bit")
    args = p.parse_args(argv)
    if args.rerun:
        return rerun(args.rerun, args.out, not args.no_progress, args.workers, args.scheduler)
    try:
        check_int("--chains", args.chains, 4)
        check_int("--seed", args.seed, 0)
        check_int("--workers", args.workers, 1)
        if not 0.0 < args.alpha < 1.0:
            raise ParameterError(f"--alpha must satisfy 0 < alpha < 1, got {args.alpha}")
        claims = select(args.paper, args.claim)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for c in claims:
            print(f"{c.id:45s} {c.source}")
        return 0
    settings = Settings(chains=args.chains, seed=args.seed, alpha=args.alpha, progress=not args.no_progress,
                        workers=args.workers, scheduler=args.scheduler)
    rows = run_claims(claims, settings)
    n_checks = sum(len(r.checks) for _, r in rows if r is not None)
    print(console_table(rows, settings, n_checks))
    path = write_report(rows, settings, Path(args.out), argv, figures=not args.no_figures)
    print(f"report: {path}")
    return 0 if all_as_expected(rows) else 1


def rerun(report: str, out: str, progress: bool, workers: int = 1, scheduler: str | None = None) -> int:
    """Re-run a recorded report and compare theory, estimate and s.e. of every check exactly."""
    path = Path(report)
    if path.is_dir():
        path = path / "results.json"
    try:
        old = json.loads(path.read_text())
        st = old["settings"]
        ids = [c["id"] for c in old["claims"]]
    except (OSError, ValueError, KeyError) as e:
        print(f"error: --rerun needs a results.json written by python -m verify ({path}): {e}", file=sys.stderr)
        return 2
    try:
        claims = select(None, ids)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for k, v in old.get("versions", {}).items():
        now = versions().get(k)
        if now != v:
            print(f"warning: {k} was {v} when the report was written, now {now}", file=sys.stderr)
    settings = Settings(chains=st["chains"], seed=st["seed"], alpha=st["alpha"], progress=progress,
                        workers=max(1, workers), scheduler=scheduler)
    rows = run_claims(claims, settings)
    new = {(c.id, k.label): (k.theory, k.estimate, k.se) for c, r in rows if r is not None for k in r.checks}
    diffs = []
    for c in old["claims"]:
        for k in c["checks"]:
            key = (c["id"], k["label"])
            if new.get(key) != (k["theory"], k["estimate"], k["se"]):
                diffs.append(f"{key[0]} / {key[1]}: recorded {(k['theory'], k['estimate'], k['se'])}, "
                             f"now {new.get(key)}")
    n_old = sum(len(c["checks"]) for c in old["claims"])
    if len(new) != n_old:
        diffs.append(f"the report has {n_old} checks, the rerun {len(new)}")
    write_report(rows, settings, Path(out), ["--rerun", str(report)], figures=False)
    if diffs:
        print(f"NOT reproduced: {len(diffs)} differences", *diffs[:20], sep="\n")
        return 1
    print(f"reproduced bit for bit: {n_old} checks of {len(ids)} claims (seed {settings.seed}, "
          f"{settings.chains} chains)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
