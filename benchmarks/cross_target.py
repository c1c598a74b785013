"""Run ``python -m verify`` under other CPU targets on this machine and compare every number with the default run.

Each run recompiles numba for its target (NUMBA_CPU_NAME, fresh cache), switches OpenBLAS's kernels
(OPENBLAS_CORETYPE) and numpy's SIMD dispatch (NPY_DISABLE_CPU_FEATURES), as tests/test_bits.py does for the
promised outputs. Prints, per target, how many checks differ at all and the largest relative difference of a
theory value, an estimate and a standard error, with the claims concerned: the measured basis of the README's
statement on what is reproduced where.

    python benchmarks/cross_target.py [--chains 10000] [verify options...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_bits import targets  # noqa: E402


def _run(env: dict, out: Path, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "verify", "--no-figures", "--no-progress", "--out", str(out), *extra]
    subprocess.run(cmd, cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL)
    return json.loads((out / "results.json").read_text())


def _compare(a: dict, b: dict) -> tuple[int, int, dict[str, float], set[str], list[str]]:
    """(checks compared, checks differing in any bit, largest differences, claims concerned, verdicts changed).

    Checks are matched by claim and position (labels repeat across a claim's parts); the largest differences are
    relative for theory values, estimates and standard errors (against the larger magnitude) and absolute for z."""
    old = {c["id"]: c for c in a["claims"]}
    worst = {"theory": 0.0, "estimate": 0.0, "se": 0.0, "z": 0.0}
    n = differ = 0
    claims, verdicts = set(), []
    for c in b["claims"]:
        o = old.get(c["id"])
        if o is None:
            continue
        if o["verdict"] != c["verdict"]:
            verdicts.append(f"{c['id']}: {o['verdict']} -> {c['verdict']}")
        for ko, k in zip(o["checks"], c["checks"], strict=True):
            n += 1
            moved = False
            for f in worst:
                x, y = float(ko[f]), float(k[f])
                if x != y and not (x != x and y != y):
                    moved = True
                    d = abs(x - y) if f == "z" else abs(x - y) / max(abs(x), abs(y), 1e-300)
                    worst[f] = max(worst[f], d)
            differ += moved
            if moved:
                claims.add(c["id"])
    return n, differ, worst, claims, verdicts


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = _run(dict(os.environ), Path(tmp) / "default", argv)
        for i, t in enumerate(targets()):
            env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / f"numba{i}"), **t)
            other = _run(env, Path(tmp) / f"t{i}", argv)
            n, differ, worst, claims, verdicts = _compare(base, other)
            print(f"{t}: {differ} of {n} checks differ; largest difference: "
                  + ", ".join(f"{k} {v:.2g}" for k, v in worst.items())
                  + " (relative; z absolute); verdicts changed: " + ("; ".join(verdicts) or "none"))
            for c in sorted(claims):
                print(f"    {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
