"""Closed forms as printed in Vollmer, Zygalakis & Teh (2016), Section 2 (typed from the paper), and the stationary
variance of mSGLD as printed in eq. (9) on the toy (the scheme is the paper's, its variance derived here, new).

They are kept apart from the derivations in :mod:`theory.toy.moments` on purpose: a bug in a shared
sampler description cannot then cancel out of a check.  Symbols: A (eq. 15), E_B, V_B = Var(B) (eq. 16).

**Eq. (9) as printed** scales the noise by I - (h/2) Cov[gradhat log pi]; eqs. (20), (51), (54) by I - (h/2) Cov fhat
with fhat = gradhat log pi / 2, a factor 4 apart. On the toy (14)-(16), gradhat log pi = 2 (B_k - A theta), so eq. (9)
is theta' = (1 - A h) theta + h B + sqrt(h) (1 - 2 h Var B) xi, of stationary variance
(h^2 V + h (1 - 2 h V)^2) / (1 - (1 - A h)^2) = (1 - 3 h V + 4 h^2 V^2)/(A (2 - A h)), V = Var B: its excess over
Euler, 1/(A (2 - A h)), is -3 h V/(2A) + O(h^2), not O(h^2) as the text around eq. (9) says (eq. 21's mSGLD:
h^2 V^2/(4 A (2 - A h))).
"""

from functools import cache

import sympy as sp

from simulate.validation import ParameterError, check_positive
from theory.symbols import EB, VB, A, h


def eq17_stationary_mean() -> sp.Expr:
    """The stationary mean E(theta_inf) = E(B)/A = mu_p, as printed.

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (17) (:doc:`/papers/vollmer`, sec. 3).
    """
    return EB / A


def eq18_stationary_variance() -> sp.Expr:
    """SGLD's stationary variance 1/(2A - A^2 h) + h Var(B)/(2A - A^2 h), as printed (Euler: Var(B) = 0).

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (18) (:doc:`/papers/vollmer`, sec. 3).
    """
    return 1 / (2 * A - A**2 * h) + h * VB / (2 * A - A**2 * h)


def eq19_excess_first_order() -> sp.Expr:
    """SGLD's first-order excess bias over Euler, h Var(B)/(2A), as printed.

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (19) (:doc:`/papers/vollmer`, sec. 3).
    """
    return h * VB / (2 * A)


def eq21_stationary_variance_msgld() -> sp.Expr:
    """mSGLD's stationary variance 1/(2A - A^2 h) + h^2 Var(B)^2 / (4 (2A - A^2 h)), as printed.

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (21) (:doc:`/papers/vollmer`, sec. 3).
    """
    return 1 / (2 * A - A**2 * h) + h**2 * VB**2 / (4 * (2 * A - A**2 * h))


def euler_bias_first_order() -> sp.Expr:
    """Euler's first-order bias on a Gaussian, h/4: sigma_h^2 = sigma_p^2 + h/4 + O(h^2).

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2.1 and eq. (46); Zygalakis (2011) (:doc:`/papers/vollmer`, sec. 3).
    """
    return h / 4


@cache
def eq9_printed_stationary_variance() -> sp.Expr:
    """The stationary variance of eq. (9)'s mSGLD as printed, on the toy: (h^2 V + h (1 - 2 h V)^2)/(1 - (1 - A h)^2).

    New: the scheme is the paper's, its variance derived here (module docstring; cached).

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (9) as printed (:doc:`/papers/vollmer`, secs. 2 and 11).
    """
    a = 1 - A * h
    return sp.simplify((h**2 * VB + h * (1 - 2 * h * VB) ** 2) / (1 - a**2))


@cache
def eq9_printed_excess_series(order: int = 3) -> sp.Expr:
    """The series in h of eq. (9)'s stationary variance minus Euler's: -3 h V/(2A) + O(h^2) (new; cached).

    Parameters
    ----------
    order : int, default 3
        The series is truncated before h^order.

    Returns
    -------
    sympy.Expr
        In the symbols A, E_B, V_B, h of ``theory.symbols``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (9) as printed (:doc:`/papers/vollmer`, secs. 2 and 11).
    """
    euler = 1 / (2 * A - A**2 * h)
    return sp.series(sp.simplify(eq9_printed_stationary_variance() - euler), h, 0, order).removeO()


def eq9_printed_variance_value(A_: float, h_: float, V_: float) -> float:
    """The stationary variance of eq. (9) as printed on the toy, numerically (0 < A h < 2).

    Parameters
    ----------
    A_ : float
        A, > 0.
    h_ : float
        The step size, > 0.
    V_ : float
        Var(B).

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When A or h is not positive or A h is not in (0, 2).
    """
    A_ = check_positive("A", A_)
    h_ = check_positive("h", h_)
    V_ = float(V_)
    if not 0 < A_ * h_ < 2:
        raise ParameterError(f"A h must satisfy 0 < A h < 2 (stability), got {A_ * h_}")
    return (h_ * h_ * V_ + h_ * (1 - 2 * h_ * V_) ** 2) / (A_ * h_ * (2 - A_ * h_))
