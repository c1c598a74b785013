"""The exact MSE surface over (n, h) of one sampler under a budget, its optimum, and the one-line explanation.

For each minibatch size n the stability edge h_max(n) = ``exact_law(sampler).stability_limit()`` (mean-square
stability; on the Laplace linearisation for a non-affine model, capped by the simulator's own bound) is computed
first; h then runs over fractions of it (default :data:`FRACTIONS`, dense near the edge, where budget-limited optima
often sit). Every number is an exact law's: at each (n, h) the budget gives the burn-in b and window L
(:meth:`.objective.Budget.steps`) and the exact law's ``time_average(...)`` (the engine's, or the grid law's for a
non-affine model, :mod:`.grid_route`) the mean, variance and MSE of the time average. The optimum is the grid's
minimum, refined in h at that n by bounded Brent minimisation of the exact MSE on log h between the neighbouring grid
points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from simulate.validation import ParameterError, check_int

from ..linear_gaussian import exact_law
from .grid_route import law_for_sampler, linearised
from .objective import Budget, Objective
from .samplers import SamplerOptions, SamplerSpec

#: Fractions of the stability edge where h is evaluated (16 points: geometric from 1e-3, then dense near 1).
FRACTIONS = tuple(np.concatenate([np.geomspace(1e-3, 0.9, 13), [0.95, 0.98, 0.995]]).tolist())

#: Relative tolerance of the stability edge's bisection.
EDGE_RTOL = 1e-6


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

    @property
    def bias2(self) -> np.ndarray:
        """The squared bias of the time average at every grid point."""
        return (self.mean - self.target) ** 2

    def grid_optimum(self) -> tuple[int, int] | None:
        """The grid point with the smallest MSE.

        Returns
        -------
        tuple of int or None
            (row i, column j), or None when no point is feasible.
        """
        if not np.any(np.isfinite(self.mse)):
            return None
        flat = int(np.nanargmin(np.where(np.isfinite(self.mse), self.mse, np.inf)))
        return divmod(flat, self.mse.shape[1])


@dataclass(frozen=True)
class Optimum:
    """The exact optimum (h, n) of one sampler, with its MSE's decomposition and why it sits where it does.

    Parameters
    ----------
    sampler : str
        The sampler's key.
    n : int
        The optimal minibatch size.
    h : float
        The optimal step size h*.
    edge : float
        The stability edge at n.
    mse, bias2, variance : float
        The exact MSE at (h*, n) and its split, MSE = bias2 + variance.
    mean : float
        The time average's exact mean.
    target : float
        The posterior expectation estimated.
    burn_in, n_steps : int
        The window the budget buys.
    grads_per_step : float
        The cost per step.
    startup_bias : float
        E(time average) - E_stationary(phi).
    stationary_bias : float
        E_stationary(phi) - target.
    slopes : tuple of float
        (d bias^2, d variance) / d log h at h*.
    at_grid_bottom : bool
        Whether h* is the grid's smallest h (extend the grid).
    explanation : str
        The one-line explanation (:func:`explain`).
    """

    sampler: str
    n: int
    h: float
    edge: float
    mse: float
    bias2: float
    variance: float
    mean: float
    target: float
    burn_in: int
    n_steps: int
    grads_per_step: float
    startup_bias: float
    stationary_bias: float
    slopes: tuple[float, float]
    at_grid_bottom: bool
    explanation: str = ""


def stability_edge(spec: SamplerSpec, model, n: int, options: SamplerOptions, rtol: float = EDGE_RTOL) -> float:
    """The stability edge h_max(n): the mean-square stability limit of a sampler at minibatch size n.

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
        The bisection's relative tolerance.

    Returns
    -------
    float
        h_max(n) (``theory.ExactLaw.stability_limit``).
    """
    probe = 1.0 / float(getattr(model, "grad_lipschitz", 1.0))
    edge = exact_law(spec.build(linearised(model), probe, n, options)).stability_limit(rtol=rtol)
    if linearised(model) is not model and model.grad_lipschitz:  # the simulator's own bound for the real model
        cap = spec.build(model, probe, n, options).integrator.step_bound(model.grad_lipschitz)[0]
        edge = min(edge, cap * (1.0 - 1e-9))
    return edge


def surfaces(spec: SamplerSpec, model, objective: Objective, budgets: list[Budget], n_values, *,
             fractions=FRACTIONS, options: SamplerOptions | None = None, theta0=None) -> list[Surface]:
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
    edge = np.array([stability_edge(spec, model, int(n), options) for n in ns])
    h = edge[:, None] * fr[None, :]
    stats = np.full((B, 3, k, J), np.nan)
    windows = np.full((B, 2, k), -1, dtype=np.int64)
    cost = np.zeros(k)
    target = math.nan
    for i, n in enumerate(ns):
        for j in range(J):
            sampler = spec.build(model, float(h[i, j]), int(n), options)
            cost[i] = sampler.grads_per_step()
            law = law_for_sampler(sampler, theta0)
            for b, budget in enumerate(budgets):
                win = budget.steps(sampler)
                if win is None:
                    continue
                ta = objective.exact(law, n_steps=win[1], burn_in=win[0])
                stats[b, :, i, j] = ta.mean, ta.variance, ta.mse
                windows[b, :, i] = win
                target = ta.target
    return [Surface(spec.key, ns, edge, h, stats[b, 0], stats[b, 1], stats[b, 2], windows[b, 0], windows[b, 1], cost,
                    target) for b in range(B)]


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


def _evaluate(spec, model, objective, budget, n, h, options, theta0):
    sampler = spec.build(model, h, n, options)
    law = law_for_sampler(sampler, theta0)
    b, L = budget.steps(sampler)
    return sampler, law, b, L, objective.exact(law, n_steps=L, burn_in=b)


def _refine(surface: Surface, i: int, j: int, f) -> float:
    """h minimising f(log h) between the grid neighbours of (i, j) (bounded Brent); the grid's h if no better."""
    J = surface.h.shape[1]
    lo = surface.h[i, j - 1] if j > 0 else surface.h[i, 0] / 2.0
    hi = surface.h[i, j + 1] if j < J - 1 else surface.edge[i] * (1.0 - 10 * EDGE_RTOL)
    res = optimize.minimize_scalar(f, bounds=(math.log(lo), math.log(hi)), method="bounded", options={"xatol": 1e-3})
    return math.exp(res.x) if res.fun < surface.mse[i, j] else float(surface.h[i, j])


