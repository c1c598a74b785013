"""Exact first two moments of Euler / SGLD / mSGLD on the 1-D Gaussian toy model, derived with sympy.

One step of every method is theta' = a theta + h B + s xi with a = 1 - A h (Vollmer et al. eq. 14), B
independent of theta with mean E_B and variance V_B (eq. 16), xi ~ N(0, 1) and

    Euler:  V_B = 0, s^2 = h;    SGLD: s^2 = h;    mSGLD (eq. 20): s = sqrt(h) (1 - h V_B / 2).

Hence (law of total variance, Section 2.1)  m_{k+1} = a m_k + h E_B,  v_{k+1} = a^2 v_k + h^2 V_B + s^2.
Everything below is derived from these two recurrences; :mod:`theory.printed.vollmer` holds the paper's
printed closed forms (eqs. 17-21), and the tests check that both agree exactly.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from theory.schemes import check_method
from theory.symbols import EB, VB, A, h, k, m0, v0


def one_step(method: str) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """One step of the scheme as theta' = a theta + (c + noise), E noise = 0, with q the variance the step adds.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    a : sympy.Expr
        1 - A h.
    c : sympy.Expr
        h E_B.
    q : sympy.Expr
        h^2 V_B + s^2 (V_B = 0 for Euler; s^2 = h, or h (1 - h V_B/2)^2 for mSGLD).

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (14), (16) and (20) (:doc:`/papers/vollmer`, sec. 3).
    """
    check_method(method)
    a = 1 - A * h
    vb = 0 if method == "euler" else VB
    s2 = h * (1 - h * VB / 2) ** 2 if method == "msgld" else h
    return a, h * EB, h**2 * vb + s2


def mean_recurrence(method: str) -> sp.Lambda:
    """The mean's one-step map m -> E theta_{k+1} given E theta_k = m.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Lambda

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (17) (:doc:`/papers/vollmer`, sec. 3).
    """
    a, c, _ = one_step(method)
    m = sp.Symbol("m")
    return sp.Lambda(m, a * m + c)


def variance_recurrence(method: str) -> sp.Lambda:
    """The variance's one-step map v -> Var theta_{k+1} given Var theta_k = v ((1 - Ah)^2 v + h + h^2 Var(B) for SGLD).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Lambda

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2.1, below eq. (17) (:doc:`/papers/vollmer`, sec. 3).
    """
    a, _, q = one_step(method)
    v = sp.Symbol("v")
    return sp.Lambda(v, a**2 * v + q)


@cache
def mean_at_step(method: str) -> sp.Expr:
    """E theta_k in closed form, from E theta_0 = m_0 (the mean's recurrence solved with sympy.rsolve; cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr
        In A, E_B, h, k, m_0.

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (17) (:doc:`/papers/vollmer`, sec. 4.1).
    """
    a, c, _ = one_step(method)
    f = sp.Function("f")
    sol = sp.rsolve(f(k + 1) - a * f(k) - c, f(k), {f(0): m0})
    return sp.simplify(sol)


@cache
def variance_at_step(method: str) -> sp.Expr:
    """Var theta_k in closed form, from Var theta_0 = v_0 (the variance's recurrence solved with sympy.rsolve; cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr
        In A, V_B, h, k, v_0.

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2.1 (:doc:`/papers/vollmer`, sec. 4.1).
    """
    a, _, q = one_step(method)
    f = sp.Function("f")
    sol = sp.rsolve(f(k + 1) - a**2 * f(k) - q, f(k), {f(0): v0})
    return sp.simplify(sol)


@cache
def toy_stationary_mean(method: str) -> sp.Expr:
    """The stationary mean, the fixed point of the mean's recurrence: E_B/A = mu_p for every h and scheme (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (17) (:doc:`/papers/vollmer`, sec. 3).
    """
    m = sp.Symbol("m")
    (sol,) = sp.solve(sp.Eq(m, mean_recurrence(method)(m)), m)
    return sp.simplify(sol)


@cache
def stationary_variance(method: str) -> sp.Expr:
    """The stationary variance, the fixed point of the variance's recurrence (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (18) (Euler, SGLD) and eq. (21) (mSGLD) (:doc:`/papers/vollmer`, sec. 3).
    """
    v = sp.Symbol("v")
    (sol,) = sp.solve(sp.Eq(v, variance_recurrence(method)(v)), v)
    return sp.simplify(sol)


def posterior_variance() -> sp.Expr:
    """The posterior variance sigma_p^2 = 1/(2A).

    Returns
    -------
    sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (12) (:doc:`/papers/vollmer`, sec. 3).
    """
    return 1 / (2 * A)


@cache
def asymptotic_bias_theta2(method: str) -> sp.Expr:
    """The asymptotic bias of phi = theta^2, lim_k E theta_k^2 - E_pi theta^2 = Var_inf - sigma_p^2 (the mean is exact).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (8), (17) and (18) (:doc:`/papers/vollmer`, sec. 3).
    """
    return sp.simplify(stationary_variance(method) - posterior_variance())


@cache
def excess_over_euler(method: str) -> sp.Expr:
    """Var_inf(method) - Var_inf(Euler): the part of the stationary bias due to the gradient noise (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (19) and (21) (:doc:`/papers/vollmer`, sec. 3).
    """
    return sp.simplify(stationary_variance(method) - stationary_variance("euler"))


def bias_series(method: str, order: int = 2, expr: sp.Expr | None = None) -> sp.Expr:
    """The Taylor polynomial in h, up to h^order, of the theta^2 bias (default) or of ``expr``.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (used when ``expr`` is None).
    order : int, default 2
        The highest power of h.
    expr : sympy.Expr, optional
        Another expression in h to expand.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.
    """
    e = asymptotic_bias_theta2(method) if expr is None else expr
    return sp.expand(sp.series(e, h, 0, order + 1).removeO())


@cache
def toy_leading_bias_coefficient(method: str) -> sp.Expr:
    """c_1 in the theta^2 bias c_1 h + O(h^2): 1/4 for Euler and mSGLD, 1/4 + V_B/(2A) for SGLD (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (19) (:doc:`/papers/vollmer`, sec. 3).
    """
    return sp.simplify(sp.diff(asymptotic_bias_theta2(method), h).subs(h, 0))


@cache
def leading_excess_order(method: str) -> int:
    """The smallest p with a non-zero h^p coefficient in the excess over Euler (SGLD: 1, mSGLD: 2; cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme (:data:`theory.schemes.METHODS`).

    Returns
    -------
    int
        p in 1..5; 0 when none is found (Euler).

    Raises
    ------
    ParameterError
        When method is not one of the three.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (19) and (21) (:doc:`/papers/vollmer`, sec. 3).
    """
    e = excess_over_euler(method)
    for p in range(1, 6):
        if sp.simplify(sp.diff(e, h, p).subs(h, 0)) != 0:
            return p
    return 0


def stability_bound() -> sp.Expr:
    """The largest h with ``|1 - A h| < 1``, so that both recurrences contract: 2/A.

    The paper restricts itself to r = A h < 1; the moments stay finite up to 2/A.

    Returns
    -------
    sympy.Expr
        2/A.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2 (:doc:`/papers/vollmer`, sec. 3).
    """
    sol = sp.solve_univariate_inequality(sp.Abs(1 - A * h) < 1, h, relational=False)
    return sol.sup
