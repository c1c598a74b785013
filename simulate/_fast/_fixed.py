"""Arithmetic with a fixed order of operations: small dense linear algebra and exp (numba, no BLAS/LAPACK, no
fast-math, no CPU-dispatched numpy ufuncs).

BLAS and LAPACK choose their kernels per CPU (OpenBLAS by core type, numpy by dispatch target), so ``Z.T @ Z`` or
``eigvalsh`` can differ in the last bits between machines; so does ``np.exp``, which runs numpy's own AVX-512 code
where the CPU has it and libm's elsewhere. The simulator's own arithmetic, and the model constants a
step reads (Gram matrices, the Lipschitz constant that bounds h, a posterior mean used as a start), go through these
loops instead: each sum runs in index order, each operation is an IEEE operation (+, -, *, /, sqrt), so the bits
are the same on every CPU. They are for d up to a few hundred; the cost is that of the textbook loops.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def gram(Z):
    """G = Z^T Z for Z (N, d): G[a, b] = sum_i Z[i, a] Z[i, b], summed over i in order (G symmetric by copy)."""
    N, d = Z.shape
    G = np.zeros((d, d))
    for i in range(N):
        for a in range(d):
            za = Z[i, a]
            for b in range(a, d):
                G[a, b] += za * Z[i, b]
    for a in range(d):
        for b in range(a):
            G[a, b] = G[b, a]
    return G


@njit(cache=True, nogil=True)
def matmul(A, B):
    """C = A B for A (m, k), B (k, p): C[i, j] = sum_q A[i, q] B[q, j], summed over q in order."""
    m, k = A.shape
    p = B.shape[1]
    C = np.zeros((m, p))
    for i in range(m):
        for q in range(k):
            a = A[i, q]
            for j in range(p):
                C[i, j] += a * B[q, j]
    return C


@njit(cache=True, nogil=True)
def _jacobi_sweep(A):
    """One cyclic Jacobi sweep (rows then columns in order) on the symmetric A in place; returns the largest
    |A[p, q]| met before rotating (Golub & Van Loan, Algorithm 8.5.2)."""
    d = A.shape[0]
    biggest = 0.0
    for p in range(d - 1):
        for q in range(p + 1, d):
            apq = A[p, q]
            if abs(apq) > biggest:
                biggest = abs(apq)
            if apq == 0.0:
                continue
            tau = (A[q, q] - A[p, p]) / (2.0 * apq)
            t = (1.0 if tau >= 0.0 else -1.0) / (abs(tau) + np.sqrt(1.0 + tau * tau))
            c = 1.0 / np.sqrt(1.0 + t * t)
            s = t * c
            for k in range(d):
                akp, akq = A[k, p], A[k, q]
                A[k, p] = c * akp - s * akq
                A[k, q] = s * akp + c * akq
            for k in range(d):
                apk, aqk = A[p, k], A[q, k]
                A[p, k] = c * apk - s * aqk
                A[q, k] = s * apk + c * aqk
    return biggest


@njit(cache=True, nogil=True)
def eigvalsh(S):
    """Eigenvalues of the symmetric S (d, d) in ascending order, by cyclic Jacobi rotations until every
    off-diagonal entry is below 1e-15 of the largest diagonal one in absolute value (at most 100 sweeps)."""
    A = S.copy()
    d = A.shape[0]
    for _ in range(100):
        scale = 0.0
        for k in range(d):
            scale = max(scale, abs(A[k, k]))
        if _jacobi_sweep(A) <= 1e-15 * scale:
            break
    out = np.empty(d)
    for k in range(d):
        out[k] = A[k, k]
    return np.sort(out)


@njit(cache=True, nogil=True)
def cholesky(S):
    """Lower-triangular L with L L^T = S for a symmetric positive definite S (Cholesky-Banachiewicz, row by row);
    a non-positive pivot raises."""
    d = S.shape[0]
    L = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1):
            s = S[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            if i == j:
                if s <= 0.0:
                    raise ValueError("matrix is not positive definite")
                L[i, i] = np.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    return L


@njit(cache=True, nogil=True)
def solve_spd(S, B):
    """X with S X = B for a symmetric positive definite S (d, d) and B (d, p): Cholesky, then forward and back
    substitution in index order."""
    L = cholesky(S)
    d, p = B.shape
    X = B.copy()
    for c in range(p):
        for i in range(d):
            s = X[i, c]
            for k in range(i):
                s -= L[i, k] * X[k, c]
            X[i, c] = s / L[i, i]
        for i in range(d - 1, -1, -1):
            s = X[i, c]
            for k in range(i + 1, d):
                s -= L[k, i] * X[k, c]
            X[i, c] = s / L[i, i]
    return X


@njit(cache=True, nogil=True)
def exp(x):
    """e^x elementwise through libm's exp (numpy's ``np.exp`` has an AVX-512 variant with other last bits)."""
    out = np.empty_like(x)
    flat, res = x.reshape(-1), out.reshape(-1)
    for i in range(flat.size):
        res[i] = np.exp(flat[i])
    return out
