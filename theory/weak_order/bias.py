"""The leading invariant-measure bias in 1-D (Vollmer, Zygalakis & Teh 2016, Theorem 3.3 = JMLR Theorem 6,
eqs. 40-41), and reference values at finite h.

The schemes, the notation and the map of the package are in :mod:`theory.weak_order`. Here:
:func:`leading_bias_coefficient` gives c1 in lim_K (1/K) sum_k phi(theta_k) - pi(phi) = c1 h + O(h^2) by the
Poisson equation (c1 = -lambda_1 = pi((L^2/2 - A_1) psi) with L psi = phi - pi(phi); numerically or symbolically),
:func:`leading_bias_coefficient_direct` a second route, and :func:`invariant_expectation` pi_h(phi) of the discrete
chain itself (Gaussian gradient noise) by a Nystrom discretisation of its transition kernel (new).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np
import sympy as sp
from scipy import integrate as spi

from simulate.validation import ParameterError, check_int, check_positive
from theory.schemes import check_method
from theory.weak_order.operators import (
    ExprLike,
    _as_potential,
    _parameter_symbols,
    drift,
    error_operator,
    pi_phi,
    theta,
)


@dataclass(frozen=True)
class BiasDensity:
    """The leading bias as one pi-expectation: c1 = pi(w), w = alpha - 2 B (phi - pi(phi)) (new).

    See :func:`theory.weak_order.bias.bias_density`; the expressions contain the symbol
    :data:`theory.weak_order.pi_phi`.

    Parameters
    ----------
    alpha : sympy.Expr
        The part of E psi free of psi'.
    beta : sympy.Expr
        The coefficient of psi' in E psi.
    B : sympy.Expr
        An antiderivative of beta.
    w : sympy.Expr
        alpha - 2 B (phi - pi(phi)).
    """

    alpha: sp.Expr
    beta: sp.Expr
    B: sp.Expr
    w: sp.Expr


def bias_density(U: ExprLike, phi: ExprLike, method: str, var_fhat: ExprLike = 0) -> BiasDensity:
    """Reduce pi((L^2/2 - A_1) psi), L psi = phi - pi(phi), to pi(w) with w free of psi (new; 1-D).

    Write E = L^2/2 - A_1 = sum_k a_k d^k.  The Poisson equation gives psi'' = 2 (phibar - f psi') with
    phibar = phi - pi(phi); differentiating, psi^(k) = alpha_k + beta_k psi' with alpha_1 = 0, beta_1 = 1,
    alpha_{k+1} = alpha_k' + 2 beta_k phibar, beta_{k+1} = beta_k' - 2 f beta_k.  So E psi = alpha + beta psi'.
    In 1-D pi psi' = 2 F, F(theta) = int_{-inf}^theta phibar pi ds (F -> 0 at both ends since pi(phibar) = 0), and
    integrating by parts with B' = beta,  int beta pi psi' = 2 int beta F = -2 int B phibar pi.  Hence
    c1 = pi(alpha - 2 B phibar) (any antiderivative B: pi(phibar) = 0 removes the constant).

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    method : {"euler", "sgld", "msgld"}
        The scheme.
    var_fhat : sympy.Expr or float, default 0
        Var fhat = Var(g)/4: a number, a symbol or an expression in theta.

    Returns
    -------
    BiasDensity

    Raises
    ------
    ParameterError
        When U is not an expression in theta, method is unknown, or sympy cannot integrate beta.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 3.3 (JMLR Theorem 6), eqs. (40)-(41) (:doc:`/papers/vollmer`, sec. 5).
    """
    U = _as_potential(U)
    phi = sp.sympify(phi)
    E = error_operator(check_method(method)).concrete(U, var_fhat)
    if E.coeffs[0] != 0:
        raise AssertionError("the error operator must annihilate constants")
    f = drift(U)
    phibar = phi - pi_phi
    alpha_k, beta_k = sp.Integer(0), sp.Integer(1)
    alpha, beta = sp.Integer(0), sp.Integer(0)
    for k in range(1, len(E.coeffs)):
        alpha += E.coeffs[k] * alpha_k
        beta += E.coeffs[k] * beta_k
        alpha_k, beta_k = sp.diff(alpha_k, theta) + 2 * beta_k * phibar, sp.diff(beta_k, theta) - 2 * f * beta_k
    alpha, beta = sp.expand(alpha), sp.expand(beta)
    B = sp.integrate(beta, theta)
    if B.has(sp.Integral):
        raise ParameterError("could not integrate the bias density's beta symbolically; U or var_fhat too complex")
    return BiasDensity(alpha, beta, B, sp.expand(alpha - 2 * B * phibar))


def _normalized_moment(U: sp.Expr, k: int) -> sp.Expr:
    """pi(theta^k) for pi ∝ exp(-U) in closed form: Gaussian moments for a quadratic U, Gamma-function ratios for
    U = c theta^(2n) + const, otherwise sympy's integrate over R."""
    if U.is_polynomial(theta):
        poly = sp.Poly(U, theta)
        if poly.degree() == 2:
            a2, a1 = poly.coeff_monomial(theta**2), poly.coeff_monomial(theta)
            if a2.is_number and not a2 > 0:
                raise ParameterError(f"U must be normalisable: the theta^2 coefficient must be > 0, got {a2}")
            mu, s2 = -a1 / (2 * a2), 1 / (2 * a2)
            return sp.expand(sum((sp.binomial(k, j) * mu ** (k - j) * s2 ** (j // 2) * sp.factorial2(j - 1)
                                  for j in range(0, k + 1, 2)), sp.Integer(0)))
        if [m for m in poly.monoms() if m[0] > 0] == [(poly.degree(),)] and poly.degree() % 2 == 0:
            n2, c = poly.degree(), poly.LC()
            if c.is_number and not c > 0:
                raise ParameterError(f"U must be normalisable: the leading coefficient must be > 0, got {c}")
            if k % 2:
                return sp.Integer(0)
            return sp.gamma(sp.Rational(k + 1, n2)) / (sp.gamma(sp.Rational(1, n2)) * c ** sp.Rational(k, n2))
    return sp.simplify(_integrate_symbolic(theta**k * sp.exp(-U)) / _integrate_symbolic(sp.exp(-U)))


def _integrate_symbolic(integrand: sp.Expr) -> sp.Expr:
    """int_R integrand dtheta by sympy; ParameterError if sympy returns no closed form."""
    val = sp.integrate(integrand, (theta, -sp.oo, sp.oo), conds="none")
    if val.has(sp.Integral) or val.has(sp.oo) or val is sp.nan:
        raise ParameterError("sympy could not integrate over R; use route='numeric'")
    return val


def expectation_symbolic(U: ExprLike, phi: ExprLike) -> sp.Expr:
    """pi(phi) in closed form (sympy): a polynomial phi from the target's moments, else by sympy.integrate.

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When U is not an expression in theta or sympy finds no closed form.
    """
    U = _as_potential(U)
    phi = sp.expand(sp.sympify(phi))
    if phi.is_polynomial(theta):
        poly = sp.Poly(phi, theta)
        return sp.simplify(sum((c * _normalized_moment(U, m[0]) for m, c in poly.terms()), sp.Integer(0)))
    return sp.simplify(_integrate_symbolic(phi * sp.exp(-U)) / _integrate_symbolic(sp.exp(-U)))


def leading_bias_coefficient(U: ExprLike, phi: ExprLike, method: str, var_fhat: ExprLike = 0, *, route: str = "auto",
                             params: Mapping | None = None, dps: int | None = None) -> sp.Expr | float:
    """c1 with lim_K (1/K) sum_{k<K} phi(theta_k) - pi(phi) = c1 h + O(h^2) (Theorem 3.3 = JMLR Thm. 6).

    Identity (exact, 1-D or not).  Let L psi = phi - pi(phi) (Poisson equation) and E = L^2/2 - A_1.  Then

        c1 = pi(E psi) = -pi(A_1 psi) = -int_R int_0^inf (E u)(y, t) pi(y) dt dy = -lambda_1,

    because int_0^inf (u(., t) - pi(phi)) dt = -psi for u = e^{tL} phi, E kills constants, and pi(L^2 psi) =
    pi(L phi) = 0.  So the printed (40) "bias = -lambda_p h^p" with lambda_p of (41) is right (only (46)'s extra
    minus sign is a typo; docs/papers/vollmer.md secs. 5 and 11).  OU check: Euler with phi = theta^2 gives
    lambda_1 = -1/4 and c1 = +1/4; SGLD adds +Var fhat/(2A).  Direct proof: pi_h is invariant, so pi_h(K psi - psi) = 0
    with K psi - psi = h (phi - pi phi) + h^2 A_1 psi + O(h^3), hence pi_h(phi) - pi(phi) = -h pi(A_1 psi) + O(h^2).

    The 1-D evaluation goes through :func:`bias_density` (psi' = (2/pi) int_{-inf}^theta (phi - pi phi) pi ds,
    then one integration by parts).  route: "symbolic" (sympy; exact, for U whose moments sympy integrates, e.g.
    Gaussian or quartic), "numeric" (quadrature with the normalising constant: scipy, or mpmath at ``dps``
    digits), "auto" (symbolic for a quadratic U or U = c theta^(2k), falling back to numeric; numeric otherwise, since
    sympy can be very slow on e.g. the double well).

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    method : {"euler", "sgld", "msgld"}
        The scheme.
    var_fhat : sympy.Expr or float, default 0
        Var fhat = Var(g)/4: a number, a symbol or an expression in theta.
    route : {"auto", "symbolic", "numeric"}, default "auto"
        As above.
    params : mapping, optional
        Numbers substituted for the other symbols of U (and phi, var_fhat).
    dps : int, optional
        Numeric route: quadrature in mpmath at this many digits (default: scipy in float64).

    Returns
    -------
    sympy.Expr or float
        Symbolic or numeric c1.

    Raises
    ------
    ParameterError
        When route or method is unknown, U is not an expression in theta, or the symbolic route fails.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 3.3 (JMLR Theorem 6), eqs. (40)-(41) (:doc:`/papers/vollmer`, sec. 5).
    """
    if route not in ("auto", "symbolic", "numeric"):
        raise ParameterError(f"route must be 'auto', 'symbolic' or 'numeric', got {route!r}")
    U = _as_potential(U)
    phi = sp.sympify(phi)
    var_fhat = sp.sympify(var_fhat)
    if params:
        U, phi, var_fhat = (sp.sympify(x).subs(params) for x in (U, phi, var_fhat))
    dens = bias_density(U, phi, method, var_fhat)
    if route == "symbolic" or (route == "auto" and _symbolic_friendly(U)):
        try:
            mean_phi = expectation_symbolic(U, phi)
            return sp.simplify(expectation_symbolic(U, dens.w.subs(pi_phi, mean_phi)))
        except (ParameterError, NotImplementedError):
            if route == "symbolic":
                raise
    return _leading_bias_numeric(U, phi, dens, dps)


def _symbolic_friendly(U: sp.Expr) -> bool:
    """True for U whose moments sympy integrates quickly: a quadratic (Gaussian) or c theta^(2k) + const."""
    if not U.is_polynomial(theta):
        return False
    poly = sp.Poly(U, theta)
    if poly.degree() <= 2:
        return True
    return [m for m in poly.monoms() if m[0] > 0] == [(poly.degree(),)]


def _leading_bias_numeric(U: sp.Expr, phi: sp.Expr, dens: BiasDensity, dps: int | None) -> float:
    """c1 = pi(w) by quadrature, with pi(phi) by quadrature substituted into w."""
    if _parameter_symbols(U) | _parameter_symbols(sp.sympify(phi)) | _parameter_symbols(dens.w) - {pi_phi}:
        raise ParameterError("route='numeric' needs numbers for every symbol other than theta (pass params)")
    mean_phi = expectation(U, phi, dps=dps)
    return expectation(U, dens.w.subs(pi_phi, mean_phi), dps=dps)


@dataclass(frozen=True)
class _Target:
    """Numeric form of pi ∝ exp(-U): U shifted by its minimum, and a finite range holding all the mass."""

    U: sp.Expr
    umin: float
    lo: float
    hi: float
    critical: tuple

    def region(self, cut: float) -> tuple[float, float]:
        """[a, b] = the smallest interval holding {U - Umin < cut} (found on a fine scan of [lo, hi])."""
        return _region(self.U, self.umin, self.lo, self.hi, float(cut))


@cache
def _region(U: sp.Expr, umin: float, lo: float, hi: float, cut: float) -> tuple[float, float]:
    """Cached scan behind :meth:`_Target.region`."""
    uf = sp.lambdify(theta, U - umin, modules="numpy")
    wide = np.linspace(lo, hi, 400001)
    inside = wide[np.broadcast_to(uf(wide), wide.shape) < cut]
    return float(inside[0]), float(inside[-1])


@cache
def _target(U: sp.Expr) -> _Target:
    """Critical points, minimum and a range [lo, hi] with U - Umin > 800 at both ends (cached per U)."""
    u = sp.lambdify(theta, U, modules="math")
    up = sp.lambdify(theta, sp.diff(U, theta), modules="math")
    # critical points of U (real roots of U' for polynomial U, else a coarse scan)
    dU = sp.diff(U, theta)
    crit: list[float] = []
    if dU.is_polynomial(theta) and sp.degree(dU, theta) > 0:
        roots = np.roots([float(c) for c in sp.Poly(dU, theta).all_coeffs()])
        crit = sorted({round(float(r.real), 9) for r in roots if abs(r.imag) < 1e-4})
    else:
        grid = np.linspace(-50, 50, 20001)
        vals = np.array([up(x) for x in grid])
        crit = [float(x) for x in grid[:-1][np.sign(vals[:-1]) != np.sign(vals[1:])]]
    if not crit:
        raise ParameterError("U must have a minimum (pi ∝ exp(-U) normalisable)")
    umin = min(u(x) for x in crit)

    def edge(direction: float) -> float:
        x = crit[0] if direction < 0 else crit[-1]
        step = 0.5
        for _ in range(400):
            if u(x) - umin > 800:
                return x
            x += direction * step
            step *= 1.2
        raise ParameterError("U must grow at +-infinity (pi ∝ exp(-U) normalisable)")

    return _Target(U, umin, edge(-1.0), edge(1.0), tuple(crit))


def expectation(U: ExprLike, phi: ExprLike, *, dps: int | None = None, params: Mapping | None = None) -> float:
    """pi(phi) = int phi e^{-U} / int e^{-U} by adaptive quadrature (scipy; mpmath tanh-sinh at ``dps`` digits).

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    dps : int, optional
        Digits of the mpmath route, >= 15 (default: scipy in float64).
    params : mapping, optional
        Numbers substituted for the other symbols of U (and phi, var_fhat).

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a symbol other than theta is left without a number.
    """
    U = _as_potential(U)
    phi = sp.sympify(phi)
    if params:
        U, phi = U.subs(params), phi.subs(params)
    if _parameter_symbols(U) or _parameter_symbols(phi):
        raise ParameterError("expectation needs numbers for every symbol other than theta (pass params)")
    t = _target(U)
    pts = sorted({t.lo, *t.critical, t.hi})
    if dps is None:
        uf = sp.lambdify(theta, U - t.umin, modules="math")
        pf = sp.lambdify(theta, phi, modules="math")

        def quad(g: Callable) -> float:
            return sum(spi.quad(g, a, b, epsabs=1e-14, epsrel=1e-12, limit=400)[0] for a, b in zip(pts[:-1], pts[1:],
                                                                                               strict=True))
        Z = quad(lambda x: math.exp(-uf(x)))
        return quad(lambda x: pf(x) * math.exp(-uf(x))) / Z
    dps = check_int("dps", dps, 15)
    with mpmath.workdps(dps):
        uf = sp.lambdify(theta, U - sp.Float(t.umin, dps), modules="mpmath")
        pf = sp.lambdify(theta, phi, modules="mpmath")
        Z = mpmath.quad(lambda x: mpmath.exp(-uf(x)), pts)
        return float(mpmath.quad(lambda x: pf(x) * mpmath.exp(-uf(x)), pts) / Z)


def poisson_derivative(U: ExprLike, phi: ExprLike, grid: np.ndarray, *, params: Mapping | None = None) -> np.ndarray:
    """psi'(theta) on ``grid`` for L psi = phi - pi(phi): psi' = (2/pi(theta)) int_{-inf}^theta (phi - pi phi) pi ds.

    (1-D solution of the Poisson equation; to avoid cancellation the integral is taken from the nearer end, using
    int_R (phi - pi phi) pi = 0.)  Adaptive quadrature per grid point (new).

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    grid : numpy.ndarray, shape (m,)
        The points, finite.
    params : mapping, optional
        Numbers substituted for the other symbols of U (and phi, var_fhat).

    Returns
    -------
    numpy.ndarray, shape (m,)

    Raises
    ------
    ParameterError
        When grid is not a 1-D array of finite numbers.
    """
    U = _as_potential(U)
    phi = sp.sympify(phi)
    if params:
        U, phi = U.subs(params), phi.subs(params)
    x = np.asarray(grid, dtype=np.float64)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ParameterError("grid must be a 1-D array of finite numbers")
    t = _target(U)
    mean_phi = expectation(U, phi)
    uf = sp.lambdify(theta, U - t.umin, modules="math")
    pf = sp.lambdify(theta, phi, modules="math")

    def g(s: float) -> float:
        return (pf(s) - mean_phi) * math.exp(-uf(s))

    mode = t.critical[int(np.argmin([uf(c) for c in t.critical]))]
    out = np.empty_like(x)
    with warnings.catch_warnings():
        # far in the tails F is tiny and quad reports round-off; psi' there is still accurate to ~1e-10 relative
        warnings.simplefilter("ignore", spi.IntegrationWarning)
        for i, xi in enumerate(x):
            if xi <= mode:
                F = spi.quad(g, t.lo, xi, epsabs=0.0, epsrel=1e-12, limit=400)[0]
            else:
                F = -spi.quad(g, xi, t.hi, epsabs=0.0, epsrel=1e-12, limit=400)[0]
            out[i] = 2.0 * F / math.exp(-uf(xi))
    return out


def leading_bias_coefficient_direct(U: ExprLike, phi: ExprLike, method: str, var_fhat: ExprLike = 0, *,
                                    params: Mapping | None = None,
                                    n_grid: int = 801) -> float:
    """c1 = pi(E psi) evaluated directly: a cross-check of :func:`leading_bias_coefficient`'s route (new).

    psi' by :func:`poisson_derivative`, higher derivatives from the Poisson equation, then Gauss-Legendre
    quadrature of E psi against pi over the region U - Umin < 40.

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    method : {"euler", "sgld", "msgld"}
        The scheme.
    var_fhat : sympy.Expr or float, default 0
        Var fhat = Var(g)/4: a number, a symbol or an expression in theta.
    params : mapping, optional
        Numbers substituted for the other symbols of U (and phi, var_fhat).
    n_grid : int, default 801
        Quadrature nodes, >= 101.

    Returns
    -------
    float

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 3.3 (JMLR Theorem 6), eqs. (40)-(41) (:doc:`/papers/vollmer`, sec. 5).
    """
    U = _as_potential(U)
    phi = sp.sympify(phi)
    if params:
        U, phi, var_fhat = U.subs(params), phi.subs(params), sp.sympify(var_fhat).subs(params)
    n_grid = check_int("n_grid", n_grid, 101)
    dens = bias_density(U, phi, method, var_fhat)
    mean_phi = expectation(U, phi)
    t = _target(U)
    # the mass of pi lies well inside [lo, hi] (U - Umin > 800 there); use the region U - Umin < 40
    uf = sp.lambdify(theta, U - t.umin, modules="numpy")
    x, w = np.polynomial.legendre.leggauss(n_grid)
    a, b = t.region(40.0)
    nodes, weights = (b - a) / 2 * x + (a + b) / 2, (b - a) / 2 * w
    dpsi = poisson_derivative(U, phi, nodes)
    al = sp.lambdify(theta, dens.alpha.subs(pi_phi, mean_phi), modules="numpy")
    be = sp.lambdify(theta, dens.beta.subs(pi_phi, mean_phi), modules="numpy")
    dens_vals = np.exp(-uf(nodes))
    Z = weights @ dens_vals
    Epsi = np.broadcast_to(al(nodes), nodes.shape) + np.broadcast_to(be(nodes), nodes.shape) * dpsi
    return float(weights @ (Epsi * dens_vals) / Z)


def asymptotic_variance(U: ExprLike, phi: ExprLike, *, params: Mapping | None = None, n_grid: int = 201) -> float:
    """sigma^2 = lim_T T Var((1/T) int_0^T phi(theta_t) dt) = 2 int_0^inf Cov_pi(phi(theta_0), phi(theta_t)) dt
    = pi(psi'^2) for the diffusion d theta = f dt + dW (new; Dirichlet form -pi(psi L psi) = pi(psi'^2)/2).

    A time average over T = K h time units of a chain with small h then has variance ~ sigma^2 / T.  Evaluated by
    Gauss-Legendre quadrature over U - Umin < 40 with psi' from :func:`poisson_derivative`.

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, pi ∝ exp(-U), an expression in theta (other symbols need ``params``).
    phi : sympy.Expr or str
        The test function, an expression in theta.
    params : mapping, optional
        Numbers substituted for the other symbols of U (and phi, var_fhat).
    n_grid : int, default 201
        Quadrature nodes, >= 21.

    Returns
    -------
    float
    """
    U = _as_potential(U)
    phi = sp.sympify(phi)
    if params:
        U, phi = U.subs(params), phi.subs(params)
    n_grid = check_int("n_grid", n_grid, 21)
    t = _target(U)
    a, b = t.region(40.0)
    x, w = np.polynomial.legendre.leggauss(n_grid)
    nodes, weights = (b - a) / 2 * x + (a + b) / 2, (b - a) / 2 * w
    uf = sp.lambdify(theta, U - t.umin, modules="numpy")
    dens = weights * np.exp(-np.broadcast_to(uf(nodes), nodes.shape))
    dpsi = poisson_derivative(U, phi, nodes)
    return float(dens @ dpsi**2 / dens.sum())


def step_variance(method: str, h_val: float, var_g: float | np.ndarray) -> float | np.ndarray:
    """The conditional variance of theta_1 given theta_0, with Gaussian gradient noise of variance var_g (new).

    Euler h; SGLD h + h^2 var_g / 4; mSGLD h (1 - h var_g / 8)^2 + h^2 var_g / 4 (eqs. (42), (47), (51) with
    Var fhat = var_g / 4).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    h_val : float
        The step size, > 0.
    var_g : float or numpy.ndarray
        Var g, >= 0 (an array for a variance that depends on theta).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ParameterError
        When method is unknown, h is not positive or var_g is negative or not finite.
    """
    check_method(method)
    h_val = check_positive("h", h_val)
    v = np.asarray(var_g, dtype=np.float64)
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise ParameterError("var_g must be finite and >= 0")
    if method == "euler":
        return h_val + 0.0 * v
    s2 = h_val * (1.0 - h_val * v / 8.0) ** 2 if method == "msgld" else h_val
    return s2 + h_val**2 * v / 4.0


def invariant_expectation(U: ExprLike, phis: list, method: str, h_val: float, var_g: ExprLike = 0.0, *,
                          n_grid: int | None = None,
                          params: Mapping | None = None) -> np.ndarray:
    """pi_h(phi) of the discrete chain itself: Euler, SGLD or mSGLD with Gaussian gradient noise on pi ∝ exp(-U).

    These are the stationary expectations of :func:`theory.grid_law` for the sampler
    ``Sampler(PotentialModel(U), FullGradient() or AdditiveNoise(var_g), Langevin() or ModifiedLangevin(), h)``
    (one implementation: the grid law's Fourier-Nystrom discretisation, to tol 1e-11). With Gaussian gradient noise
    one step of Euler, SGLD and mSGLD is exactly Gaussian. Explicit Euler on a superlinear drift is strictly
    transient (escape needs ``|theta| > ~2/sqrt(h |U'''|)``, probability ~ exp(-U there)); this is the
    quasi-stationary law on the grid.

    Parameters
    ----------
    U : sympy.Expr or str
        The potential.
    phis : list of sympy.Expr
        The test functions.
    method : {"euler", "sgld", "msgld"}
        The scheme.
    h_val : float
        The step size, > 0.
    var_g : sympy.Expr or float, default 0.0
        Var g, a number or an expression in theta.
    n_grid : int, optional
        Fixes the grid law's number of nodes (default: chosen by the grid law to reach its tolerance).
    params : mapping, optional
        Numbers substituted for other symbols.

    Returns
    -------
    numpy.ndarray, shape (len(phis),)

    Raises
    ------
    ParameterError
        When h is not positive or the grid is too coarse for h.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 3 (the invariant measure of the numerical scheme); the grid law's
    derivation: :doc:`/grid_law`.
    """
    from simulate import FullGradient, Langevin, ModifiedLangevin, Sampler
    from simulate.estimators.additive_noise import AdditiveNoise
    from simulate.models.potentials import PotentialModel, compile_expr

    from ..grid import grid_law

    U = _as_potential(U)
    phis = [sp.sympify(p) for p in phis]
    var_g = sp.sympify(var_g)
    if params:
        U, var_g = U.subs(params), var_g.subs(params)
        phis = [p.subs(params) for p in phis]
    check_method(method)
    h_val = check_positive("h", h_val)
    model = PotentialModel(U)
    est = FullGradient() if method == "euler" else AdditiveNoise(var_g)
    integ = ModifiedLangevin() if method == "msgld" else Langevin()
    law = grid_law(Sampler(model, est, integ, h_val), tol=1e-11, n_grid=n_grid)
    fns = [compile_expr(p) for p in phis]
    return np.array([float(law.stationary_expectation(lambda x, c=c: c(x)[:, 0]).value) for c in fns])
