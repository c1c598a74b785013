"""Stationary second moments and mean-square spectral radii of a kernel, with certificates.

In coordinates centred at the stationary means (:meth:`.kernel.Kernel.shifted`) the stationary covariance C of the
whole state at phase 0 solves the generalised Lyapunov (Stein) equation

    C = T(C) + Q,     T(X) = E[M X M^T] over one period (M the random period matrix),  Q = the period's noise,

and the chain is mean-square stable iff rho(T) < 1. T maps symmetric matrices to symmetric ones, so the equation
lives on the s(D) = D (D + 1)/2 coordinates of :mod:`.symmetric`. Two routes, chosen by the cost of assembling T
(:func:`.assembled.assembled`), neither of whose cost grows with the conditioning of the model:

* **assembled** (states up to a few tens): T as an (s(D), s(D)) matrix (:func:`.assembled.block_operator`: the
  minibatch pair-covariance part by one product over the data, memoised per model) and one LU factorisation of
  I - T, solved for Q and for the identity at once; O(N d^4 / 4 + s(D)^3) whatever the condition number;
* **operator** (larger states): Krylov iterations on X - T(X) preconditioned by the exact mean part
  (:mod:`.krylov`), T applied through the data (O(N d^2) per application).

Certificate (both routes). T is a positive map (PSD to PSD). The solution X_I of X - T(X) = I is Sum_k T^k(I) >= I
when rho(T) < 1; conversely, for any X > 0 with T(X) = X - Y, writing X = L L^T and y the eigenvalues of
L^{-1} Y L^{-T}, (1 - max y) X <= T(X) <= (1 - min y) X, hence 1 - max y <= rho(T) <= 1 - min y (Collatz-Wielandt
bounds for positive maps), evaluated with Y = X - T(X) recomputed from T (so the solver's own error is inside the
bound; the certificate is for T as computed in double precision). A negative definite X_I certifies rho(T) > 1 the
same way (T(-X) = -X + I + E >= (1 + min eig) (-X)).
Since ||S(Y)||_2 <= ||S(I)||_2 ||Y||_2 for the positive map S = (I - T)^{-1}, the residual r of the returned C gives
the error bound ||C - C*||_2 <= lambda_max(X_I) ||r||_2 (:class:`Solution`).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla

from simulate.validation import ParameterError

from .affine import eye
from .assembled import block_operator
from .kernel import Kernel
from .symmetric import pack, unpack

#: Largest s(D) whose spectral radius is computed by a dense eigenvalue solve of the assembled T (beyond: Arnoldi
#: on the assembled matrix, :func:`.krylov.arnoldi_radius`).
DENSE_EIG_MAX = 800


class Solution(NamedTuple):
    """The stationary covariance of the whole state at phase 0 (centred kernel) and its certificate.

    ``cov`` (D, D) (NaN when unstable); ``route`` "assembled" or "operator"; ``residual`` ||C - T(C) - Q||_2 /
    ||C||_2 of the returned C; ``radius_bounds`` (lo, hi) with lo <= rho(T) <= hi (Collatz-Wielandt, module
    docstring; (nan, nan) where no bound was obtained); ``certificate`` how mean-square stability was shown:
    "collatz-wielandt" (hi < 1), "regular splitting" (:mod:`.krylov`: C > 0 and the mean part's solution of
    Q - r > 0 give rho(L^{-1} R) < 1, hence rho(T) < 1) or "" (unstable); ``error_bound`` a bound on the relative
    error of C in the spectral norm (inf when unstable); ``radius`` rho(T) where it was computed to describe an
    unstable chain, else None."""

    cov: np.ndarray
    route: str
    residual: float
    radius_bounds: tuple[float, float]
    certificate: str
    error_bound: float
    radius: float | None = None

    @property
    def stable(self) -> bool:
        return bool(self.certificate)


def period_first(kernel: Kernel, start: int = 0) -> np.ndarray:
    """Psi over one period starting at phase ``start`` (n, n)."""
    n, P = kernel.layout.n, kernel.period
    out = eye(n, kernel.layout.dtype)
    for j in range(P):
        out = kernel.first_matrix((start + j) % P) @ out
    return out


def period_second(kernel: Kernel, X: np.ndarray) -> np.ndarray:
    """The homogeneous second moment after one period from phase 0, applied to X (..., n, n)."""
    for p in range(kernel.period):
        X = kernel.second(p, X)
    return X


def stationary_mean(kernel: Kernel) -> np.ndarray:
    """m at phase 0 with m = Phi m + beta over a period (Psi = [[Phi, beta], [0, 1]]); (D,)."""
    Psi = period_first(kernel)
    D = kernel.layout.D
    A = np.eye(D) - Psi[:D, :D]
    try:
        return np.linalg.solve(A, Psi[:D, D])
    except np.linalg.LinAlgError:
        raise ParameterError("the mean recursion has an eigenvalue 1: no stationary mean (h on the stability edge)") \
            from None


def mean_radius(kernel: Kernel) -> float:
    """rho(Phi) of the period's mean matrix; rho(T) >= rho(Phi)^2 (T - Phi (.) Phi^T is a positive map)."""
    D = kernel.layout.D
    return float(np.max(np.abs(np.linalg.eigvals(period_first(kernel)[:D, :D])))) if D else 0.0


def collatz_wielandt(X: np.ndarray, Y: np.ndarray) -> tuple[float, float] | None:
    """(lo, hi) with lo <= rho(T) <= hi from X > 0 and Y = X - T(X) (module docstring); None unless X > 0."""
    try:
        L = np.linalg.cholesky(X)
    except np.linalg.LinAlgError:
        return None
    Li = sla.solve_triangular(L, np.eye(X.shape[0]), lower=True, check_finite=False)
    y = np.linalg.eigvalsh(Li @ (0.5 * (Y + Y.T)) @ Li.T)
    return 1.0 - float(y[-1]), 1.0 - float(y[0])


