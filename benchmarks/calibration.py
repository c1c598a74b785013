"""Calibration of the verdicts: with correct code, how often does a full ``python -m verify`` run raise a false alarm?

Runs ``python -m verify --seed s`` for S seeds (default 50), optionally in parts (``--parts P --part K``: the claims
split into P groups, each run on its own, at different times or on different machines), keeps every part's
``results.json`` in a store folder, and merges what the store holds (``--merge``): per seed the checks of all parts
are put back into ONE Holm family (two hypotheses per ordering, as in a full run) and every claim is judged again,
so a seed run in parts is judged exactly as one full run would be.

Per seed it counts *false failures*: a check registered to hold (``expect="hold"``) that fails (a rejected two- or
one-sided check, a contradicted ordering), or an ordering registered to fail that is shown: each is a false rejection
of a true hypothesis when the code and the registrations are right. Holm's procedure keeps the probability of any of
them in a run at or below the family-wise level alpha, so the measured rate should be <= alpha; the script prints it
with its exact (Clopper-Pearson) 95% interval and the one-sided binomial p-value of "rate > alpha". Misses (power,
not false alarms) are counted apart: checks registered to fail that hold, orderings left inconclusive. It pools the
p-values of the two-sided checks registered to hold (their nulls are true: uniform when calibrated; one-sided bounds
and orderings are left out, their nulls are not at the boundary) into a histogram, and tests each claim's pooled
p-values for uniformity (Kolmogorov-Smirnov, Bonferroni over the claims); the checks of one claim share simulations,
so the per-claim test is approximate and the histogram descriptive.

Measured (2-core development machine, 2026-11-24, commit 57714c2): 50 seeds (S = 1..50) of the full
``python -m verify`` of that time (88 claims, default 10^4 chains, 359 statistical checks of claims that hold per
run): 0/50 runs with a false failure (95% Clopper-Pearson interval [0, 0.071]) at alpha = 0.01. The family has grown
since (issue 28: 110+ claims, ~1050 statistical checks); rerun it whenever the family grows by more than 10%.

Usage (the last line of output is machine-readable):

    python benchmarks/calibration.py                                   # 50 seeds, all claims, default chains (slow)
    python benchmarks/calibration.py --seeds 50 --parts 4 --part 1     # part 1 of 4 of each seed, into the store
    python benchmarks/calibration.py --merge                           # judge and summarise what the store holds
    python benchmarks/calibration.py --seeds 2 --chains 400 --claim vollmer.eq22.mse2_finite_time --store output/cal
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, kstest

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STORE = Path("output/calibration/runs")


# ------------------------------------------------------------------------------------------ running parts
def select_ids(papers: list[str] | None, ids: list[str] | None, report: str | None) -> tuple[list[str], dict]:
    """The claim ids to calibrate, in registry order (out-of-scope claims left out), and their recorded seconds;
    with ``report``, only the claims that had statistical checks in that results.json."""
    sys.path.insert(0, str(ROOT))
    from verify.registry import select

    claims = [c.id for c in select(papers, ids) if not c.out_of_scope]
    seconds: dict[str, float] = {}
    if report:
        path = Path(report) / "results.json" if Path(report).is_dir() else Path(report)
        rec = json.loads(path.read_text())
        stat = {c["id"] for c in rec["claims"] if c["checks"]}
        seconds = {c["id"]: float(c["seconds"] or 0.0) for c in rec["claims"]}
        claims = [c for c in claims if c in stat]
    return claims, seconds


def split(ids: list[str], parts: int, seconds: dict[str, float]) -> list[list[str]]:
    """``ids`` in ``parts`` groups of about equal run time (longest first onto the lightest group; without recorded
    seconds, one unit each), each group in registry order."""
    load = [0.0] * parts
    groups: list[list[str]] = [[] for _ in range(parts)]
    for cid in sorted(ids, key=lambda c: -seconds.get(c, 1.0)):
        k = int(np.argmin(load))
        groups[k].append(cid)
        load[k] += seconds.get(cid, 1.0)
    order = {c: i for i, c in enumerate(ids)}
    return [sorted(g, key=order.get) for g in groups]


def one_run(seed: int, extra: list[str], ids: list[str], store: Path, tag: str) -> dict:
    """One ``python -m verify`` run of ``ids`` in a fresh process; its results.json is kept as
    ``store/seed<seed>/<tag>.json``; returns it (plus rc and seconds)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    sel = [a for c in ids for a in ("--claim", c)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, "-m", "verify", "--seed", str(seed), "--out", tmp, "--no-figures",
                            "--no-progress", *extra, *sel], cwd=ROOT, env=env, capture_output=True, text=True)
        out = Path(tmp) / "results.json"
        if p.returncode not in (0, 1) or not out.exists():  # a crash also exits 1, without a report
            raise RuntimeError(f"seed {seed} {tag}: python -m verify exited {p.returncode} without a report:\n"
                               f"{p.stderr[-2000:]}")
        res = json.loads(out.read_text())
        res["rc"], res["seconds"], res["part"] = p.returncode, time.perf_counter() - t0, tag
        (store / f"seed{seed}").mkdir(parents=True, exist_ok=True)
        (store / f"seed{seed}" / f"{tag}.json").write_text(json.dumps(res))
    return res