def _grid_slopes(surface: Surface, i: int, j: int) -> tuple[float, float]:
    """(d bias^2, d variance) / d log h at grid point (i, j) from its finite grid neighbours."""
    J = surface.h.shape[1]
    lo = j - 1 if j > 0 and np.isfinite(surface.mse[i, j - 1]) else j
    hi = j + 1 if j < J - 1 and np.isfinite(surface.mse[i, j + 1]) else j
    if lo == hi:
        return 0.0, 0.0
    dlog = math.log(surface.h[i, hi] / surface.h[i, lo])
    b2, var = surface.bias2[i], surface.variance[i]
    return float((b2[hi] - b2[lo]) / dlog), float((var[hi] - var[lo]) / dlog)


def optimum(surface: Surface, spec: SamplerSpec, model, objective: Objective, budget: Budget, *,
            options: SamplerOptions | None = None, theta0=None, refine: bool = True) -> Optimum | None:
    """The optimum of a surface: its grid minimum, refined in h by bounded Brent minimisation of the exact MSE on
    log h between the neighbouring grid points.

    Parameters
    ----------
    surface : Surface
        The surface.
    spec : SamplerSpec
        Its sampler.
    model : simulate.Model
        Its model.
    objective : Objective
        Its objective.
    budget : Budget
        Its budget.
    options : SamplerOptions, optional
        The settings held fixed.
    theta0 : array_like, optional
        The chains' start (default 0).
    refine : bool
        Refine in h; False keeps the grid point, with slopes from its grid neighbours.

    Returns
    -------
    Optimum or None
        The optimum with its explanation, or None when no grid point is feasible.
    """
    options = options or SamplerOptions()
    ij = surface.grid_optimum()
    if ij is None:
        return None
    i, j = ij
    n = int(surface.n[i])

    def ev(h: float):
        return _evaluate(spec, model, objective, budget, n, h, options, theta0)

    if refine:
        h = _refine(surface, i, j, lambda lh: ev(math.exp(lh))[-1].mse)
        sampler, law, b, L, ta = ev(h)
        mean, var, mse, target = ta.mean, ta.variance, ta.mse, ta.target
        up, down = min(h * 1.01, surface.edge[i] * (1 - 10 * EDGE_RTOL)), h / 1.01
        hi, lo = ev(up)[-1], ev(down)[-1]
        dlog = math.log(up / down)
        slopes = (((hi.mean - hi.target) ** 2 - (lo.mean - lo.target) ** 2) / dlog,
                  (hi.variance - lo.variance) / dlog)
    else:
        h = float(surface.h[i, j])
        sampler = spec.build(model, h, n, options)
        law = law_for_sampler(sampler, theta0)
        b, L = int(surface.burn_in[i]), int(surface.n_steps[i])
        mean, var, mse, target = surface.mean[i, j], surface.variance[i, j], surface.mse[i, j], surface.target
        slopes = _grid_slopes(surface, i, j)
    stat = objective.stationary_value(law)
    opt = Optimum(spec.key, n, h, float(surface.edge[i]), float(mse), float((mean - target) ** 2), float(var),
                  float(mean), float(target), b, L, sampler.grads_per_step(), float(mean - stat),
                  float(stat - target), slopes, at_grid_bottom=(j == 0 and h <= surface.h[i, 0]))
    return Optimum(**{**opt.__dict__, "explanation": explain(opt)})


