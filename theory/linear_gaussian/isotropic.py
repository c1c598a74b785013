"""Quadratic observables theta^T B theta on isotropic models of any dimension (the Gaussian mean model).

When P_0 = p_0 I and every P_i = c I, every sampler's dynamics acts coordinate-wise (the minibatch counts are shared,
the matrices are scalars times I), and so does it in any rotated basis: with B = U diag(beta) U^T, the coordinates
u = U^T theta evolve as the same sampler on the rotated data U^T r_i, and any set of coordinates of u is a closed
chain of its own (its law is the sampler's law on the projected model). Hence, exactly,

    E avg(theta^T B theta) = sum_j beta_j E avg(u_j^2),
    Var avg(theta^T B theta) = sum_j beta_j^2 Var_j + 2 sum_{j<k} beta_j beta_k (Var_{jk} - Var_j - Var_k) / 2,

with Var_j of avg(u_j^2) from the one-coordinate chain and Var_{jk} of avg(u_j^2 + u_k^2) from the two-coordinate
chain, each by the fourth-moment route of :mod:`.time_average`: O(d^2) small problems (new).
"""

from __future__ import annotations

import numpy as np

from simulate.affine import AffineParts
from simulate.validation import ParameterError

from .quadratic import QUADRATIC_MAX_N


def _isotropic(src: AffineParts) -> bool:
    if src.form != "common":
        return False
    for M in (src.common, src.prior_precision):
        if np.any(M != np.diag(np.diag(M))) or np.any(np.diag(M) != M[0, 0]):
            return False
    return True


def _project(src: AffineParts, U: np.ndarray) -> AffineParts:
    k = U.shape[1]
    return AffineParts.with_common(src.prior_precision[0, 0] * np.eye(k), src.prior_shift @ U,
                                   src.common[0, 0] * np.eye(k), src.shifts @ U)


def isotropic_quadratic(law, B: np.ndarray, L: int, b: int, target: float, centre: np.ndarray | None = None):
    """The time average of (theta - c)^T B (theta - c) (c = ``centre``, default 0) by the coordinate-pair route of
    the module docstring (the centre rotates with the coordinates: u - U^T c)."""
    from .time_average import TimeAverage

    src = law.source
    if not _isotropic(src):
        raise ParameterError(
            f"quadratic: fourth moments of this chain (state dimension D = {law.state_dim}) are formed for D <= 3, "
            "or for isotropic models (P_0 and all P_i multiples of I, e.g. the Gaussian mean model) with a "
            "first-order integrator")
    if law.projected(np.eye(law.d)[:2], _project(src, np.eye(law.d)[:, :2])).kernel.layout.n > QUADRATIC_MAX_N:
        raise ParameterError(
            "quadratic: on isotropic models the engine forms the fourth moments of two coordinates at a time, which "
            f"needs a first-order integrator (state dimension 2 per pair); this sampler's state has {law.state_dim} "
            f"dimensions for d = {law.d}")
    beta, U = np.linalg.eigh(B)
    live = [j for j in range(law.d) if beta[j] != 0.0]
    one = {}
    for j in live:
        sub = law.projected(U[:, [j]].T, _project(src, U[:, [j]]))
        cj = None if centre is None else U[:, [j]].T @ centre
        one[j] = sub.time_average(quadratic=np.eye(1), n_steps=L, burn_in=b, target=0.0, centre=cj)
    mean = sum(beta[j] * one[j].mean for j in live)
    var = sum(beta[j] ** 2 * one[j].variance for j in live)
    for x, j in enumerate(live):
        for k in live[x + 1:]:
            Uk = U[:, [j, k]]
            sub = law.projected(Uk.T, _project(src, Uk))
            cjk = None if centre is None else Uk.T @ centre
            vjk = sub.time_average(quadratic=np.eye(2), n_steps=L, burn_in=b, target=0.0, centre=cjk).variance
            var += beta[j] * beta[k] * (vjk - one[j].variance - one[k].variance)
    var = max(var, 0.0)
    return TimeAverage(mean, var, (mean - target) ** 2 + var, target)


__all__ = ["isotropic_quadratic"]
