"""How much memory the process may use: the runner and SAGA's gradient table check before they allocate."""

from __future__ import annotations


def available_memory() -> int:
    """The bytes of memory available now, which the runner and SAGA's table check before they allocate.

    Returns
    -------
    int
        psutil's ``available`` if psutil is installed, else MemAvailable from /proc/meminfo (Linux), else 2**62
        (no check).
    """
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or unsupported platform: the fallbacks
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


__all__ = ["available_memory"]
