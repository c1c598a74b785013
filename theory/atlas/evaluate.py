"""Evaluate a bound against the exact laws at every point of its grid (:mod:`theory.atlas.grid`).

Each point gets the exact distance as an interval [lo, hi] (:mod:`theory.atlas.exact`), the bound's value and a
status:

    holds        value >= hi (the bound holds, certainly)
    violated     value < lo (a counter-example to the bound as read)
    undecided    lo <= value < hi (the law is known through its moments only)
    outside      the point breaks one of the bound's assumptions (shown, not counted for or against it)
    error        the bound raised, or returned NaN, a negative number or a non-number (the message names the
                 bound and the point; the rest of the atlas still reports)

and ``vacuous`` when the value is at least the distance at the start (or 1 for TV): a true but empty statement.

The order in h: at each (problem, n), the three smallest step sizes inside the bound's assumptions; the exact
distance of the stationary law (the averaged law's limit for an averaged-law bound; its lower end for a law known
by its moments) and the bound's infimum over K (its K -> infinity limit for a contracting bound) are fitted to
C h^q by least squares in log-log coordinates.
"""

from __future__ import annotations

import dataclasses
import math
import traceback
from dataclasses import dataclass, field

import numpy as np

from simulate.validation import ParameterError
from theory.bounds.literature import Bound
from theory.distances import w2_gaussian

from .constants import additive, at_K, base_constants
from .exact import Exact, average_kl, distance, start_distance
from .grid import Cell, cells
from .laws import K_GRID, chain_laws, stationary_law
from .problems import problem
from .samplers import build_sampler

POINT_STATUSES = ("holds", "violated", "undecided", "outside", "error")
#: Iteration counts over which the bound's infimum in K is taken for the order fit.
K_INF = tuple(int(k) for k in np.unique(np.geomspace(1, 1e12, 97).astype(np.int64)))


@dataclass(frozen=True)
class AtlasPoint:
    """One atlas point (module docstring).

    Parameters
    ----------
    problem : str
        The test problem's name.
    n : int or None
        The minibatch size (None for full gradients).
    h : float
        The step size.
    K : int
        The iteration count.
    lo, hi : float
        The exact distance, as an interval (equal where it is known exactly; NaN at an error).
    value : float
        The bound's value (NaN where it failed).
    status : str
        One of ``POINT_STATUSES`` (module docstring).
    vacuous : bool
        Whether the bound is at least the distance at the start (or 1 for TV).
    message : str
        Why the point is outside the assumptions or an error.
    """

    problem: str
    n: int | None
    h: float
    K: int
    lo: float
    hi: float
    value: float
    status: str
    vacuous: bool = False
    message: str = ""

    @property
    def ratio(self) -> float:
        """bound / exact (the exact distance's lower end for an interval); inf for a zero distance."""
        return self.value / self.lo if self.lo > 0 else math.inf


@dataclass
class Order:
    """The fitted orders in h at one (problem, n) (module docstring).

    Parameters
    ----------
    problem : str
        The test problem's name.
    n : int or None
        The minibatch size.
    hs : tuple of float
        The three smallest step sizes inside the bound's assumptions.
    exact, bound : tuple of float
        The exact stationary distance and the bound's infimum over K at each of ``hs``.
    q_exact, q_bound : float
        The least-squares slopes of log exact and log bound against log h.
    """

    problem: str
    n: int | None
    hs: tuple[float, ...]
    exact: tuple[float, ...]
    bound: tuple[float, ...]
    q_exact: float
    q_bound: float


@dataclass
class BoundResult:
    """The atlas of one bound: its points, its order fits and the routes of its exact values.

    Parameters
    ----------
    bound : Bound
        The bound.
    points : list of AtlasPoint
        Its points.
    orders : list of Order
        Its order fits, one per (problem, n) with three step sizes inside the assumptions.
    routes : dict
        ``{problem: how its exact values were computed}``.
    """

    bound: Bound
    points: list[AtlasPoint] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    routes: dict = field(default_factory=dict)

    def counted(self) -> list[AtlasPoint]:
        """The points counted for or against the bound.

        Returns
        -------
        list of AtlasPoint
            The points whose status is "holds", "violated" or "undecided".
        """
        return [p for p in self.points if p.status in ("holds", "violated", "undecided")]

    def by_status(self, status: str) -> list[AtlasPoint]:
        """The points of one status.

        Parameters
        ----------
        status : str
            One of ``POINT_STATUSES``.

        Returns
        -------
        list of AtlasPoint
            The points with that status.
        """
        return [p for p in self.points if p.status == status]


