"""One-step operator expansions of Euler, SGLD and mSGLD in 1-D (Vollmer, Zygalakis & Teh 2016, Sections 3-4).

The schemes, the notation (f = -U'/2, fhat = f + eps, V = Var fhat) and the map of the package are in
:mod:`theory.weak_order`. Here: :func:`generator` L = f d/dtheta + (1/2) d^2/dtheta^2 (eq. 25),
:func:`one_step_operators` E[phi(theta_1) | theta_0] = phi + h A_0 phi + h^2 A_1 phi + O(h^3) (eq. 33, by Taylor
expansion with the Gaussian moments of xi and symbolic moments of eps), :func:`error_operator` L^2/2 - A_1, and the
paper's printed operators (eqs. 43, 49, 50, 53) kept apart for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from simulate.validation import ParameterError, check_int
from theory.schemes import check_method
from theory.symbols import h

#: The 1-D parameter.
theta = sp.Symbol("theta", real=True)


#: Generic drift f(theta) = (1/2) d/dtheta log pi.
f_fn = sp.Function("f")


#: Generic gradient-noise variance V(theta) = Var fhat(theta).
V_fn = sp.Function("V")


#: Generic test function.
phi_fn = sp.Function("phi")


#: pi(phi), kept as a symbol until it is evaluated.
pi_phi = sp.Symbol("pi_phi", real=True)




#: Anything sympify turns into an expression in theta (a sympy expression, a number or a string).
ExprLike = sp.Expr | float | int | str


#: Highest derivative order a DiffOp is read off to (the one-step series goes to Taylor degree 2 order + 2 <= 8).
_MAX_ORDER = 12




def noise_moment(k: int) -> sp.Expr:
    """E eps^k of the gradient noise eps = fhat - f given theta: 1, 0, V(theta), then symbols m_k(theta) (new).

    Parameters
    ----------
    k : int
        The order, >= 0.

    Returns
    -------
    sympy.Expr
    """
    k = check_int("k", k, 0)
    if k == 0:
        return sp.Integer(1)
    if k == 1:
        return sp.Integer(0)
    if k == 2:
        return V_fn(theta)
    return sp.Function(f"m{k}")(theta)


@dataclass(frozen=True)
class DiffOp:
    """A linear differential operator sum_k coeffs[k] d^k/dtheta^k in 1-D, its coefficients sympy expressions.

    Operators add, subtract, scale by a scalar and apply to an expression (``op(expr)``); :meth:`compose`
    multiplies them.

    Parameters
    ----------
    coeffs : tuple of sympy.Expr
        The coefficient of d^k/dtheta^k at index k.
    """

    coeffs: tuple

    @staticmethod
    def from_expr(expr: sp.Expr, fn: sp.FunctionClass = phi_fn) -> DiffOp:
        """The operator read off ``expr``, an expression linear in fn(theta) and its derivatives (new).

        Parameters
        ----------
        expr : sympy.Expr
            Linear in fn(theta) and its derivatives up to order 12.
        fn : sympy.FunctionClass, default phi_fn
            The function the operator acts on.

        Returns
        -------
        DiffOp

        Raises
        ------
        ParameterError
            When expr is not linear in fn and its derivatives.
        """
        e = sp.expand(expr)
        out = []
        for k in range(0, _MAX_ORDER + 1):
            d = fn(theta) if k == 0 else sp.Derivative(fn(theta), (theta, k))
            out.append(sp.simplify(e.coeff(d)))
            e = sp.expand(e - out[-1] * d)
        if sp.simplify(e) != 0:
            raise ParameterError(f"expr must be linear in {fn} and its derivatives; left over: {e}")
        while len(out) > 1 and out[-1] == 0:
            out.pop()
        return DiffOp(tuple(out))

    @property
    def order(self) -> int:
        """Highest derivative order."""
        return len(self.coeffs) - 1

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        """Apply the operator to a sympy expression in theta (or to phi(theta))."""
        return sum((c * sp.diff(expr, theta, k) for k, c in enumerate(self.coeffs)), sp.Integer(0))

    def __add__(self, other: DiffOp) -> DiffOp:
        """Sum of two operators."""
        n = max(len(self.coeffs), len(other.coeffs))
        a = list(self.coeffs) + [0] * (n - len(self.coeffs))
        b = list(other.coeffs) + [0] * (n - len(other.coeffs))
        return DiffOp.from_expr(sum((x + y) * sp.diff(phi_fn(theta), theta, k)
                                    for k, (x, y) in enumerate(zip(a, b, strict=True))))

    def __mul__(self, scalar: ExprLike) -> DiffOp:
        """scalar * operator (coefficient-wise)."""
        return DiffOp(tuple(sp.simplify(scalar * c) for c in self.coeffs))

    __rmul__ = __mul__

    def __sub__(self, other: DiffOp) -> DiffOp:
        """Difference of two operators."""
        return self + (-1) * other

    def compose(self, other: DiffOp) -> DiffOp:
        """The composition self ∘ other (e.g. L∘L = L^2).

        Parameters
        ----------
        other : DiffOp
            Applied first.

        Returns
        -------
        DiffOp
        """
        return DiffOp.from_expr(self(other(phi_fn(theta))))

    def equals(self, other: DiffOp) -> bool:
        """Exact (sympy) equality of all coefficients.

        Parameters
        ----------
        other : DiffOp
            The other operator.

        Returns
        -------
        bool
        """
        d = self - other
        return all(sp.simplify(c) == 0 for c in d.coeffs)

    def concrete(self, U: sp.Expr, var_fhat: sp.Expr | float = 0) -> DiffOp:
        """The operator on a concrete target: f = -U'/2 and V = var_fhat substituted.

        Parameters
        ----------
        U : sympy.Expr
            The potential, pi ∝ exp(-U).
        var_fhat : sympy.Expr or float, default 0
            Var fhat, a number or an expression in theta.

        Returns
        -------
        DiffOp
        """
        return DiffOp(tuple(substitute(c, U, var_fhat) for c in self.coeffs))


def drift(U: sp.Expr) -> sp.Expr:
    """The drift f = (1/2) d/dtheta log pi = -U'/2 (Section 4, the notation of eq. (42)).

    Parameters
    ----------
    U : sympy.Expr or str
        The potential, an expression in :data:`theory.weak_order.theta` (other symbols allowed as parameters).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When U is not a sympy expression in theta.
    """
    return -sp.diff(_as_potential(U), theta) / 2


def substitute(expr: sp.Expr, U: sp.Expr, var_fhat: sp.Expr | float = 0) -> sp.Expr:
    """The generic f(theta), V(theta) and their derivatives replaced by -U'/2 and var_fhat (new).

    Parameters
    ----------
    expr : sympy.Expr
        An expression in f_fn, V_fn and theta.
    U : sympy.Expr
        The potential.
    var_fhat : sympy.Expr or float, default 0
        Var fhat, a number or an expression in theta.

    Returns
    -------
    sympy.Expr
    """
    fx = drift(U)
    vx = sp.sympify(var_fhat)
    e = expr.replace(f_fn, sp.Lambda(theta, fx)).replace(V_fn, sp.Lambda(theta, vx))
    return sp.simplify(e.doit())


def generator() -> DiffOp:
    """The generator L = f d/dtheta + (1/2) d^2/dtheta^2 of d theta = f dt + dW (1-D).

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (25) (:doc:`/papers/vollmer`, sec. 5).
    """
    return DiffOp((sp.Integer(0), f_fn(theta), sp.Rational(1, 2)))


@cache
def generator_squared() -> DiffOp:
    """L^2 = L∘L, derived by composition (cached).

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (28) (:doc:`/papers/vollmer`, sec. 5).
    """
    L = generator()
    return L.compose(L)


def noise_scale_squared(method: str) -> sp.Expr:
    """s^2, the variance of the injected noise s xi: h (Euler, SGLD) or h (1 - (h/2) V)^2 (mSGLD).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is unknown.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (42), (47), (51) (:doc:`/papers/vollmer`, sec. 5).
    """
    check_method(method)
    if method == "msgld":
        return h * (1 - h * V_fn(theta) / 2) ** 2
    return h


@cache
def one_step_series(method: str, order: int = 2) -> sp.Expr:
    """E[phi(theta_1) | theta_0 = theta] as a polynomial in h, truncated after h^order (eqs. 33, 49, 52; derived).

    theta_1 - theta = Delta = h (f + eps) + s xi; E phi(theta + Delta) = sum_j phi^(j) E[Delta^j] / j! with
    E xi^b the Gaussian moments and E eps^a = :func:`noise_moment` (Euler: eps = 0).  E[Delta^j] = O(h^ceil(j/2))
    because odd moments of xi vanish and s^2 = O(h), so Taylor degree 2 order + 2 is more than enough (for
    order = 2 the degree-5 and -6 terms are included and truncated away). Cached.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    order : int, default 2
        The highest power of h, 0 <= order <= 3.

    Returns
    -------
    sympy.Expr
        In h, phi(theta) and its derivatives, f, V and the noise moments m_k.

    Raises
    ------
    ParameterError
        When method is unknown.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (33), (49), (52), derived (:doc:`/papers/vollmer`, sec. 5).
    """
    check_method(method)
    order = check_int("order", order, 0, 3)
    s2 = noise_scale_squared(method)
    f = f_fn(theta)
    total = sp.Integer(0)
    for j in range(2 * order + 3):
        ed = sp.Integer(0)
        for a in range(j + 1):
            b = j - a
            if b % 2:
                continue
            gauss = sp.factorial2(b - 1) if b else 1  # E xi^b
            if method == "euler":
                drift_moment = f**a
            else:
                drift_moment = sum(sp.binomial(a, c) * f ** (a - c) * noise_moment(c) for c in range(a + 1))
            ed += sp.binomial(j, a) * h**a * s2 ** (b // 2) * gauss * drift_moment
        dphi = phi_fn(theta) if j == 0 else sp.Derivative(phi_fn(theta), (theta, j))
        total += dphi * ed / sp.factorial(j)
    series = sp.expand(total)
    return sum((series.coeff(h, p) * h**p for p in range(order + 1)), sp.Integer(0))


@cache
def one_step_operators(method: str) -> tuple[DiffOp, DiffOp]:
    """(A_0, A_1) with E[phi(theta_1) | theta_0] = phi + h A_0 phi + h^2 A_1 phi + O(h^3), derived (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    tuple of DiffOp
        (A_0, A_1).

    Raises
    ------
    ParameterError
        When method is unknown.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (33) (:doc:`/papers/vollmer`, sec. 5).
    """
    series = one_step_series(method)
    if sp.simplify(series.coeff(h, 0) - phi_fn(theta)) != 0:
        raise AssertionError("the h^0 term of the one-step expansion must be phi")
    return DiffOp.from_expr(series.coeff(h, 1)), DiffOp.from_expr(series.coeff(h, 2))


@cache
def error_operator(method: str) -> DiffOp:
    """L^2/2 - A_1, the local weak error operator with p = 1, derived (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    DiffOp

    Raises
    ------
    ParameterError
        When method is unknown.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (35); compare the printed eqs. (50) and (53) (:doc:`/papers/vollmer`,
    sec. 5).
    """
    _, A1 = one_step_operators(method)
    return generator_squared() * sp.Rational(1, 2) - A1


def eq43_euler_A1() -> DiffOp:
    """Euler's A_1 psi = (1/2) f^2 psi'' + (1/2) f psi''' + (1/8) psi'''' as printed (1-D, the f restored).

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (43) (:doc:`/papers/vollmer`, sec. 5).
    """
    f = f_fn(theta)
    return DiffOp((0, 0, f**2 / 2, f / 2, sp.Rational(1, 8)))


def eq49_sgld_A1() -> DiffOp:
    """SGLD's A_1 phi = (1/2)(E fhat^2 phi'' + f phi''' + phi''''/4), E fhat^2 = f^2 + Var fhat, as printed.

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (49) (:doc:`/papers/vollmer`, sec. 5).
    """
    f, V = f_fn(theta), V_fn(theta)
    return DiffOp((0, 0, (f**2 + V) / 2, f / 2, sp.Rational(1, 8)))


def eq52_msgld_A1() -> DiffOp:
    """mSGLD's A_1 phi = (1/2)([E fhat^2 - Var fhat] phi'' + f phi''' + phi''''/4), as printed.

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (52) (:doc:`/papers/vollmer`, sec. 5).
    """
    f = f_fn(theta)
    return DiffOp((0, 0, f**2 / 2, f / 2, sp.Rational(1, 8)))


def eq50_sgld_error_operator() -> DiffOp:
    """SGLD's L^2/2 - A_1 = (1/2)(f f' + f''/2) d/dtheta + (1/2)(f' - Var fhat) d^2/dtheta^2, as printed.

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (50) (:doc:`/papers/vollmer`, sec. 5).
    """
    f, V = f_fn(theta), V_fn(theta)
    fp, fpp = sp.diff(f, theta), sp.diff(f, theta, 2)
    return DiffOp((0, (f * fp + fpp / 2) / 2, (fp - V) / 2))


def eq53_msgld_error_operator() -> DiffOp:
    """mSGLD's L^2/2 - A_1 = (1/2)(f f' + f''/2) d/dtheta + (1/2) f' d^2/dtheta^2, as printed (Euler's too).

    Returns
    -------
    DiffOp

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (53) (:doc:`/papers/vollmer`, sec. 5).
    """
    f = f_fn(theta)
    fp, fpp = sp.diff(f, theta), sp.diff(f, theta, 2)
    return DiffOp((0, (f * fp + fpp / 2) / 2, fp / 2))


def printed_error_operator(method: str) -> DiffOp:
    """The paper's error operator of ``method``: eq. (50) for SGLD, eq. (53) for mSGLD and Euler.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    DiffOp

    Raises
    ------
    ParameterError
        When method is unknown.
    """
    return eq50_sgld_error_operator() if check_method(method) == "sgld" else eq53_msgld_error_operator()


def _as_potential(U: ExprLike) -> sp.Expr:
    """U as a sympy expression in theta (other symbols allowed as parameters); ParameterError otherwise."""
    try:
        e = sp.sympify(U)
    except (sp.SympifyError, TypeError):
        raise ParameterError(f"U must be a sympy expression in theta, got {U!r}") from None
    if not isinstance(e, sp.Expr) or not e.free_symbols <= {theta} | _parameter_symbols(e):
        raise ParameterError(f"U must be a sympy expression in theta, got {U!r}")
    return e


def _parameter_symbols(e: sp.Expr) -> set:
    """Free symbols of ``e`` other than theta."""
    return {s for s in e.free_symbols if s != theta}
