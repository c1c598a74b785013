"""Time averages of a^T theta for period-1 chains whose state is too large for explicit moment matrices.

In coordinates centred at the stationary mean, x_k has mean Phi^k delta and covariance C_k = C_inf + Delta_k, and
Cov(x_l, x_k) = Phi^(l-k) C_k for l >= k. For A = sum_{k=b}^{e} (a^T x_k + c), c = a^T m_inf - t, e = b + L - 1:

    Var A = L a^T C_inf a + 2 a^T (L S_{L-1} - T_{L-1}) C_inf a                      (stationary part)
          + sum_{k=b}^{e} [a^T Delta_k a + 2 a^T S_{e-k} Delta_k a]                    (transient part)
    E A   = L c + a^T Phi^b (I + S_{L-1}) delta,

S_n = sum_{tau=1}^n Phi^tau, T_n = sum_{tau=1}^n tau Phi^tau, computed by doubling (O(D^3 log L), no cancellation).
Delta_k decays geometrically (rate rho(T) per step): it is iterated with the exact operator (the assembled matrix on
symmetric coordinates where the law has one, :mod:`.assembled`) until it stays below 1e-14 of C_inf for 20 steps (its
remaining sum is then below double precision relative to the result), at most :data:`MAX_TRANSIENT` steps; the cost
is therefore independent of L once L exceeds the chain's mixing time, and grows with the mixing time (this route
serves states too large for the O(log L) matrix route of :mod:`.time_average`).
"""

from __future__ import annotations

import numpy as np

from simulate.validation import ParameterError

from .assembled import period_matrix
from .symmetric import pack, unpack

#: Most transient steps iterated by the large-state route.
MAX_TRANSIENT = 10**6
TOL = 1e-14
#: Above TOL, the level where a transient that stops shrinking is taken to be rounding noise of the recursion.
FLOOR = 1e-12


def _power_sums(Phi: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Phi^n, S_n, T_n) by binary doubling: P_2m = P_m^2, S_2m = S_m + P_m S_m, T_2m = T_m + P_m (T_m + m S_m)."""
    D = Phi.shape[0]
    P, S, T, m = np.eye(D), np.zeros((D, D)), np.zeros((D, D)), 0
    for bit in bin(n)[2:] if n > 0 else "":
        P, S, T, m = P @ P, S + P @ S, T + P @ (T + m * S), 2 * m
        if bit == "1":
            P = P @ Phi
            S, T, m = S + P, T + (m + 1) * P, m + 1
    return P, S, T


def _stepper(law, K):
    """One step of the homogeneous second moment: the assembled matrix on symmetric coordinates where the law
    assembles its moment maps (O(s(n)^2) per step), else the operator (O(N d^2))."""
    if not law.explicit:
        return lambda S: K.second(0, S)
    W, n = period_matrix(K), K.layout.n
    return lambda S: unpack(W @ pack(S), n)


def large_time_average(law, a: np.ndarray, L: int, b: int, target: float, max_steps: float | None = None):
    """The time average by the closed sums and the transient (module docstring); None when the transient needs more
    than ``max_steps`` steps (the caller then takes the matrix route, whose cost does not depend on mixing)."""
    from .solve import blas_threads

    with blas_threads(law.kernel):
        return _large_time_average(law, a, L, b, target, max_steps)


def _large_time_average(law, a: np.ndarray, L: int, b: int, target: float, max_steps: float | None):
    from .time_average import TimeAverage

    K, origins = law._centred_or_raw
    means, covs = law._stationary
    D, d = K.layout.D, law.d
    Cinf = covs[0]
    Phi = K.first_matrix(0)[:D, :D]
    av = np.zeros(D)
    av[:d] = a
    c = float(a @ origins[0][:d]) - target
    e = b + L - 1
    _, S, T = _power_sums(Phi, L - 1)
    stat = L * av @ Cinf @ av + 2.0 * av @ (L * S - T) @ Cinf @ av
    m, Sh = K.initial(law.theta0, law.cov0)
    delta = m[:D].copy()
    Pb, _, _ = _power_sums(Phi, b)
    mean_sum = L * c + av @ Pb @ (delta + S @ delta)
    step = _stepper(law, K)
    quiet, k, rows = 0, 0, []  # rows: (k, a^T Delta_k a, Delta_k a)
    scale = max(float(np.abs(Cinf).max()), 1e-300)
    sizes: list[float] = []
    while k <= e and quiet < 20:
        Ck = Sh[:D, :D] - np.outer(Sh[:D, D], Sh[:D, D])
        Dk = Ck - Cinf
        if k >= b:
            rows.append((k, av @ Dk @ av, Dk @ av))
        size = float(np.abs(Dk).max())
        sizes.append(size)
        # converged below TOL, or stalled at the rounding floor of the recursion (below FLOOR, no longer halving
        # every 20 steps)
        stalled = size <= FLOOR * scale and len(sizes) > 20 and size > 0.5 * sizes[-21]
        quiet = quiet + 1 if size <= TOL * scale or stalled else 0
        if max_steps is not None and k > max_steps:
            return None
        if k >= MAX_TRANSIENT:
            raise ParameterError(f"n_steps / burn_in: the chain needs more than {MAX_TRANSIENT} steps to forget its "
                                 "start; the large-state route of the engine stops there (use a smaller state or start "
                                 "at the stationary law)")
        Sh = step(Sh)
        k += 1
    trans = 0.0
    if rows:
        G = np.linalg.solve(np.eye(D) - Phi, Phi)  # Phi (I - Phi)^{-1}: S_j = G - G Phi^j
        r = G.T @ av
        j_lo = e - rows[-1][0]
        v = np.linalg.matrix_power(Phi.T, j_lo) @ r if j_lo < 64 else _power_sums(Phi.T, j_lo)[0] @ r
        vs = {}
        for j in range(j_lo, e - rows[0][0] + 1):
            vs[j] = v
            v = Phi.T @ v
        for kk, q, Da in rows:
            trans += q + 2.0 * (r @ Da - vs[e - kk] @ Da)
    var = max(stat + trans, 0.0)
    mean = mean_sum / L + target
    bias = mean - target
    return TimeAverage(mean, var / L**2, bias**2 + var / L**2, target)


__all__ = ["MAX_TRANSIENT", "large_time_average"]
