"""Calibration of the verdicts: with correct code, how often does a full ``python -m verify`` run raise a false alarm?

Runs ``python -m verify --seed s`` for S seeds (default 50; in ``--jobs`` parallel processes), reads every
``results.json`` and counts the runs with any *false failure*: a claim registered to hold whose verdict is "fails".
Holm's procedure over the checks of a run keeps that probability at or below the family-wise level alpha printed in
the report, so the measured rate should be <= alpha; the script prints it with its exact (Clopper-Pearson) 95%
interval and the one-sided binomial p-value of "rate > alpha". It also counts registered errata that did not fail
(misses, not false alarms), and pools the p-values of the checks of claims that hold (their fraction below 0.01
and 0.05 should be near the nominal level; the checks of one run share simulations, so this is descriptive).

Measured (2-core development machine, 2026-11-24, commit 57714c2): 50 seeds (S = 1..50) of the full
``python -m verify`` (88 claims, default 10^4 chains, 359 statistical checks of claims that hold per run): 0/50 runs
with a false failure (95% Clopper-Pearson interval [0, 0.071]) at alpha = 0.01; no registered erratum missed; pooled
p-values: 1.0% below 0.01, 5.1% below 0.05 (17950 p-values); 93 minutes with 2 jobs. Earlier, 50 seeds of the 13
statistical claims of the Vollmer toy model and Chen et al. at ``--chains 2000``: 0/50, 149 checks per run.

Usage (the last line of output is machine-readable):

    python benchmarks/calibration.py                        # 50 seeds, all claims, default chains (slow)
    python benchmarks/calibration.py --seeds 50 --jobs 2 --claim vollmer.eq22.mse2_finite_time ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[1]


def one_run(seed: int, extra: list[str], outdir: Path) -> dict:
    """One ``python -m verify`` run in a fresh process; returns its results.json (plus rc and seconds)."""
    out = outdir / f"seed{seed}"
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "verify", "--seed", str(seed), "--out", str(out), "--no-figures",
                        "--no-progress", *extra], cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not (out / "results.json").exists():  # a crash also exits 1, without a report
        raise RuntimeError(f"seed {seed}: python -m verify exited {p.returncode} without a report:\n{p.stderr[-2000:]}")
    res = json.loads((out / "results.json").read_text())
    res["rc"], res["seconds"] = p.returncode, time.perf_counter() - t0
    return res


def summarize(runs: list[dict], alpha: float) -> dict:
    """False-alarm counts, Clopper-Pearson interval, misses and pooled p-values."""
    S = len(runs)
    false_runs, misses, pvals, false_claims = 0, 0, [], {}
    for r in runs:
        # a false failure: a claim not registered to fail that fails (a holding part rejected); a miss: a claim
        # registered with a failing part (an erratum, a bound's behaviour, a failing reading) that now fully holds
        bad = [c["id"] for c in r["claims"] if c["expected"] not in ("fails", "out of scope")
               and c["verdict"] in ("fails", "depends on reading (not as registered)")]
        false_runs += bool(bad)
        for cid in bad:
            false_claims[cid] = false_claims.get(cid, 0) + 1
        misses += sum(c["expected"] != "holds" and c["verdict"] == "holds" for c in r["claims"])
        pvals += [k["p"] for c in r["claims"] if c["expected"] == "holds" for k in c["checks"]]
    ci = binomtest(false_runs, S).proportion_ci(confidence_level=0.95, method="exact")
    p = np.asarray(pvals)
    return dict(seeds=S, false_runs=false_runs, rate=false_runs / S, ci_low=ci.low, ci_high=ci.high, alpha=alpha,
                p_rate_gt_alpha=binomtest(false_runs, S, alpha, alternative="greater").pvalue,
                false_claims=false_claims, errata_missed=misses, n_checks=len(p),
                frac_p_lt_01=float(np.mean(p < 0.01)) if len(p) else float("nan"),
                frac_p_lt_05=float(np.mean(p < 0.05)) if len(p) else float("nan"),
                p_histogram=np.histogram(p, bins=20, range=(0.0, 1.0))[0].tolist())


def render_html(tot: dict, runs: list[dict]) -> str:
    """The calibration result as a self-contained page: the totals, false failures per claim, the per-seed runs and
    the histogram of pooled p-values (uniform when the checks are calibrated)."""
    from verify.html import esc, page, table

    hist = tot["p_histogram"]
    top, W, H = max(max(hist), 1), 520, 200
    bars = "".join(f'<rect x="{40 + i * 24}" y="{10 + (H - 40) * (1 - c / top):.1f}" width="22" '
                   f'height="{(H - 40) * c / top:.1f}" fill="#1b5fb4"><title>p in [{i / 20:.2f}, {(i + 1) / 20:.2f}):'
                   f' {c}</title></rect>' for i, c in enumerate(hist))
    flat = 10 + (H - 40) * (1 - sum(hist) / 20 / top)
    axis = "".join(f'<text x="{40 + i * 24 * 4}" y="{H - 12}" font-size="11" text-anchor="middle">{i / 5:.1f}</text>'
                   for i in range(6))
    svg = (f'<svg width="{W}" height="{H}" role="img" aria-label="histogram of p-values">{bars}<line x1="40" '
           f'x2="{40 + 20 * 24}" y1="{flat:.1f}" y2="{flat:.1f}" stroke="#c0392b" stroke-dasharray="5 3"/>{axis}'
           f'<text x="{40 + 240}" y="{H}" font-size="12" text-anchor="middle">p-value (pooled checks of claims that '
           "hold); dashed: uniform</text></svg>")
    totals = [["runs with a false failure", f"<b>{tot['false_runs']}/{tot['seeds']}</b> = {tot['rate']:.3f}"],
              ["95% Clopper-Pearson interval", f"[{tot['ci_low']:.3f}, {tot['ci_high']:.3f}]"],
              ["family-wise level alpha", f"{tot['alpha']}"],
              [f"P(X >= {tot['false_runs']} | rate = alpha)", f"{tot['p_rate_gt_alpha']:.3g}"],
              ["registered errata that did not fail", f"{tot['errata_missed']}"],
              ["pooled p-values below 0.01 / 0.05", f"{tot['frac_p_lt_01']:.3f} / {tot['frac_p_lt_05']:.3f} "
                                                    f"({tot['n_checks']} p-values)"],
              ["command", f"<code>{esc(tot.get('command', ''))}</code>"],
              ["wall time", f"{tot.get('seconds', float('nan')):.0f} s"]]
    claims = [[f"<code>{esc(k)}</code>", str(v)] for k, v in sorted(tot["false_claims"].items())]
    seeds = []
    for r in runs:
        bad = [c["id"] for c in r["claims"] if c["verdict"] not in (c["expected"], "out of scope")]
        seeds.append([str(r["settings"]["seed"]), str(r["rc"]), f"{r['seconds']:.0f}",
                      esc(", ".join(bad)) if bad else "all as registered"])
    body = ["<h1>Calibration: false alarms of full verification runs</h1>",
            "<p class='note'>Each run is <code>python -m verify</code> with another seed on correct code; a false "
            "failure is a claim registered to hold whose verdict is 'fails'. Holm's procedure keeps its rate per run "
            "at or below alpha.</p>", table(["quantity", "value"], totals), "<h2>Pooled p-values</h2>", svg,
            "<h2>False failures by claim</h2>",
            table(["claim", "runs"], claims) if claims else "<p>None.</p>",
            "<h2>Runs</h2>", table(["seed", "exit code", "seconds", "unexpected verdicts"], seeds)]
    return page("Calibration of the verification", "".join(body))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=50, help="number of seeds S (default 50)")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first-seed .. first-seed + S - 1")
    ap.add_argument("--jobs", type=int, default=2, help="parallel verify processes (default 2)")
    ap.add_argument("--chains", type=int, help="chains per simulation (default: python -m verify's)")
    ap.add_argument("--alpha", type=float, default=0.01, help="family-wise level of each run (default 0.01)")
    ap.add_argument("--paper", action="append", help="only this paper's claims (repeatable)")
    ap.add_argument("--claim", action="append", help="only this claim (repeatable)")
    ap.add_argument("--json", help="write the per-seed summary and the totals here")
    ap.add_argument("--html", default="output/calibration/report.html",
                    help="write the result as a page (default output/calibration/report.html; '' for none)")
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.jobs < 1 or args.first_seed < 0 or not 0 < args.alpha < 1:
        ap.error("need --seeds >= 1, --jobs >= 1, --first-seed >= 0 and 0 < --alpha < 1")
    extra = ["--alpha", str(args.alpha)]
    extra += ["--chains", str(args.chains)] if args.chains else []
    extra += [a for p in args.paper or [] for a in ("--paper", p)]
    extra += [a for c in args.claim or [] for a in ("--claim", c)]
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        runs = []
        for s, r in zip(seeds, pool.map(lambda s: one_run(s, extra, Path(tmp)), seeds), strict=True):
            bad = [c["id"] for c in r["claims"] if c["verdict"] not in (c["expected"], "out of scope")]
            print(f"seed {s}: {len(r['claims'])} claims, {'unexpected: ' + ', '.join(bad) if bad else 'all expected'}"
                  f" ({r['seconds']:.0f} s)", flush=True)
            runs.append(r)
    tot = summarize(runs, args.alpha)
    tot["seconds"] = time.perf_counter() - t0
    tot["command"] = "python -m verify --no-figures " + " ".join(extra) + " --seed S"
    n_claims = len(runs[0]["claims"])
    per_run = tot["n_checks"] // len(runs)
    print(f"\n{tot['command']} for S = {args.first_seed}..{seeds[-1]}: {n_claims} claims, {per_run} statistical "
          "checks of claims that hold per run")
    print(f"runs with a false failure: {tot['false_runs']}/{tot['seeds']} = {tot['rate']:.3f} "
          f"(95% Clopper-Pearson [{tot['ci_low']:.3f}, {tot['ci_high']:.3f}]); family-wise level alpha = {args.alpha};"
          f" P(X >= {tot['false_runs']} | rate = alpha) = {tot['p_rate_gt_alpha']:.3g}")
    if tot["false_claims"]:
        print("false failures by claim: " + ", ".join(f"{k} x{v}" for k, v in sorted(tot["false_claims"].items())))
    print(f"registered errata that did not fail: {tot['errata_missed']}; pooled check p-values: "
          f"{tot['frac_p_lt_01']:.3f} below 0.01, {tot['frac_p_lt_05']:.3f} below 0.05 ({tot['n_checks']} p-values)")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(totals=tot, runs=[
            dict(seed=r["settings"]["seed"], rc=r["rc"], seconds=r["seconds"],
                 verdicts={c["id"]: c["verdict"] for c in r["claims"]}) for r in runs]), indent=1))
    if args.html:
        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(render_html(tot, runs), encoding="utf-8")
        print(f"page: {args.html}")
    print(f"false_rate={tot['rate']:.4f} ci_high={tot['ci_high']:.4f} alpha={args.alpha} seeds={tot['seeds']} "
          f"seconds={tot['seconds']:.0f}")
    return 0 if tot["ci_low"] <= args.alpha else 1


if __name__ == "__main__":
    sys.exit(main())
