"""``grid_law(sampler)``: the law of a simulator sampler on a model of dimension 1 or 2 (or SGHMC's phase space on a
1-D model), from its discretised one-step kernel (:mod:`.kernels`), with an error estimate on every result.

The law is computed on two grids over the same region, a fine one and a coarse one with about 0.8 times the nodes
per axis; every result is the fine grid's, and its ``error`` is the difference between the two (the discretisation
converges spectrally, so the difference bounds the fine grid's error with room to spare), plus the error bound of
the minibatch laws. The grid is chosen adaptively: the region starts as the posterior's (:mod:`.region`), is
widened while the stationary law or the one-step kernel reach its edge, and the nodes are refined until the two
grids' stationary laws agree to ``tol`` in total variation. Nothing is truncated silently: a law that still leaks
out of a region several times the posterior's is refused (the chain escapes at this h), and so is a user's grid
that is too coarse (with the smallest grid that works).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import NamedTuple

import numpy as np
from scipy.special import erfc

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive

from ..linear_gaussian.solve import blas_threads_for
from .chain import Chain
from .grid import TAPER, Grid
from .kernels import AffineStep, columns, gradient_law, step_law
from .refusal import GridRefusal
from .region import CUT, Frame, log_density, posterior_frame, posterior_masses

#: Largest widening of the posterior's region before the chain is said to escape.
MAX_WIDEN = 4.0
#: Largest number of nodes of the fine grid.
MAX_NODES = 6400
#: Largest escape per step of a law returned at the widest region (it is counted in every error).
ESCAPE_PER_STEP = 1e-6
#: A leak above this is the chain leaving the region (widen before refining).
ESCAPE = 1e-3
#: Nodes per axis of the coarse grid relative to the fine one.
COARSE = 0.85
#: A start within this many times the region's half-widths widens the grids of start-dependent results to hold it.
START_REACH = 2.5


class Result(NamedTuple):
    """A value of the law and its error estimate.

    Parameters
    ----------
    value : float or numpy.ndarray
        The fine grid's value.
    error : float
        Its error estimate: the fine-grid value minus the coarse-grid value, plus the bounds of the minibatch laws and
        the mass at the grid's edge.
    """

    value: float | np.ndarray
    error: float


class GridTimeAverage(NamedTuple):
    """The time average (1/L) sum_{k=b}^{b+L-1} f(theta_k) of a grid law.

    Parameters
    ----------
    mean, variance : float
        Its mean and variance.
    mse : float
        Its mean squared error about ``target``.
    target : float
        What the MSE is about.
    error : tuple of float
        The error estimates of (mean, variance, mse).
    """

    mean: float
    variance: float
    mse: float
    target: float
    error: tuple[float, float, float]


@dataclass
class _Level:
    grid: Grid
    chain: Chain
    bound: float
    leak: float
    window: np.ndarray | None = None


def _one_blas_thread(method: Callable) -> Callable:
    """Run ``method`` with one BLAS thread (the engine's policy, :func:`theory.linear_gaussian.solve.blas_threads_for`):
    the grid's products are many small batched matrix products, dense LUs and matrix-vector products, which two
    threads made slower on the shared 2-core machine (up to 80x for the minibatch laws' batched products)."""
    @wraps(method)
    def wrapped(*args, **kwargs):
        with blas_threads_for(2):
            return method(*args, **kwargs)
    return wrapped


def _spacing(tol: float) -> float:
    """z spacing that resolves a unit-scale density to about tol (Fourier tail exp(-kappa_max^2 / 2))."""
    return 0.75 * math.pi / math.sqrt(2.0 * math.log(1.0 / min(tol, 1e-3)))


class GridLaw:
    """The law of ``sampler`` on the grid route (module docstring); build it with :func:`grid_law`.

    Parameters
    ----------
    sampler : Sampler
        The simulator sampler (its estimator and integrator need a law on the route "grid").
    theta0 : array_like, shape (d,), optional
        The start (default 0).
    tol : float
        The target accuracy in total variation.
    n_grid : int or tuple of int, optional
        Nodes per axis of the fine grid (default: adaptive).
    region : array_like, shape (d, 2), optional
        (low, high) per coordinate (default: from the posterior).

    Raises
    ------
    ParameterError
        As :func:`grid_law`.
    """

    def __init__(self, sampler, theta0=None, *, tol: float = 1e-8, n_grid=None, region=None) -> None:
        self.sampler = sampler
        self.model = sampler.model
        self.h = float(sampler.h)
        self.tol = check_positive("tol", tol)
        d = int(self.model.dim)
        if d > 2:
            raise ParameterError(f"dimension: the grid law needs a model of dimension 1 or 2 (the grid grows like "
                                 f"n^d), got d = {d}; for affine models in any d use theory.exact_law")
        self.step: AffineStep = step_law(sampler)
        self.d, self.D = d, self.step.D
        self.theta0 = np.zeros(d) if theta0 is None else check_finite_array("theta0", theta0, ndim=(1,))
        if self.theta0.shape != (d,):
            raise ParameterError(f"theta0 must have shape ({d},), got {self.theta0.shape}")
        self._logp = log_density(self.model)
        frame = self._frame(region)
        sizes = None if n_grid is None else self._sizes(n_grid)
        self.fine, self.coarse = self._adapt(frame, sizes)

    # ------------------------------------------------------------------ construction
    def _frame(self, region) -> Frame:
        if region is None:
            f = posterior_frame(self.model, self._cut)
        else:
            r = check_finite_array("region", region, ndim=(2,))
            if r.shape != (self.d, 2) or np.any(r[:, 1] <= r[:, 0]):
                raise ParameterError(f"region must be ({self.d}, 2) rows (low, high) with low < high, got {r.tolist()}")
            c, w = r.mean(axis=1), (r[:, 1] - r[:, 0]) / 2
            f = Frame(c, np.diag(w / 8.0), np.full(self.d, 8.0))
        if self.D == self.d:
            return f
        sv = math.sqrt(max(self.h * getattr(self.sampler.integrator, "temperature", 1.0), 1e-300))
        return Frame(np.append(f.centre, 0.0), np.diag([f.frame[0, 0], sv]),
                     np.append(f.half, math.sqrt(2 * CUT) + TAPER + 0.5))

    def _sizes(self, n_grid) -> tuple[int, ...]:
        vals = (n_grid,) * self.D if np.ndim(n_grid) == 0 else tuple(n_grid)
        if len(vals) != self.D:
            raise ParameterError(f"n_grid must be an int or {self.D} ints, got {n_grid!r}")
        sizes = tuple(check_int("n_grid", int(v) if isinstance(v, np.integer) else v, 10, MAX_NODES) for v in vals)
        if math.prod(sizes) > MAX_NODES:
            raise ParameterError(f"n_grid = {sizes} has {math.prod(sizes)} nodes; the grid law allows at most "
                                 f"{MAX_NODES} (give fewer per axis)")
        return sizes

    @_one_blas_thread
    def _level(self, grid: Grid, ramp: float | None = None) -> _Level:
        start_ok = ramp is not None and bool(grid.inside(self._x0, ramp + TAPER)[0])
        cols = columns(grid, self.step, self.sampler, grid.points)
        # probability that one step from each node leaves the box (Gaussian tails of the kernel's first two moments)
        lo = np.asarray(grid.half) + cols.mean_z
        hi = np.asarray(grid.half) - cols.mean_z
        sd = np.maximum(cols.sd_z, 1e-300)
        out = np.minimum(0.5 * (erfc(lo / (sd * math.sqrt(2))) + erfc(hi / (sd * math.sqrt(2)))).sum(axis=1), 1.0)
        # a node whose step lands, on average, outside the box (an explicit step overshooting on a superlinear drift)
        # would wrap around the periodic grid and could trap mass in spurious cycles: its mass is killed instead
        # (the law has none there at a confined h; the leak below counts what such nodes hold)
        escaping = np.any(np.abs(cols.mean_z) > np.asarray(grid.half), axis=1)
        if np.any(escaping):
            cols.T[:, escaping] = 0.0
        start = None
        if start_ok:
            start = columns(grid, self.step, self.sampler, self._x0, self.step.v0_var).T[:, 0]
        window = None if ramp is None else grid.taper(ramp, self.tol)
        # on the widened grids the chain is killed in the ramp (T diag(w)): backward iterates w (T^T v) then stay
        # smooth across the periodic seam, where the kernel's drift changes sign; the law has no mass there
        chain = Chain(cols.T if window is None else cols.T * window[None, :], start)
        leak = float(np.abs(chain.m) @ out) + grid.edge_mass(chain.m)
        return _Level(grid, chain, cols.bound, leak, window)

    @property
    def _x0(self) -> np.ndarray:
        return np.append(self.theta0, [0.0] * (self.D - self.d))[None, :]

    @cached_property
    def _transient(self) -> tuple[_Level, _Level]:
        """The fine and coarse levels widened by the ramp of the test functions' window (same spacing), with the
        start: what expectations after k steps and time averages use (module docstring of :mod:`.grid`)."""
        out = []
        for lv in (self.fine, self.coarse):
            ramp = lv.grid.ramp_width(self.tol)
            z0 = np.abs(lv.grid.to_z(self._x0)[0])
            half = np.asarray(lv.grid.half)
            if np.all(z0 <= START_REACH * half):  # a start not far outside the region: widen the box to hold it
                half = np.maximum(half, z0 + TAPER + 1.0)
            half = half + ramp
            sizes = tuple(2 * math.ceil(n * h2 / h1 / 2) for n, h1, h2 in zip(lv.grid.sizes, lv.grid.half, half,
                                                                              strict=True))
            out.append(self._level(Grid(lv.grid.centre, lv.grid.frame, half, sizes), ramp))
        return out[0], out[1]

    @_one_blas_thread
    def _adapt(self, frame: Frame, sizes) -> tuple[_Level, _Level]:
        dz = _spacing(self.tol)
        half = np.asarray(frame.half, float)
        if sizes is None:
            sizes = tuple(max(8, 2 * math.ceil(hj / dz)) for hj in half)
        grid = Grid(frame.centre, frame.frame, half, sizes)
        widened = 1.0 if self._user_sizes else self._noise_widening(grid)
        if widened > 1.0 and grid.widened(widened).n_nodes <= MAX_NODES:
            grid = grid.widened(widened)
        else:  # a widened first region past the node limit: start from the posterior's and widen only on a leak
            widened = 1.0
        for _ in range(12):
            if grid.n_nodes > MAX_NODES:
                raise GridRefusal(f"n_grid: the grid law would need {grid.sizes} nodes (more than {MAX_NODES}) to "
                                  f"reach tol = {self.tol:g}; loosen tol or give a smaller region")
            fine = self._level(grid)
            # a large leak is the chain leaving the region: widen (a small one may be discretisation noise: refine
            # first, then widen if it stays)
            coarse = None if fine.leak > ESCAPE and not self._user_sizes else self._level(grid.refined(COARSE))
            gap = math.inf if coarse is None else float(
                np.abs(coarse.grid.interpolate(coarse.chain.m, grid) - fine.chain.m).sum())
            if coarse is not None and gap > self.tol:
                if self._user_sizes:
                    raise ParameterError(f"n_grid = {grid.sizes} is too coarse for this law (fine and coarse grids "
                                         f"differ by {gap:.2g} > tol = {self.tol:g} in total variation); the smallest "
                                         f"grid that works is n_grid = {self._smallest_ok(grid)}")
                grid = grid.refined(1.2)
                continue
            if fine.leak > 0.1 * self.tol:
                if self._user_sizes:
                    raise ParameterError(f"n_grid = {grid.sizes}: the law reaches the edge of the grid's region (mass "
                                         f"{fine.leak:.2g} > tol/10 there); give a wider region or leave n_grid to the "
                                         "adaptive choice")
                if widened * 1.3 > MAX_WIDEN and fine.leak <= ESCAPE_PER_STEP:
                    # explicit steps on a superlinear drift are transient: a quasi-stationary law whose escape per
                    # step is below ESCAPE_PER_STEP is returned with that escape counted in every error
                    coarse = coarse or self._level(grid.refined(COARSE))
                    return fine, coarse
                if widened * 1.3 > MAX_WIDEN:
                    raise GridRefusal(
                        f"h = {self.h:g}: the chain escapes the grid's region (mass {fine.leak:.2g} per step leaves "
                        f"a region {widened:.1f} times the posterior's); the law is not confined at this h (explicit "
                        "steps on a superlinear drift are transient): reduce h")
                grid, widened = grid.widened(1.3), widened * 1.3
                continue
            return fine, coarse
        raise GridRefusal(f"tol = {self.tol:g} not reached on grids up to {grid.sizes}; loosen tol")

    @property
    def _cut(self) -> float:
        """The posterior region's cut: log pi falls by this much from the mode at its edge."""
        return min(CUT, max(20.0, math.log(1.0 / self.tol) + 10.0))

    def _noise_widening(self, grid: Grid) -> float:
        """The first region's widening: sqrt(r log(10 / tol) / cut), r = max_j 1 + (G Cov(g) G^T)_jj / (Q_z)_jj at the
        region's centre (the gradient noise's variance per step over the injected noise's, in z), within
        [1, MAX_WIDEN / 1.3].

        A first-order step with Euler's contraction and r times its noise has a stationary law about sqrt(r) times as
        wide (the Ornstein-Uhlenbeck approximation at the mode): its log density falls by cut / r at the posterior
        region's edge, and by log(10 / tol) (a leak below tol / 10) at the widened edge. The first grid then holds
        the law instead of leaking and being discarded for one 1.3 times wider (new).
        """
        if self.D != self.d:
            return 1.0
        pos = np.asarray(grid.centre, float)[None, :]
        G = grid.frame_inv @ self.step.B
        Rz = np.einsum("ij,pjk->pik", grid.frame_inv, self.step.root(pos))[0]
        q = np.einsum("ij,ij->i", Rz, Rz)
        g = np.einsum("ij,jk,ik->i", G, gradient_law(self.sampler, pos).cov()[0], G)
        if np.any(q <= 0.0) or not np.all(np.isfinite(g)):
            return 1.0
        r = 1.0 + max(float(np.max(g / q)), 0.0)
        return float(min(max(math.sqrt(r * math.log(10.0 / self.tol) / self._cut), 1.0), MAX_WIDEN / 1.3))

    @property
    def _user_sizes(self) -> bool:
        return getattr(self, "_fixed", False)

    def _smallest_ok(self, grid: Grid) -> tuple[int, ...]:
        g = grid
        for _ in range(8):
            g = g.refined(1.3)
            if g.n_nodes > MAX_NODES:
                break
            f, c = self._level(g), self._level(g.refined(COARSE))
            if float(np.abs(c.grid.interpolate(c.chain.m, g) - f.chain.m).sum()) <= self.tol:
                return g.sizes
        return g.sizes

    # ------------------------------------------------------------------ functions on the grid
    def _values(self, level: _Level, f: Callable) -> np.ndarray:
        """f at the positions of the nodes, shape (n_nodes,) or (n_nodes, k)."""
        pts = level.grid.points[:, : self.d]
        vals = np.asarray(f(pts), dtype=float)
        if vals.shape[0] != pts.shape[0] or vals.ndim > 2:
            raise ParameterError(f"f must map theta (M, {self.d}) to shape (M,) or (M, k), got {vals.shape}")
        if not np.all(np.isfinite(vals)):
            raise ParameterError("f must be finite at every node of the grid")
        return vals

    @_one_blas_thread
    def _pair(self, fn: Callable[[_Level], np.ndarray], levels: tuple[_Level, _Level] | None = None) -> Result:
        fine, coarse = levels or (self.fine, self.coarse)
        v_f, v_c = np.asarray(fn(fine), float), np.asarray(fn(coarse), float)
        err = float(np.max(np.abs(v_f - v_c))) + fine.bound + fine.leak
        return Result(v_f[()] if v_f.ndim == 0 else v_f, err)

    # ------------------------------------------------------------------ results
    def stationary_expectation(self, f: Callable) -> Result:
        """E f(theta) under the chain's stationary law.

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) or (M, k), finite at every node of the grid.

        Returns
        -------
        Result
            The expectation, shape () or (k,), and its error estimate.

        Raises
        ------
        ParameterError
            When ``f`` returns the wrong shape or a non-finite value.
        """
        return self._pair(lambda lv: lv.chain.stationary(self._values(lv, f)))

    def expectation(self, f: Callable, k: int) -> Result:
        """E f(theta_k) after k steps from theta0 (and, for SGHMC, the integrator's momentum law).

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) or (M, k), finite at every node of the grid.
        k : int
            The number of steps, k >= 0.

        Returns
        -------
        Result
            The expectation and its error estimate (exact, error 0, at k = 0).

        Raises
        ------
        ParameterError
            When ``k`` is negative, theta0 lies outside the grid's region, or ``f`` is malformed.
        GridRefusal
            When the chain on the grid mixes too slowly for the grid route at this h.
        """
        k = check_int("k", k, 0)
        self._need_start()
        if k == 0:
            return Result(np.asarray(f(self.theta0[None, :]), float)[0], 0.0)
        return self._pair(lambda lv: lv.chain.at_step(self._values(lv, f) * _taper(lv, self._values(lv, f)), k),
                          self._transient)

    def posterior_expectation(self, f: Callable) -> Result:
        """pi(f) of the posterior itself, by cubature on the same grids (the target of the time averages).

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) or (M, k), finite at every node of the grid.

        Returns
        -------
        Result
            pi(f) and its error estimate: the two grids' difference plus the posterior's mass within a unit of the
            box's edge (the chain's leak and the minibatch laws' bounds do not enter a cubature of the posterior).

        Raises
        ------
        ParameterError
            When ``f`` returns the wrong shape or a non-finite value.
        """
        w = self._posterior_weights(self.fine)
        v_f = np.asarray(w @ self._values(self.fine, f), float)
        v_c = np.asarray(self._posterior_weights(self.coarse) @ self._values(self.coarse, f), float)
        err = float(np.max(np.abs(v_f - v_c))) + self.fine.grid.edge_mass(w)
        return Result(v_f[()] if v_f.ndim == 0 else v_f, err)

    def stationary_density(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The stationary density of the whole state on the fine grid.

        Returns
        -------
        points : numpy.ndarray
            The nodes, shape (n, D).
        density : numpy.ndarray
            The density at the nodes, shape (n,).
        error : float
            The largest difference from the coarse grid's (interpolated) density.
        """
        lv = self.fine
        dens = lv.chain.m / lv.grid.cell
        other = self.coarse.grid.interpolate(self.coarse.chain.m, lv.grid) / lv.grid.cell
        return lv.grid.points, dens, float(np.abs(dens - other).max())

    @_one_blas_thread
    def time_average(self, f: Callable, *, n_steps: int, burn_in: int = 0, target: float | None = None
                     ) -> GridTimeAverage:
        """Mean, variance and MSE of (1/L) sum_{k=b}^{b+L-1} f(theta_k) from theta0, for any L.

        Closed sums: the cost does not grow with L.

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) (scalar-valued).
        n_steps : int
            The window length L >= 1.
        burn_in : int
            The first step b >= 0 of the window.
        target : float, optional
            What the MSE is about (default pi(f), :meth:`posterior_expectation`).

        Returns
        -------
        GridTimeAverage
            The mean, variance and MSE with their error estimates.

        Raises
        ------
        ParameterError
            When ``n_steps`` or ``burn_in`` is out of range, theta0 lies outside the grid's region, or ``f`` is not
            scalar-valued.
        GridRefusal
            When the chain on the grid mixes too slowly for a time average at this h.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (7) (the time average).
        """
        L = check_int("n_steps", n_steps, 1)
        b = check_int("burn_in", burn_in, 0)
        self._need_start()
        f0 = float(np.asarray(f(self.theta0[None, :]), float).reshape(-1)[0])
        tgt = self.posterior_expectation(f) if target is None else Result(float(target), 0.0)
        out = []
        for lv in self._transient:
            vals = self._values(lv, f)
            if vals.ndim != 1:
                raise ParameterError("f must be scalar-valued ((M,) or (M, 1)) for a time average")
            mean, var = lv.chain.time_average(vals * _taper(lv, vals), f0, L, b)
            out.append((mean, var, var + (mean - float(tgt.value)) ** 2))
        (m, v, e), (mc, vc, ec) = out
        extra = self._transient[0].bound + self._transient[0].leak
        return GridTimeAverage(m, v, e, float(tgt.value),
                           (abs(m - mc) + extra, abs(v - vc) + extra,
                            abs(e - ec) + extra + 2 * abs(m - float(tgt.value)) * tgt.error + tgt.error**2))

    def time_average_mse(self, f: Callable, *, n_steps: int, burn_in: int = 0, target: float | None = None) -> Result:
        """The MSE of the time average about ``target`` (default pi(f)), with its error estimate.

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) (scalar-valued).
        n_steps : int
            The window length L >= 1.
        burn_in : int
            The first step b >= 0 of the window.
        target : float, optional
            What the MSE is about (default pi(f), :meth:`posterior_expectation`).

        Returns
        -------
        Result
            The MSE and its error estimate.

        Raises
        ------
        ParameterError
            As :meth:`time_average`.
        """
        ta = self.time_average(f, n_steps=n_steps, burn_in=burn_in, target=target)
        return Result(ta.mse, ta.error[2])

    def first_order_coefficient(self, f: Callable) -> Result:
        """c1 in pi_h(f) - pi(f) = c1 h + O(h^2) by quadrature on this law's grid (:mod:`theory.grid.bias`).

        Parameters
        ----------
        f : callable
            theta of shape (M, d) -> values of shape (M,) or (M, k), finite at every node of the grid.

        Returns
        -------
        Result
            c1 and its error estimate.

        Raises
        ------
        ParameterError
            As :func:`theory.grid.bias.first_order_coefficient`.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), Section 4 (the leading invariant-measure bias).
        """
        from .bias import first_order_coefficient

        return first_order_coefficient(self, f)

    # ------------------------------------------------------------------ helpers
    def _posterior_weights(self, lv: _Level) -> np.ndarray:
        lp = self._logp(lv.grid.points[:, : self.d])
        if self.D != self.d:  # SGHMC: weight the theta axis only (the momentum axis repeats)
            v = lv.grid.points[:, 1]
            lp = lp - 0.5 * v**2 / max(self.h, 1e-300)
        return posterior_masses(lp)

    def _need_start(self) -> None:
        if self._transient[0].chain.start is None:
            raise ParameterError(f"theta0 = {self.theta0.tolist()} lies outside the grid's region (z half-widths "
                                 f"{np.round(self.fine.grid.half, 2).tolist()} around {self.fine.grid.centre.tolist()}"
                                 f" in the frame {np.round(self.fine.grid.frame, 4).tolist()}):"
                                 " give a start inside it, or a region that holds it")

    @cached_property
    def edge(self) -> float:
        """The mass the stationary law and its one-step kernel put at the grid's edge (counted in every error)."""
        return self.fine.leak