def error_bound(X: np.ndarray, C: np.ndarray, r: np.ndarray) -> float:
    """lambda_max(X_I) ||r||_2 / ||C||_2 (module docstring)."""
    nc = float(np.linalg.norm(C, 2))
    return float(np.linalg.eigvalsh(X)[-1] * np.linalg.norm(r, 2) / nc) if nc > 0 else float("inf")


def blas_threads(kernel: Kernel):
    return blas_threads_for(kernel.layout.D)


def blas_threads_for(D: int):
    """One BLAS thread for the engine's products: they are thin (N x d times d x d), and on the shared 2-core
    development machine two threads made them 10x slower (d = 20 and d = 100 alike; the grid law, theory.grid, uses
    the same policy for its batched products, LUs and matrix-vector products); the state size is kept as the
    place to change this policy. The library scan behind the limit is done once per process, and a limit already in
    force is not set again (both cost milliseconds)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _OneThread()


class _OneThread:
    depth = 0

    def __enter__(self):
        if _OneThread.depth == 0:
            self._limit = _CONTROLLER.limit(limits=1, user_api="blas")
            self._limit.__enter__()
        _OneThread.depth += 1
        return self

    def __exit__(self, *exc):
        _OneThread.depth -= 1
        if _OneThread.depth == 0:
            self._limit.__exit__(*exc)
        return False


_CONTROLLER = None


class AssembledSystem(NamedTuple):
    """T (s(D), s(D)) assembled, q, and the LU factors of I - T (None when I - T is singular)."""

    T: np.ndarray
    q: np.ndarray
    lu: tuple | None

    @classmethod
    def of(cls, kernel: Kernel) -> AssembledSystem:
        T, q = block_operator(kernel)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(np.eye(T.shape[0]) - T, check_finite=False)
        return cls(T, q, lu if np.all(np.isfinite(lu[0])) and np.all(np.diag(lu[0]) != 0) else None)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return sla.lu_solve(self.lu, rhs, check_finite=False)

    def identity_solution(self, D: int) -> tuple[np.ndarray, np.ndarray, tuple[float, float] | None]:
        """(X_I, Y = X_I - T(X_I), the Collatz-Wielandt bounds or None): X_I solves X - T(X) = I. Y is evaluated in
        extended precision (np.longdouble where the platform has it): near the stability edge X_I ~ 1/(1 - rho)
        and X_I - T(X_I) cancels that many digits, which would blur the bounds at 1 - rho ~ 1e-8 in double."""
        x = self.solve(pack(np.eye(D)))
        X = unpack(x, D)
        xl = x.astype(np.longdouble)
        Y = unpack((xl - self.T.astype(np.longdouble) @ xl).astype(np.float64), D)
        return X, Y, collatz_wielandt(X, Y)


def assembled_solution(kernel: Kernel) -> Solution:
    """The assembled route (module docstring) for a centred kernel."""
    D = kernel.layout.D
    with blas_threads(kernel):
        F = AssembledSystem.of(kernel)
        if F.lu is None:
            return unstable("assembled", dense_radius(F.T, D))
        X, _, bounds = F.identity_solution(D)
        if bounds is None or bounds[1] >= 1.0:
            return unstable("assembled", dense_radius(F.T, D), bounds)
        c = F.solve(F.q)
        C = unpack(c, D)
        r = unpack(c - F.T @ c - F.q, D)
    nc = float(np.linalg.norm(C, 2))
    return Solution(C, "assembled", float(np.linalg.norm(r, 2)) / nc if nc > 0 else 0.0, bounds,
                    "collatz-wielandt", error_bound(X, C, r))


def unstable(route: str, rho: float, bounds=None) -> Solution:
    """The Solution of a chain found not mean-square stable (spectral radius ``rho``)."""
    return Solution(np.full((0, 0), np.nan), route, float("nan"), bounds or (float("nan"), float("nan")), "",
                    float("inf"), rho)


def dense_radius(T: np.ndarray, D: int) -> float:
    """rho(T) of an assembled T: a dense eigenvalue solve (LAPACK; separates eigenvalues of equal modulus, e.g. a
    complex pair at the top of the spectrum) up to :data:`DENSE_EIG_MAX`, Arnoldi beyond."""
    if T.shape[0] == 0:
        return 0.0
    if T.shape[0] <= DENSE_EIG_MAX:
        return float(np.max(np.abs(np.linalg.eigvals(T))))
    from .krylov import arnoldi_radius

    return arnoldi_radius(lambda x: T @ x, D)


def solution(kernel: Kernel, assembled: bool) -> Solution:
    """The stationary covariance at phase 0 of a centred kernel, by the assembled or the operator route."""
    if assembled:
        return assembled_solution(kernel)
    from .krylov import operator_solution

    return operator_solution(kernel)


def radius(kernel: Kernel, assembled: bool) -> float:
    """rho(T) of the period map (assembled: :func:`dense_radius`; else :func:`.krylov.operator_radius`)."""
    if assembled:
        with blas_threads(kernel):
            return dense_radius(block_operator(kernel)[0], kernel.layout.D)
    from .krylov import operator_radius

    return operator_radius(kernel)


__all__ = ["DENSE_EIG_MAX", "AssembledSystem", "Solution", "assembled_solution", "blas_threads", "collatz_wielandt",
           "dense_radius", "error_bound", "mean_radius", "period_first", "period_second", "radius", "solution",
           "stationary_mean", "unstable"]
