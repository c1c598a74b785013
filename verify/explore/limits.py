"""Hard time limits for the explorer's tasks: each task runs in its own process, reports what it has finished so far
through a pipe, and is stopped at its limit; the caller keeps the last report.

A task is a module-level function ``fn(*args, allowed, report)``; ``report(x)`` sends ``x`` (the partial answer so
far) to the parent. At most ``workers`` processes run at once (forkserver: the theory is imported once, by
:func:`warm`, before any clock starts). A process that passes its limit is terminated (its pipe is then discarded, so
a message cut off mid-way does no harm) and the task's last report comes back as stopped. Each outcome carries its
process's CPU seconds (the machine is shared: wall time alone says little).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import resource
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait

#: Share of its limit after which a task starts nothing new (the rest is for its optimum, explanation and
#: spot-check; at the limit itself its process is stopped).
SOFT_SHARE = 0.75

_SPENT = [0.0]  # CPU seconds of every task's process so far (cpu_seconds)
#: What the forkserver imports once, before it forks the first task (the table's and the page's tasks alike).
PRELOAD = ("verify.explore.grid", "verify.explore.table")
_WARMING: list = []  # the thread starting the forkserver (warm)


def _context():
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def _noop() -> None:
    return None


def _start_server() -> None:
    proc = _context().Process(target=_noop, daemon=True)
    proc.start()
    proc.join()


def warm() -> None:
    """Start the forkserver (importing :data:`PRELOAD`) in the background, so that it is ready, and no task's time
    limit pays for the imports, when :func:`run_limited` first needs it."""
    if not _WARMING:
        t = threading.Thread(target=_start_server, daemon=True)
        t.start()
        _WARMING.append(t)

#: Seconds between the checks of the running processes' limits (the longest a stopped task overruns its limit).
POLL_S = 0.2


@dataclass
class Outcome:
    """What came back from one task.

    Parameters
    ----------
    key : object
        The task's key.
    status : str
        "done" (``value`` is the function's return), "stopped" (``value`` is its last report, or None) or "error"
        (``value`` is the traceback's text).
    value : object
        As ``status`` says.
    seconds : float
        Wall time of the task's process.
    cpu : float
        CPU seconds (user + system) of the task's process (NaN where the system does not say).
    limit : float or None
        The time limit it ran under.
    """

    key: object
    status: str
    value: object
    seconds: float
    cpu: float = math.nan
    limit: float | None = None


def one_blas_thread():
    """A context in which BLAS runs one thread: each task has a core of its own (two threads per task on the shared
    2-core machine made a row of the explorer's table 7x slower; the engine's own policy, ``blas_threads``)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _child(conn, fn: Callable, args: tuple, seconds: float | None) -> None:
    try:
        with one_blas_thread():
            value = fn(*args, seconds, lambda x: conn.send(("report", x, None)))
        conn.send(("done", value, _own_cpu()))
    except BaseException:  # noqa: BLE001 - every failure goes back to the parent as text
        conn.send(("error", traceback.format_exc(), _own_cpu()))
    finally:
        conn.close()


def run_limited(tasks: list[tuple[object, Callable, tuple, float | None]], workers: int,
                total: float | None = None, soft: float = 1.0) -> Iterator[Outcome]:
    """Run ``tasks`` = [(key, fn, args, seconds)] with at most ``workers`` processes, each stopped after its
    ``seconds`` (None: no limit); yield each :class:`Outcome` as it comes, in order of completion.

    With ``total``, all of them end within ``total`` seconds: a task starting when R seconds are left, with U tasks
    not yet started (itself included) and r running, is limited to min(seconds, R workers / (U + r)), so the time a
    quick task leaves unused passes to the tasks after it.

    Parameters
    ----------
    tasks : list of tuple
        (key, fn, args, seconds); ``fn(*args, allowed, report)`` is a picklable module-level function, called with
        ``allowed`` = ``soft`` x its limit (None: no limit), the time after which it should start nothing new.
    workers : int
        Processes at once (>= 1; with 1 and no limit at all, the tasks run in this process).
    total : float, optional
        Seconds for all the tasks together (None: each task's own limit only).
    soft : float
        The share of its limit a task is told it has (0 < soft <= 1: the rest is for wrapping up).

    Yields
    ------
    Outcome
        One per task.
    """
    if workers <= 1 and total is None and all(t[3] is None for t in tasks):  # no limit to enforce: in this process
        for key, fn, args, _ in tasks:
            t0, c0 = time.perf_counter(), _own_cpu()
            yield Outcome(key, "done", fn(*args, None, lambda x: None), time.perf_counter() - t0, _own_cpu() - c0)
        return
    warm()
    _WARMING[0].join()  # the forkserver is up: the clock starts now
    ctx = _context()
    queue = list(tasks)
    running: dict = {}  # parent connection -> (key, process, start, limit)
    last: dict = {}
    start = time.perf_counter()
    try:
        while queue or running:
            while queue and len(running) < max(workers, 1):
                key, fn, args, seconds = queue[0]
                if total is not None:
                    share = (total - (time.perf_counter() - start)) * max(workers, 1) / (len(queue) + len(running))
                    seconds = max(min(share, math.inf if seconds is None else seconds), 0.0)
                queue.pop(0)
                parent, child = ctx.Pipe(duplex=False)
                allowed = None if seconds is None else soft * seconds
                proc = ctx.Process(target=_child, args=(child, fn, args, allowed), daemon=True)
                proc.start()
                child.close()
                running[parent] = (key, proc, time.perf_counter(), seconds)
            for conn in wait(list(running), timeout=POLL_S):
                key, proc, t0, limit = running[conn]
                try:
                    kind, value, cpu = conn.recv()
                except (EOFError, OSError):  # the process died without a word
                    kind, value, cpu = "error", f"the process ended (exit code {proc.exitcode}) without an answer", None
                if kind == "report":
                    last[key] = value
                    continue
                del running[conn]
                conn.close()
                proc.join()
                _SPENT[0] += 0.0 if cpu is None else cpu
                yield Outcome(key, kind, value, time.perf_counter() - t0, math.nan if cpu is None else cpu, limit)
            now = time.perf_counter()
            for conn, (key, proc, t0, seconds) in list(running.items()):
                if seconds is not None and now - t0 > seconds:
                    del running[conn]
                    cpu = _cpu_of(proc.pid)
                    proc.terminate()
                    proc.join()
                    conn.close()
                    _SPENT[0] += 0.0 if math.isnan(cpu) else cpu
                    yield Outcome(key, "stopped", last.get(key), now - t0, cpu, seconds)
    finally:
        for conn, (_, proc, _, _) in running.items():
            proc.terminate()
            proc.join()
            conn.close()


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of every task process :func:`run_limited` has run (the
    forkserver's own start-up not counted).

    Returns
    -------
    float
        The total so far.
    """
    return _own_cpu() + _SPENT[0]


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _cpu_of(pid: int) -> float:
    """CPU seconds of a running process from /proc (NaN where there is no /proc)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return math.nan


__all__ = ["POLL_S", "PRELOAD", "SOFT_SHARE", "Outcome", "cpu_seconds", "one_blas_thread", "run_limited", "warm"]
