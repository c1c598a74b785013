"""Stationary second moments and mean-square spectral radii of a kernel, explicitly or as operators.

In coordinates centred at the stationary means (:meth:`.kernel.Kernel.shifted`) the stationary covariance C of the
state at phase 0 solves the generalised Lyapunov equation

    C = T(C) + Q,     T(X) = E[M X M^T] over one period (M the random period matrix),  Q = the period's noise,

and the chain is mean-square stable iff rho(T) < 1 (docs/engine.md). Small states: T as an explicit (D^2, D^2) matrix,
solved directly, rho from its eigenvalues. Large states: T is applied as an operator (never formed) and the equation
is solved by the fixed-point iteration preconditioned with the solution L^{-1} of the mean part X - Phi X Phi^T = Y
(Phi = E M), or by GMRES right-preconditioned with it when that contracts slowly;
R = T - Phi (.) Phi^T is a positive map, so C > 0 with L^{-1} Q > 0 (C - L^{-1} R(C) = L^{-1} Q) certifies
rho(L^{-1} R) < 1, hence rho(T) < 1 (Collatz-Wielandt bound for positive maps on the PSD cone) without computing
rho, and so does a positive definite solution of X = T(X) + I (one more solve); otherwise rho is computed by
Arnoldi iteration on the operator.
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
#: Fixed-point iterations tried before GMRES, and the contraction per iteration beyond which GMRES takes over.
PICARD_MAX, PICARD_SLOW = 3000, 0.995
#: Largest state dimension for the probed direct solve (D (D + 1)/2 unknowns).
PROBE_MAX_D = 48
#: Relative residual of X - T(X) = Q accepted when GMRES stalls at the rounding floor of the operator.
ACCEPT_RESIDUAL = 1e-10
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
    """Solves X - Phi X Phi^T = Y: in the orthogonal eigenbasis of Phi when Phi is symmetric, else through the complex
    Schur form Phi = U T U^H (X~ = U^H X U solves X~ - T X~ T^H = U^H Y U, a triangular Stein equation solved column
    by column from the last: (I - conj(T_jj) T) x_j = y_j + T sum_{l > j} conj(T_jl) x_l)."""

    def __init__(self, Phi: np.ndarray) -> None:
        scale = max(1.0, float(np.abs(Phi).max()))
        self.sym = bool(np.abs(Phi - Phi.T).max() <= 1e-14 * scale)
        self.Phi = 0.5 * (Phi + Phi.T) if self.sym else Phi
        if self.sym:
            lam, self.V = np.linalg.eigh(self.Phi)
            self.den = 1.0 - np.outer(lam, lam)
        else:
            self.T, self.U = sla.schur(self.Phi.astype(complex), output="complex")
            lam = np.diag(self.T)
        self.mean_radius = float(np.max(np.abs(lam))) if lam.size else 0.0

    def __call__(self, Y: np.ndarray) -> np.ndarray:
        if self.sym:
            return self.V @ ((self.V.T @ Y @ self.V) / self.den) @ self.V.T
        T, U = self.T, self.U
        n = T.shape[0]
        Yt = U.conj().T @ Y @ U
        X = np.zeros((n, n), dtype=complex)
        eye = np.eye(n)
        for j in range(n - 1, -1, -1):
            rhs = Yt[:, j] + T @ (X[:, j + 1:] @ T[j, j + 1:].conj())
            X[:, j] = sla.solve_triangular(eye - np.conj(T[j, j]) * T, rhs)
        return (U @ X @ U.conj().T).real


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


def blas_threads(kernel: Kernel):
    return blas_threads_for(kernel.layout.D)


def blas_threads_for(D: int):
    """One BLAS thread for the engine's products: they are thin (N x d times d x d), and on the shared 2-core
    development machine two threads made them 10x slower (d = 20 and d = 100 alike); the state size is kept as the
    place to change this policy."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def operator_covariance(kernel: Kernel, rtol: float = 1e-13) -> tuple[np.ndarray, float | None]:
    with blas_threads(kernel):
        return _operator_covariance(kernel, rtol)


