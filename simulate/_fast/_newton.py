"""Numba kernel of the grid law's power-sum recursion (Newton's identities in normalised form, used by
``theory.grid.minibatch`` for the law of a minibatch sum without replacement): the same loop as the numpy version,
one lattice point at a time, so the k x M products never materialise k temporaries of the whole lattice."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def newton_elementary(psi, c, k):
    """E_k from the normalised power sums: E_0 = 1, E_j = sum_{m=1}^{min(j, M)} c[j, m] psi_m E_{j-m}.

    ``psi`` has shape (M, S) (psi_m at S lattice points), ``c`` shape (k + 1, M + 1); returns E_k, shape (S,).
    The terms are added in the order m = 1..M at each j, as the numpy loop does. Serial: the grid law runs one BLAS
    thread per process and the explorer several processes, so a parallel kernel would oversubscribe the cores."""
    M, S = psi.shape
    out = np.empty(S, dtype=np.complex128)
    for s in range(S):
        ring = np.empty(M + 1, dtype=np.complex128)
        ring[0] = 1.0
        for j in range(1, k + 1):
            acc = 0j
            for m in range(1, min(j, M) + 1):
                acc += (c[j, m] * psi[m - 1, s]) * ring[(j - m) % (M + 1)]
            ring[j % (M + 1)] = acc
        out[s] = ring[k % (M + 1)]
    return out