def explain(opt: Optimum) -> str:
    """Why an optimum sits where it does, in one line.

    Parameters
    ----------
    opt : Optimum
        The optimum.

    Returns
    -------
    str
        What stops h* from growing (bias^2, variance, or mean-square stability), where h* sits relative to the
        stability edge, and the MSE's split at h*.
    """
    share = opt.bias2 / opt.mse if opt.mse > 0 else 0.0
    pos = opt.h / opt.edge
    which = "start-up" if abs(opt.startup_bias) >= abs(opt.stationary_bias) else "stationary"
    split = f"(at h*: bias^2 {share:.0%} of the MSE, mostly {which} bias; variance {1 - share:.0%})"
    if pos >= 0.9:
        if share >= 0.5:
            return (f"bias-limited: the optimum is at the largest stable h (h* = {pos:.3f} x the stability edge "
                    f"{opt.edge:.4g}): the {which} bias shrinks as h grows, until mean-square stability ends {split}")
        return (f"variance-limited: the optimum is at the largest stable h (h* = {pos:.3f} x the stability edge "
                f"{opt.edge:.4g}): the time average's variance shrinks as h grows, until mean-square stability ends "
                f"{split}")
    if opt.at_grid_bottom:
        return (f"bias-limited: the optimum is at the smallest h of the grid (h* = {pos:.2g} x the stability edge): "
                f"extend the grid to smaller h {split}")
    dbias, dvar = opt.slopes
    if dbias >= dvar:
        return (f"bias-limited: interior optimum h* = {pos:.2g} x the stability edge; beyond it the {which} bias^2 "
                f"grows faster than the variance falls {split}")
    return (f"variance-limited: interior optimum h* = {pos:.2g} x the stability edge; beyond it the variance grows "
            f"faster than bias^2 falls {split}")


__all__ = ["FRACTIONS", "Optimum", "Point", "Surface", "default_n_values", "explain", "optimum", "stability_edge",
           "surfaces", "time_average_at"]
