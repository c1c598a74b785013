"""What a report records about the machine and the libraries: everything that can change a number.

:func:`environment` is stored in every results.json; :func:`differences` tells a rerun which entries differ before
it compares numbers. What each entry can change (README, "Reproducibility"):

* numba, llvmlite and the CPU target: the simulator's compiled kernels (promised the same bits on every x86-64 CPU
  with FMA; checked by tests/test_bits.py under other targets);
* the BLAS library, its version and core type, numpy's SIMD dispatch and the CPU model and flags: LAPACK/BLAS-based
  theory values, reference samplers and analysis tools, and numpy's transcendental functions, within rounding;
* numpy, scipy, sympy, mpmath, scikit-learn, arviz, dask: any number they compute, if their algorithms change;
* jax, jaxlib, XLA_FLAGS and the device JAX runs on: the numbers of ``--backend jax`` (reproducible per device and
  seed), recorded when the process has used JAX.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

#: Python packages whose versions are recorded.
PACKAGES = ("sgmcmc-workbench", "numpy", "scipy", "sympy", "mpmath", "numba", "llvmlite", "matplotlib",
            "scikit-learn", "arviz", "dask", "distributed", "threadpoolctl", "jax", "jaxlib")

#: Environment variables that select code paths or kernels.
VARIABLES = ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_NUM_THREADS", "OPENBLAS_CORETYPE",
             "NPY_DISABLE_CPU_FEATURES", "OMP_NUM_THREADS", "GLIBC_TUNABLES", "XLA_FLAGS")

#: Entries that never change a number (a rerun does not mention them).
NEUTRAL = frozenset({"git", "matplotlib", "threadpoolctl", "platform"})


def _cpu() -> tuple[str, str]:
    """(CPU model name, space-separated flags) from /proc/cpuinfo, or platform.processor() elsewhere."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown", ""
    model, flags = "unknown", ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model == "unknown":
            model = value.strip()
        elif key.strip() == "flags" and not flags:
            flags = " ".join(sorted(value.split()))
    return model, flags


def _blas() -> str:
    """The BLAS numpy uses: 'internal_api version core-type' (threadpoolctl), e.g. 'openblas 0.3.31 SkylakeX'."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl missing)"
    libs = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture', '')}".strip()
            for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(sorted(set(libs))) or "none found"


def _numpy_simd() -> str:
    """numpy's SIMD dispatch targets that run on this CPU (e.g. 'X86_V3 X86_V4')."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        try:
            from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
        except ImportError:
            return "unknown"
    return " ".join(t for t in __cpu_dispatch__ if __cpu_features__.get(t, False)) or "baseline only"


def _numba_target() -> str:
    """The CPU name numba compiles for (NUMBA_CPU_NAME, else the host's as LLVM names it)."""
    try:
        import llvmlite.binding as llvm
        import numba
    except ImportError:
        return "unknown"
    return numba.config.CPU_NAME or llvm.get_host_cpu_name()


def git_commit() -> str:
    """The source tree's commit (with '-dirty' when tracked files differ from it), or 'unknown' outside git."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head.stdout.strip() + ("-dirty" if dirty else "")


def environment() -> dict[str, str]:
    """Every recorded entry, as strings: interpreter, packages, BLAS, SIMD dispatch, numba target, CPU, libc,
    selected environment variables and the git commit."""
    model, flags = _cpu()
    out = {"python": platform.python_version(), "platform": platform.platform(),
           "libc": " ".join(platform.libc_ver()).strip() or "unknown"}
    for pkg in PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    out.update({"blas": _blas(), "numpy_simd": _numpy_simd(), "numba_target": _numba_target(), "cpu": model,
                "cpu_flags": flags})
    for var in VARIABLES:
        out[f"env {var}"] = os.environ.get(var, "")
    if "jax" in sys.modules:  # the device of --backend jax (not asked otherwise: it would start JAX)
        out["jax_devices"] = ", ".join(sorted({d.device_kind for d in sys.modules["jax"].devices()}))
    out["git"] = git_commit()
    return out


def differences(recorded: dict, now: dict | None = None) -> list[str]:
    """One line per entry that can change a number and differs between ``recorded`` and ``now`` (default: this
    process); CPU flags are summarised as the flags gained and lost."""
    now = environment() if now is None else now
    out = []
    for key in sorted(set(recorded) | set(now)):
        if key in NEUTRAL or recorded.get(key) == now.get(key):
            continue
        if key == "cpu_flags":
            old, new = set(str(recorded.get(key, "")).split()), set(str(now.get(key, "")).split())
            lost, gained = " ".join(sorted(old - new)) or "-", " ".join(sorted(new - old)) or "-"
            out.append(f"cpu_flags: lost {lost}; gained {gained}")
        else:
            out.append(f"{key}: {recorded.get(key, 'not recorded')!s} -> {now.get(key, 'not recorded')!s}")
    return out
