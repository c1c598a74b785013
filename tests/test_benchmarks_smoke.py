"""Smoke test of benchmarks/compare.py --quick: it runs and prints its last line (no timing assertion)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_compare_quick_runs_and_prints_min_ratio():
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--quick", "--budget", "0.3", "--only", "W2,W4"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert re.fullmatch(r"min_ratio_vs_blackjax=(\S+)", lines[-1]), lines[-5:]
    assert any(line.startswith("W2 ") and "workbench" in line for line in lines)
    assert sum(line.startswith("W4 ") for line in lines) == 5


@pytest.mark.slow
def test_scaling_quick_runs_and_prints_its_speedups():
    """benchmarks/scaling.py --quick runs (no timing assertion): a curve per workload, the targets, the last line."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "scaling.py"), "--quick", "--repeats", "1",
                          "--only", "W2,W3", "--max-threads", "2"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("CPU: ") and sum("threads=  2" in line for line in lines) == 2, lines
    assert re.fullmatch(r"scaling W2=\S+ W3=\S+ threads=2", lines[-1]), lines[-3:]


def test_exact_engine_quick_runs_and_prints_its_timings():
    """benchmarks/exact_engine.py --quick runs (no timing assertion) and prints key=value timings last."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "exact_engine.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"(\w+=\S+ ?)+", last) and "stationary_d20_s=" in last, last


def test_coverage_allowlist_names_existing_public_functions_with_reasons():
    """Every entry of verify/coverage_allowlist.txt names a public function of simulate/ or theory/ that still
    exists, with a reason (the full check, which runs verify under coverage, is `make coverage`)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import verify_coverage
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    public = verify_coverage.public_functions()
    allow = verify_coverage.read_allowlist()
    assert allow, "the allow-list is empty: run `make coverage` and give each unexercised function a reason"
    assert sorted(set(allow) - set(public)) == []


def test_coverage_classification_on_a_planted_run(tmp_path):
    """classify() calls a function exercised when a line of its body ran and missed otherwise."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import verify_coverage
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    public = verify_coverage.public_functions()
    name = "simulate.validation:check_positive"
    path, first, _ = public[name]
    hit, missed = verify_coverage.classify({path.resolve(): {first}})
    assert name in hit and name not in missed
    hit, missed = verify_coverage.classify({})
    assert name in missed and not hit
