"""The explorer's console table, streamed: one task per sampler (:func:`theory.tradeoffs.answer`) in its own
process, ``workers`` at once, each stopped at its hard time limit (:mod:`.limits`); each sampler's lines printed as
soon as it finishes or is stopped, with the progress and its time."""

from __future__ import annotations

import dataclasses
import sys
import time

from theory.tradeoffs import Tradeoff, answer, sampler_spec, stopped

from .limits import SOFT_SHARE, run_limited


def _bare(res):
    return dataclasses.replace(res, spec=None)  # its build function is a lambda: the parent puts the spec back


def _task(question, key, kwargs, seconds, report):
    return _bare(answer(question, key, **kwargs, seconds=seconds, report=lambda r: report(_bare(r))))


def stream_table(question: Tradeoff, keys: list[str], workers: int = 2, out=None, *, seconds: float | None = None,
                 **kwargs) -> Tradeoff:
    """Answer ``question`` for each sampler, printing each sampler's rows as it finishes.

    Each sampler runs in its own process (``workers`` at once) under a hard time limit: ``seconds`` per sampler
    at the start, the time a quicker sampler leaves unused passing to those after it, the whole table ending within
    ``seconds`` x samplers / workers (:func:`.limits.run_limited`). A sampler starts no grid point after
    :data:`.limits.SOFT_SHARE` of its limit and is stopped at the limit: its rows finished by then are kept (the
    engine's exact numbers, :func:`theory.tradeoffs.stopped`) and the rest named as left out for the time limit.

    Parameters
    ----------
    question : Tradeoff
        The model, budget, objective, options and inflation limit (its results are filled, in the order of ``keys``).
    keys : list of str
        The samplers.
    workers : int
        Processes at once.
    out : file, optional
        Where to print (default ``sys.stdout``).
    seconds : float, optional
        Each sampler's time limit at the start (None: none).
    **kwargs
        Passed to :func:`theory.tradeoffs.answer` (``spot_chains``, ...); each sampler's seed is
        ``kwargs["seed"] + 7919 i``, as :func:`theory.tradeoffs.tradeoffs`.

    Returns
    -------
    Tradeoff
        ``question`` with its results.
    """
    out = out or sys.stdout
    print("\n".join(question.header()), file=out, flush=True)
    seed = kwargs.pop("seed", 0)
    bare = dataclasses.replace(question, model=dataclasses.replace(question.model, rebuild=None), results={})
    tasks = [(k, _task, (bare, k, {**kwargs, "seed": seed + 7919 * i}), None)
             for i, k in enumerate(keys)]  # picklable: no closure
    total = None if seconds is None else seconds * len(keys) / max(min(workers, len(keys)), 1)
    t0, results = time.perf_counter(), {}
    for done, oc in enumerate(run_limited(tasks, workers, total, soft=SOFT_SHARE), 1):
        if oc.status == "error":
            raise RuntimeError(f"the table's task for {oc.key} failed:\n{oc.value}")
        res = oc.value
        if res is not None:
            res.spec = sampler_spec(oc.key)
        if oc.status == "stopped":
            res = stopped(question, res, oc.key, oc.limit, theta0=kwargs.get("theta0"))
        res.seconds = oc.seconds
        results[oc.key] = res
        print("\n".join(question.row(res)), file=out)
        print(f"{'':26s} [{done}/{len(keys)} samplers done, this one in {oc.seconds:.1f} s"
              f"{' (stopped at its time limit)' if oc.status == 'stopped' else ''}, "
              f"{time.perf_counter() - t0:.1f} s so far]", file=out, flush=True)
    question.results = {k: results[k] for k in keys}
    print("\n".join(question.footer()), file=out, flush=True)
    return question


__all__ = ["stream_table"]
