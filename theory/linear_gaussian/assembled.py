"""The second-moment maps of a kernel assembled as matrices on the symmetric vec space (:mod:`.symmetric`).

One step maps E x^ x^^T by X -> Mbar X Mbar^T + X_cc Qn + L F(R X R^T) L^T (:mod:`.stages`), F the minibatch
pair-covariance operator of :mod:`.noise`. Its matrix on symmetric coordinates is obtained by applying the stages
to the whole basis at once (a batch of s(n) matrices): the mean part costs O(n^3) per basis matrix, and F is applied
through its own matrix on symmetric coordinates, ``NoiseOperator.pair_matrix`` (s(d) x s(d+1)), formed once per
(model, minibatch group) by one product over the data, O(N s(d) s(d+1)) = O(N d^4 / 4). Nothing here depends on
how ill-conditioned the model is.

* :func:`block_operator`: the period map of the centred covariance, C -> T(C) + Q, as (T, q) on the s(D) coordinates
  of C (the centred kernel closes on the D x D block: its mean is 0 at every phase, so no cross terms arise);
* :func:`phase_matrix`, :func:`period_matrix`: the maps of the homogeneous second moment (s(n) x s(n), with the
  mean and the constant), for finite-k moments and time averages;
* :func:`assembled`: whether the engine takes this route, by its cost (:func:`assembly_flops`) against the
  operator route's (:func:`operator_flops`).
"""

from __future__ import annotations

import numpy as np

from .affine import zeros
from .kernel import Kernel
from .stages import Dense
from .symmetric import basis, pack, size

#: Largest estimated cost (floating-point operations) of the assembled route; beyond it the engine solves with
#: operators (:mod:`.krylov`) ...
ASSEMBLY_MAX_FLOPS = 5e9
#: ... and the cost below which it always assembles (robust near the stability edge, exact spectral radii), and
#: otherwise only when cheaper than this many applications of the period map (a typical operator solve with its
#: certificate).
ASSEMBLY_ALWAYS_FLOPS, OPERATOR_APPLICATIONS = 2e8, 40


def _apply(kernel: Kernel, X: np.ndarray, phases) -> np.ndarray:
    for p in phases:
        X = kernel.second(p, X)
    return X


def block_operator(kernel: Kernel, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(T (s(D), s(D)), q (s(D),)) with pack(C') = T pack(C) + q for the covariance of the whole state over one period
    from phase ``start`` (``kernel`` centred, :meth:`.kernel.Kernel.shifted`)."""
    lay, P = kernel.layout, kernel.period
    D, n = lay.D, lay.n
    s = size(D)
    X = zeros((s + 1, n, n), lay.dtype)
    X[:s, :D, :D] = basis(D, lay.dtype)
    X[s, D, D] = 1
    out = pack(_apply(kernel, X, [(start + j) % P for j in range(P)])[:, :D, :D])
    return out[:s].T.copy(), out[s].copy()


def phase_matrix(kernel: Kernel, phase: int) -> np.ndarray:
    """(s(n), s(n)): the map of the homogeneous second moment E x^ x^^T by one step at ``phase``."""
    n = kernel.layout.n
    return pack(_apply(kernel, basis(n, kernel.layout.dtype), [phase])).T.copy()


def period_matrix(kernel: Kernel) -> np.ndarray:
    """(s(n), s(n)): the same over one period from phase 0."""
    n, P = kernel.layout.n, kernel.period
    return pack(_apply(kernel, basis(n, kernel.layout.dtype), range(P))).T.copy()


def assembly_flops(kernel: Kernel) -> float:
    """Estimated floating-point operations of :func:`block_operator` and the dense solve on its result."""
    lay = kernel.layout
    n, d, D = lay.n, lay.d, lay.D
    batch = size(D) + 1
    total, ops = 2.0 / 3.0 * size(D) ** 3, {}
    for stages in kernel.phases:
        for st in stages:
            total += batch * 4.0 * n**3
            if isinstance(st.fluct, Dense):
                total += batch * 4.0 * n**3 * sum(V.shape[0] for _, V in st.fluct.parts)
            elif st.fluct is not None:
                total += batch * (2.0 * size(d) * size(d + 1) + 8.0 * d * n * n)
                ops[id(st.fluct.op)] = st.fluct.op
    return total + sum(op.pair_flops() for op in ops.values())


def operator_flops(kernel: Kernel) -> float:
    """Estimated floating-point operations of one application of the period map to one matrix (operator route)."""
    n, total = kernel.layout.n, 0.0
    for stages in kernel.phases:
        for st in stages:
            total += 4.0 * n**3
            if isinstance(st.fluct, Dense):
                total += 4.0 * n**3 * sum(V.shape[0] for _, V in st.fluct.parts)
            elif st.fluct is not None:
                total += st.fluct.op.apply_flops() + 8.0 * n * n * kernel.layout.d
    return total


def assembled(kernel: Kernel) -> bool:
    """True when the engine assembles the moment maps: their cost (:func:`assembly_flops`) is at most
    :data:`ASSEMBLY_MAX_FLOPS`, and at most :data:`ASSEMBLY_ALWAYS_FLOPS` or the cost of
    :data:`OPERATOR_APPLICATIONS` applications of the period map (a periodic chain with a long epoch on few data is
    cheaper by operators)."""
    flops = assembly_flops(kernel)
    if flops > ASSEMBLY_MAX_FLOPS:
        return False
    return flops <= ASSEMBLY_ALWAYS_FLOPS or flops <= OPERATOR_APPLICATIONS * operator_flops(kernel)


__all__ = ["ASSEMBLY_ALWAYS_FLOPS", "ASSEMBLY_MAX_FLOPS", "OPERATOR_APPLICATIONS", "assembled", "assembly_flops",
           "block_operator", "operator_flops", "period_matrix", "phase_matrix"]
