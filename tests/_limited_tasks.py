"""Tasks for tests of verify.explore.limits (importable by the forkserver's children)."""

from __future__ import annotations

import time


def count(n: int, pause: float, allowed, report):
    """Report 0, 1, ... n - 1, ``pause`` seconds apart, then return "done"."""
    for i in range(n):
        report(i)
        time.sleep(pause)
    return "done"


def fail(allowed, report):
    raise ValueError("planted failure")
