"""1-D targets pi ∝ exp(-U(theta)) given by a sympy potential (new).

``PotentialModel(U)`` is a :class:`simulate.Model` with ``dim = 1`` whose ``grad_log_post`` is -U'(theta)
(lambdified; polynomial U is evaluated by Horner's rule in place).  With
:class:`simulate.AdditiveNoise` (``AdditiveNoise(V)``), which returns
g = grad log pi(theta) + sqrt(V(theta)) N(0, 1), an unbiased gradient estimate with exact variance V, so that
(Vollmer, Zygalakis & Teh 2016, Section 4, fhat = g/2 and Var fhat = V/4)

    Sampler(model, FullGradient(),   Langevin(),         h)   is Euler (eq. 42),
    Sampler(model, AdditiveNoise(V), Langevin(),         h)   is SGLD with Var fhat = V/4 (eq. 47),
    Sampler(model, AdditiveNoise(V), ModifiedLangevin(), h)   is mSGLD (eq. 51/54).

Explicit Euler on a superlinear drift (U growing faster than theta^2) is not stable for every start: start chains
from the target (:meth:`PotentialModel.sample_target`) and keep h well below :meth:`PotentialModel.max_stable_step`
of the region that holds the mass.  Non-finite states raise :class:`ChainDivergedError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from scipy import integrate as spi

from ..validation import ChainDivergedError, ParameterError, check_int, check_positive
from .base import ModelBase

#: The parameter symbol of every potential (the same symbol as theory.weak_order.theta).
theta = sp.Symbol("theta", real=True)


def _as_expr(name: str, value: sp.Expr | float | str) -> sp.Expr:
    """``value`` as a sympy expression in theta only; ParameterError naming ``name`` otherwise."""
    try:
        e = sp.sympify(value)
    except (sp.SympifyError, TypeError):
        raise ParameterError(f"{name} must be a sympy expression in theta, got {value!r}") from None
    if not isinstance(e, sp.Expr) or not e.free_symbols <= {theta}:
        raise ParameterError(f"{name} must be a sympy expression in theta only (other symbols: substitute "
                             f"numbers first), got {value!r}")
    return e


def _horner(coeffs: list[float]) -> Callable[[np.ndarray], np.ndarray]:
    """In-place Horner evaluation of sum_k coeffs[k] x^k (coeffs[0] the constant term), zero terms skipped."""
    c = [float(x) for x in coeffs]
    while len(c) > 1 and c[-1] == 0.0:
        c.pop()
    deg = len(c) - 1

    def ev(x: np.ndarray) -> np.ndarray:
        if deg == 0:
            return np.full_like(x, c[0])
        out = x * c[deg] if c[deg] != 1.0 else x.copy()
        for k in range(deg - 1, -1, -1):
            if c[k] != 0.0:
                out += c[k]
            if k > 0:
                out *= x
        return out

    return ev


def compile_expr(expr: sp.Expr) -> Callable[[np.ndarray], np.ndarray]:
    """A numpy callable x -> expr(x) of the same shape as x (new).

    Polynomials are evaluated by Horner's rule in place (in theta^2 for an even polynomial), anything else through
    ``sympy.lambdify``.

    Parameters
    ----------
    expr : sympy.Expr or float or str
        An expression in the symbol :data:`theta` only.

    Returns
    -------
    callable
        ``f(x: numpy.ndarray) -> numpy.ndarray``.

    Raises
    ------
    ParameterError
        When expr is not a sympy expression in theta only.
    """
    expr = _as_expr("expr", expr)
    if expr.is_polynomial(theta):
        coeffs = [float(c) for c in (sp.Poly(expr, theta).all_coeffs()[::-1] if expr.has(theta) else [expr])]
        if len(coeffs) > 2 and not any(coeffs[1::2]):  # even polynomial: Horner in theta^2
            ev = _horner(coeffs[0::2])
            return lambda x: ev(x * x)
        return _horner(coeffs)
    f = sp.lambdify(theta, expr, modules="numpy")
    return lambda x: np.broadcast_to(np.asarray(f(x), dtype=np.float64), np.shape(x)).copy()


@dataclass(eq=False)
class PotentialModel(ModelBase):
    """A 1-D target pi(theta) ∝ exp(-U(theta)) given by a sympy potential: a 'model' with no data (new).

    ``grad_log_post`` is -U'; theta has shape (M, 1). ``grad_lipschitz`` is ``|U''|`` when U'' is a constant
    (quadratic U), else None (the sampler then only checks h > 0; see :meth:`max_stable_step`). ``n_data = 1`` so
    that cost accounting works. Sample it with ``FullGradient()`` (Euler) or :class:`simulate.AdditiveNoise` (SGLD,
    mSGLD with a known gradient-noise variance), not with minibatches.

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, an expression in :data:`simulate.models.potentials.theta` only, with U -> +inf at both ends.
    name : str, default "potential"
        A label for messages.

    Raises
    ------
    ParameterError
        When U is not an expression in theta, does not depend on it, or does not tend to +inf at both ends.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 4, eqs. (42), (47), (51), (54): the schemes the weak-order claims run on
    such targets (:doc:`/papers/vollmer`, sec. 5).
    """

    U: sp.Expr
    name: str = "potential"
    _grad: Callable = field(init=False, repr=False)

    dim = 1
    n_data = 1
    grad_cov_is_constant = False

    def __post_init__(self) -> None:
        """Validate U (an expression in theta with U -> +inf at both ends) and compile -U', U."""
        self.U = _as_expr("U", self.U)
        dU = sp.diff(self.U, theta)
        if dU == 0:
            raise ParameterError("U must depend on theta (pi ∝ exp(-U) normalisable)")
        self.dU = dU
        self.d2U = sp.diff(dU, theta)
        self._grad = compile_expr(-dU)
        self._U = compile_expr(self.U)
        self.grad_lipschitz = float(abs(self.d2U)) if self.d2U.is_number else None
        self._grid = None
        # normalisability: U -> +inf at both ends
        for sgn in (-1, 1):
            lim = sp.limit(self.U, theta, sgn * sp.oo)
            if lim != sp.oo:
                raise ParameterError(f"U must tend to +inf as theta -> {'+' if sgn > 0 else '-'}inf, got {lim}")

    # --- gradients
    def grad_log_post(self, theta_arr: np.ndarray) -> np.ndarray:
        """The target's gradient -U'(theta).

        Parameters
        ----------
        theta_arr : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 1)

        Raises
        ------
        ChainDivergedError
            On a non-finite input or output (the chain diverged).
        """
        g = self._grad(theta_arr)
        if not math.isfinite(float(g.sum())):
            raise ChainDivergedError(
                f"non-finite theta or gradient in potential model {self.name!r} (U = {self.U}): the chain "
                "diverged; reduce the step size h (0 < h < max_stable_step(R) for the region |theta| < R that "
                "holds the target's mass) and start the chains from the target")
        return g

    def grad_log_prior(self, theta_arr: np.ndarray) -> np.ndarray:
        """The whole target is the 'prior' of a model without data: -U'(theta), as :meth:`grad_log_post`.

        Parameters
        ----------
        theta_arr : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 1)
        """
        return self.grad_log_post(theta_arr)

    def grad_log_lik(self, theta_arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Not defined: the model has no data.

        Parameters
        ----------
        theta_arr : numpy.ndarray, shape (M, 1)
            One point per chain.
        idx : numpy.ndarray
            Ignored.

        Raises
        ------
        ParameterError
            Always (use FullGradient or AdditiveNoise, not a minibatch estimator).
        """
        raise ParameterError("a PotentialModel has no data: use FullGradient or AdditiveNoise, not Minibatch")

    def grad_log_lik_full(self, theta_arr: np.ndarray) -> np.ndarray:
        """Zero: there are no data terms.

        Parameters
        ----------
        theta_arr : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 1)
        """
        return np.zeros_like(theta_arr)

    def per_datum_grad_cov(self, theta_arr: np.ndarray | None = None) -> np.ndarray:
        """Not defined: the model has no data.

        Parameters
        ----------
        theta_arr : numpy.ndarray, optional
            Ignored.

        Raises
        ------
        ParameterError
            Always (use FullGradient or AdditiveNoise, not a minibatch estimator).
        """
        raise ParameterError("a PotentialModel has no data: use FullGradient or AdditiveNoise, not Minibatch")

    def potential(self, theta_arr: np.ndarray) -> np.ndarray:
        """The potential U(theta), the unnormalised -log pi.

        Parameters
        ----------
        theta_arr : array_like
            Points.

        Returns
        -------
        numpy.ndarray
            Of the shape of ``theta_arr``.
        """
        return self._U(np.asarray(theta_arr, dtype=np.float64))

    # --- stability
    def max_stable_step(self, radius: float) -> float:
        """The step size below which explicit Euler is linearly stable on ``|theta| <= radius`` (new).

        ``4 / max |U''(theta)|`` over the region (on a grid of 4001 points): the sampler's h < 4/L rule with L the
        local Lipschitz constant of grad log pi.

        Parameters
        ----------
        radius : float
            The region's half-width, > 0 (choose it to hold the target's mass).

        Returns
        -------
        float
            inf when U'' vanishes on the region.

        Raises
        ------
        ParameterError
            When radius is not positive.
        """
        radius = check_positive("radius", radius)
        x = np.linspace(-radius, radius, 4001)
        d2 = compile_expr(self.d2U)(x)
        m = float(np.max(np.abs(d2)))
        return math.inf if m == 0.0 else 4.0 / m

    # --- the target
    def _cdf_grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(grid, unnormalised density, trapezoid cumulative mass) over the region U - min U < 50 (cached)."""
        if self._grid is None:
            # region where U - min U < 50 (mass outside ~ e^-50), found on a coarse scan
            x = np.linspace(-60.0, 60.0, 240001)
            u = self._U(x)
            u = u - u.min()
            inside = x[u < 50.0]
            if inside.size < 10 or inside[0] <= x[0] or inside[-1] >= x[-1]:
                raise ParameterError("U must be normalisable with its mass inside |theta| < 60")
            g = np.linspace(inside[0], inside[-1], 200001)
            u = self._U(g)
            dens = np.exp(-(u - u.min()))
            cum = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) * (0.5 * (g[1] - g[0])))])
            self._grid = (g, dens, cum)
        return self._grid

    def sample_target(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """Draws from pi by the exact inverse CDF of its piecewise-linear interpolant (new).

        The interpolant is on a 200001-point grid over the region U - min U < 50 (total-variation error about
        1e-9); the grid is built once.

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        m : int
            The number of draws, >= 1.

        Returns
        -------
        numpy.ndarray, shape (m, 1)

        Raises
        ------
        ParameterError
            When m is not a positive integer, or the target's mass is not inside ``|theta| < 60``.
        """
        m = check_int("m", m, 1)
        g, dens, cum = self._cdf_grid()
        r = rng.random(m) * cum[-1]
        j = np.clip(np.searchsorted(cum, r, side="right") - 1, 0, g.size - 2)
        dx = g[1] - g[0]
        d0 = dens[j]
        a = (dens[j + 1] - d0) / (2.0 * dx)
        c = r - cum[j]
        # solve d0 t + a t^2 = c for t in [0, dx] (numerically stable form of the quadratic root)
        t = 2.0 * c / (d0 + np.sqrt(np.maximum(d0 * d0 + 4.0 * a * c, 0.0)))
        return (g[j] + np.clip(t, 0.0, dx))[:, None]

    def expectation(self, phi: sp.Expr | Callable, epsrel: float = 1e-12) -> float:
        """The target's expectation pi(phi) by adaptive quadrature (new).

        Parameters
        ----------
        phi : sympy.Expr or callable
            An expression in theta, or a vectorised callable of a numpy array.
        epsrel : float, default 1e-12
            The quadrature's relative tolerance (on eight sub-intervals of the target's region).

        Returns
        -------
        float
        """
        g, _, _ = self._cdf_grid()
        fphi = compile_expr(phi) if not callable(phi) else phi
        umin = float(self._U(g).min())

        def num(x: float) -> float:
            return float(fphi(np.array([x]))[0]) * math.exp(umin - float(self._U(np.array([x]))[0]))

        def den(x: float) -> float:
            return math.exp(umin - float(self._U(np.array([x]))[0]))

        pts = np.linspace(g[0], g[-1], 9)
        q = lambda fn: sum(spi.quad(fn, a, b, epsabs=0.0, epsrel=epsrel, limit=200)[0]  # noqa: E731
                           for a, b in zip(pts[:-1], pts[1:], strict=True))
        return q(num) / q(den)


def quartic(quadratic: float = 0.0, scale: float = 1.0) -> PotentialModel:
    """The quartic potential U = scale (theta^4/4 + quadratic theta^2/2), a single well (new).

    Parameters
    ----------
    quadratic : float, default 0.0
        The quadratic coefficient, >= 0.
    scale : float, default 1.0
        The overall scale, > 0.

    Returns
    -------
    PotentialModel
        Named "quartic".

    Raises
    ------
    ParameterError
        When quadratic < 0 or scale <= 0.
    """
    q = float(quadratic)
    if not (math.isfinite(q) and q >= 0.0):
        raise ParameterError(f"quadratic must satisfy 0 <= quadratic < inf, got {quadratic!r}")
    s = check_positive("scale", scale)
    U = sp.nsimplify(s) * (theta**4 / 4 + sp.nsimplify(q) * theta**2 / 2)
    return PotentialModel(U, name="quartic")


def double_well(depth: float = 1.0, minimum: float = 1.0) -> PotentialModel:
    """The double well U = depth (theta^2 - minimum^2)^2 / minimum^4 (new).

    Wells at +-minimum, a barrier of height ``depth`` at 0.

    Parameters
    ----------
    depth : float, default 1.0
        The barrier's height, > 0.
    minimum : float, default 1.0
        The wells' position, > 0.

    Returns
    -------
    PotentialModel
        Named "double_well".

    Raises
    ------
    ParameterError
        When depth or minimum is not positive.
    """
    d = check_positive("depth", depth)
    a = check_positive("minimum", minimum)
    U = sp.nsimplify(d) * (theta**2 - sp.nsimplify(a) ** 2) ** 2 / sp.nsimplify(a) ** 4
    return PotentialModel(U, name="double_well")


__all__ = ["PotentialModel", "compile_expr", "double_well", "quartic",
           "theta"]
