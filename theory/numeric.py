"""Numeric evaluation of the symbolic results: numpy callables (lambdify) and mpmath at high precision."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from theory.symbols import EB, VB, A, h, k, m0, v0

#: Argument order of every lambdified toy-model expression.
TOY_ARGS = (A, EB, VB, h, k, m0, v0)


@cache
def lambdify_toy(expr: sp.Expr, modules: str = "numpy") -> Callable:
    """A toy-model expression as a function f(A, E_B, V_B, h, k, m_0, v_0), cached per expression.

    Parameters
    ----------
    expr : sympy.Expr
        An expression in the toy's symbols (``TOY_ARGS``: A, E_B, V_B, h, k, m_0, v_0).
    modules : str, default "numpy"
        ``sympy.lambdify``'s modules: "numpy" (vectorised over arrays) or "mpmath".

    Returns
    -------
    callable
        ``f(A, E_B, V_B, h, k, m_0, v_0)``.
    """
    return sp.lambdify(TOY_ARGS, expr, modules=modules)


def evaluate_mp(expr: sp.Expr, values: dict, dps: int = 50) -> mpmath.mpf:
    """A toy-model expression evaluated with mpmath at ``dps`` decimal digits.

    Parameters
    ----------
    expr : sympy.Expr
        An expression in the toy's symbols (``TOY_ARGS``: A, E_B, V_B, h, k, m_0, v_0).
    values : dict
        Symbol -> number; a symbol missing from it is 0.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    mpmath.mpf
    """
    f = lambdify_toy(expr, modules="mpmath")
    with mpmath.workdps(dps):
        args = [mpmath.mpf(values.get(s, 0)) if not isinstance(values.get(s, 0), mpmath.mpf)
                else values[s] for s in TOY_ARGS]
        return +f(*args)


def as_array(value) -> np.ndarray:
    """``value`` as a float64 array.

    Parameters
    ----------
    value : array_like
        Numbers.

    Returns
    -------
    numpy.ndarray
    """
    return np.asarray(value, dtype=np.float64)
