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

#: Steps drawn ahead at most (the queue bound: memory is this many steps' draws).
DEPTH = 2


class DrawAhead:
    """Iterator over ``draw(0), draw(1), ..., draw(count - 1)``, computed by a background thread up to DEPTH ahead.

    Use as a context manager: leaving the block stops the thread (also after an error in the consumer); an error
    in ``draw`` is raised again by :meth:`next`.
    """

    def __init__(self, draw: Callable[[int], Any], count: int, depth: int = DEPTH) -> None:
        self._draw = draw
        self._count = count
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="simulate-draw-ahead", daemon=True)
        self._taken = 0

    def _produce(self) -> None:
        try:
            for k in range(self._count):
                item = (True, self._draw(k))
                while not self._stop.is_set():
                    try:
                        self._queue.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
            self._queue.put((False, exc))

    def __enter__(self) -> DrawAhead:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        while self._thread.is_alive():  # unblock a producer waiting on a full queue
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
        self._taken += 1
        if not ok:
            raise item
        return item
