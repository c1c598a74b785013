"""The explorer page's data: the exact engine's bias^2, variance and MSE over a grid of (objective, sampler, N,
budget, n, h), computed once in Python and embedded in the page, whose sliders only look values up.

One task per (objective, sampler, N) computes :func:`theory.tradeoffs.surfaces` for every budget (the laws are
shared across budgets), the explanation of each budget's grid optimum (:func:`theory.tradeoffs.optimum` without
refinement, so the page's optimum is the grid's) and, where they apply, the papers' regimes (:mod:`.regimes`).
Tasks run in ``workers`` processes (forkserver: the theory is imported once), each under a hard time limit
(:mod:`.limits`) when the grid has one.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from simulate.validation import ParameterError
from theory.tradeoffs import (
    SAMPLERS,
    Budget,
    ModelSpec,
    Objective,
    SamplerOptions,
    langevin_equivalent_step,
    optimum,
    sampler_spec,
    surfaces,
)
from theory.tradeoffs.api import slow_reason

from . import regimes
from .limits import SOFT_SHARE, run_limited

#: The page's default grid (written in well under 30 s on a 2-core machine).
PAGE_FRACTIONS = tuple(np.concatenate([np.geomspace(1e-3, 0.9, 7), [0.95, 0.98, 0.995]]).tolist())
PAGE_N = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000)
PAGE_N_DATA = (100, 300, 1000)
PAGE_BUDGETS = (1e3, 1e4, 1e5, 1e6, 1e7)
PAGE_OBJECTIVES = ("mean", "quadratic")


def coordinate_objective(kind: str, i: int, d: int) -> Objective:
    """The objective ``kind`` reading theta_i (1-based; i = 1 is the objectives' default, e_1)."""
    if not 1 <= i <= d:
        raise ParameterError(f"--coordinate must satisfy 1 <= coordinate <= d = {d}, got {i}")
    if i == 1:
        return Objective(kind)
    e = np.eye(d)[i - 1]
    return Objective.quadratic(np.outer(e, e)) if kind == "quadratic" else Objective(kind, tuple(e.tolist()))


@dataclass(frozen=True)
class GridSpec:
    """What the page precomputes: the model at each N, the budgets (per-datum gradient evaluations), the
    objectives, samplers, candidate n (each N adds N itself) and h as fractions of each n's stability edge; the
    inflation limit of the optima, the coordinate theta_i the objectives read, and the time allowed for the whole grid
    (None: no limit; else shared by the tasks under hard limits, :func:`.limits.run_limited`, each task's rows running
    from the largest n down)."""

    model: ModelSpec
    n_data: tuple[int, ...] = PAGE_N_DATA
    budgets: tuple[float, ...] = PAGE_BUDGETS
    objectives: tuple[str, ...] = PAGE_OBJECTIVES
    samplers: tuple[str, ...] = tuple(SAMPLERS)
    n_values: tuple[int, ...] = PAGE_N
    fractions: tuple[float, ...] = PAGE_FRACTIONS
    options: SamplerOptions = field(default_factory=SamplerOptions)
    theta0: tuple[float, ...] | None = None
    burn_in: float = 0.0
    max_inflation: float = math.inf
    coordinate: int = 1
    seconds: float | None = None

    def ns(self, N: int) -> list[int]:
        return sorted({n for n in self.n_values if n <= N} | {N})


def _round(a) -> list:
    """Nested lists with 5 significant digits, NaN as None (JSON null)."""
    arr = np.asarray(a, dtype=float)
    out = [float(f"{x:.5g}") if math.isfinite(x) else None for x in arr.reshape(-1)]
    return np.array(out, dtype=object).reshape(arr.shape).tolist()


def cell(model: ModelSpec, objective: str, sampler: str, grid: GridSpec, deadline: float | None = None,
         report=None) -> dict:
    """The page's data for one (objective, sampler, N): surfaces per budget, grid optima and their explanations
    (with the warning of :meth:`theory.tradeoffs.LawAccuracy.warning`); rows not done by ``deadline`` are left out
    and named in the cell's ``note``; ``report`` (optional) is called with the surfaces after each finished row
    (:func:`cell_data` makes a cell of them when the task is stopped at its hard time limit)."""
    spec = sampler_spec(sampler)
    obj = coordinate_objective(objective, grid.coordinate, model.dim)
    slow = slow_reason(spec, obj, grid.options)
    if slow:
        return {"error": f"Not precomputed for the page: {slow.removeprefix('slow: ')}. "
                         "theory.tradeoffs.tradeoffs(..., allow_slow=True) computes it."}
    budgets = [Budget(b, "gradients", grid.burn_in) for b in grid.budgets]
    theta0 = None if grid.theta0 is None else np.asarray(grid.theta0, dtype=float)
    try:
        surf = surfaces(spec, model.model, obj, budgets, grid.ns(model.n_data), fractions=grid.fractions,
                        options=grid.options, theta0=theta0, deadline=deadline, on_row=report)
    except ParameterError as e:
        return {"error": str(e)}
    return cell_data(model, objective, sampler, grid, surf, "left out: time limit (--page-seconds)")


def cell_data(model: ModelSpec, objective: str, sampler: str, grid: GridSpec, surf, why_skipped: str,
              optima=None) -> dict:
    """The page's data for one (objective, sampler, N) from its surfaces (one per budget; the rows not evaluated
    named in the ``note`` with ``why_skipped``); ``optima`` (one per budget) are the grid optima when already known
    (the table's, on the exact logistic route), else computed here."""
    spec = sampler_spec(sampler)
    obj = coordinate_objective(objective, grid.coordinate, model.dim)
    budgets = [Budget(b, "gradients", grid.burn_in) for b in grid.budgets]
    theta0 = None if grid.theta0 is None else np.asarray(grid.theta0, dtype=float)
    s0 = surf[0] if surf else None
    if s0 is None or s0.n.size == 0:
        return {"error": f"Not precomputed for the page: no minibatch size was evaluated ({why_skipped})."}
    note = []
    if s0.skipped_n:
        note.append(f"n = {', '.join(map(str, s0.skipped_n))} {why_skipped}")
    if s0.unstable:
        note.append(f"{s0.unstable} grid point(s) below the certified edge found unstable by the engine, left out")
    if s0.unresolved:
        note.append(f"{s0.unresolved} grid point(s) refused by the grid law (escape, tolerance, node limit or slow "
                    "mixing), left out")
    out = {"error": None, "note": "; ".join(note), "n": s0.n.tolist(),
           "edge": _round(s0.edge), "h": _round(s0.h), "cost": _round(s0.cost),
           "target": float(s0.target) if math.isfinite(s0.target) else None,
           "settings": [spec.settings(grid.options, model.n_data, int(n)) for n in s0.n],
           "L": [s.n_steps.tolist() for s in surf], "burn": [s.burn_in.tolist() for s in surf],
           "bias2": [_round(s.bias2) for s in surf], "var": [_round(s.variance) for s in surf],
           "mse": [_round(s.mse) for s in surf], "opt": []}
    if sampler == "sghmc":  # its h is eta: the matched Langevin step beside it
        out["h_langevin"] = _round([[langevin_equivalent_step(float(x), grid.options.alpha) for x in row]
                                    for row in s0.h])
    for b, (s, budget) in enumerate(zip(surf, budgets, strict=True)):
        o = optima[b] if optima is not None else optimum(s, spec, model.model, obj, budget, options=grid.options,
                                                         theta0=theta0, refine=False, max_inflation=grid.max_inflation)
        if o is None:
            out["opt"].append(None)
            continue
        i, j = s.grid_optimum(grid.max_inflation)
        warn = "" if o.accuracy is None else o.accuracy.warning()
        out["opt"].append({"i": int(i), "j": int(j), "explanation": o.explanation + (" " + warn if warn else ""),
                           "warning": warn})
    out["vollmer"] = regimes.vollmer_overlay(model, obj, sampler, surf)
    return out


def _task(model, objective, sampler, grid, seconds, report) -> dict:
    deadline = None if seconds is None else time.time() + seconds
    return cell(model, objective, sampler, grid, deadline, report)


def _models(grid: GridSpec) -> list[ModelSpec]:
    return [dataclasses.replace(grid.model.at(N), rebuild=None) for N in grid.n_data]


def explorer_data(grid: GridSpec, workers: int = 2, precomputed: dict | None = None) -> dict:
    """The page's data (see the module docstring); ``workers`` processes (1 and no time limit: in this process).

    With ``grid.seconds``, the cells share that time under hard limits (:func:`.limits.run_limited`): a cell
    starts no row after :data:`.limits.SOFT_SHARE` of its limit and is stopped at the limit, its finished rows kept (the
    engine's exact numbers) and the rest named in its ``note`` as left out for the time limit. ``precomputed`` maps
    (objective, sampler, N) to (surfaces, optima, why_skipped) already computed (the table's, on the exact logistic
    route; optima None: found by :func:`cell_data`): those cells are made from them, not computed again.
    """
    precomputed = precomputed or {}
    t0 = time.perf_counter()
    models = _models(grid)
    bare = dataclasses.replace(grid, model=models[0])  # picklable: no rebuild closure
    keys = [(o, s, k) for o in range(len(grid.objectives)) for s in range(len(grid.samplers))
            for k in range(len(models))]
    keys.sort(key=lambda t: -(SAMPLERS[grid.samplers[t[1]]].periodic * 3 + 1) * models[t[2]].n_data ** 0.1)
    cells, seconds = {}, {}
    for o, s, k in keys:
        got = precomputed.get((grid.objectives[o], grid.samplers[s], models[k].n_data))
        if got is not None:
            cells[(o, s, k)] = cell_data(models[k], grid.objectives[o], grid.samplers[s], bare, got[0], got[2],
                                         optima=got[1])
    tasks = [((o, s, k), _task, (models[k], grid.objectives[o], grid.samplers[s], bare), None) for o, s, k in keys
             if (o, s, k) not in cells]
    for oc in run_limited(tasks, workers, grid.seconds, soft=SOFT_SHARE):
        o, s, k = oc.key
        if oc.status == "error":
            raise RuntimeError(f"the page's task {oc.key} failed:\n{oc.value}")
        if oc.status == "stopped":
            why = f"left out: time limit (this cell's process was stopped at {oc.limit:.1f} s; --page-seconds)"
            cells[oc.key] = cell_data(models[k], grid.objectives[o], grid.samplers[s], bare, oc.value, why)
        else:
            cells[oc.key] = oc.value
        seconds[oc.key] = oc.seconds
    o_n, s_n, k_n = len(grid.objectives), len(grid.samplers), len(models)
    nested = [[[cells[(o, s, k)] for k in range(k_n)] for s in range(s_n)] for o in range(o_n)]
    return {
        "model": grid.model.label, "approximation": grid.model.approximation,
        "law": "theory.grid_law" if grid.model.key == "logistic_exact" else "theory.exact_law",
        "N": list(grid.n_data), "budgets": list(grid.budgets), "fractions": _round(grid.fractions),
        "objectives": [{"key": o, "label": Objective(o).label} for o in grid.objectives],
        "samplers": [{"key": s, "label": SAMPLERS[s].label} for s in grid.samplers],
        "burn_in": grid.burn_in, "theta0": "0" if grid.theta0 is None else str(list(grid.theta0)),
        "cells": nested, "chen": regimes.chen_overlay(models, grid.budgets),
        "timing": {"seconds": time.perf_counter() - t0, "workers": workers,
                   "cell_seconds": sum(seconds.values())},
    }


__all__ = ["PAGE_BUDGETS", "PAGE_FRACTIONS", "PAGE_N", "PAGE_N_DATA", "PAGE_OBJECTIVES", "GridSpec", "cell",
           "cell_data", "coordinate_objective", "explorer_data"]
