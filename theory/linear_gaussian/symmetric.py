"""Coordinates on symmetric matrices: the upper triangle, read row by row.

Every second moment the engine carries is symmetric, and every moment map it applies sends symmetric matrices to
symmetric ones, so its matrices live on the symmetric vec space of dimension s(n) = n (n + 1)/2 rather than on all
n^2 entries. A symmetric X (n, n) has coordinates ``pack(X)`` = (X_ij for i <= j); ``unpack`` inverts it. A linear
map F on symmetric matrices has the (s(m), s(n)) matrix with column (i, j) the packed image of the basis matrix
E_ij + E_ji (i < j) or E_ii. A linear functional Y -> <G, Y> (Frobenius) is written in the *dual* coordinates
``dual(G)`` = (G_ii; G_ij + G_ji for i < j), so that <G, Y> = dual(G) . pack(Y) for every symmetric Y, and the
functional Y -> <G, F(Y)> has dual coordinates F^T dual(G).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .affine import zeros


def size(n: int) -> int:
    """s(n) = n (n + 1)/2, the dimension of the symmetric n x n matrices."""
    return n * (n + 1) // 2


@cache
def upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the upper triangle (i <= j), the order of the coordinates."""
    return np.triu_indices(n)


def pack(X: np.ndarray) -> np.ndarray:
    """(..., n, n) symmetric -> (..., s(n)) upper-triangle coordinates."""
    i, j = upper(X.shape[-1])
    return X[..., i, j]


def unpack(v: np.ndarray, n: int) -> np.ndarray:
    """(..., s(n)) coordinates -> (..., n, n) symmetric matrices."""
    i, j = upper(n)
    X = zeros(v.shape[:-1] + (n, n), v.dtype)
    X[..., i, j] = v
    X[..., j, i] = v
    return X


def dual(G: np.ndarray) -> np.ndarray:
    """Dual coordinates of the functional Y -> <G, Y> on symmetric Y (module docstring); G (..., n, n) any matrix."""
    i, j = upper(G.shape[-1])
    out = G[..., i, j] + G[..., j, i]
    diag = i == j
    out[..., diag] = G[..., i[diag], j[diag]]
    return out


def basis(n: int, dtype) -> np.ndarray:
    """(s(n), n, n): the basis matrices E_ij + E_ji (i < j) and E_ii, in coordinate order."""
    i, j = upper(n)
    B = zeros((i.size, n, n), dtype)
    k = np.arange(i.size)
    B[k, i, j] = 1
    B[k, j, i] = 1
    return B


def outer_dual(a: np.ndarray) -> np.ndarray:
    """(s(m), m): the matrix of g -> dual(g a^T), linear in g (the time-average recursion's functionals)."""
    m = a.shape[0]
    i, j = upper(m)
    K = zeros((i.size, m), a.dtype)
    k = np.arange(i.size)
    K[k, i] = K[k, i] + a[j]
    off = i != j
    K[k[off], j[off]] = K[k[off], j[off]] + a[i[off]]
    return K


def congruence(A: np.ndarray) -> np.ndarray:
    """(s(p), s(q)): the matrix of X -> A X A^T for A (p, q), on symmetric coordinates."""
    p, q = A.shape
    ip, jp = upper(p)
    iq, jq = upper(q)
    out = A[ip][:, iq] * A[jp][:, jq]
    off = iq != jq
    out[:, off] = out[:, off] + A[ip][:, jq[off]] * A[jp][:, iq[off]]
    return out


def expand(W: np.ndarray, n: int) -> np.ndarray:
    """The (n^2, n^2) matrix on row-major vec of a map given on symmetric coordinates by W (s(n), s(n)), exact on
    symmetric arguments: vec F(X) = Dup W Elim vec X with Elim reading the upper triangle and Dup writing both."""
    i, j = upper(n)
    full = zeros((n * n, n * n), W.dtype)
    cols = i * n + j
    full[np.ix_(i * n + j, cols)] = W
    full[np.ix_(j * n + i, cols)] = W
    return full


__all__ = ["basis", "congruence", "dual", "expand", "outer_dual", "pack", "size", "unpack", "upper"]