# ------------------------------------------------------------------------------------------ merging and judging
def _check(k: dict):
    """A statistical check rebuilt from its record (z and p recomputed: the same numbers)."""
    from verify.checks import Check, OneSidedCheck, OrderingCheck

    common = dict(label=k["label"], theory=float(k["theory"]), estimate=float(k["estimate"]), se=float(k["se"]),
                  part=k.get("part"), expect=k.get("expect", "hold"))
    if k.get("kind") == "ordering":
        return OrderingCheck(**common, direction=k["direction"], df=k.get("df"), stated_effect=k.get("stated_effect"))
    if k.get("kind") == "one-sided":
        return OneSidedCheck(**common, direction=k["direction"], df=k.get("df"))
    return Check(**common)


def _result(rec: dict):
    """A claim's ClaimResult rebuilt from its record (None when out of scope)."""
    from verify.checks import ExactCheck
    from verify.registry import ClaimResult

    if rec.get("out_of_scope"):
        return None
    if rec.get("error"):
        return ClaimResult(error=rec["error"])
    return ClaimResult(checks=[_check(k) for k in rec["checks"]], exact=[
        ExactCheck(e["label"], e["passed"], e.get("detail", ""), e.get("kind", "exact"), e.get("part"),
                   e.get("expect", "hold")) for e in rec["exact"]])


def judge_seed(parts: list[dict], alpha: float) -> dict:
    """One seed: the claims of all its parts judged in one Holm family, as a full run would judge them."""
    from verify.checks import OrderingCheck, judge
    from verify.registry import REGISTRY, load_all
    from verify.verdicts import as_expected, verdict

    load_all()
    rows = [(REGISTRY[rec["id"]], _result(rec)) for part in parts for rec in part["claims"]]
    judge([k for _, r in rows if r is not None and not r.error for k in r.checks], alpha)
    out = dict(seed=parts[0]["settings"]["seed"], rc=max(p["rc"] for p in parts),
               seconds=sum(p["seconds"] for p in parts), false=[], missed=[], unexpected=[], pvals={})
    for claim, res in rows:
        if not as_expected(claim, res):
            out["unexpected"].append(f"{claim.id}: {verdict(claim, res)}")
        for k in [] if res is None or res.error else [*res.checks, *res.exact]:
            ordering = isinstance(k, OrderingCheck)
            if (k.expect == "hold" and k.outcome == "fails") or (k.expect == "fail" and ordering and k.shown):
                out["false"].append(f"{claim.id}: {k.label}")
            elif k.outcome != ("fails" if k.expect == "fail" else "holds"):
                out["missed"].append(f"{claim.id}: {k.label} ({k.outcome})")
            if k.kind == "two-sided" and k.expect == "hold":
                out["pvals"].setdefault(claim.id, []).append(k.p)
    return out


def load_store(store: Path) -> tuple[list[list[dict]], list[str]]:
    """The stored parts grouped by seed (complete seeds only: every part of the split present) and the seeds left
    out as incomplete."""
    complete, incomplete = [], []
    for folder in sorted(store.glob("seed*"), key=lambda p: int(p.name[4:])):
        parts = [json.loads(f.read_text()) for f in sorted(folder.glob("*.json"))]
        tags = {p["part"] for p in parts}
        want = {f"part{k}of{n}" for t in tags if "of" in t for n in [int(t.split("of")[1])]
                for k in range(1, n + 1)} or {"all"}
        if tags >= want and len({(p["settings"]["chains"], p["settings"]["alpha"]) for p in parts}) == 1:
            complete.append([p for p in parts if p["part"] in want])
        else:
            incomplete.append(f"{folder.name} (has {sorted(tags)})")
    return complete, incomplete


