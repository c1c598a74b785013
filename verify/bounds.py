"""Your own bound, tested like the published ones: a plain function of the problem's constants.

    from verify.bounds import bound

    @bound("mypkg.ula_w2", metric="w2", sampler="ula", source="my note, eq. (3)",
           assumptions=lambda c: None if c.step <= 1 / c.M else "needs step <= 1/M")
    def my_w2(c):                     # c: theory.bounds.literature.Constants
        return (1 - c.m * c.step) ** c.K * c.w0 + 2.0 * c.kappa * (c.step * c.p) ** 0.5

The workbench computes the constants (m, M, p, the step, K, n, N, sigma^2 from the exact noise law, the start's
W2 / KL / squared distance, ...) and the exact distance at every point of the atlas (:mod:`theory.atlas`), and the
bound gets the same page (``python -m verify.atlas``), claim (``python -m verify --module mypkg.my_bounds``), pytest
plugin test and report as the built-in bounds. The claim holds when the bound holds at every atlas point inside its
assumptions (a bound below the exact distance is a counter-example, reported with its point); a bound that raises,
or returns NaN, a negative number or a non-number, gets the verdict "error" naming the bound and the point, while
every other claim and the rest of the atlas still report. Register ``expected="holds as a bound"`` with a
``finding`` to have its order in h checked against the exact order (the checks of part "behaviour").

The published bounds (:mod:`theory.bounds.literature`) are registered through :func:`register_bound` by the claim
family ``bounds`` (verify/claims/bounds/). docs/bounds.md documents the constants and the atlas.
"""

from __future__ import annotations

from collections.abc import Callable

from simulate.validation import ParameterError
from theory.atlas import evaluate_bound
from theory.atlas.laws import clear_atlas_caches
from theory.bounds.literature import BOUND_SAMPLERS, LAWS, METRICS, STARTS, Bound, Constants, Source

from .api import claim
from .bound_checks import bound_claim_result
from .registry import _CACHES, simulation_cache

#: Bounds registered in this process (built-in and user), by key.
BOUNDS: dict[str, Bound] = {}
_CACHES.append(clear_atlas_caches)  # a run starts from fresh exact laws (a planted bug must not meet cached numbers)


@simulation_cache
def atlas_result(key: str):
    """The atlas of the registered bound ``key`` (computed once per run)."""
    return evaluate_bound(BOUNDS[key])


def register_bound(b: Bound, *, paper: str | None = None, expected: str = "holds", finding: str | None = None,
                   out_of_scope: str | None = None, module: str | None = None) -> Bound:
    """Register ``b`` in the atlas and as the claim ``b.key`` (paper ``paper``, default the key's first part).

    Parameters
    ----------
    b : theory.bounds.literature.Bound
        The bound.
    paper : str, optional
        The claim's paper id (``--paper``); default the part of the key before its first dot.
    expected : str
        The registered verdict: "holds", "holds as a bound" (with ``finding``: the bound holds and its order in h
        differs from the exact order) or "fails" (with ``finding`` as the erratum's counter-example).
    finding : str, optional
        What the atlas found (required for "holds as a bound" and "fails").
    out_of_scope : str, optional
        The reason the claim is not judged (e.g. constants that could not be confirmed and are violated as read).
    module : str, optional
        The module the claim belongs to (the pytest plugin's ``--verify-module`` selects claims by it); default the
        module of ``b.value``.

    Returns
    -------
    Bound
        ``b``.

    Raises
    ------
    ParameterError
        A key registered already, or an unknown problem in ``b.problems`` (named).
    """
    if b.key in BOUNDS:
        raise ParameterError(f"bound {b.key!r} is registered already; choose another key (a prefix of your package's "
                             "name keeps them apart)")
    if b.problems is not None:
        from theory.atlas.grid import problems_for

        problems_for(b)  # an unknown problem, or one the exact route cannot take, is refused here, naming it
    BOUNDS[b.key] = b
    unconfirmed = "" if b.confirmed else " (constants unconfirmed against the paper's text)"
    statement = (f"{b.title}{unconfirmed}: {b.formula} bounds {_metric(b.metric)} between the {b.law} of "
                 f"{b.sampler} and the target at every atlas point inside its assumptions ({b.assumptions}).")
    def run(settings, key=b.key):
        return bound_claim_result(atlas_result(key))

    run.__module__ = module or getattr(b.value, "__module__", __name__)
    claim(b.key, paper=paper or b.key.split(".")[0], source=b.reference, statement=statement, family=b.key,
          expected=expected, erratum=finding if expected == "fails" else None,
          finding=finding if expected != "fails" else None, out_of_scope=out_of_scope)(run)
    return b


def _metric(metric: str) -> str:
    return {"tv": "the total variation", "w2": "W2", "kl": "KL", "w2_joint": "W2 of the joint law of (x, v)"}[metric]


def bound(key: str, *, metric: str, sampler: str, source: str, law: str = "last iterate", start: str = "offset",
          assumptions: Callable[[Constants], str | None] | None = None, assumptions_text: str = "",
          title: str | None = None, formula: str | None = None, problems: tuple[str, ...] | None = None,
          minibatch: tuple[int, ...] = (), paper: str | None = None, expected: str = "holds",
          finding: str | None = None) -> Callable:
    """Decorator: the decorated ``value(c) -> float`` is a bound, registered in the atlas and as a claim.

    Parameters
    ----------
    key : str
        Its id, with a prefix of your own ("mypkg.ula_w2").
    metric : str
        One of :data:`theory.bounds.literature.METRICS`: "tv", "w2", "kl", "w2_joint".
    sampler : str
        One of :data:`theory.bounds.literature.BOUND_SAMPLERS`: "ula", "sgld", "sgld_cv", "svrgld", "saga_ld", "ulmc",
        "cv_uld".
    source : str
        Where the bound comes from (paper and equation, or your note).
    law : str
        "last iterate" or "average of iterates 1..K".
    start : str
        "warm" N(x*, I/M), "offset" N(x* + Delta, I/M) or "point" x* + Delta (Delta: 3 posterior standard deviations
        along each eigen-direction).
    assumptions : callable, optional
        ``assumptions(c)`` returns None inside the bound's assumptions, else the reason (the point is then shown and
        not counted). Default: every point is inside.
    assumptions_text, title, formula : str, optional
        Text for the page and the report (default: the function's docstring).
    problems : tuple of str, optional
        Atlas problems (:data:`theory.atlas.PROBLEMS`); default every problem the sampler runs on.
    minibatch : tuple of int
        Minibatch sizes (stochastic-gradient samplers).
    paper, expected, finding :
        As :func:`register_bound`.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    ParameterError
        An unknown metric, sampler, law, start or problem (named), or a key registered already.

    References
    ----------
    docs/bounds.md (the constants, the atlas and its statuses).
    """

    def register(value: Callable[[Constants], float]) -> Callable[[Constants], float]:
        text = (value.__doc__ or "").strip().splitlines()
        b = Bound(key=key, title=title or key, reference=source, metric=metric, sampler=sampler, law=law,
                  start=start, formula=formula or (text[0] if text else value.__name__),
                  assumptions=assumptions_text or "as the function states",
                  value=value, outside=assumptions or (lambda c: None),
                  sources=(Source("the bound", source, "own"),), minibatch=tuple(minibatch), problems=problems)
        register_bound(b, paper=paper, expected=expected, finding=finding)
        return value

    return register


__all__ = ["BOUNDS", "LAWS", "METRICS", "BOUND_SAMPLERS", "STARTS", "Bound", "Constants", "atlas_result", "bound",
           "register_bound"]
