"""The same bits on every CPU, where the README promises them (tests/bits.py lists those outputs).

Proved on one machine by recompiling and rerunning for other targets: numba's code generation (NUMBA_CPU_NAME),
OpenBLAS's kernels (OPENBLAS_CORETYPE) and numpy's dispatched SIMD loops (NPY_DISABLE_CPU_FEATURES). Targets the
host cannot execute (e.g. AVX-512 code on an AVX2 machine) are replaced by ones it can.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bits import REFERENCE, mismatches, outputs

ROOT = Path(__file__).resolve().parents[1]


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def _numpy_dispatch_levels() -> list[str]:
    """numpy's dispatch targets above its baseline that this CPU runs, lowest first (names as numpy spells them)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [t for t in __cpu_dispatch__ if __cpu_features__.get(t, False)]


def targets() -> list[dict[str, str]]:
    """Three environments that compile and dispatch differently from each other and from the default."""
    flags = _cpu_flags()
    avx2 = {"avx2", "fma", "bmi2"} <= flags
    avx512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags
    levels = _numpy_dispatch_levels()
    out = [{"NUMBA_CPU_NAME": "generic", "OPENBLAS_CORETYPE": "Haswell" if avx2 else "Nehalem",
            "NPY_DISABLE_CPU_FEATURES": " ".join(levels)}]
    if avx2:
        out.append({"NUMBA_CPU_NAME": "haswell", "OPENBLAS_CORETYPE": "Zen",
                    "NPY_DISABLE_CPU_FEATURES": " ".join(levels[1:])})
    else:
        out.append({"NUMBA_CPU_NAME": "nehalem", "OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": ""})
    if avx512:
        out.append({"NUMBA_CPU_NAME": "skylake-avx512", "OPENBLAS_CORETYPE": "SkylakeX",
                    "NPY_DISABLE_CPU_FEATURES": ""})
    else:
        out.append({"NUMBA_CPU_NAME": "host", "OPENBLAS_CORETYPE": "Sandybridge" if "avx" in flags else "Core2",
                    "NPY_DISABLE_CPU_FEATURES": ""})
    return out


def test_promised_outputs_match_the_stored_bits():
    """This process (the default target of this machine) against the reference written on the development machine."""
    bad = mismatches(outputs(), np.load(REFERENCE))
    assert not bad, "outputs differ from tests/data/bits_reference.npz:\n" + "\n".join(bad)


def test_promised_outputs_match_under_other_cpu_targets():
    """The same comparison in fresh processes compiled for three other targets (numba cache in a temporary folder,
    so every kernel is compiled for the target), run side by side."""
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, env in enumerate(targets()):
            full = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / f"numba{i}"), **env)
            procs.append((env, time.perf_counter(), subprocess.Popen(
                [sys.executable, str(ROOT / "tests" / "bits.py")], cwd=ROOT, env=full, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
        failed = []
        for env, t0, p in procs:
            out, _ = p.communicate(timeout=900)
            first = out.splitlines()[0] if out else ""
            print(f"{env}: exit {p.returncode} in {time.perf_counter() - t0:.0f} s; {first}")
            if p.returncode != 0:
                failed.append(f"{env}:\n{out[-3000:]}")
    assert not failed, "\n".join(failed)
