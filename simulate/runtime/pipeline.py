"""Draw a run's random numbers one or two steps ahead, in a background thread, while the current step computes.

A step's random numbers (minibatch indices, injected noise) do not depend on the chains' state for the samplers
that say so (:attr:`simulate.sampler.Sampler.draws_ahead`), so the draws of steps k+1, k+2 can be made while step k
evaluates its gradient. The producer thread draws them from the block's one generator in step order, so the stream
is consumed exactly as by ``sampler.step``: the same numbers, the same results to the last bit. numpy and the
workbench's numba kernels release the GIL, so the two threads run on two cores (W3 of benchmarks/compare.py).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from .._fast import kernels

#: Steps drawn ahead at most (the queue bound: memory is this many steps' draws).
DEPTH = 2


class DrawAhead:
    """Iterator over ``draw(0), draw(1), ..., draw(count - 1)``, computed by a background thread up to DEPTH ahead.

    Between draws the thread helps the consumer's shared kernels (:mod:`simulate._fast._team`: the logistic-regression
    gradients), so neither core idles when the gradient takes longer than the draws. Use as a context manager, in
    the consumer thread: leaving the block stops the thread (also after an error in the consumer); an error in
    ``draw`` is raised again by :meth:`next`.
    """

    def __init__(self, draw: Callable[[int], Any], count: int, depth: int = DEPTH) -> None:
        self._draw = draw
        self._count = count
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="simulate-draw-ahead", daemon=True)
        self._taken = 0
        self.team = kernels.Team()

    def _idle(self, k: int) -> bool:
        return not self._stop.is_set() and not self.team.has_work() and (k >= self._count or self._queue.full())

    def _produce(self) -> None:
        team, q = self.team, self._queue
        k = 0
        try:
            while not self._stop.is_set():
                # The consumer's next draws first (it would wait for them), then its gradient, then further draws.
                can_draw = k < self._count and not q.full()
                if can_draw and (q.empty() or not team.has_work()):
                    q.put_nowait((True, self._draw(k)))  # only this thread puts, so put_nowait cannot fail
                    k += 1
                    continue
                if team.help():
                    continue
                with team.cond:
                    while self._idle(k):
                        team.cond.wait(0.05)  # woken by a task or a free slot; the timeout is a safety net
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
            while not self._stop.is_set():
                try:
                    q.put((False, exc), timeout=0.05)
                    return
                except queue.Full:
                    continue

    def __enter__(self) -> DrawAhead:
        self.team.attach()
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.team.detach()
        self._stop.set()
        with self.team.cond:
            self.team.cond.notify_all()
        while self._thread.is_alive():  # unblock a producer waiting to hand over an error
            try:
                self._queue.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(timeout=0.01)

    def next(self) -> Any:
        """The next step's draws (in step order); raises what ``draw`` raised."""
        if self._taken >= self._count:
            raise IndexError(f"all {self._count} draws were taken")
        ok, item = self._queue.get()
        with self.team.cond:
            self.team.cond.notify_all()  # a free slot: the producer may draw again
        self._taken += 1
        if not ok:
            raise item
        return item
