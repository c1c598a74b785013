"""Closed forms as printed in Vollmer, Zygalakis & Teh (2016), Section 2 (typed from the paper).

They are kept apart from the derivations in :mod:`theory.toy.moments` on purpose: a bug in a shared
sampler description cannot then cancel out of a check.  Symbols: A (eq. 15), E_B, V_B = Var(B) (eq. 16).
"""

import sympy as sp

from theory.symbols import EB, VB, A, h


def eq17_stationary_mean() -> sp.Expr:
    """E(theta_inf) = E(B)/A = mu_p, eq. (17)."""
    return EB / A


def eq18_stationary_variance() -> sp.Expr:
    """SGLD: Var(theta_inf) = 1/(2A - A^2 h) + h Var(B)/(2A - A^2 h), eq. (18); Euler has Var(B) = 0."""
    return 1 / (2 * A - A**2 * h) + h * VB / (2 * A - A**2 * h)


def eq19_excess_first_order() -> sp.Expr:
    """First-order excess bias of SGLD over Euler: h Var(B)/(2A), eq. (19)."""
    return h * VB / (2 * A)


def eq21_stationary_variance_msgld() -> sp.Expr:
    """mSGLD: Var(theta_inf) = 1/(2A - A^2 h) + h^2 Var(B)^2 / (4 (2A - A^2 h)), eq. (21)."""
    return 1 / (2 * A - A**2 * h) + h**2 * VB**2 / (4 * (2 * A - A**2 * h))


def euler_bias_first_order() -> sp.Expr:
    """Euler on a Gaussian: sigma_h^2 = sigma_p^2 + h/4 + O(h^2) (Section 2.1 and eq. 46; Zygalakis 2011)."""
    return h / 4
