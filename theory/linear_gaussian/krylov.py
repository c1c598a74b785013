"""The operator route: stationary covariances of states too large to assemble (:mod:`.solve`), by preconditioned
iterations on X -> X - T(X) with T applied through the data (O(N d^2) per application for rank-one data), never
formed.

Preconditioner. T = Phi (.) Phi^T + R with Phi = E M the period's mean matrix and R the (positive) fluctuation map.
The mean part L(X) = X - Phi X Phi^T is inverted exactly (:class:`Lyapunov`: eigenbasis of a symmetric Phi, complex
Schur form otherwise, O(D^3)), so the ill-conditioning of the model, which lives in Phi (eigenvalues 1 - h p_j / 2
near 1 along the posterior's flat directions), is removed exactly. What remains is I - L^{-1} R, whose spectrum lies
in the disc |1 - z| <= rho(L^{-1} R), and rho(L^{-1} R) < 1 for every mean-square stable chain (regular splitting of
a positive map): it is the share of the stationary variance that the minibatch noise re-injects per step (about
h p / (4 n) summed over the coordinates for SGLD), not a condition number.

Iteration. Preconditioned Richardson X <- X + L^{-1}(Y - X + T(X)) while its residual shrinks at least by
:data:`RICHARDSON_RATE` per step, then restarted GMRES right-preconditioned by L^{-1} (so that its residual is the
true equation's) on the symmetric coordinates. Stopping rule: the true residual r = Y - X + T(X), recomputed from the
operator, satisfies ||r|| <= max(rtol ||Y||, floor) with floor = :data:`FLOOR` eps (||X|| + ||T(X)|| + ||Y||), the
rounding of evaluating r itself, all in the equilibrated norm ||S^{-1} (.) S^{-1}||_F, S = diag(X)^(1/2), so that a
state whose blocks differ in scale by many orders (an SVRG anchor's gradient is N times theta's) is converged block by
block (the old rule, a step below 1e-15 of max |X|, is not reachable on ill-conditioned models and made the iteration
run to its cap). The solution is certified afterwards: C > 0 with L^{-1}(Q - r) > 0 proves rho(T) < 1 by the regular
splitting and bounds its error with no further solve (:func:`splitting_certificate`); where C is singular (a state
with deterministic parts) a second, looser solve of X - T(X) = I gives the Collatz-Wielandt certificate of
:mod:`.solve`.

Spectral radius. rho(T) of a positive map is an eigenvalue with a PSD eigenvector (Krein-Rutman) and every other
eigenvalue has real part <= rho, so Arnoldi looks for the eigenvalue of largest *real* part (a complex pair of equal
modulus, which defeats "largest magnitude", is then never a tie); if it does not converge, shifted power iteration
on the PSD cone brackets rho by Collatz-Wielandt bounds, and an unresolved bracket is reported as a ParameterError.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from scipy.linalg.lapack import ztrtrs

from simulate.validation import ParameterError

from .kernel import Kernel
from .solve import Solution, blas_threads, collatz_wielandt, error_bound, period_first, period_second, unstable
from .symmetric import pack, size, unpack

#: Target relative residual ||r|| / ||Y|| (equilibrated norms, module docstring).
RTOL = 1e-13
#: ... for X - T(X) = I, whose solution serves only the certificate (any X > 0 with X - T(X) > 0 proves rho < 1;
#: the bounds are computed from its own residual) and lambda_max in the error bound.
CERTIFICATE_RTOL = 1e-6
#: The rounding floor of the residual, in units of eps (||X|| + ||T(X)|| + ||Y||).
FLOOR = 32.0
#: Richardson continues while the residual shrinks at least by this factor per step.
RICHARDSON_RATE = 0.5
#: Backward error ||r|| / (||X|| + ||T(X)|| + ||Y||) (equilibrated) accepted when neither iteration reaches the
#: target: the rounding of T(X) on non-normal maps (SVRG's anchor gradient) can exceed the floor's estimate. The
#: Solution reports the residual and an error bound either way.
ACCEPT_RESIDUAL = 1e-11
#: GMRES restart length, restarts per run, the reduction of its own residual asked of each run, and the most runs
#: (each followed by the true residual; the runs stop when it no longer halves).
GMRES_RESTART, GMRES_RESTARTS, GMRES_REDUCTION, GMRES_ROUNDS = 60, 30, 1e-4, 6
#: Iterations of the power-iteration fallback for the spectral radius, and the bracket width it must reach.
POWER_MAX, POWER_RTOL = 3000, 1e-9


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
            self.Tc, lam = self.T.conj(), np.diag(self.T)
        self.mean_radius = float(np.max(np.abs(lam))) if lam.size else 0.0

    def __call__(self, Y: np.ndarray) -> np.ndarray:
        if self.sym:
            return self.V @ ((self.V.T @ Y @ self.V) / self.den) @ self.V.T
        T, Tc, U = self.T, self.Tc, self.U
        n = T.shape[0]
        Yt = U.conj().T @ Y @ U
        X = np.zeros((n, n), dtype=complex)
        diag = np.diag_indices(n)
        for j in range(n - 1, -1, -1):
            rhs = Yt[:, j] + T @ (X[:, j + 1:] @ Tc[j, j + 1:])
            M = -Tc[j, j] * T
            M[diag] += 1.0
            X[:, j], _ = ztrtrs(M.T, rhs, lower=1, trans=1)  # (I - conj(T_jj) T) x = rhs, LAPACK without copies
        return (U @ X @ U.conj().T).real


def _operators(kernel: Kernel):
    """(T on D x D matrices, Q, Phi) of the period map (the kernel centred for Q to be the covariance's)."""
    D = kernel.layout.D

    def T(X: np.ndarray) -> np.ndarray:
        Xh = np.zeros((D + 1, D + 1))
        Xh[:D, :D] = X
        out = period_second(kernel, Xh)[:D, :D]
        return 0.5 * (out + out.T)

    Ech = np.zeros((D + 1, D + 1))
    Ech[D, D] = 1.0
    Q = period_second(kernel, Ech)[:D, :D]
    return T, 0.5 * (Q + Q.T), period_first(kernel)[:D, :D]


def _scale(X: np.ndarray) -> np.ndarray:
    """S = diag(X)^(1/2) (floored at sqrt(eps) of the largest) for the equilibrated norm ||S^{-1} (.) S^{-1}||_F."""
    d = np.abs(np.diag(X))
    return np.sqrt(np.maximum(d, np.finfo(float).eps * max(float(d.max()), 1e-300)))


def _residual(T, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(r = Y - X + T(X), ||r||, ||X|| + ||T(X)|| + ||Y||), norms equilibrated by S = :func:`_scale` (X) (states mixing
    scales, e.g. an anchor's gradient N times theta's, are measured block by block, not by their largest block)."""
    TX = T(X)
    r = Y - X + TX
    s = _scale(X)
    w = 1.0 / np.outer(s, s)
    norms = np.linalg.norm(X * w) + np.linalg.norm(TX * w) + np.linalg.norm(Y * w)
    return r, float(np.linalg.norm(r * w)), float(norms)


def _target(rtol: float, ny: float, norms: float) -> float:
    """max(rtol ||Y||, the rounding floor FLOOR eps (||X|| + ||T(X)|| + ||Y||))."""
    return max(rtol * ny, FLOOR * np.finfo(float).eps * norms)


def _sym(X: np.ndarray) -> np.ndarray:
    return 0.5 * (X + X.T)


def krylov_solve(T, lyap: Lyapunov, Y: np.ndarray, rtol: float = RTOL) -> tuple[np.ndarray, np.ndarray, bool]:
    """(X, r, converged) for X - T(X) = Y, r = Y - X + T(X) the true residual of the returned X (module docstring:
    Richardson, then GMRES; converged when ||r|| <= max(rtol ||Y||, floor) in the equilibrated norm of
    :func:`_residual`)."""
    X, last = _sym(lyap(Y)), np.inf
    s = _scale(X)
    ny = max(float(np.linalg.norm(Y / np.outer(s, s))), np.finfo(float).tiny)
    for it in range(200):
        r, nr, norms = _residual(T, X, Y)
        if nr <= _target(rtol, ny, norms):
            return X, r, True
        if not np.isfinite(nr) or (it >= 2 and nr > RICHARDSON_RATE * last):
            break
        last = nr
        X = X + _sym(lyap(r))
    if not np.all(np.isfinite(X)):
        X = _sym(lyap(Y))
    return _gmres(T, lyap, Y, X, rtol, ny)


def _gmres(T, lyap: Lyapunov, Y: np.ndarray, X: np.ndarray, rtol: float, ny: float):
    D = Y.shape[0]

    def matvec(y: np.ndarray) -> np.ndarray:
        Z = _sym(lyap(unpack(y, D)))
        return pack(Z - T(Z))

    s = size(D)
    op = spla.LinearOperator((s, s), matvec=matvec, dtype=np.float64)
    last = np.inf
    for _ in range(GMRES_ROUNDS):  # a fresh true residual after each GMRES run (its own recurrence drifts)
        r, nr, norms = _residual(T, X, Y)
        if nr <= _target(rtol, ny, norms) or nr > 0.5 * last:
            break
        last = nr
        y, _ = spla.gmres(op, pack(r), rtol=GMRES_REDUCTION, atol=0.0, restart=min(s, GMRES_RESTART),
                          maxiter=GMRES_RESTARTS)
        X = X + _sym(lyap(unpack(y, D)))
    r, nr, norms = _residual(T, X, Y)
    return X, r, bool(nr <= max(_target(rtol, ny, norms), ACCEPT_RESIDUAL * norms))


def operator_solution(kernel: Kernel) -> Solution:
    """The operator route of :mod:`.solve` for a centred kernel: C, certified by the regular splitting
    (:func:`splitting_certificate`), or else by the Collatz-Wielandt bounds of a looser solve of X - T(X) = I."""
    D = kernel.layout.D
    with blas_threads(kernel):
        T, Q, Phi = _operators(kernel)
        lyap = Lyapunov(Phi)
        if lyap.mean_radius >= 1.0:
            return unstable("operator", max(lyap.mean_radius**2, 1.0))
        C, r, ok = krylov_solve(T, lyap, Q)
        nc = float(np.linalg.norm(C, 2))
        res = float(np.linalg.norm(r, 2)) / nc if nc > 0 else 0.0
        split = splitting_certificate(C, lyap(Q), lyap(r)) if ok else None
        if split is not None:
            return Solution(C, "operator", res, collatz_wielandt(C, Q - r) or (np.nan, np.nan), "regular splitting",
                            split)
        X, rx, ok_x = krylov_solve(T, lyap, np.eye(D), CERTIFICATE_RTOL)
        bounds = collatz_wielandt(X, np.eye(D) - rx) if ok_x else None  # X - T(X) = I - r exactly
        if bounds is None or bounds[1] >= 1.0:
            rho = operator_radius(kernel)
            if rho < 1.0:
                raise ParameterError(f"the operator route did not converge for the stationary covariance (spectral "
                                     f"radius {rho:.6g} < 1): the chain mixes too slowly for it")
            return unstable("operator", rho, bounds)
        if not ok:
            raise ParameterError(f"the operator route did not converge for the stationary covariance (relative "
                                 f"residual {res:.3g})")
    return Solution(C, "operator", res, bounds, "collatz-wielandt", error_bound(X, C, r))


def splitting_certificate(C: np.ndarray, Y0: np.ndarray, Lr: np.ndarray) -> float | None:
    """The relative error bound of C certified by the regular splitting T = Phi (.) Phi^T + R, or None.

    With S = L^{-1} R (a positive map) the computed C satisfies C - S(C) = Y0 - L^{-1} r (Y0 = L^{-1} Q, r the true
    residual). If C > 0 and mu = lambda_min(C^{-1/2} (Y0 - L^{-1} r) C^{-1/2}) > 0, then S(C) <= (1 - mu) C, so
    rho(S) < 1, which for a regular splitting is rho(T) < 1; and C* - C = (I - S)^{-1} L^{-1} r lies between
    -+ (||L^{-1} r||_C / mu) C, ||Z||_C the largest |eigenvalue| of C^{-1/2} Z C^{-1/2}: the returned bound."""
    try:
        Lc = np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        return None
    Li = sla.solve_triangular(Lc, np.eye(C.shape[0]), lower=True, check_finite=False)
    mu = float(np.linalg.eigvalsh(Li @ _sym(Y0 - Lr) @ Li.T)[0])
    if mu <= 1e-12:
        return None
    return float(np.abs(np.linalg.eigvalsh(Li @ _sym(Lr) @ Li.T)).max()) / mu


def operator_radius(kernel: Kernel) -> float:
    """rho(T) of the period map applied as an operator (:func:`arnoldi_radius` on symmetric coordinates)."""
    D = kernel.layout.D
    with blas_threads(kernel):
        T, _, _ = _operators(kernel)
        return arnoldi_radius(lambda x: pack(T(unpack(x, D))), D)


def arnoldi_radius(matvec, D: int) -> float:
    """rho of a positive map given by ``matvec`` on the s(D) symmetric coordinates (module docstring): Arnoldi for the
    eigenvalue of largest real part, else Collatz-Wielandt bounds by shifted power iteration."""
    s = size(D)
    if s == 0:
        return 0.0
    if s <= 3:
        M = np.column_stack([matvec(e) for e in np.eye(s)])
        return float(np.max(np.abs(np.linalg.eigvals(M))))
    op = spla.LinearOperator((s, s), matvec=matvec, dtype=np.float64)
    try:
        vals = spla.eigs(op, k=1, which="LR", tol=1e-12, v0=pack(np.eye(D)), ncv=min(s, 40), maxiter=50 * s,
                         return_eigenvectors=False)
        return float(np.max(vals.real))
    except (spla.ArpackNoConvergence, spla.ArpackError):
        lo, hi = power_bounds(matvec, D)
    if hi - lo <= POWER_RTOL * max(hi, 1e-300):
        return 0.5 * (lo + hi)
    raise ParameterError(f"the spectral radius is not resolved: Collatz-Wielandt bounds {lo:.9g} <= rho <= {hi:.9g} "
                         f"after {POWER_MAX} power iterations (Arnoldi did not converge either)")


def power_bounds(matvec, D: int, shift: float = 1.0) -> tuple[float, float]:
    """(lo, hi) bracketing rho of a positive map by power iteration of T + shift (which makes the Perron root the
    unique eigenvalue of largest modulus) from the identity, with Collatz-Wielandt bounds at every 10th step."""
    x = pack(np.eye(D))
    lo, hi = 0.0, np.inf
    for it in range(POWER_MAX):
        tx = matvec(x)
        if it % 10 == 0:
            b = collatz_wielandt(unpack(x, D), unpack(x - tx, D))
            if b is not None:
                lo, hi = max(lo, b[0]), min(hi, b[1])
                if hi - lo <= POWER_RTOL * max(hi, 1e-300):
                    break
        x = tx + shift * x
        x = x / np.linalg.norm(x)
    return lo, hi


__all__ = ["Lyapunov", "arnoldi_radius", "krylov_solve", "operator_radius", "operator_solution", "power_bounds",
           "splitting_certificate"]
