"""A helper thread that joins the calling thread's kernel calls: work items handed out one at a time by atomic
tickets (dynamic scheduling), so the helper takes whatever share its spare time allows.

Used while drawing ahead (:mod:`simulate.runtime.pipeline`): the producer thread draws step k+1's random numbers and
then, instead of idling, helps compute step k's gradient. Each work item (a few chains) is computed by one thread with
the same code whichever thread that is, so the results do not depend on who took which item.

Kernel side: a shared kernel takes ``ticket`` (int64 [next item, threads inside]) as its last argument, calls
``enter(ticket)``, loops ``item = claim(ticket)`` until ``item >= n_items``, then calls ``leave(ticket)``. When the
owner's own call returns every item is claimed; it then waits until no thread is inside (a helper finishing its
last item). A helper that arrives later claims nothing and writes nothing.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _fetch_add(typingctx, arr, i, v):
    """Atomically ``old = arr[i]; arr[i] += v; return old`` (sequentially consistent) on an int64 array."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64):
        return None
    sig = types.int64(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        ptr = builder.gep(data, [args[1]])
        return builder.atomic_rmw("add", ptr, args[2], "seq_cst")

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def claim(ticket):
    """The next unclaimed work item (>= the item count once all are taken)."""
    return _fetch_add(ticket, 0, 1)


@njit(cache=True, nogil=True, inline="always")
def enter(ticket):
    """Count this thread in (before its first claim)."""
    _fetch_add(ticket, 1, 1)


@njit(cache=True, nogil=True, inline="always")
def leave(ticket):
    """Count this thread out (after its last item is written)."""
    _fetch_add(ticket, 1, -1)


@njit(cache=True, nogil=True)
def _wait_empty(ticket):
    """Spin until no thread is inside the kernel (a helper's last item: a few microseconds)."""
    while _fetch_add(ticket, 1, 0) != 0:
        pass


_local = threading.local()


def current() -> Team | None:
    """The team of the calling thread (set while it consumes a draw-ahead run), or None."""
    return getattr(_local, "team", None)


class Team:
    """The owner thread runs shared kernels with :meth:`run`; the helper thread calls :meth:`help` when idle."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self._task: tuple | None = None

    def attach(self) -> None:
        """Make this team the calling (owner) thread's :func:`current`."""
        _local.team = self

    def detach(self) -> None:
        _local.team = None

    def run(self, kernel, args: tuple) -> None:
        """``kernel(*args, ticket)`` over all its work items, in this thread and in the helper if it comes."""
        ticket = np.zeros(2, dtype=np.int64)
        with self.cond:
            self._task = (kernel, args, ticket)
            self.cond.notify_all()
        try:
            kernel(*args, ticket)
        finally:
            self._task = None
        _wait_empty(ticket)

    def has_work(self) -> bool:
        return self._task is not None

    def help(self) -> bool:
        """Take items of the owner's current kernel call, if there is one; True if there was."""
        task = self._task
        if task is None:
            return False
        kernel, args, ticket = task
        kernel(*args, ticket)
        return True
