"""``python -m verify.explore``: the exact optimal (h, n) of every sampler under a budget, printed as a table, and the
interactive explorer page (one self-contained HTML file).

    python -m verify.explore                                   # the toy, 1e5 gradient evaluations, both pages' grids
    python -m verify.explore --objective quadratic --budget 1e6 --N 1000
    python -m verify.explore --model linreg --data my.csv      # your linear regression (last column: y)
    python -m verify.explore --model linreg --data my.csv --sigma 0.5 --coordinate 3 --burn-in 0.2
    python -m verify.explore --model logistic                  # 2-D logistic regression, exact (grid law)
    python -m verify.explore --model logistic --route laplace  # through its Laplace approximation

The table comes from :func:`theory.tradeoffs.answer` per sampler, streamed as each finishes (optimum refined in h
when time allows, with its law's accuracy and a simulation spot-check); the page from
:func:`verify.explore.grid.explorer_data` (a grid over N, budget, n, h, objective and sampler).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from simulate.validation import ParameterError
from theory.tradeoffs import (
    FRACTIONS,
    INFLATION_WARN,
    SAMPLERS,
    Budget,
    SamplerOptions,
    Tradeoff,
    linear_regression,
    preset,
)
from theory.tradeoffs.objective import KINDS, UNITS
from theory.tradeoffs.spotcheck import MAX_WORK

from .data import check_design, check_n_grid, default_n_grid, read_csv
from .grid import PAGE_BUDGETS, PAGE_N_DATA, PAGE_OBJECTIVES, GridSpec, coordinate_objective, explorer_data
from .limits import cpu_seconds, one_blas_thread, warm
from .logistic import EXACT_FRACTIONS, EXACT_SECONDS_2D, ROUTES, exact_defaults, laplace_lines, logistic_spec
from .page import MAX_BYTES, write_page
from .table import stream_table

DEFAULT_OUT = Path("output/explore/explorer.html")
#: Seconds the table takes at most by default (the page: ``--page-seconds``); with the start-up, the data's checks
#: and the page's writing, table and page finish in under 2 minutes (benchmarks/explorer_real_data.py).
TABLE_SECONDS = 60.0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify.explore", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="toy", choices=["toy", "gaussian", "linreg", "logistic"])
    p.add_argument("--data", help="CSV of your data for --model linreg / logistic: features, then y in the last "
                                  "column (labels -1/+1 or 0/1 for logistic); a header line is skipped")
    p.add_argument("--route", default=None, choices=ROUTES,
                   help="--model logistic: exact (the grid law, d <= 2; default) or laplace (its Laplace "
                        "approximation; the exact route prints it as the comparison)")
    p.add_argument("--sigma", type=float, default=1.0, help="linreg noise s.d. (default 1: standardise y)")
    p.add_argument("--sigma0", type=float, default=10.0, help="prior s.d. of every coefficient (default 10)")
    p.add_argument("--N", type=int, nargs="+", default=None,
                   help="data sizes of the page's N slider, the table uses the largest (default: 100 300 1000; "
                        "with --data N/4, N/2, N)")
    p.add_argument("--budget", type=float, default=1e5, help="the table's budget (default 1e5)")
    p.add_argument("--unit", default="gradients", choices=UNITS, help="budget unit")
    p.add_argument("--budgets", type=float, nargs="+", default=None,
                   help="the page's budgets, in per-datum gradient evaluations (default 1e3 ... 1e7; with --data the "
                        "table's budget and the two decades below it: the larger budgets' long windows cost seconds "
                        "per point at d = 30; the exact logistic route: the table's budget)")
    p.add_argument("--burn-in", type=float, default=None,
                   help="fraction of the steps discarded, in [0, 1) (default 0; 0.1 with --data)")
    p.add_argument("--objective", default="mean", choices=KINDS, help="the table's objective")
    p.add_argument("--coordinate", type=int, default=1,
                   help="the coordinate i of theta the objective reads (theta_i; 1 <= i <= d; default 1)")
    p.add_argument("--max-inflation", type=float, default=INFLATION_WARN,
                   help="only h whose stationary variance is at most this many times the posterior's (every "
                        f"coordinate) may be an optimum (default {INFLATION_WARN:g}; inf: any)")
    p.add_argument("--page-objectives", nargs="+", default=None, choices=KINDS,
                   help="default: mean quadratic (with --data: mean)")
    p.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=list(SAMPLERS))
    p.add_argument("--fractions", type=float, nargs="+", default=None,
                   help="the h grid, as increasing fractions of each n's stability edge in (0, 1)")
    p.add_argument("--allow-slow", action="store_true",
                   help="compute SVRG-LD / vrSG-MCMC with quadratic or variance objectives (seconds per point)")
    p.add_argument("--seconds", type=float, default=None,
                   help="time limit per sampler in the table (default: 60 s x workers / samplers, or 900 s on the "
                        "exact 2-D logistic route; time a quicker sampler leaves passes on); a sampler's process is "
                        "stopped at it, its finished rows (from "
                        "the largest n down) kept and the rest named as left out")
    p.add_argument("--page-seconds", type=float, default=45.0,
                   help="time limit of the page's grid, shared by its cells as the table's (default 45)")
    p.add_argument("--n1", type=int, default=None, help="vrSG-MCMC anchor batch (default min(N, 10 n2))")
    p.add_argument("--m", type=int, default=10, help="epoch length of SVRG-LD and vrSG-MCMC")
    p.add_argument("--alpha", type=float, default=0.1, help="SGHMC friction")
    p.add_argument("--spot-chains", type=int, default=1000, help="chains of each spot-check (0: none)")
    p.add_argument("--spot-work", type=float, default=MAX_WORK, help="cap on chains x steps of each spot-check")
    p.add_argument("--workers", type=int, default=2, help="processes computing the table and the page")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the page (default {DEFAULT_OUT})")
    p.add_argument("--no-page", action="store_true", help="print the table only")
    p.add_argument("--no-table", action="store_true", help="write the page only")
    return p


def _check(args) -> None:
    """One-line errors naming the option and its valid range."""
    if args.burn_in is not None and not (math.isfinite(args.burn_in) and 0.0 <= args.burn_in < 1.0):
        raise ParameterError(f"--burn-in must satisfy 0 <= burn-in < 1 (a fraction of the steps), got {args.burn_in}")
    for name in ("sigma", "sigma0"):
        v = getattr(args, name)
        if not v > 0 or (name == "sigma" and not math.isfinite(v)):
            raise ParameterError(f"--{name} must satisfy 0 < {name} < inf, got {v}")
    if not args.max_inflation >= 1.0:
        raise ParameterError(f"--max-inflation must satisfy 1 <= max-inflation <= inf, got {args.max_inflation}")
    if args.workers < 1:
        raise ParameterError(f"--workers must be >= 1, got {args.workers}")
    if args.seconds is not None and not args.seconds > 0:
        raise ParameterError(f"--seconds must be > 0, got {args.seconds}")
    if args.fractions is not None:
        fr = np.asarray(args.fractions)
        if fr.size < 2 or not np.all((fr > 0) & (fr < 1)) or np.any(np.diff(fr) <= 0):
            raise ParameterError("--fractions must be >= 2 increasing numbers in (0, 1) (fractions of the edge)")


def model_spec(args):
    """The ModelSpec of the options, at the largest N (the --N grid is set from the data when not given)."""
    if args.route is not None and args.model != "logistic":
        raise ParameterError("--route applies to --model logistic")
    if args.model == "logistic":
        return _logistic(args)
    if args.data is None:
        args.N = args.N or list(PAGE_N_DATA)
        if args.model == "linreg":
            return linear_regression(sigma=args.sigma, sigma0=args.sigma0, N=max(args.N))
        return preset(args.model, max(args.N))
    if args.model not in ("linreg", "logistic"):
        raise ParameterError("--data applies to --model linreg or logistic")
    a = read_csv(args.data)
    X, y = a[:, :-1], a[:, -1]
    check_design(X, args.sigma0)
    args.N = list(check_n_grid(args.N, X.shape[0]) if args.N else default_n_grid(X.shape[0]))
    return linear_regression(X, y, sigma=args.sigma, sigma0=args.sigma0).at(max(args.N))


def _logistic(args):
    """The logistic ModelSpec on the chosen route; the exact route's N is the data's (no N slider)."""
    route = args.route or "exact"
    X = y = None
    if args.data is not None:
        a = read_csv(args.data)
        X, y = a[:, :-1], np.where(a[:, -1] > 0, 1.0, -1.0)
        check_design(X, args.sigma0)
    if route == "laplace":
        if X is None:
            args.N = args.N or list(PAGE_N_DATA)
        else:
            args.N = list(check_n_grid(args.N, X.shape[0]) if args.N else default_n_grid(X.shape[0]))
        return logistic_spec(X, y, route=route, sigma0=args.sigma0, N=max(args.N) if X is None else None).at(
            max(args.N))
    spec = logistic_spec(X, y, route=route, sigma0=args.sigma0)
    if args.N and list(args.N) != [spec.n_data]:
        raise ParameterError(f"--N: the exact route answers the data's own N = {spec.n_data} only")
    args.N = [spec.n_data]
    return spec


def _page_budgets(args, budget: Budget) -> tuple[float, ...]:
    """The page's budgets: ``--budgets``, else the default grid, or with --data the table's budget (in gradient
    evaluations) and the two decades below it."""
    if args.budgets:
        return tuple(args.budgets)
    if not args.data:
        return tuple(PAGE_BUDGETS)
    top = budget.gradients(max(args.N))
    return (top / 100.0, top / 10.0, top)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    start = time.perf_counter()
    warm()  # the workers' forkserver imports the theory while the data are read
    with one_blas_thread():  # this process's own work (the optima of stopped tasks) runs beside the workers
        return _run(args, start)


def _table_cells(question, spec, kinds, budgets, budget: Budget) -> dict:
    """The table's surfaces and optima as the page's cells, where the page asks what the table answered (the exact
    logistic route: the table's objective and budget at the data's N), so that the page does not compute them again
    (only the grid optimum of a row whose table optimum was refined: one more law)."""
    if list(kinds) != [question.objective.kind] or list(budgets) != [budget.gradients(spec.n_data)]:
        return {}
    out = {}
    for key, res in question.results.items():
        if res.surface is not None:  # the page finds its own grid optimum unless the table's is that one
            ok = res.error is None and res.optimum is not None and not res.optimum.refined
            optima = [res.optimum] if ok else None
            out[question.objective.kind, key, spec.n_data] = ([res.surface], optima,
                                                              "left out: time limit (the table's --seconds)")
    return out


def _run(args, start: float) -> int:
    try:
        _check(args)
        spec = model_spec(args)
        burn_in = args.burn_in if args.burn_in is not None else (0.1 if args.data else 0.0)
        exact_logistic = spec.key == "logistic_exact"
        fractions = tuple(args.fractions) if args.fractions else (EXACT_FRACTIONS if exact_logistic else FRACTIONS)
        n_values, theta0 = exact_defaults(spec) if exact_logistic else (None, None)
        options = SamplerOptions(args.n1, args.m, args.alpha)
        budget = Budget(args.budget, args.unit, burn_in)
        obj = coordinate_objective(args.objective, args.coordinate, spec.dim)
        question = None
        if not args.no_table:
            t0 = time.perf_counter()
            seconds = args.seconds or TABLE_SECONDS * min(args.workers, len(args.samplers)) / len(args.samplers)
            if exact_logistic and spec.dim == 2 and not args.seconds:
                seconds = EXACT_SECONDS_2D
                print(f"(the exact 2-D route: each (h, n) point is a 2-D grid law, tens of seconds; up to "
                      f"{seconds:.0f} s per sampler, --seconds to cap it)", flush=True)
            question = Tradeoff(spec, budget, obj, options, max_inflation=args.max_inflation)
            stream_table(question, list(args.samplers), args.workers, fractions=fractions,
                         spot_chains=args.spot_chains, max_work=args.spot_work, allow_slow=args.allow_slow,
                         seconds=seconds, n_values=n_values, theta0=theta0)
            print(f"(table: {time.perf_counter() - t0:.1f} s; {seconds:.0f} s allowed per sampler at the start)\n",
                  flush=True)
            if exact_logistic:
                t0 = time.perf_counter()
                print("\n".join(laplace_lines(question, list(args.samplers), n_values=n_values, fractions=fractions,
                                              theta0=theta0, options=options)))
                print(f"(comparison: {time.perf_counter() - t0:.1f} s)\n", flush=True)
        if not args.no_page:
            t0 = time.perf_counter()
            kinds = args.page_objectives or (["mean"] if args.data or exact_logistic else list(PAGE_OBJECTIVES))
            budgets = ((budget.gradients(max(args.N)),) if exact_logistic and not args.budgets
                       else _page_budgets(args, budget))
            extra = {} if not exact_logistic else {"n_values": n_values, "fractions": fractions,
                                                   "theta0": tuple(theta0.tolist())}
            table_cells = _table_cells(question, spec, kinds, budgets, budget) if exact_logistic and question else {}
            grid = GridSpec(spec, tuple(args.N), tuple(budgets), tuple(kinds), tuple(args.samplers),
                            options=options, burn_in=burn_in, max_inflation=args.max_inflation,
                            coordinate=args.coordinate, seconds=args.page_seconds, **extra)
            path = write_page(explorer_data(grid, workers=args.workers, precomputed=table_cells), args.out)
            size = path.stat().st_size
            print(f"page: {path} ({size / 1e6:.2f} MB, written in {time.perf_counter() - t0:.1f} s; it shows each "
                  "grid optimum unrefined)")
            if size > MAX_BYTES:
                print(f"warning: the page exceeds {MAX_BYTES / 1e6:.0f} MB; use fewer --N or --budgets",
                      file=sys.stderr)
        print(f"(total: {time.perf_counter() - start:.1f} s wall, {cpu_seconds():.1f} CPU s in this process and its "
              "workers)", flush=True)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