def summarize(seeds: list[dict], alpha: float) -> dict:
    """False-failure counts with their Clopper-Pearson interval, misses, the pooled p-value histogram and the claims
    whose p-values are not uniform."""
    S = len(seeds)
    false_runs = sum(bool(s["false"]) for s in seeds)
    by_claim: dict[str, list[float]] = {}
    for s in seeds:
        for cid, ps in s["pvals"].items():
            by_claim.setdefault(cid, []).extend(ps)
    pooled = np.array([p for ps in by_claim.values() for p in ps])
    ks = {cid: float(kstest(ps, "uniform").pvalue) for cid, ps in by_claim.items() if len(ps) >= 5}
    cut = 0.01 / max(len(ks), 1)
    ci = binomtest(false_runs, S).proportion_ci(confidence_level=0.95, method="exact")
    false_claims: dict[str, int] = {}
    for s in seeds:
        for cid in {f.split(": ")[0] for f in s["false"]}:
            false_claims[cid] = false_claims.get(cid, 0) + 1
    return dict(seeds=S, false_runs=false_runs, rate=false_runs / S, ci_low=ci.low, ci_high=ci.high, alpha=alpha,
                p_rate_gt_alpha=binomtest(false_runs, S, alpha, alternative="greater").pvalue,
                false_claims=false_claims, misses=sum(len(s["missed"]) for s in seeds),
                unexpected_runs=sum(bool(s["unexpected"]) for s in seeds), n_checks=len(pooled),
                frac_p_lt_01=float(np.mean(pooled < 0.01)) if len(pooled) else float("nan"),
                frac_p_lt_05=float(np.mean(pooled < 0.05)) if len(pooled) else float("nan"),
                p_histogram=np.histogram(pooled, bins=20, range=(0.0, 1.0))[0].tolist(),
                ks_cut=cut, not_uniform={c: p for c, p in sorted(ks.items()) if p < cut},
                claims_tested=len(ks))


# ------------------------------------------------------------------------------------------ the page
def _histogram_svg(hist: list[int], caption: str = "") -> str:
    top, W, H = max(max(hist), 1), 600, 200
    bars = "".join(f'<rect x="{40 + i * 24}" y="{10 + (H - 40) * (1 - c / top):.1f}" width="22" '
                   f'height="{(H - 40) * c / top:.1f}" fill="#1b5fb4"><title>p in [{i / 20:.2f}, {(i + 1) / 20:.2f}):'
                   f' {c}</title></rect>' for i, c in enumerate(hist))
    flat = 10 + (H - 40) * (1 - sum(hist) / 20 / top)
    axis = "".join(f'<text x="{40 + i * 24 * 4}" y="{H - 12}" font-size="11" text-anchor="middle">{i / 5:.1f}</text>'
                   for i in range(6))
    top_pad = 20 if caption else 0
    cap = f'<text x="{W // 2}" y="14" font-size="12" text-anchor="middle">{caption}</text>' if caption else ""
    return (f'<svg width="{W}" height="{H + top_pad + 6}" role="img" '
            f'aria-label="histogram of p-values">{cap}<g transform="translate(0,{top_pad})">{bars}<line x1="40" '
            f'x2="{40 + 20 * 24}" y1="{flat:.1f}" y2="{flat:.1f}" stroke="#c0392b" stroke-dasharray="5 3"/>{axis}'
            f'<text x="{40 + 240}" y="{H}" font-size="12" text-anchor="middle">p-value (pooled two-sided checks '
            "registered to hold); dashed: uniform</text></g></svg>")


