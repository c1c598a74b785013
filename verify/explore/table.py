"""The explorer's console table, streamed: one task per sampler (:func:`theory.tradeoffs.answer`) in ``workers``
processes, each sampler's lines printed as soon as it finishes, with the progress and its time."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from theory.tradeoffs import Tradeoff, answer, sampler_spec


def _task(args):
    question, key, kwargs = args
    res = answer(question, key, **kwargs)
    res.spec = None  # its build function is a lambda: the parent puts the spec back
    return key, res


def stream_table(question: Tradeoff, keys: list[str], workers: int = 2, out=None, **kwargs) -> Tradeoff:
    """Answer ``question`` for each sampler, printing each sampler's rows as it finishes.

    Parameters
    ----------
    question : Tradeoff
        The model, budget, objective, options and inflation limit (its results are filled, in the order of ``keys``).
    keys : list of str
        The samplers.
    workers : int
        Processes (1: in this process).
    out : file, optional
        Where to print (default ``sys.stdout``).
    **kwargs
        Passed to :func:`theory.tradeoffs.answer` (``seconds``, ``spot_chains``, ...); each sampler's seed is
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
    tasks = [(bare, k, {**kwargs, "seed": seed + 7919 * i}) for i, k in enumerate(keys)]  # picklable: no closure
    t0, done, results = time.perf_counter(), 0, {}

    def show(key, res):
        nonlocal done
        done += 1
        res.spec = sampler_spec(key)
        results[key] = res
        lines = question.row(res)
        print("\n".join(lines), file=out)
        print(f"{'':26s} [{done}/{len(keys)} samplers done, this one in {res.seconds:.1f} s, "
              f"{time.perf_counter() - t0:.1f} s so far]", file=out, flush=True)

    if workers <= 1 or len(keys) == 1:
        for t in tasks:
            show(*_task(t))
    else:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["theory.tradeoffs"])
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for fut in as_completed([pool.submit(_task, t) for t in tasks]):
                show(*fut.result())
    question.results = {k: results[k] for k in keys}
    print("\n".join(question.footer()), file=out, flush=True)
    return question


__all__ = ["stream_table"]
