"""The trade-off explorer on real data shipped with scikit-learn (no download): per data set, d, N, the condition
number of the posterior precision, and the wall time of ``python -m verify.explore --model linreg --data FILE``
(table and page), which must finish in under 2 minutes on a 2-core machine.

    python benchmarks/explorer_real_data.py [--out output/bench/explorer]

Data sets (columns standardised, the response standardised): diabetes (442 x 10, disease progression),
breast cancer (569 x 29: "mean radius" regressed on the other 29 features, strongly collinear), wine (178 x 12:
alcohol on the other 12).
"""

from __future__ import annotations

import argparse
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
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from theory.tradeoffs import linear_regression

    print(f"{'data':14s} {'N':>5s} {'d':>3s} {'cond(P)':>10s} {'wall s':>8s}  result")
    worst = 0.0
    for name, (X, y) in datasets().items():
        X, y = _standardise(X), _standardise(y[:, None])[:, 0]
        csv = args.out / f"{name}.csv"
        np.savetxt(csv, np.column_stack([X, y]), delimiter=",")
        P = linear_regression(X, y).model.precision
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "verify.explore", "--model", "linreg", "--data", str(csv),
                              "--out", str(args.out / f"{name}.html")], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        worst = max(worst, wall)
        (args.out / f"{name}.txt").write_text(run.stdout + run.stderr)
        ok = "ok" if run.returncode == 0 and "page:" in run.stdout else f"FAILED (rc {run.returncode})"
        print(f"{name:14s} {X.shape[0]:5d} {X.shape[1]:3d} {np.linalg.cond(P):10.3g} {wall:8.1f}  {ok}", flush=True)
    print(f"slowest: {worst:.1f} s (limit {LIMIT_S:.0f} s)")
    return 0 if worst < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