def _operator_covariance(kernel: Kernel, rtol: float) -> tuple[np.ndarray, float | None]:
    """(C, rho or None): preconditioned iteration or GMRES; rho is None when stability is certified without it
    (module docstring: C > 0 with L^{-1} Q > 0, or else the solution of X = T(X) + I is positive definite), else
    rho is computed by :func:`operator_radius`."""
    D = kernel.layout.D
    T, Q, Phi = _operators(kernel)
    lyap = Lyapunov(Phi)
    Phi = lyap.Phi
    if lyap.mean_radius >= 1.0:
        return np.full((D, D), np.nan), max(lyap.mean_radius**2, 1.0)

    def gmres(rhs: np.ndarray) -> tuple[np.ndarray, int]:
        """X with X - T(X) = rhs: GMRES right-preconditioned by L^{-1} (the residual is the true equation's, so the
        preconditioner's own rounding does not enter the solution)."""
        def matvec(y: np.ndarray) -> np.ndarray:
            Z = lyap(y.reshape(D, D))
            return (Z - T(Z)).reshape(-1)

        op = spla.LinearOperator((D * D, D * D), matvec=matvec, dtype=np.float64)
        b = rhs.reshape(-1)
        y, info = spla.gmres(op, b, rtol=rtol, atol=0.0, restart=min(D * D, 200), maxiter=20)
        if info != 0 and np.linalg.norm(b - matvec(y)) <= ACCEPT_RESIDUAL * np.linalg.norm(b):
            info = 0  # at the rounding floor of the operator (states mixing scales, e.g. anchor gradients)
        X = lyap(y.reshape(D, D))
        return 0.5 * (X + X.T), info

    def refine(rhs: np.ndarray) -> tuple[np.ndarray, int]:
        """Preconditioned fixed-point iteration X <- X + L^{-1}(rhs - X + T(X)) (rate rho(L^{-1} R), the true
        equation's residual at every step); when it contracts too slowly, the probed direct solve for moderate D,
        else GMRES."""
        X, last = lyap(rhs), np.inf
        for it in range(PICARD_MAX):
            step = lyap(rhs - X + T(X))
            X = X + 0.5 * (step + step.T)
            size = float(np.abs(step).max())
            if size <= 1e-15 * float(np.abs(X).max()):
                return 0.5 * (X + X.T), 0
            if it > 30 and size > PICARD_SLOW * last:
                break
            last = size
        return (X, 1) if D <= PROBE_MAX_D else gmres(rhs)

    C, info = refine(Q)
    if info != 0 and D <= PROBE_MAX_D:
        C, rho = probed_covariance(kernel)
        return (C, rho) if rho < 1.0 else (np.full((D, D), np.nan), rho)
    if info == 0 and _certified(C, lyap(Q)):
        return C, None
    if info == 0:
        X, info_x = refine(np.eye(D))  # X = T(X) + I: X > 0 iff rho(T) < 1
        if info_x == 0 and _positive_definite(X):
            return C, None
    rho = operator_radius(kernel)
    if rho >= 1.0:
        return np.full((D, D), np.nan), rho
    if info != 0:
        raise ParameterError(f"GMRES did not converge for the stationary covariance (info = {info}, spectral "
                             f"radius {rho:.6g})")
    return C, rho


def probed_covariance(kernel: Kernel) -> tuple[np.ndarray, float]:
    """(C, rho(T)) by forming T on the D (D + 1)/2 symmetric coordinates (one batched application of the period map
    to the symmetric basis) and solving densely: exact for slowly mixing chains of moderate state size (T maps
    symmetric matrices to symmetric ones, and the spectral radius of a positive map is attained there)."""
    D = kernel.layout.D
    iu = np.triu_indices(D)
    m = iu[0].size
    basis = np.zeros((m, D + 1, D + 1))
    basis[np.arange(m), iu[0], iu[1]] = 1.0
    basis[np.arange(m), iu[1], iu[0]] = 1.0
    with blas_threads(kernel):
        out = period_second(kernel, basis)
        E = np.zeros((D + 1, D + 1))
        E[D, D] = 1.0
        q = period_second(kernel, E)[iu]
    Tm = out[:, iu[0], iu[1]].T  # column j: the image of basis matrix j, read on the upper triangle
    rho = float(np.max(np.abs(np.linalg.eigvals(Tm))))
    if rho >= 1.0:
        return np.full((D, D), np.nan), rho
    c = np.linalg.solve(np.eye(m) - Tm, q)
    C = np.zeros((D, D))
    C[iu] = c
    C = C + C.T - np.diag(np.diag(C))
    return C, rho


def _positive_definite(X: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(X)
    except np.linalg.LinAlgError:
        return False
    return True


def _certified(C: np.ndarray, Y0: np.ndarray) -> bool:
    """C > 0 and L^{-1} Q > 0 with C - R~(C) = L^{-1} Q: rho(R~) <= 1 - lambda_min(C^{-1/2} Y0 C^{-1/2}) < 1."""
    try:
        Lc = np.linalg.cholesky(C)
        np.linalg.cholesky(Y0)
    except np.linalg.LinAlgError:
        return False
    Li = sla.solve_triangular(Lc, np.eye(C.shape[0]), lower=True)
    return float(np.linalg.eigvalsh(Li @ Y0 @ Li.T)[0]) > 1e-10


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