def render_html(tot: dict, seeds: list[dict]) -> str:
    """The calibration result as a self-contained page: the totals, false failures per claim, the claims whose
    p-values are not uniform, the per-seed runs and the histogram of pooled p-values (uniform when calibrated)."""
    from verify.html import esc, page, table

    totals = [["runs with a false failure", f"<b>{tot['false_runs']}/{tot['seeds']}</b> = {tot['rate']:.3f}"],
              ["95% Clopper-Pearson interval", f"[{tot['ci_low']:.3f}, {tot['ci_high']:.3f}]"],
              ["family-wise level alpha", f"{tot['alpha']}"],
              [f"P(X >= {tot['false_runs']} | rate = alpha)", f"{tot['p_rate_gt_alpha']:.3g}"],
              ["misses (checks registered to fail that hold, orderings left inconclusive)", f"{tot['misses']}"],
              ["pooled p-values below 0.01 / 0.05", f"{tot['frac_p_lt_01']:.3f} / {tot['frac_p_lt_05']:.3f} "
                                                    f"({tot['n_checks']} p-values)"],
              ["claims whose p-values are not uniform (KS, Bonferroni)",
               f"{len(tot['not_uniform'])} of {tot['claims_tested']} (KS p < {tot['ks_cut']:.2g})"],
              ["command", f"<code>{esc(tot.get('command', ''))}</code>"],
              ["wall time", f"{tot.get('seconds', float('nan')):.0f} s"]]
    claims = [[f"<code>{esc(k)}</code>", str(v)] for k, v in sorted(tot["false_claims"].items())]
    nonuni = [[f"<code>{esc(k)}</code>", f"{v:.2g}"] for k, v in tot["not_uniform"].items()]
    runs = [[str(s["seed"]), str(s["rc"]), f"{s['seconds']:.0f}", esc("; ".join(s["false"])) or "none",
             esc("; ".join(s["unexpected"])) or "all as registered"] for s in seeds]
    body = ["<h1>Calibration: false alarms of full verification runs</h1>",
            "<p class='note'>Each seed is <code>python -m verify</code> on correct code (run whole or in parts, "
            "judged in one Holm family); a false failure is a check registered to hold that fails, or an ordering "
            "registered to fail that is shown. Holm's procedure keeps its rate per run at or below alpha.</p>",
            table(["quantity", "value"], totals), "<h2>Pooled p-values</h2>", _histogram_svg(tot["p_histogram"]),
            "<h2>False failures by claim</h2>", table(["claim", "runs"], claims) if claims else "<p>None.</p>",
            "<h2>Claims whose p-values are not uniform</h2>",
            table(["claim", "KS p"], nonuni) if nonuni else "<p>None.</p>",
            "<h2>Runs</h2>", table(["seed", "exit code", "seconds", "false failures", "unexpected verdicts"], runs)]
    return page("Calibration of the verification", "".join(body))


# ------------------------------------------------------------------------------------------ command line
def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=50, help="number of seeds S (default 50)")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first-seed .. first-seed + S - 1")
    ap.add_argument("--jobs", type=int, default=2, help="parallel verify processes (default 2)")
    ap.add_argument("--chains", type=int, help="chains per simulation (default: python -m verify's)")
    ap.add_argument("--alpha", type=float, default=0.01, help="family-wise level of each run (default 0.01)")
    ap.add_argument("--paper", action="append", help="only this paper's claims (repeatable)")
    ap.add_argument("--claim", action="append", help="only this claim (repeatable)")
    ap.add_argument("--claims-from", metavar="REPORT", help="only the claims with statistical checks in this "
                    "results.json (its run times balance the parts)")
    ap.add_argument("--parts", type=int, default=1, help="split the claims into P parts (default 1)")
    ap.add_argument("--part", type=int, action="append", help="run only part K of P (repeatable; default all)")
    ap.add_argument("--store", default=str(DEFAULT_STORE), help=f"folder of the per-seed parts (default "
                    f"{DEFAULT_STORE}); a run of every part starts it afresh, a run of some parts (--part) adds to it")
    ap.add_argument("--merge", action="store_true", help="run nothing: judge and summarise the store")
    ap.add_argument("--json", help="write the per-seed summary and the totals here")
    ap.add_argument("--svg", help="write the p-value histogram, captioned with the false-failure count, as a "
                    "standalone SVG here (the README's figure)")
    ap.add_argument("--html", default="output/calibration/report.html",
                    help="write the result as a page (default output/calibration/report.html; '' for none)")
    args = ap.parse_args(argv)
    parts_ok = args.parts >= 1 and all(1 <= k <= args.parts for k in args.part or [])
    if args.seeds < 1 or args.jobs < 1 or args.first_seed < 0 or not 0 < args.alpha < 1 or not parts_ok:
        ap.error("need --seeds >= 1, --jobs >= 1, --first-seed >= 0, 0 < --alpha < 1 and 1 <= --part <= --parts")
    return args