def _taper(lv: _Level, vals: np.ndarray) -> np.ndarray:
    """The grid's smooth window, shaped to multiply ``vals``."""
    w = lv.window
    return w if vals.ndim == 1 else w[:, None]


def grid_law(sampler, theta0=None, *, tol: float = 1e-8, n_grid=None, region=None) -> GridLaw:
    """The law of a simulator sampler (the object :func:`simulate.run` takes) on a model of dimension 1 or 2, by
    discretising its one-step kernel (module docstring).

    Parameters
    ----------
    sampler : simulate.Sampler
        Any sampler whose estimator and integrator have a law on the route "grid" (:mod:`theory.laws`): Euler / SGLD
        (with or without replacement), mSGLD, SGLD-CV, SGHMC and explicit-Euler SGHMC (1-D models), additive noise.
    theta0 : array_like, shape (d,), optional
        The start (default 0, as :func:`simulate.run`); SGHMC's momentum starts from the integrator's law.
    tol : float
        Target accuracy: the fine and coarse grids' stationary laws agree to ``tol`` in total variation.
    n_grid : int or tuple of int, optional
        Nodes per axis of the fine grid (default: chosen adaptively).
    region : array_like, shape (d, 2), optional
        (low, high) per coordinate of theta (default: from the posterior).

    Returns
    -------
    GridLaw

    Raises
    ------
    ParameterError
        Dimension above 2; a grid too coarse (naming the smallest that works); a non-finite gradient; a start outside
        the region (when a start-dependent result is asked).
    GridRefusal
        A ``ParameterError`` raised where the grid route has no answer at these settings: here when the chain escapes
        the region at this h, tol is not reached, or the grid would need more than ``MAX_NODES`` nodes; by a time
        average or a k-step expectation when the chain mixes too slowly for them.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (5)-(9) (the samplers); Chen, Fox & Guestrin (2014), eq. (15) (SGHMC);
    the discretisation is new (docs/grid_law.md).
    """
    law = GridLaw.__new__(GridLaw)
    law._fixed = n_grid is not None
    GridLaw.__init__(law, sampler, theta0, tol=tol, n_grid=n_grid, region=region)
    return law


__all__ = ["GridLaw", "Result", "GridTimeAverage", "grid_law"]
