"""Where :func:`simulate.run` sends the blocks of a run: this process (the default) or an executor set by
:func:`simulate.runtime.distributed.using` (Dask). The runner asks here and never imports the executor's module, so
imports go one way: distributed -> runner."""

from __future__ import annotations

from typing import Any, Protocol


class BlockExecutor(Protocol):
    """Runs every block of ``run(sampler, n_chains, n_steps, **kwargs)`` elsewhere and joins them (bit-identical)."""

    def run(self, sampler: Any, n_chains: int, n_steps: int, kwargs: dict) -> Any: ...


_CURRENT: BlockExecutor | None = None


def current() -> BlockExecutor | None:
    """The executor runs dispatch to, or None (run here)."""
    return _CURRENT


def set_current(executor: BlockExecutor | None) -> BlockExecutor | None:
    """Make ``executor`` the default (None: run in this process); returns the previous one."""
    global _CURRENT
    old, _CURRENT = _CURRENT, executor
    return old


__all__ = ["BlockExecutor", "current", "set_current"]