def run_parts(args: argparse.Namespace, store: Path) -> None:
    """Run the selected parts of every seed into the store, ``--jobs`` at a time."""
    ids, seconds = select_ids(args.paper, args.claim, args.claims_from)
    groups = split(ids, args.parts, seconds)
    extra = ["--alpha", str(args.alpha)] + (["--chains", str(args.chains)] if args.chains else [])
    todo = [(s, k) for s in range(args.first_seed, args.first_seed + args.seeds)
            for k in (args.part or range(1, args.parts + 1))]
    tag = "all" if args.parts == 1 else "part{}of" + str(args.parts)

    def task(sk):
        s, k = sk
        return one_run(s, extra, groups[k - 1], store, tag.format(k))

    with ThreadPoolExecutor(args.jobs) as pool:
        for (s, k), r in zip(todo, pool.map(task, todo), strict=True):
            print(f"seed {s} part {k}/{args.parts}: {len(r['claims'])} claims, exit {r['rc']} "
                  f"({r['seconds']:.0f} s)", flush=True)


def report(args: argparse.Namespace, store: Path, seconds: float) -> int:
    """Merge the store, print the totals, write the page and the JSON; the exit code of the script."""
    complete, incomplete = load_store(store)
    if incomplete:
        print("incomplete seeds (left out until every part is stored): " + ", ".join(incomplete))
    if not complete:
        print(f"no complete seed in {store}")
        return 2
    alpha = complete[0][0]["settings"]["alpha"]
    seeds = [judge_seed(parts, alpha) for parts in complete]
    tot = summarize(seeds, alpha)
    tot["seconds"] = seconds or sum(s["seconds"] for s in seeds)
    chains = complete[0][0]["settings"]["chains"]
    n_claims = sum(len(p["claims"]) for p in complete[0])
    tot["command"] = f"python -m verify --no-figures --alpha {alpha} --chains {chains} --seed S ({n_claims} claims)"
    print(f"{tot['command']} for {len(seeds)} seeds: {tot['n_checks'] // len(seeds)} two-sided checks registered to "
          "hold per run")
    print(f"runs with a false failure: {tot['false_runs']}/{tot['seeds']} = {tot['rate']:.3f} (95% Clopper-Pearson "
          f"[{tot['ci_low']:.3f}, {tot['ci_high']:.3f}]); family-wise level alpha = {alpha}; P(X >= "
          f"{tot['false_runs']} | rate = alpha) = {tot['p_rate_gt_alpha']:.3g}")
    if tot["false_claims"]:
        print("false failures by claim: " + ", ".join(f"{k} x{v}" for k, v in sorted(tot["false_claims"].items())))
    print(f"misses (power): {tot['misses']}; pooled two-sided p-values: {tot['frac_p_lt_01']:.3f} below 0.01, "
          f"{tot['frac_p_lt_05']:.3f} below 0.05 ({tot['n_checks']} p-values); p-value histogram (20 bins): "
          f"{tot['p_histogram']}")
    print(f"claims whose p-values are not uniform (KS p < {tot['ks_cut']:.2g}, {tot['claims_tested']} claims "
          f"tested): " + (", ".join(f"{k} ({v:.2g})" for k, v in tot["not_uniform"].items()) or "none"))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(totals=tot, seeds=[
            {k: v for k, v in s.items() if k != "pvals"} for s in seeds]), indent=1))
    if args.svg:
        Path(args.svg).parent.mkdir(parents=True, exist_ok=True)
        svg = _histogram_svg(tot["p_histogram"], (
            f"{tot['false_runs']}/{tot['seeds']} runs with a false failure (95% CI [{tot['ci_low']:.3f}, "
            f"{tot['ci_high']:.3f}]), alpha = {alpha}; {tot['n_checks']} p-values"))
        Path(args.svg).write_text(svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1),
                                  encoding="utf-8")
        print(f"figure: {args.svg}")
    if args.html:
        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(render_html(tot, seeds), encoding="utf-8")
        print(f"page: {args.html}")
    print(f"false_rate={tot['rate']:.4f} ci_high={tot['ci_high']:.4f} alpha={alpha} seeds={tot['seeds']} "
          f"seconds={tot['seconds']:.0f}")
    return 0 if tot["ci_low"] <= alpha else 1


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    store = Path(args.store)
    t0 = time.perf_counter()
    if not args.merge:
        if store.exists() and not args.part:
            shutil.rmtree(store)
        run_parts(args, store)
    return report(args, store, 0.0 if args.merge else time.perf_counter() - t0)


if __name__ == "__main__":
    sys.exit(main())
