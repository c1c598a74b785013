"""Constants of the 1-D Gaussian toy model (Vollmer, Zygalakis & Teh 2016, eqs. 11-16).

Model: theta ~ N(0, sigma0^2), x_i | theta ~ N(theta, sigma_x^2), i = 1..N.  In the workbench
convention an SGLD step on this model is (eq. 14)

    theta' = (1 - A h) theta + h B + sqrt(h) xi,   B = (N/n) sum_{j in tau} x_j / (2 sigma_x^2),

so everything the chain's first two moments need is A, E(B) and Var(B).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive
from theory import symbols as s


def A_expr() -> sp.Expr:
    """A = (1/2)(1/sigma0^2 + N/sigma_x^2), the drift coefficient of the toy's SGLD step.

    Returns
    -------
    sympy.Expr
        In the symbols sigma_0, N, sigma_x (``theory.symbols``).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (15) (:doc:`/papers/vollmer`, sec. 3).
    """
    return (1 / s.sigma0**2 + s.N / s.sigma_x**2) / 2


def var_B_expr(replace: bool) -> sp.Expr:
    """Var(B) of the toy's minibatch term: N(N - 1)/n s_X^2 / (4 sigma_x^4) with replacement, N(N - n)/n ... without.

    s_X^2 is the unbiased empirical variance of the data (the symbol VarX).

    Parameters
    ----------
    replace : bool
        With replacement or without.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (16) (:doc:`/papers/vollmer`, sec. 3).
    """
    factor = (s.N - 1) if replace else (s.N - s.n)
    return s.N * factor / s.n * s.var_x / (4 * s.sigma_x**4)


@dataclass(frozen=True)
class ToyConstants:
    """The numbers that define the toy chain for one data set, subset size and sampling scheme (eqs. (14)-(16)).

    Build with :func:`theory.toy_constants`.

    Parameters
    ----------
    A : float
        (1/2)(1/sigma0^2 + N/sigma_x^2).
    EB : float
        E(B) = sum_i x_i / (2 sigma_x^2).
    VB : float
        Var(B).
    N : int
        The number of data.
    n : int
        The subset size.
    replace : bool
        Subsets drawn with replacement or without.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (14)-(16) (:doc:`/papers/vollmer`, sec. 3).
    """

    A: float
    EB: float
    VB: float
    N: int
    n: int
    replace: bool

    @property
    def posterior_mean(self) -> float:
        """The posterior mean mu_p = E(B)/A (eq. (12))."""
        return self.EB / self.A

    @property
    def posterior_var(self) -> float:
        """The posterior variance sigma_p^2 = 1/(2A) (eq. (12))."""
        return 1.0 / (2.0 * self.A)

    def subs(self) -> dict:
        """The substitution of these numbers for the symbols A, E_B, V_B of ``theory.symbols``.

        Returns
        -------
        dict
            {A: A, E_B: EB, V_B: VB}.
        """
        return {s.A: self.A, s.EB: self.EB, s.VB: self.VB}


def check_toy_data(data) -> np.ndarray:
    """The toy model's data as a 1-D float array (an (N, 1) array is accepted).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        N >= 2 finite numbers.

    Returns
    -------
    numpy.ndarray, shape (N,)

    Raises
    ------
    ParameterError
        Unless ``data`` holds N >= 2 finite numbers of dimension 1.
    """
    x = check_finite_array("data", data, ndim=(1, 2))
    if x.ndim == 2:
        if x.shape[1] != 1:
            raise ParameterError(f"data must be 1-D for the toy model, got shape {x.shape}")
        x = x[:, 0]
    if x.size < 2:
        raise ParameterError(f"data must hold N >= 2 points, got N = {x.size}")
    return x


def toy_constants(
    data, n: int, replace: bool = False, sigma_x: float = 1.0, sigma0: float = 1.0
) -> ToyConstants:
    """A, E(B) and Var(B) for a 1-D data set, a subset size and a sampling scheme.

    n = N without replacement gives Var(B) = 0 (Euler).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data x_1..x_N, N >= 2.
    n : int
        The subset size, 1 <= n <= N.
    replace : bool, default False
        Subsets drawn with replacement or without.
    sigma_x : float, default 1.0
        The data's standard deviation, > 0.
    sigma0 : float, default 1.0
        The prior's standard deviation, > 0.

    Returns
    -------
    ToyConstants

    Raises
    ------
    ParameterError
        When the data are not N >= 2 finite numbers, or n or a scale is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (15)-(16) (:doc:`/papers/vollmer`, sec. 3).
    """
    x = check_toy_data(data)
    N = x.size
    n = check_int("n", n, 1, N)
    sigma_x = check_positive("sigma_x", sigma_x)
    sigma0 = check_positive("sigma0", sigma0)
    vals = {s.N: N, s.n: n, s.var_x: float(np.var(x, ddof=1)), s.sigma_x: sigma_x, s.sigma0: sigma0}
    A = float(A_expr().subs(vals))
    VB = float(var_B_expr(bool(replace)).subs(vals))
    EB = float(x.sum() / (2.0 * sigma_x**2))
    return ToyConstants(A=A, EB=EB, VB=VB, N=N, n=n, replace=bool(replace))
