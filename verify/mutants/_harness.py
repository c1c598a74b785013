"""The mutation harness behind ``python -m verify.mutants``: plant each registered bug in turn and check that the
verification reports it.

Rule (what runs for each mutant): the claims the mutant names (``Mutant.claims``) plus a fixed, cheap sentinel set
(:data:`SENTINELS`), all at the default settings of ``python -m verify`` (chains, seed, alpha) unless overridden,
with Holm's procedure over the checks of that selection, exactly as ``python -m verify --claim ...`` would run them.
A mutant is **killed** when at least one of its claims gets a verdict other than its registered expectation (the
rule that makes ``python -m verify`` exit non-zero); a claim that raises under the mutant also kills it (shown as
``E``). Every mutant runs in a fresh process (forked from a forkserver that has only imported the claims), so
that no cache can carry numbers from one mutant to the next.
A control run of the correct code over the union of those claims comes first (``--no-control`` skips it): a kill
matrix is meaningful only when the correct code passes.

Kill matrix cells: ``K`` the claim killed the mutant, ``.`` ran and gave its expected verdict, ``E`` raised,
blank: not run. Exit code 0 when every mutant is killed and the control passes, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import traceback
from pathlib import Path

from simulate.validation import ParameterError, check_int

from ..environment import environment
from ..harness import as_expected, run_claims
from ..registry import Settings, load_all, select
from ..report import verdict
from . import load_mutants

#: Cheap claims run against every mutant besides the ones it names (about 5 s together at the defaults): finite-k
#: moments and finite-time MSEs of Euler, SGLD and mSGLD, with and without replacement.
SENTINELS = ("vollmer.sec2.finite_k_moments", "vollmer.eq22.mse2_finite_time")

CONTROL = "(correct code)"

#: Where the kill-matrix page goes by default.
DEFAULT_HTML = Path("output/mutants/report.html")


def plan(mutant_ids: list[str], sentinels: tuple[str, ...]) -> dict[str, list[str]]:
    """Claim ids to run for each mutant: its own claims, then the sentinels (registered ones only, no repeats)."""
    reg, muts = load_all(), load_mutants()
    out = {}
    for mid in mutant_ids:
        named = list(muts[mid].claims)
        unknown = [c for c in named if c not in reg]
        if unknown:
            raise ParameterError(f"mutant {mid!r} names unknown claim ids {unknown}")
        out[mid] = list(dict.fromkeys(named + [s for s in sentinels if s in reg]))
    return out


def run_one(mutant_id: str | None, claim_ids: list[str], settings: Settings) -> dict:
    """Run ``claim_ids`` with the mutant planted (None: the correct code); one row of the kill matrix."""
    t0 = time.perf_counter()
    load_all()
    muts = load_mutants()
    row: dict = {"mutant": mutant_id or CONTROL, "cells": {}, "error": None}
    claims = select(None, claim_ids)
    try:
        if mutant_id is None:
            rows = run_claims(claims, settings)
        else:
            with muts[mutant_id].patch():
                rows = run_claims(claims, settings)
        for c, r in rows:
            worst = max((abs(k.z) for k in r.checks), default=0.0) if r is not None else 0.0
            row["cells"][c.id] = {"verdict": verdict(c, r), "expected": c.expected,
                                  "killed": not as_expected(c, r), "worst_z": worst}
    except Exception:  # noqa: BLE001 - a crash under a mutant is a (loud) detection, recorded with its traceback
        row["error"] = traceback.format_exc(limit=3)
        for cid in claim_ids:
            row["cells"].setdefault(cid, {"verdict": "error", "expected": "", "killed": True, "worst_z": 0.0})
    row["killed"] = any(c["killed"] for c in row["cells"].values())
    row["seconds"] = time.perf_counter() - t0
    return row


def kill_matrix(rows: list[dict], claim_ids: list[str]) -> str:
    """Text table: one line per mutant, one column per claim (numbered, legend below)."""
    width = max(len(r["mutant"]) for r in rows) + 2
    head = " " * width + " ".join(f"{i + 1:>2d}" for i in range(len(claim_ids))) + "   killed   seconds"
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for cid in claim_ids:
            c = r["cells"].get(cid)
            cells.append(" " if c is None else ("E" if c["verdict"] == "error" else "K" if c["killed"] else "."))
        status = ("FAILS" if r["killed"] else "passes") if r["mutant"] == CONTROL else (
            "yes" if r["killed"] else "NO")
        lines.append(f"{r['mutant']:<{width}s}" + " ".join(f"{c:>2s}" for c in cells)
                     + f"   {status:7s} {r['seconds']:8.1f}")
    lines.append("-" * len(head))
    lines += [f"{i + 1:>3d}  {cid}" for i, cid in enumerate(claim_ids)]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify.mutants", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mutant", action="append", help="run only this mutant id (repeatable)")
    p.add_argument("--module", action="append", help="run only the mutants of this module, e.g. core (repeatable)")
    p.add_argument("--chains", type=int, default=Settings.chains, help="chains per simulation")
    p.add_argument("--seed", type=int, default=Settings.seed, help="base seed")
    p.add_argument("--alpha", type=float, default=Settings.alpha, help="family-wise level of each run")
    p.add_argument("--jobs", type=int, default=2, help="mutants run in parallel processes (default 2)")
    p.add_argument("--no-sentinels", action="store_true", help="run only the claims each mutant names")
    p.add_argument("--no-control", action="store_true", help="skip the control run of the correct code")
    p.add_argument("--json", metavar="PATH", help="write the kill matrix as JSON")
    p.add_argument("--html", metavar="PATH", default=str(DEFAULT_HTML),
                   help=f"write the kill matrix as a heat map page (default {DEFAULT_HTML}; '' for none)")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    try:
        check_int("--chains", args.chains, 4)
        check_int("--seed", args.seed, 0)
        check_int("--jobs", args.jobs, 1)
        if not 0.0 < args.alpha < 1.0:
            raise ParameterError(f"--alpha must satisfy 0 < alpha < 1, got {args.alpha}")
        muts = load_mutants()
        modules = sorted({m.split(".")[0] for m in muts})
        for mod in args.module or []:
            if mod not in modules:
                raise ParameterError(f"--module must be one of {modules}, got {mod!r}")
        for mid in args.mutant or []:
            if mid not in muts:
                raise ParameterError(f"unknown mutant id {mid!r}; list them with `python -m verify.mutants --list`")
        ids = [m for m in muts if (not args.mutant or m in args.mutant)
               and (not args.module or m.split(".")[0] in args.module)]
        if not ids:
            raise ParameterError("the selection holds no mutant")
        todo = plan(ids, () if args.no_sentinels else SENTINELS)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in ids:
            print(f"{m:40s} {muts[m].description}\n{'':40s} killed by: {', '.join(muts[m].claims)}")
        return 0
    settings = Settings(chains=args.chains, seed=args.seed, alpha=args.alpha)
    claim_ids = list(dict.fromkeys(c for m in ids for c in todo[m]))
    jobs = ([(None, claim_ids)] if not args.no_control else []) + [(m, todo[m]) for m in ids]
    t0 = time.perf_counter()
    # a forkserver (a fresh interpreter that imports the claims once, then forks one child per task): every task
    # gets an unpatched, cache-free process without paying the imports again, and no child is forked from a process
    # whose thread pools (numba, OpenMP, BLAS) are already running, which can deadlock; spawn where unavailable
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(["verify.claims", "verify.mutants._harness"])
    with ctx.Pool(processes=args.jobs, maxtasksperchild=1) as pool:
        futures = [pool.apply_async(run_one, (m, cids, settings)) for m, cids in jobs]
        rows = []
        for f in futures:
            rows.append(f.get())
            r = rows[-1]
            word = ("FAILS" if r["killed"] else "passes") if r["mutant"] == CONTROL else (
                "killed" if r["killed"] else "SURVIVED")
            print(f"  {r['mutant']}: {word} ({r['seconds']:.1f} s)"
                  + (f"\n{r['error']}" if r["error"] else ""), flush=True)
    elapsed = time.perf_counter() - t0
    print(kill_matrix(rows, claim_ids))
    mrows = [r for r in rows if r["mutant"] != CONTROL]
    killed = sum(r["killed"] for r in mrows)
    control_ok = all(not r["killed"] for r in rows if r["mutant"] == CONTROL)
    print(f"kill rate: {killed}/{len(mrows)} = {killed / len(mrows):.0%} of mutants killed; "
          f"control (correct code): {'not run' if args.no_control else 'passes' if control_ok else 'FAILS'}; "
          f"{settings.chains} chains, seed {settings.seed}, alpha {settings.alpha} per run; "
          f"sentinels: {'none' if args.no_sentinels else ', '.join(SENTINELS)}; {elapsed:.0f} s wall")
    survivors = [r["mutant"] for r in mrows if not r["killed"]]
    if survivors:
        print("SURVIVED: " + ", ".join(survivors))
    record = {"settings": settings.__dict__, "environment": environment(), "sentinels": [] if args.no_sentinels else
              list(SENTINELS), "claims": claim_ids, "rows": rows, "killed": killed, "mutants": len(mrows),
              "seconds": elapsed, "descriptions": {m: muts[m].description for m in ids}}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(record, indent=1))
    if args.html:
        from ._report import render_kill_matrix

        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(render_kill_matrix(record), encoding="utf-8")
        print(f"kill matrix page: {args.html}")
    return 0 if not survivors and control_ok else 1

