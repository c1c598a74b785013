"""The trade-off explorer on real data shipped with scikit-learn (no download): per data set, d, N, the condition
number of the posterior precision, the wall time of ``python -m verify.explore --model linreg --data FILE`` (table
and page) against the 2-minute target on a 2-core machine (wall / 120 s must stay below 1), the CPU seconds of the
explorer and its workers, and the load average when it started (the machine may be shared).

    python benchmarks/explorer_real_data.py [--out output/bench/explorer]

Data sets (columns standardised, the response standardised): diabetes (442 x 10, disease progression),
breast cancer (569 x 29: "mean radius" regressed on the other 29 features, strongly collinear), wine (178 x 12:
alcohol on the other 12).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

LIMIT_S = 120.0


def datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from sklearn import datasets as ds

    d, b, w = ds.load_diabetes(), ds.load_breast_cancer(), ds.load_wine()
    return {"diabetes": (d.data, d.target), "breast_cancer": (np.delete(b.data, 0, 1), b.data[:, 0]),
            "wine": (np.delete(w.data, 0, 1), w.data[:, 0])}


def _standardise(a: np.ndarray) -> np.ndarray:
    return (a - a.mean(0)) / a.std(0)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("output/bench/explorer"))
    p.add_argument("--only", nargs="+", default=None, help="data sets to run (default: all three)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from theory.tradeoffs import linear_regression

    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'data':14s} {'N':>5s} {'d':>3s} {'cond(P)':>10s} {'wall s':>8s} {'/ 120 s':>8s} {'CPU s':>7s} "
          f"{'load':>5s}  result")
    worst = 0.0
    for name, (X, y) in datasets().items():
        if args.only and name not in args.only:
            continue
        X, y = _standardise(X), _standardise(y[:, None])[:, 0]
        csv = args.out / f"{name}.csv"
        np.savetxt(csv, np.column_stack([X, y]), delimiter=",")
        P = linear_regression(X, y).model.precision
        t0, load = time.perf_counter(), os.getloadavg()[0]
        run = subprocess.run([sys.executable, "-m", "verify.explore", "--model", "linreg", "--data", str(csv),
                              "--out", str(args.out / f"{name}.html")], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        worst = max(worst, wall)
        (args.out / f"{name}.txt").write_text(run.stdout + run.stderr)
        ok = "ok" if run.returncode == 0 and "page:" in run.stdout else f"FAILED (rc {run.returncode})"
        cpu = [ln for ln in run.stdout.splitlines() if ln.startswith("(total:")]
        cpu = cpu[0].split("s wall, ")[1].split(" CPU")[0] if cpu else "?"
        print(f"{name:14s} {X.shape[0]:5d} {X.shape[1]:3d} {np.linalg.cond(P):10.3g} {wall:8.1f} "
              f"{wall / LIMIT_S:8.2f} {cpu:>7s} {load:5.2f}  {ok}", flush=True)
    print(f"slowest: {worst:.1f} s (limit {LIMIT_S:.0f} s)")
    return 0 if worst < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
