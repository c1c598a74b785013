"""Smoke test of benchmarks/compare.py --quick: it runs and prints its last line (no timing assertion)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


def test_exact_engine_quick_runs_and_prints_its_timings():
    """benchmarks/exact_engine.py --quick runs (no timing assertion) and prints key=value timings last."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "exact_engine.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"(\w+=\S+ ?)+", last) and "stationary_d20_s=" in last, last
