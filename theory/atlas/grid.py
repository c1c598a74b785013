"""Where the atlas evaluates a bound: the problems its sampler runs on, the minibatch sizes, the step sizes and the
iteration counts.

Step sizes are shared by every bound on one (problem, sampler, n), so that bounds on the same chain share its exact
law: h = 0.9 h* 8^-j, j = 0..6, with h* the full-gradient chain's stability limit (first-order steps: 4/M, the
mean-square limit of ULA and of stochastic gradients whose noise does not depend on theta; underdamped Langevin
MCMC: its exact-gradient limit). A stochastic-gradient chain with multiplicative noise can be mean-square unstable
at the largest step: its exact moments then grow, and it has no stationary law there (the order fits use the
smallest steps). Each bound's admissible range
(its ``outside``) decides which of them are inside its assumptions; the others are shown and not counted.
Iterations: :data:`theory.atlas.laws.K_GRID` (1 to 10^4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from simulate.validation import ParameterError
from theory.bounds.literature import Bound

from .problems import PROBLEMS, problem
from .samplers import MINIBATCH, UNDERDAMPED, build_sampler

#: h = h* 8^-j for j in H_STEPS.
H_STEPS = tuple(range(7))
#: The default minibatch sizes of stochastic-gradient bounds (capped at N).
MINIBATCH_SIZES = (1, 10)


@dataclass(frozen=True)
class Cell:
    """One (problem, n) of a bound with its step sizes.

    Parameters
    ----------
    problem : str
        The test problem's name.
    n : int or None
        The minibatch size (None for full gradients).
    hs : tuple of float
        The step sizes, h = 0.9 h* 8^-j.
    """

    problem: str
    n: int | None
    hs: tuple[float, ...]


@lru_cache(maxsize=256)
def stability_limit(problem_name: str, sampler_name: str, n: int | None) -> float:
    """The top of the step grid h* (module docstring).

    Parameters
    ----------
    problem_name : str
        The test problem's name.
    sampler_name : str
        The atlas sampler.
    n : int or None
        The minibatch size.

    Returns
    -------
    float
        4/M for first-order steps, the exact-gradient stability limit for underdamped Langevin MCMC.
    """
    prob = problem(problem_name)
    if sampler_name in UNDERDAMPED:
        return build_sampler(prob, sampler_name, 1e-6 / prob.M, n).integrator.step_bound(prob.M)[0]
    return 4.0 / prob.M


def problems_for(bound: Bound) -> tuple[str, ...]:
    """The atlas problems of a bound: its own list, or every problem its sampler runs on.

    For a bound on the averaged law: the problems with p <= 11, where the engine's direct route runs.

    Parameters
    ----------
    bound : Bound
        The bound.

    Returns
    -------
    tuple of str
        The problems' names.

    Raises
    ------
    ParameterError
        When a problem the bound names is unknown, or its sampler (or averaged law) does not run on it.
    """
    names = bound.problems if bound.problems is not None else PROBLEMS
    out = []
    for name in names:
        prob = problem(name)  # ParameterError naming an unknown problem
        if bound.sampler not in prob.samplers:
            if bound.problems is not None:
                raise ParameterError(f"bound {bound.key!r}: sampler {bound.sampler!r} does not run on problem "
                                     f"{name!r} (its exact route takes {', '.join(prob.samplers)})")
            continue
        if bound.law != "last iterate" and (prob.p > 11 or bound.sampler in UNDERDAMPED):
            if bound.problems is not None:
                raise ParameterError(f"bound {bound.key!r}: the averaged law is computed for p <= 11 (first-order "
                                     f"chains); problem {name!r} has p = {prob.p}")
            continue
        out.append(name)
    return tuple(out)


def cells(bound: Bound) -> list[Cell]:
    """The (problem, n, step sizes) of a bound (module docstring).

    Parameters
    ----------
    bound : Bound
        The bound.

    Returns
    -------
    list of Cell
        One per problem and minibatch size.
    """
    out = []
    for name in problems_for(bound):
        prob = problem(name)
        cap = prob.N - 1 if bound.sampler == "svrgld" else prob.N  # SVRG-LD's minibatch is below its full anchor
        sizes = ((None,) if bound.sampler not in MINIBATCH
                 else tuple(sorted({min(n, cap) for n in (bound.minibatch or MINIBATCH_SIZES)})))
        for n in sizes:
            top = 0.9 * stability_limit(name, bound.sampler, n)
            out.append(Cell(name, n, tuple(float(top * 8.0**-j) for j in H_STEPS)))
    return out


__all__ = ["H_STEPS", "MINIBATCH_SIZES", "Cell", "cells", "problems_for", "stability_limit"]
