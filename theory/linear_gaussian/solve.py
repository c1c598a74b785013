"""Stationary second moments and mean-square spectral radii of a kernel, explicitly or as operators.

In coordinates centred at the stationary means (:meth:`.kernel.Kernel.shifted`) the stationary covariance C of the
state at phase 0 solves the generalised Lyapunov equation

    C = T(C) + Q,     T(X) = E[M X M^T] over one period (M the random period matrix),  Q = the period's noise,

and the chain is mean-square stable iff rho(T) < 1 (DESIGN.md). Small states: T as an explicit (D^2, D^2) matrix,
solved directly, rho from its eigenvalues. Large states: T is applied as an operator (never formed) and the equation
is solved by GMRES preconditioned with the exact solution of the mean part X = Phi X Phi^T + Y (Phi = E M), i.e. on
X - L^{-1} R(X) = L^{-1} Q with R = T - Phi (.) Phi^T a positive map; then C > 0 with L^{-1} Q > 0 certifies
rho(L^{-1} R) < 1, hence rho(T) < 1 (Collatz-Wielandt bound for positive maps on the PSD cone), without
computing rho; otherwise rho is computed by Arnoldi iteration on the operator.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from simulate.validation import ParameterError

from .kernel import Kernel
from .stages import eye

#: Largest n = D + 1 for which the engine forms the (n^2, n^2) second-moment matrix explicitly.
EXPLICIT_MAX_N = 16
#: Largest N d^4 (cost of forming the count-fluctuation matrix) for the explicit route.
EXPLICIT_MAX_WORK = 2 * 10**8


def use_explicit(kernel: Kernel, n_data: int) -> bool:
    lay = kernel.layout
    return lay.n <= EXPLICIT_MAX_N and n_data * lay.d**4 <= EXPLICIT_MAX_WORK


def period_first(kernel: Kernel, start: int = 0) -> np.ndarray:
    """Psi over one period starting at phase ``start`` (n, n)."""
    n, P = kernel.layout.n, kernel.period
    out = eye(n, kernel.layout.dtype)
    for j in range(P):
        out = kernel.first_matrix((start + j) % P) @ out
    return out


def period_second_matrix(kernel: Kernel) -> np.ndarray:
    """W over one period from phase 0 (n^2, n^2), explicit."""
    W = None
    for p in range(kernel.period):
        Wp = kernel.second_matrix(p)
        W = Wp if W is None else Wp @ W
    return W


def period_second(kernel: Kernel, X: np.ndarray) -> np.ndarray:
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


def explicit_blocks(kernel: Kernel) -> tuple[np.ndarray, np.ndarray]:
    """(T, q) with T the (D^2, D^2) matrix of the period map on centred covariances, q = vec Q (centred kernel)."""
    n, D = kernel.layout.n, kernel.layout.D
    W = period_second_matrix(kernel)
    idx = (np.arange(D)[:, None] * n + np.arange(D)[None, :]).reshape(-1)
    return W[np.ix_(idx, idx)], W[idx, n * n - 1]


def explicit_covariance(kernel: Kernel) -> tuple[np.ndarray, float]:
    """(C, rho(T)) by a direct solve (centred kernel, phase 0)."""
    D = kernel.layout.D
    T, q = explicit_blocks(kernel)
    rho = float(np.max(np.abs(np.linalg.eigvals(T)))) if D else 0.0
    if rho >= 1.0:
        return np.full((D, D), np.nan), rho
    C = np.linalg.solve(np.eye(D * D) - T, q).reshape(D, D)
    return 0.5 * (C + C.T), rho


class Lyapunov:
    """Solves X - Phi X Phi^T = Y exactly: eigenbasis of Phi (orthogonal when Phi is symmetric), else Schur (scipy)."""

    def __init__(self, Phi: np.ndarray) -> None:
        scale = max(1.0, float(np.abs(Phi).max()))
        self.sym = bool(np.abs(Phi - Phi.T).max() <= 1e-14 * scale)
        self.Phi = 0.5 * (Phi + Phi.T) if self.sym else Phi  # the map used here, also in R = T - Phi (.) Phi^T
        lam = np.linalg.eigvalsh(Phi) if self.sym else np.linalg.eigvals(Phi)
        self.mean_radius = float(np.max(np.abs(lam))) if lam.size else 0.0
        self.V = None
        if self.sym:
            lam, self.V = np.linalg.eigh(Phi)
            self.Vinv = self.V.T
        else:
            lam, V = np.linalg.eig(Phi)
            if np.linalg.cond(V) < 1e6:
                self.V, self.Vinv = V, np.linalg.inv(V)
        if self.V is not None:
            self.den = 1.0 - np.outer(lam, lam)

    def __call__(self, Y: np.ndarray) -> np.ndarray:
        if self.V is None:
            return sla.solve_discrete_lyapunov(self.Phi, Y)
        X = self.V @ ((self.Vinv @ Y @ self.Vinv.T) / self.den) @ self.V.T
        return X.real if np.iscomplexobj(X) else X


def _operators(kernel: Kernel):
    D = kernel.layout.D

    def T(X: np.ndarray) -> np.ndarray:
        Xh = np.zeros((D + 1, D + 1))
        Xh[:D, :D] = X
        return period_second(kernel, Xh)[:D, :D]

    Ech = np.zeros((D + 1, D + 1))
    Ech[D, D] = 1.0
    Q = period_second(kernel, Ech)[:D, :D]
    Phi = period_first(kernel)[:D, :D]
    return T, 0.5 * (Q + Q.T), Phi


def operator_covariance(kernel: Kernel, rtol: float = 1e-13) -> tuple[np.ndarray, float | None]:
    """(C, rho or None): GMRES with the Lyapunov preconditioner; rho is None when C > 0 and L^{-1} Q > 0 certify
    stability (module docstring), else computed by :func:`operator_radius`."""
    D = kernel.layout.D
    T, Q, Phi = _operators(kernel)
    lyap = Lyapunov(Phi)
    Phi = lyap.Phi
    if lyap.mean_radius >= 1.0:
        return np.full((D, D), np.nan), max(lyap.mean_radius**2, 1.0)

    def matvec(x: np.ndarray) -> np.ndarray:
        X = x.reshape(D, D)
        return (X - lyap(T(X) - Phi @ X @ Phi.T)).reshape(-1)

    Y0 = lyap(Q)
    op = spla.LinearOperator((D * D, D * D), matvec=matvec, dtype=np.float64)
    x, info = spla.gmres(op, Y0.reshape(-1), rtol=rtol, atol=0.0, restart=min(D * D, 80), maxiter=40)
    C = x.reshape(D, D)
    C = 0.5 * (C + C.T)
    if info != 0 or not _certified(C, 0.5 * (Y0 + Y0.T)):
        rho = operator_radius(kernel)
        if rho >= 1.0:
            return np.full((D, D), np.nan), rho
        if info != 0:
            raise ParameterError(f"GMRES did not converge for the stationary covariance (info = {info}, spectral "
                                 f"radius {rho:.6g})")
        return C, rho
    return C, None


def _certified(C: np.ndarray, Y0: np.ndarray) -> bool:
    """C > 0 and L^{-1} Q > 0 with C - R~(C) = L^{-1} Q: rho(R~) <= 1 - lambda_min(C^{-1/2} Y0 C^{-1/2}) < 1."""
    try:
        Lc = np.linalg.cholesky(C)
        np.linalg.cholesky(Y0)
    except np.linalg.LinAlgError:
        return False
    Li = sla.solve_triangular(Lc, np.eye(C.shape[0]), lower=True)
    return float(np.linalg.eigvalsh(Li @ Y0 @ Li.T)[0]) > 1e-12


def operator_radius(kernel: Kernel) -> float:
    """rho(T) of the period map on centred covariances by Arnoldi iteration (T is a positive map, so its spectral
    radius is a real eigenvalue with a PSD eigenvector)."""
    D = kernel.layout.D
    T, _, _ = _operators(kernel)
    op = spla.LinearOperator((D * D, D * D), matvec=lambda x: T(x.reshape(D, D)).reshape(-1), dtype=np.float64)
    if D * D <= 3:
        M = np.column_stack([op.matvec(e) for e in np.eye(D * D)])
        return float(np.max(np.abs(np.linalg.eigvals(M))))
    vals = spla.eigs(op, k=1, which="LM", tol=1e-12, return_eigenvectors=False, v0=np.eye(D).reshape(-1))
    return float(np.max(np.abs(vals)))


__all__ = ["EXPLICIT_MAX_N", "Lyapunov", "explicit_blocks", "explicit_covariance", "operator_covariance",
           "operator_radius", "period_first", "period_second", "period_second_matrix", "stationary_mean",
           "use_explicit"]
