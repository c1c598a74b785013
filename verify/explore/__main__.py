"""``python -m verify.explore``: the exact optimal (h, n) of every sampler under a budget, printed as a table, and the
interactive explorer page (one self-contained HTML file).

    python -m verify.explore                                   # the toy, 1e5 gradient evaluations, both pages' grids
    python -m verify.explore --objective quadratic --budget 1e6 --N 1000
    python -m verify.explore --model linreg --data my.csv      # your linear regression (last column: y)
    python -m verify.explore --model logistic                  # logistic regression, Laplace approximation

The table comes from :func:`theory.tradeoffs.tradeoffs` (optimum refined in h, with a simulation spot-check); the
page from :func:`verify.explore.grid.explorer_data` (a grid over N, budget, n, h, objective and sampler).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from simulate.models.logistic import LogisticRegressionModel
from simulate.validation import ParameterError
from theory.tradeoffs import (
    SAMPLERS,
    Budget,
    Objective,
    SamplerOptions,
    linear_regression,
    logistic_laplace,
    preset,
    tradeoffs,
)
from theory.tradeoffs.objective import KINDS, UNITS

from .grid import PAGE_BUDGETS, PAGE_N_DATA, PAGE_OBJECTIVES, GridSpec, explorer_data
from .page import MAX_BYTES, write_page

DEFAULT_OUT = Path("output/explore/explorer.html")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify.explore", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="toy", choices=["toy", "gaussian", "linreg", "logistic"])
    p.add_argument("--data", help="CSV of your data for --model linreg / logistic: features, then y in the last "
                                  "column (labels -1/+1 or 0/1 for logistic); a header line is skipped")
    p.add_argument("--N", type=int, nargs="+", default=list(PAGE_N_DATA),
                   help="data sizes of the page's N slider (the table uses the largest)")
    p.add_argument("--budget", type=float, default=1e5, help="the table's budget (default 1e5)")
    p.add_argument("--unit", default="gradients", choices=UNITS, help="budget unit")
    p.add_argument("--budgets", type=float, nargs="+", default=list(PAGE_BUDGETS),
                   help="the page's budgets, in per-datum gradient evaluations")
    p.add_argument("--burn-in", type=float, default=0.0, help="fraction of the steps discarded (default 0)")
    p.add_argument("--objective", default="mean", choices=KINDS, help="the table's objective")
    p.add_argument("--page-objectives", nargs="+", default=list(PAGE_OBJECTIVES), choices=KINDS)
    p.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=list(SAMPLERS))
    p.add_argument("--n1", type=int, default=None, help="vrSG-MCMC anchor batch (default min(N, 10 n2))")
    p.add_argument("--m", type=int, default=10, help="epoch length of SVRG-LD and vrSG-MCMC")
    p.add_argument("--alpha", type=float, default=0.1, help="SGHMC friction")
    p.add_argument("--spot-chains", type=int, default=1000, help="chains of each spot-check (0: none)")
    p.add_argument("--workers", type=int, default=2, help="processes computing the page's grid")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the page (default {DEFAULT_OUT})")
    p.add_argument("--no-page", action="store_true", help="print the table only")
    p.add_argument("--no-table", action="store_true", help="write the page only")
    return p


def _read_csv(path: str) -> np.ndarray:
    try:
        text = Path(path).read_text().splitlines()
    except OSError as e:
        raise ParameterError(f"--data: cannot read {path!r}: {e}") from None
    rows = [r for r in text if r.strip()]
    try:
        float(rows[0].split(",")[0])
    except (ValueError, IndexError):
        rows = rows[1:]
    try:
        a = np.array([[float(v) for v in r.split(",")] for r in rows])
    except ValueError as e:
        raise ParameterError(f"--data must be numbers separated by commas: {e}") from None
    if a.ndim != 2 or a.shape[1] < 2 or a.shape[0] < 2:
        raise ParameterError(f"--data needs >= 2 rows and >= 2 columns (features, then y), got shape {a.shape}")
    return a


def model_spec(args):
    """The ModelSpec of the options, at the largest N."""
    N = max(args.N)
    if args.data is None:
        return preset(args.model, N)
    if args.model not in ("linreg", "logistic"):
        raise ParameterError("--data applies to --model linreg or logistic")
    a = _read_csv(args.data)
    X, y = a[:, :-1], a[:, -1]
    if args.model == "linreg":
        spec = linear_regression(X, y)
    else:
        spec = logistic_laplace(LogisticRegressionModel(X, np.where(y > 0, 1.0, -1.0)))
    return spec.at(min(N, spec.n_data))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        spec = model_spec(args)
        options = SamplerOptions(args.n1, args.m, args.alpha)
        budget = Budget(args.budget, args.unit, args.burn_in)
        if not args.no_table:
            t0 = time.perf_counter()
            ans = tradeoffs(spec, budget, Objective(args.objective), args.samplers, options=options,
                            spot_chains=args.spot_chains)
            print(ans.table())
            print(f"(table: {time.perf_counter() - t0:.1f} s)\n")
        if not args.no_page:
            t0 = time.perf_counter()
            grid = GridSpec(spec, tuple(sorted(set(args.N))), tuple(args.budgets), tuple(args.page_objectives),
                            tuple(args.samplers), options=options, burn_in=args.burn_in)
            path = write_page(explorer_data(grid, workers=args.workers), args.out)
            size = path.stat().st_size
            print(f"page: {path} ({size / 1e6:.2f} MB, written in {time.perf_counter() - t0:.1f} s)")
            if size > MAX_BYTES:
                print(f"warning: the page exceeds {MAX_BYTES / 1e6:.0f} MB; use fewer --N or --budgets",
                      file=sys.stderr)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
