"""The exact MSE surface over (n, h) of one sampler under a budget (its optimum: :mod:`.optimise`).

For each minibatch size n the stability edge h_max(n) = ``exact_law(sampler).stability_limit()`` (mean-square
stability; on the Laplace linearisation for a non-affine model, capped by the simulator's own bound; for the
m-periodic samplers the certified stable end of a 1% bracket, :func:`stability_edge`) is computed first; h then
runs over fractions of it (default :data:`FRACTIONS`, dense near the edge, where budget-limited optima often sit).
Every number is an exact law's: at each (n, h) the budget gives the burn-in b and window L
(:meth:`.objective.Budget.steps`) and the exact law's ``time_average(...)`` (the engine's, or the grid law's for a
non-affine model, :mod:`.grid_route`) the mean, variance and MSE of the time average. The optimum is the grid's
minimum (among the points whose stationary variance inflation is within a limit, when one is given), refined in h at
that n by bounded Brent minimisation of the exact MSE on log h between the neighbouring grid points (:mod:`.optimise`).
Each grid point also carries its stationary law's variance inflation max_i C_ii / Sigma_ii (:mod:`.accuracy`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError, check_int

from ..grid import GridRefusal
from ..linear_gaussian import exact_law
from .grid_route import law_for_sampler, linearised
from .objective import Budget, Objective
from .samplers import SamplerOptions, SamplerSpec

#: Fractions of the stability edge where h is evaluated (16 points: geometric from 1e-3, then dense near 1).
FRACTIONS = tuple(np.concatenate([np.geomspace(1e-3, 0.9, 13), [0.95, 0.98, 0.995]]).tolist())

#: Relative tolerance of the stability edge's bisection.
EDGE_RTOL = 1e-6
#: Relative width of the periodic samplers' edge bracket, whose certified stable end is their edge.
PERIODIC_EDGE_RTOL = 1e-2


def default_n_values(N: int) -> tuple[int, ...]:
    """The minibatch sizes tried by default.

    Parameters
    ----------
    N : int
        The number of data.

    Returns
    -------
    tuple of int
        1, 2, 5, 10, 20, 50, ... below N, and N itself.
    """
    N = check_int("N", N, 1)
    out = {N}
    k = 1
    while k < N:
        for f in (1, 2, 5):
            if f * k < N:
                out.add(f * k)
        k *= 10
    return tuple(sorted(out))


@dataclass(frozen=True)
class Surface:
    """Exact time-average statistics of one sampler over the grid n x h (rows: n) under one budget.

    Parameters
    ----------
    sampler : str
        The sampler's key.
    n : numpy.ndarray, shape (k,)
        The minibatch sizes (rows).
    edge : numpy.ndarray, shape (k,)
        The stability edge of each row.
    h : numpy.ndarray, shape (k, J)
        The step sizes of each row (fractions of its edge).
    mean, variance, mse : numpy.ndarray, shape (k, J)
        The time average's exact mean, variance and MSE (NaN where the budget buys no step).
    burn_in, n_steps : numpy.ndarray, shape (k,)
        Each row's window (-1 where infeasible).
    cost : numpy.ndarray, shape (k,)
        Per-datum gradient evaluations per step.
    target : float
        The posterior expectation estimated.
    skipped_n : tuple of int
        Minibatch sizes not evaluated because the deadline passed (the smallest ones: rows run from the largest n).
    unstable : int
        Grid points below the certified stability edge that the engine found not mean-square stable (left NaN).
    inflation : numpy.ndarray, shape (k, J), optional
        The stationary variance inflation max_i C_ii / Sigma_ii at each point (NaN where not computed).
    unresolved : int
        Grid points the grid law refused (a non-affine model; :class:`theory.grid.refusal.GridRefusal`): the chain
        escapes the grid's region at that h, the grid does not reach its tolerance there (mSGLD past h Cov(g) / 8 ~ I,
        where its injected noise vanishes), the law would need more nodes than the grid law allows (a wide law of a
        small minibatch in 2-D), or the chain on the grid mixes too slowly for a time average; left NaN.
    mse_error : numpy.ndarray, shape (k, J), optional
        The error estimate of ``mse`` at each point: the grid law's on the grid route (a non-affine model), 0 where
        the law is closed-form (the exact engine, exact to rounding); NaN where ``mse`` is.
    """

    sampler: str
    n: np.ndarray
    edge: np.ndarray
    h: np.ndarray
    mean: np.ndarray
    variance: np.ndarray
    mse: np.ndarray
    burn_in: np.ndarray
    n_steps: np.ndarray
    cost: np.ndarray
    target: float
    skipped_n: tuple[int, ...] = ()
    unstable: int = 0
    inflation: np.ndarray | None = None
    unresolved: int = 0
    mse_error: np.ndarray | None = None

    @property
    def bias2(self) -> np.ndarray:
        """The squared bias of the time average at every grid point."""
        return (self.mean - self.target) ** 2

    def grid_optimum(self, max_inflation: float = math.inf) -> tuple[int, int] | None:
        """The grid point with the smallest MSE (among those whose stationary variance inflation is at most
        ``max_inflation``).

        Parameters
        ----------
        max_inflation : float
            The largest stationary variance inflation max_i C_ii / Sigma_ii allowed (inf: any).

        Returns
        -------
        tuple of int or None
            (row i, column j), or None when no point is feasible.
        """
        ok = np.isfinite(self.mse)
        if math.isfinite(max_inflation) and self.inflation is not None:
            ok &= ~(self.inflation > max_inflation)  # NaN (no exact posterior: the grid route) is not judged
        if not np.any(ok):
            return None
        flat = int(np.argmin(np.where(ok, self.mse, np.inf)))
        return divmod(flat, self.mse.shape[1])

    def grid_accuracy(self, i: int, j: int) -> str:
        """The grid law's error estimate of the MSE at grid point (i, j), the largest relative one on the surface,
        and the grid points whose MSE cannot be told from (i, j)'s within the two error estimates.

        Parameters
        ----------
        i, j : int
            The grid point (row n[i], column h[i, j]), normally the grid optimum.

        Returns
        -------
        str
            One line ("" where the surface has no error estimates: the exact engine's closed form).
        """
        err = self.mse_error
        if err is None or not np.nanmax(err, initial=0.0) > 0:
            return ""
        if not (math.isfinite(self.mse[i, j]) and math.isfinite(err[i, j])):
            return f"grid law's error estimate of the MSE: none at (n = {self.n[i]}, h = {self.h[i, j]:.3g})"
        ok = np.isfinite(self.mse) & np.isfinite(err)
        rel = np.where(ok, err / np.where(ok, self.mse, 1.0), -np.inf)
        a, b = divmod(int(np.argmax(rel)), rel.shape[1])
        ties = ok & (np.abs(self.mse - self.mse[i, j]) <= err + err[i, j])  # the two intervals overlap
        ties[i, j] = False
        pts = [f"(n = {self.n[p]}, h = {self.h[p, q]:.3g})" for p, q in zip(*np.nonzero(ties), strict=True)]
        named = ", ".join(pts[:5]) + (f" and {len(pts) - 5} more" if len(pts) > 5 else "")
        return (f"grid law's error estimate of the MSE at (n = {self.n[i]}, h = {self.h[i, j]:.3g}): {err[i, j]:.2g} "
                f"({err[i, j] / self.mse[i, j]:.2g} relative; the largest on the surface {rel[a, b]:.2g}, at (n = "
                f"{self.n[a]}, h = {self.h[a, b]:.3g})); "
                + (f"not resolved from {named} within the estimates" if named else
                   "resolved from every other grid point"))


def stability_edge(spec: SamplerSpec, model, n: int, options: SamplerOptions, rtol: float = EDGE_RTOL) -> float:
    """The stability edge h_max(n): the mean-square stability limit of a sampler at minibatch size n.

    For the m-periodic samplers (SVRG-LD, vrSG-MCMC) the edge is the certified stable end ``lo`` of a bracket of
    relative width ``PERIODIC_EDGE_RTOL``: the grid's h are fractions of it, all certified stable, and the edge
    is within that width of h*; a tight bracket there costs an eigenvalue certificate of a period's map at a
    spectral radius within ``rtol`` of 1 (tens of seconds at d = 29, against about two for the coarse one).

    Parameters
    ----------
    spec : SamplerSpec
        The sampler.
    model : simulate.Model
        A model with an affine gradient.
    n : int
        The minibatch size.
    options : SamplerOptions
        The settings held fixed.
    rtol : float
        The bracket's relative width (the periodic samplers take at least ``PERIODIC_EDGE_RTOL``).

    Returns
    -------
    float
        h_max(n): ``theory.ExactLaw.stability_limit`` (the bracket's upper end), or for a periodic sampler the
        bracket's certified stable lower end. On a non-affine model it is capped by the simulator's own bound
        (``integrator.step_bound``), and where the engine has no law of the sampler on the linearisation (mSGLD, whose
        noise matrix depends on theta there) that bound alone is the edge; the grid law then refuses the steps at
        which the chain escapes.

    Raises
    ------
    simulate.validation.ParameterError
        When the engine refuses the sampler on an affine model.

    References
    ----------
    New (the engine's certified stability bracket, ``theory.ExactLaw.stability_bracket``).
    """
    probe = 1.0 / float(getattr(model, "grad_lipschitz", 1.0))
    lin = linearised(model)
    try:
        law = exact_law(spec.build(lin, probe, n, options))
    except ParameterError:
        if lin is model or not model.grad_lipschitz:
            raise
        law = None  # no law of this sampler on the linearisation (mSGLD): the simulator's bound alone
    edge = math.inf
    if law is not None:
        edge = law.stability_bracket(max(rtol, PERIODIC_EDGE_RTOL)).lo if spec.periodic else law.stability_limit(
            rtol=rtol)
    if lin is not model and model.grad_lipschitz:  # the simulator's own bound for the real model
        cap = spec.build(model, probe, n, options).integrator.step_bound(model.grad_lipschitz)[0]
        edge = min(edge, cap * (1.0 - 1e-9))
    return edge


def surfaces(spec: SamplerSpec, model, objective: Objective, budgets: list[Budget], n_values, *,
             fractions=FRACTIONS, options: SamplerOptions | None = None, theta0=None,
             deadline: float | None = None, on_row=None) -> list[Surface]:
    """The exact MSE surfaces of one sampler over (n, h), one per budget (the laws are shared across budgets).

    Parameters
    ----------
    spec : SamplerSpec
        The sampler.
    model : simulate.Model
        A model with an affine gradient.
    objective : Objective
        The objective.
    budgets : list of Budget
        The budgets.
    n_values : iterable of int
        The minibatch sizes (those the sampler takes with N data are kept).
    fractions : sequence of float
        h as increasing fractions of each n's stability edge, in (0, 1).
    options : SamplerOptions, optional
        The settings held fixed.
    theta0 : array_like, optional
        The chains' start (default 0).
    deadline : float, optional
        A ``time.time()`` after which no further grid point is started; rows run from the largest n (the cheapest)
        down, and the rows not complete by then are left out and listed in ``Surface.skipped_n``.
    on_row : callable, optional
        Called after each finished row with the surfaces so far (the rows not yet evaluated in ``skipped_n``), so
        that a caller which may be stopped keeps what was finished (the explorer's hard time limit).

    Returns
    -------
    list of Surface
        One per budget.

    Raises
    ------
    simulate.validation.ParameterError
        When no minibatch size suits the sampler, or for bad fractions.
    """
    options = options or SamplerOptions()
    ns = np.array(sorted({check_int("n", int(v), 1, model.n_data) for v in n_values}))
    ns = np.array(spec.n_values(ns, model.n_data), dtype=np.int64)
    if ns.size == 0:
        raise ParameterError(f"n: no minibatch size of {list(n_values)} suits {spec.label} with N = {model.n_data}")
    fr = np.asarray(fractions, dtype=float)
    if fr.ndim != 1 or fr.size < 2 or not np.all((fr > 0) & (fr < 1)) or np.any(np.diff(fr) <= 0):
        raise ParameterError("fractions must be increasing numbers in (0, 1) (fractions of the stability edge)")
    k, J, B = ns.size, fr.size, len(budgets)
    edge = np.full(k, np.nan)
    h = np.full((k, J), np.nan)
    stats = np.full((B, 4, k, J), np.nan)  # mean, variance, mse, mse_error
    infl = np.full((k, J), np.nan)
    windows = np.full((B, 2, k), -1, dtype=np.int64)
    cost = np.zeros(k)
    target, done, unstable, unresolved = math.nan, np.zeros(k, bool), 0, 0
    for i in range(k - 1, -1, -1):  # the largest n first: the cheapest rows (shortest windows, fastest mixing)
        if deadline is not None and time.time() > deadline:
            break
        row = _row(spec, model, objective, budgets, int(ns[i]), fr, options, theta0, deadline)
        if row is None:
            break
        edge[i], h[i], stats[:, :, i], windows[:, :, i], cost[i], t, (bad, refused), infl[i] = row
        target = t if math.isfinite(t) else target
        done[i], unstable, unresolved = True, unstable + bad, unresolved + refused
        if on_row is not None:
            on_row(_assemble(spec, ns, done, edge, h, stats, windows, cost, target, (unstable, unresolved), infl))
    return _assemble(spec, ns, done, edge, h, stats, windows, cost, target, (unstable, unresolved), infl)


def _assemble(spec, ns, done, edge, h, stats, windows, cost, target, left_out, infl) -> list[Surface]:
    """The surfaces (one per budget) of the rows ``done``; the others are listed as skipped. ``left_out`` is
    (unstable, unresolved)."""
    skipped = tuple(int(n) for n in ns[~done])
    return [Surface(spec.key, ns[done], edge[done], h[done], stats[b, 0][done], stats[b, 1][done],
                    stats[b, 2][done], windows[b, 0][done], windows[b, 1][done], cost[done], target, skipped,
                    left_out[0], infl[done], left_out[1], stats[b, 3][done]) for b in range(stats.shape[0])]


def _row(spec, model, objective, budgets, n, fr, options, theta0, deadline):
    """One row of :func:`surfaces` (edge, h, stats, windows, cost, target, (unstable, unresolved) points), or None
    when the deadline passes before it is complete. A grid point the engine finds not mean-square stable below the
    certified edge, or that the grid law refuses (:func:`_refused`), is left NaN and counted (never a raw error for
    the whole sampler)."""
    edge = stability_edge(spec, model, n, options)
    h = edge * fr
    stats = np.full((len(budgets), 4, fr.size), np.nan)
    windows = np.full((len(budgets), 2), -1, dtype=np.int64)
    infl = np.full(fr.size, np.nan)
    target, cost, bad, refused = math.nan, 0.0, 0, 0
    for j in range(fr.size):
        if deadline is not None and time.time() > deadline:
            return None
        sampler = spec.build(model, float(h[j]), n, options)
        cost = sampler.grads_per_step()
        try:
            law = law_for_sampler(sampler, theta0)
        except ParameterError as e:
            if not _refused(e):
                raise
            refused += 1
            continue
        infl[j] = _inflation(law)
        for b, budget in enumerate(budgets):
            win = budget.steps(sampler)
            if win is None:
                continue
            try:
                ta = objective.exact(law, n_steps=win[1], burn_in=win[0])
            except ParameterError as e:
                if _refused(e):
                    refused += 1
                    break
                if "not mean-square stable" not in str(e):
                    raise
                bad += 1
                break
            stats[b, :, j] = ta.mean, ta.variance, ta.mse, getattr(ta, "mse_error", 0.0)
            windows[b] = win
            target = ta.target
    return edge, h, stats, windows, cost, target, (bad, refused), infl


def _refused(e: ParameterError) -> bool:
    """Whether the grid law refused one (h, n) of a non-affine model (:class:`theory.grid.refusal.GridRefusal`: the
    chain escapes the grid's region, the grid does not reach its tolerance, it would need more nodes than the grid
    law allows, or the chain on the grid mixes too slowly for a time average)."""
    return isinstance(e, GridRefusal)


def _inflation(law) -> float:
    """max_i C_ii / Sigma_ii of the stationary law (NaN where there is none, or no exact posterior: grid route)."""
    cov = getattr(law, "posterior_cov", None)
    if cov is None:
        return math.nan
    try:
        C = law.stationary_moments("average" if law.period > 1 else None)[1]
    except ParameterError:
        return math.nan
    return float(np.max(np.diag(C) / np.diag(cov)))


@dataclass(frozen=True)
class Point:
    """Exact statistics of the time average at one (h, n) under a budget (:func:`time_average_at`).

    Parameters
    ----------
    sampler : str
        The sampler's key.
    n : int
        The minibatch size.
    h : float
        The step size.
    burn_in, n_steps : int
        The window the budget buys.
    mean, variance, mse : float
        The time average's exact mean, variance and MSE.
    target : float
        The posterior expectation estimated.
    """

    sampler: str
    n: int
    h: float
    burn_in: int
    n_steps: int
    mean: float
    variance: float
    mse: float
    target: float

    @property
    def bias2(self) -> float:
        """The time average's squared bias."""
        return (self.mean - self.target) ** 2


def time_average_at(spec: SamplerSpec, model, objective: Objective, budget: Budget, n: int, h: float, *,
                 options: SamplerOptions | None = None, theta0=None) -> Point | None:
    """The exact mean, variance and MSE of the time average of one sampler at one (h, n) under a budget.

    Parameters
    ----------
    spec : SamplerSpec
        The sampler.
    model : simulate.Model
        A model with an affine gradient.
    objective : Objective
        The objective.
    budget : Budget
        The budget (it fixes the window).
    n : int
        The minibatch size.
    h : float
        The step size; above the stability edge it is allowed (the MSE then grows with the budget).
    options : SamplerOptions, optional
        The settings held fixed.
    theta0 : array_like, optional
        The chains' start (default 0).

    Returns
    -------
    Point or None
        The statistics, or None when the budget buys no step.

    Raises
    ------
    simulate.validation.ParameterError
        For n outside [1, N] or h that is not positive and finite.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (7).
    """
    n = check_int("n", n, 1, model.n_data)
    if not (isinstance(h, (int, float, np.floating)) and math.isfinite(h) and h > 0):
        raise ParameterError(f"h must be a positive finite step size, got {h!r}")
    options = options or SamplerOptions()
    sampler = spec.build(model, float(h), n, options)
    win = budget.steps(sampler)
    if win is None:
        return None
    ta = objective.exact(law_for_sampler(sampler, theta0), n_steps=win[1], burn_in=win[0])
    return Point(spec.key, n, float(h), win[0], win[1], float(ta.mean), float(ta.variance), float(ta.mse),
                 float(ta.target))


__all__ = ["EDGE_RTOL", "FRACTIONS", "PERIODIC_EDGE_RTOL", "Point", "Surface", "default_n_values",
           "stability_edge", "surfaces", "time_average_at"]