def _call(bound: Bound, c, what: str):
    """(result, message): the bound's value or outside at the constants c, or its failure as a message."""
    try:
        out = bound.value(c) if what == "value" else bound.outside(c)
    except Exception as e:  # noqa: BLE001 - a bound that raises gets the verdict "error", the rest still reports
        return None, f"{bound.key}: {what} raised {type(e).__name__}: {e} ({traceback.format_exc(limit=1).strip()})"
    if what == "outside":
        return out, ""
    if isinstance(out, bool) or not isinstance(out, (int, float, np.floating, np.integer)):
        return None, f"{bound.key}: value returned {type(out).__name__} {out!r}, not a number"
    out = float(out)
    if math.isnan(out) or out < 0:
        return None, f"{bound.key}: value returned {out!r} (a bound must be a number >= 0)"
    return out, ""


def _exact_at(bound: Bound, cell: Cell, h: float, laws, K: int) -> Exact:
    """The exact distance at K; for a stochastic-gradient chain on an additive-noise problem (its minibatch noise
    does not depend on theta) in W2, the upper end is the synchronous coupling with ULA at the same h and start:
    theta = theta_ULA + D with D independent of theta_ULA and mean 0, so W2 <= W2(nu_ULA_K, pi) + (tr(C - C_ULA))^(1/2)
    (new)."""
    if bound.law != "last iterate":
        return average_kl(laws.average[K], laws.target)
    m, C = laws.at[K]
    ex = distance(bound.metric, m, C, laws.gaussian, laws.target, laws.blocks)
    if ex.exact or bound.metric != "w2" or bound.sampler not in ("sgld", "sgld_cv", "svrgld") \
            or not additive(problem(cell.problem)):
        return ex
    mu, Cu = chain_laws(cell.problem, "ula", h, None, bound.start).at[K]
    hi = w2_gaussian(mu, Cu, *laws.target) + math.sqrt(max(float(np.trace(C - Cu)), 0.0))
    return Exact(ex.lo, max(ex.lo, min(ex.hi, hi)), "moments: Gelbrich lower bound, coupling with ULA upper bound")


def _status(value: float, ex: Exact) -> str:
    if math.isinf(ex.lo):
        return "holds" if math.isinf(value) else "violated"
    if value >= ex.hi:
        return "holds"
    return "violated" if value < ex.lo else "undecided"


def _cell_points(bound: Bound, cell: Cell, result: BoundResult) -> None:
    prob = problem(cell.problem)
    joint = bound.metric == "w2_joint"
    for h in cell.hs:
        try:
            laws = chain_laws(cell.problem, bound.sampler, h, cell.n, bound.start, joint,
                              bound.law != "last iterate")
        except ParameterError as e:  # the exact route refused this chain: every point of it is an error, named
            result.points += [AtlasPoint(cell.problem, cell.n, h, K, math.nan, math.nan, math.nan, "error",
                                    message=f"{bound.key}: the exact law is not available at problem {cell.problem}, "
                                            f"n = {cell.n}, h = {h:.4g}, K = {K}: {e}") for K in K_GRID]
            continue
        base = base_constants(bound, prob, h, cell.n, laws, build_sampler(prob, bound.sampler, h, cell.n))
        d0 = start_distance(bound.metric, laws.start, laws.target)
        for K in K_GRID:
            where = f"problem {cell.problem}, n = {cell.n}, h = {h:.4g}, K = {K}"
            c = at_K(base, prob, bound.sampler, laws, K)
            reason, msg = _call(bound, c, "outside")
            value, vmsg = _call(bound, c, "value") if not msg else (None, "")
            ex = _exact_at(bound, cell, h, laws, K)
            result.routes.setdefault(cell.problem, ex.route + f"; {laws.route} route")
            if reason and not msg:  # outside the assumptions: shown, never an error of the bound
                result.points.append(AtlasPoint(cell.problem, cell.n, h, K, ex.lo, ex.hi,
                                           math.nan if value is None else value, "outside", message=str(reason)))
                continue
            if msg or vmsg:
                result.points.append(AtlasPoint(cell.problem, cell.n, h, K, ex.lo, ex.hi, math.nan, "error",
                                           message=f"{msg or vmsg} at {where}"))
                continue
            vac = value >= (1.0 if bound.metric == "tv" else d0) or (bound.metric == "tv" and value >= 1.0)
            result.points.append(AtlasPoint(cell.problem, cell.n, h, K, ex.lo, ex.hi, value, _status(value, ex), vac))


