"""The first terms of the expansion in h of the stationary mean and covariance of theta (new).

The stationary moments are rational functions of h (solutions of linear systems whose coefficients are polynomials
in h), analytic at h = 0 where they take the posterior values. Two routes give their Taylor coefficients:

* ``"sympy"`` (small states, D <= 2 by default): the kernel is built with h a sympy symbol and the data as exact
  rationals, the stationary equations are solved exactly and expanded (exact rational coefficients);
* ``"numeric"`` (states with assembled moment maps): Cauchy's integral on a circle |h| = r inside the region of
  analyticity, c_j = (1/K) sum_k S(r w^k) (r w^k)^(-j), w = exp(2 pi i/K), with the engine's own exact solve at the K
  complex step sizes (the same kernel code in complex arithmetic); aliasing error O((r/R)^K) for R the distance to the
  nearest singularity, checked by repeating at r/2.

In 1-D the h^1 coefficient of E theta^2 = Var + mean^2 is the leading invariant-measure bias of Vollmer et al.'s
Theorem 3.3 (theory.weak_order.leading_bias_coefficient; tests/test_linear_gaussian_closed_forms.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_int

from . import solve
from .assembled import ASSEMBLY_MAX_FLOPS, block_operator
from .symmetric import unpack

#: Largest state dimension for the sympy route (route="auto").
SYMPY_MAX_D = 2
#: Points on the circle of the numeric route.
CONTOUR_POINTS = 64


class Series(NamedTuple):
    """Taylor coefficients: mean[j] (d,), cov[j] (d, d) with E theta = sum_j mean[j] h^j (stationary law)."""

    mean: list
    cov: list
    route: str


def stationary_series(law, order: int = 2, route: str = "auto", phase=None) -> Series:
    """Coefficients of h^0..h^order of the stationary mean and covariance of theta (module docstring)."""
    order = check_int("order", order, 0, 8)
    p = law._phase(phase)
    p = 0 if p is None else p
    if route not in ("auto", "sympy", "numeric"):
        raise ParameterError(f"route must be 'auto', 'sympy' or 'numeric', got {route!r}")
    if route == "auto":
        route = "sympy" if law.state_dim <= SYMPY_MAX_D else "numeric"
    if not law.explicit:
        raise ParameterError(f"the h-series needs the assembled moment maps (theory.linear_gaussian.assembled; "
                             f"estimated cost at most {ASSEMBLY_MAX_FLOPS:.0e} operations); this chain has state "
                             f"dimension D = {law.state_dim} on N = {law.source.n_data} data")
    return _sympy(law, order, p) if route == "sympy" else _numeric(law, order, p)


def _exact_solution(K, phase: int, solve_lin):
    """(mean, covariance) of the whole state at ``phase`` for a kernel K in any number type, with ``solve_lin``."""
    D = K.layout.D
    Psi = solve.period_first(K, phase)
    m = solve_lin(_eye(D, K) - Psi[:D, :D], Psi[:D, D])
    P = K.period
    origins = [None] * P
    origins[phase] = m
    for j in range(P - 1):
        q = (phase + j) % P
        origins[(q + 1) % P] = (K.first_matrix(q) @ np.append(origins[q], 1))[:D]
    T, q = block_operator(K.shifted(origins), phase)
    C = unpack(solve_lin(_eye(T.shape[0], K) - T, q), D)
    return m, C


def _eye(n, K):
    from .affine import eye

    return eye(n, K.layout.dtype)


def _numeric(law, order: int, phase: int) -> Series:
    d = law.d
    lam = float(np.linalg.eigvalsh(np.linalg.inv(law.posterior_cov))[-1])
    r0 = 0.1 / lam  # well inside the singularities of S(h), which lie at |h| of order 1/lam or beyond

    def coeffs(r: float):
        w = np.exp(2j * np.pi * np.arange(CONTOUR_POINTS) / CONTOUR_POINTS)
        ms, Cs = [], []
        for hk in r * w:
            m, C = _exact_solution(law.build(hk, "complex"), phase, np.linalg.solve)
            ms.append(m[:d])
            Cs.append(C[:d, :d])
        ms, Cs = np.array(ms), np.array(Cs)
        mean = [(np.tensordot((r * w) ** (-j), ms, 1) / CONTOUR_POINTS).real for j in range(order + 1)]
        cov = [(np.tensordot((r * w) ** (-j), Cs, 1) / CONTOUR_POINTS).real for j in range(order + 1)]
        return mean, cov

    mean, cov = coeffs(r0)
    mean2, cov2 = coeffs(0.5 * r0)
    for j in range(order + 1):
        scale = max(np.abs(cov[j]).max(), np.abs(mean[j]).max(), 1e-300)
        err = max(np.abs(cov[j] - cov2[j]).max(), np.abs(mean[j] - mean2[j]).max()) / scale
        if err > 1e-6:
            raise ParameterError(f"order: the h^{j} coefficient is not resolved by the contour route (relative change "
                                 f"{err:.2g} between radii {r0:.3g} and {r0 / 2:.3g}); ask for fewer terms")
    return Series(mean, cov, "numeric")


def _sympy(law, order: int, phase: int) -> Series:
    h = sp.Symbol("h", positive=True)
    K = law.build(h, "sympy")
    d = law.d

    def solve_lin(A, b):
        return np.array(sp.Matrix(A.tolist()).LUsolve(sp.Matrix(b.tolist())), dtype=object).reshape(-1)

    m, C = _exact_solution(K, phase, solve_lin)

    def taylor(e) -> list[float]:
        s = sp.series(sp.cancel(sp.together(e)), h, 0, order + 1).removeO()
        return [float(s.coeff(h, j)) for j in range(order + 1)]

    mt = [taylor(m[i]) for i in range(d)]
    Ct = [[taylor(C[i, j]) for j in range(d)] for i in range(d)]
    mean = [np.array([mt[i][j] for i in range(d)]) for j in range(order + 1)]
    cov = [np.array([[Ct[i][k][j] for k in range(d)] for i in range(d)]) for j in range(order + 1)]
    return Series(mean, cov, "sympy")


__all__ = ["CONTOUR_POINTS", "SYMPY_MAX_D", "Series", "stationary_series"]