def _order(bound: Bound, cell: Cell, result: BoundResult) -> Order | None:
    """The order fit of one cell (module docstring), None with fewer than 3 step sizes inside the assumptions."""
    inside = sorted({p.h for p in result.points if p.problem == cell.problem and p.n == cell.n
                     and p.K == K_GRID[-1] and p.status != "outside" and p.status != "error"})[:3]
    if len(inside) < 3:
        return None
    prob = problem(cell.problem)
    joint = bound.metric == "w2_joint"
    ex, bd = [], []
    for h in inside:
        laws = chain_laws(cell.problem, bound.sampler, h, cell.n, bound.start, joint, bound.law != "last iterate")
        m, C = stationary_law(cell.problem, bound.sampler, h, cell.n, joint)
        metric = bound.metric
        e = distance(metric, m, C, laws.gaussian and bound.law == "last iterate", laws.target, laws.blocks)
        ex.append(e.lo)
        last = at_K(base_constants(bound, prob, h, cell.n, laws, build_sampler(prob, bound.sampler, h, cell.n)),
                    prob, bound.sampler, laws, K_GRID[-1])
        vals = []
        for K in K_INF:
            c = dataclasses.replace(last, K=K)
            v, msg = _call(bound, c, "value")
            reason, _ = _call(bound, c, "outside")
            if v is not None and not reason:
                vals.append(v)
        if not vals:
            return None
        bd.append(min(vals))
    lh = np.log(inside)
    q = lambda y: float(np.polyfit(lh, np.log(np.maximum(y, 1e-300)), 1)[0])  # noqa: E731
    return Order(cell.problem, cell.n, tuple(inside), tuple(ex), tuple(bd), q(ex), q(bd))


def evaluate_bound(bound: Bound) -> BoundResult:
    """The atlas of ``bound`` (module docstring): every point of its grid and its order fits.

    Parameters
    ----------
    bound : Bound
        The bound.

    Returns
    -------
    BoundResult
        Its points (a bound that raises or returns a non-number gets points of status "error", named) and orders.
    """
    result = BoundResult(bound)
    for cell in cells(bound):
        _cell_points(bound, cell, result)
        order = _order(bound, cell, result)
        if order is not None:
            result.orders.append(order)
    return result




def _evaluate_group(bounds: tuple[Bound, ...]) -> list[BoundResult]:
    return [evaluate_bound(b) for b in bounds]


def evaluate_bounds(bounds, jobs: int = 1) -> list[BoundResult]:
    """The atlases of several bounds, in their order.

    ``jobs`` > 1 spreads them over that many processes, the bounds of one sampler in one process (they share its exact
    laws). Every number is the same as with jobs = 1 (each law is computed by the same code in whichever process).

    Parameters
    ----------
    bounds : iterable of Bound
        The bounds.
    jobs : int
        The number of processes.

    Returns
    -------
    list of BoundResult
        One per bound, in the order of ``bounds``.
    """
    bounds = list(bounds)
    if jobs <= 1 or len(bounds) < 2:
        return [evaluate_bound(b) for b in bounds]
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    by_sampler: dict[str, list[int]] = {}
    for i, b in enumerate(bounds):
        by_sampler.setdefault(b.sampler, []).append(i)
    groups: list[list[int]] = [[] for _ in range(jobs)]
    for idx in sorted(by_sampler.values(), key=len, reverse=True):  # largest groups first, to the lightest worker
        min(groups, key=len).extend(idx)
    groups = [g for g in groups if g]
    with ProcessPoolExecutor(len(groups), mp_context=get_context("spawn")) as pool:
        outs = list(pool.map(_evaluate_group, [tuple(bounds[i] for i in g) for g in groups]))
    results: list[BoundResult | None] = [None] * len(bounds)
    for g, out in zip(groups, outs, strict=True):
        for i, r in zip(g, out, strict=True):
            results[i] = r
    return results


__all__ = ["K_INF", "POINT_STATUSES", "BoundResult", "Order", "AtlasPoint", "evaluate_bound", "evaluate_bounds"]
