"""Exact MSE of time averages (1/L) sum_{k=b}^{b+L-1} phi(theta_k), phi linear (a^T theta) or quadratic
(theta^T B theta, or (theta - c)^T B (theta - c) about a given centre c), over any window [b, b+L), at a cost
independent of L (Vollmer et al. 2016 eq. 7 convention).

Write phi(theta_k) - t = a_k^T z_k with z_k = x^_k (linear) or z_k = x^_k (x) x^_k (quadratic; t the target), in
coordinates centred at the stationary means (a_k then depends on the phase). The z_k satisfy E[z_l | z_k] = Psi_{l<-k}
z_k (first moments for linear phi, second moments for quadratic phi) and E z_k z_k^T = W_{k-1} ... W_0 E z_0 z_0^T
(second, resp. fourth moments). Then, with A = sum_{k in window} a_k^T z_k,

    E A^2 = sum_{k in window} < g_k a_k^T, E z_k z_k^T >,     g_k = a_k + sum_{l > k, l in window} 2 Psi_{l<-k}^T a_l,

and the backward recursion g_k = a_k + Psi_k^T (g_{k+1} + a_{k+1}), Y_k = vec(g_k a_k^T) + W_k^T Y_{k+1} (E A^2 =
< Y_0, vec E z_0 z_0^T >) is linear in (Y, g, 1): one matrix per phase, composed over a period and raised to the
number of whole periods by repeated squaring (O(log L) products of (m^2 + m + 1)-square matrices, m = dim z).
The variance is E A^2 / L^2 with the observable centred at the time average's mean (no cancellation), and
MSE = variance + (mean - target)^2 (new; the 1-D closed forms of Chen et al. and theory.toy.finite_time are special
cases). Second moments are carried on symmetric coordinates (:mod:`.symmetric`: m^2 -> m (m + 1)/2), fourth moments
(quadratic observables) on row-major vec.
States too large for explicit matrices use, for a chain of period 1 and linear phi, the closed stationary sum
(doubling sums of powers of Phi) plus the transient summed until it is below double precision; a periodic chain of
that size is summed forward step by step (cost O(b + L), :func:`_forward`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulate.validation import ParameterError, check_finite_array, check_int

from .assembled import phase_matrix
from .quadratic import QUADRATIC_MAX_N, fourth_matrices
from .symmetric import expand, outer_dual, pack, size

#: Largest number of coordinates s(n) + n + 1 of the augmented recursion of the matrix route for linear observables
#: (O((s(n) + n)^3 log L) per window; beyond it, :mod:`.transient`) ...
EXPLICIT_MAX_DIM = 300
#: ... (for a chain of period 1 whose law does not assemble its maps for its solves, the route assembles them itself
#: up to this many coordinates: a few seconds' products at most, against a transient stepped for as long as the chain
#: takes to mix) ...
PERIOD1_MAX_DIM = 600
#: ... and the cost of one transient step beyond its matrix-vector product, in floating-point operations (Python).
TRANSIENT_STEP_OVERHEAD = 2e5


class TimeAverage(NamedTuple):
    """Mean and variance of the time average, its MSE against ``target`` (bias^2 + variance)."""

    mean: float
    variance: float
    mse: float
    target: float


def _check_observable(law, a, B):
    d = law.d
    if (a is None) == (B is None):
        raise ParameterError("give exactly one of a (linear observable a^T theta) or quadratic (B of theta^T B theta)")
    if a is not None:
        a = check_finite_array("a", a, ndim=(0, 1)).reshape(-1)
        if a.shape != (d,):
            raise ParameterError(f"a must have shape ({d},), got {a.shape}")
        return a, None
    B = check_finite_array("quadratic", B, ndim=(2,))
    if B.shape != (d, d) or not np.allclose(B, B.T):
        raise ParameterError(f"quadratic must be a symmetric ({d}, {d}) matrix")
    return None, 0.5 * (B + B.T)


def _check_centre(law, B, centre) -> np.ndarray | None:
    """The centre c of a quadratic observable (theta - c)^T B (theta - c), shape (d,); None for c = 0."""
    if centre is None:
        return None
    if B is None:
        raise ParameterError("centre applies to a quadratic observable (theta - c)^T B (theta - c) only; a linear "
                             "observable a^T theta needs no centre (shift its target instead)")
    c = check_finite_array("centre", centre, ndim=(0, 1)).reshape(-1)
    if c.shape != (law.d,):
        raise ParameterError(f"centre must have shape ({law.d},), got {c.shape}")
    return c


def time_average(law, a, B, n_steps: int, burn_in: int, target, centre=None) -> TimeAverage:
    """See the module docstring; ``n_steps`` = L >= 1 (a window of length 0 has no average), ``burn_in`` = b;
    ``centre`` c (quadratic observables only): phi = (theta - c)^T B (theta - c), i.e. the stationary origins s_p of
    the centred coordinates become s_p - c (new)."""
    L = check_int("n_steps", n_steps, 1)
    b = check_int("burn_in", burn_in, 0)
    a, B = _check_observable(law, a, B)
    c = _check_centre(law, B, centre)
    mu, Sig = law.posterior_mean, law.posterior_cov
    if target is None:
        dm = mu if c is None else mu - c
        target = float(a @ mu) if a is not None else float(np.trace(B @ Sig) + dm @ B @ dm)
    target = float(check_finite_array("target", target, ndim=(0,)))
    law._stationary  # noqa: B018 - raises ParameterError naming h when unstable
    if B is not None and law.kernel.layout.n > QUADRATIC_MAX_N:
        from .isotropic import isotropic_quadratic

        return isotropic_quadratic(law, B, L, b, target, c)
    if B is None:
        done = _closed_sums(law, a, L, b, target)
        if done is not None:
            return done
    first, second, z0, Z0, obs = _explicit_setup(law, a, B, c)
    outer = _outer_full if B is not None else outer_dual
    mean = _first_sum(first, obs(0.0), z0, b, L) / L
    var = max(_second_sum(first, second, obs(mean), Z0, outer, b, L) / L**2, 0.0)
    return TimeAverage(mean, var, (mean - target) ** 2 + var, target)


def _closed_sums(law, a, L: int, b: int, target: float) -> TimeAverage | None:
    """A linear observable by the closed sums and the transient (:mod:`.transient`; periodic chains: forward), or
    None for the matrix route. Where the matrix route is available (assembled maps, at most
    :data:`EXPLICIT_MAX_DIM` coordinates) the transient is stepped only while that costs less than the matrix route's
    O(log L) products: the cheaper of the two, whatever the mixing time."""
    n = law.kernel.layout.n
    dim = size(n) + n + 1
    matrix = law.explicit and dim <= EXPLICIT_MAX_DIM
    if law.period > 1:
        return None if matrix else _large(law, a, L, b, target)
    matrix = dim <= (EXPLICIT_MAX_DIM if law.explicit else PERIOD1_MAX_DIM)
    budget = None
    if matrix:
        products = 2.0 * (np.log2(L + 1.0) + np.log2(b + 1.0)) + 4.0
        budget = products * 2.0 * dim**3 / (2.0 * size(n) ** 2 + TRANSIENT_STEP_OVERHEAD)
    from .transient import large_time_average

    return large_time_average(law, a, L, b, target, budget)


def _outer_full(a: np.ndarray) -> np.ndarray:
    """vec(g a^T) = K g on row-major vec (the quadratic route's full coordinates)."""
    return np.kron(np.eye(a.size), a[:, None])


def _matrices(law, quadratic: bool):
    """(first, second, z_0, E z_0 z_0^T as a vector) of the linear route (first moments and second moments on
    symmetric coordinates, :mod:`.symmetric`) or the quadratic route (second and fourth moments on row-major vec);
    they depend on the law only, so they are kept on it for the next window or observable (the same numbers)."""
    cache = law.__dict__.setdefault("_time_average_matrices", {})
    if quadratic not in cache:
        K = law._centred_or_raw[0]
        P, n = K.period, K.layout.n
        m0, S0 = K.initial(law.theta0, law.cov0)
        W = [phase_matrix(K, p) for p in range(P)]
        if not quadratic:
            cache[quadratic] = ([K.first_matrix(p) for p in range(P)], W, m0, pack(S0))
        else:
            cache[quadratic] = ([expand(w, n) for w in W], fourth_matrices(K), S0.reshape(-1),
                                _fourth_initial(S0, m0).reshape(-1))
    return cache[quadratic]


def _explicit_setup(law, a, B, centre=None):
    """Per-phase Psi, W (centred kernel), z_0, E z_0 z_0^T and the observable's per-phase vectors a_p(t)."""
    K, origins = law._centred_or_raw
    n, d, P = K.layout.n, law.d, K.period
    first, second, z0, Z0 = _matrices(law, B is not None)
    if B is None:

        def obs(t):
            return [np.append(np.pad(a, (0, n - 1 - d)), a @ origins[p][:d] - t) for p in range(P)]
    else:

        def obs(t):
            out = []
            for p in range(P):
                s = origins[p][:d] if centre is None else origins[p][:d] - centre
                Q = np.zeros((n, n))
                Q[:d, :d] = B
                Q[:d, -1] = Q[-1, :d] = B @ s
                Q[-1, -1] = s @ B @ s - t
                out.append(Q.reshape(-1))
            return out
    return first, second, z0, Z0, obs


def _fourth_initial(S0: np.ndarray, m0: np.ndarray) -> np.ndarray:
    """E[x^^(x)4] as (n^2, n^2) for Gaussian x (Isserlis with mean; the corner is the constant 1)."""
    n = m0.size
    C = S0 - np.outer(m0, m0)
    t = np.einsum("a,b,c,d->abcd", m0, m0, m0, m0)
    for p, q in (("ab", "cd"), ("ac", "bd"), ("ad", "bc")):
        t = t + np.einsum(f"{p},{q[0]},{q[1]}->abcd", C, m0, m0) + np.einsum(f"{q},{p[0]},{p[1]}->abcd", C, m0, m0)
        t = t + np.einsum(f"{p},{q}->abcd", C, C)
    return t.reshape(n * n, n * n)


def _range_product(maps, k0: int, length: int) -> np.ndarray:
    """maps[k0 % P] @ maps[(k0+1) % P] @ ... (``length`` factors), whole periods by repeated squaring."""
    P, dim = len(maps), maps[0].shape[0]
    if length <= 0:
        return np.eye(dim)
    q, r = divmod(length, P)
    per = np.eye(dim)
    for j in range(P):
        per = per @ maps[(k0 + j) % P]
    rem = np.eye(dim)
    for j in range(r):
        rem = rem @ maps[(k0 + j) % P]
    return np.linalg.matrix_power(per, q) @ rem


def _first_sum(first, avec, z0, b: int, L: int) -> float:
    """E sum_{k in window} a_k^T z_k by the backward recursion y_k = [k in window] a_k + Psi_k^T y_{k+1}."""
    m, P = z0.size, len(first)

    def step(p, inside):
        M = np.zeros((m + 1, m + 1))
        M[:m, :m] = first[p].T
        M[m, m] = 1.0
        if inside:
            M[:m, m] = avec[p]
        return M

    win = _range_product([step(p, True) for p in range(P)], b, L)
    out = _range_product([step(p, False) for p in range(P)], 0, b)
    v = out @ win @ np.append(np.zeros(m), 1.0)
    return float(v[:m] @ z0)


def _second_sum(first, second, avec, Z0, outer, b: int, L: int) -> float:
    """E (sum_{k in window} a_k^T z_k)^2 by the backward recursion of the module docstring; ``second`` acts on the
    coordinates of E z z^T in which ``Z0`` is given, and ``outer(a)`` maps g to the coordinates of the functional
    g a^T in the dual ones."""
    m, P = first[0].shape[0], len(first)
    M2 = second[0].shape[0]
    dim = M2 + m + 1

    def step(p, inside):
        M = np.zeros((dim, dim))
        M[:M2, :M2] = second[p].T
        if not inside:
            M[M2:, M2:] = np.eye(m + 1)
            return M
        a, a1 = avec[p], avec[(p + 1) % P]
        Ka = outer(a)
        PsiT = first[p].T
        M[M2:M2 + m, M2:M2 + m] = PsiT
        M[M2:M2 + m, -1] = a + PsiT @ a1
        M[:M2, M2:M2 + m] = Ka @ PsiT
        M[:M2, -1] = Ka @ (a + PsiT @ a1)
        M[-1, -1] = 1.0
        return M

    v0 = np.zeros(dim)
    v0[M2:M2 + m] = -avec[(b + L) % P]
    v0[-1] = 1.0
    win = _range_product([step(p, True) for p in range(P)], b, L)
    out = _range_product([step(p, False) for p in range(P)], 0, b)
    v = out @ (win @ v0)
    return float(v[:M2] @ Z0)


def _large(law, a, L: int, b: int, target: float) -> TimeAverage:
    """Periodic chains whose maps are not assembled: :func:`_forward` (cost O(b + L))."""
    mean = _forward(law, a, L, b, 0.0)[0] / L
    mse = _forward(law, a, L, b, target)[1] / L**2
    var = _forward(law, a, L, b, mean)[1] / L**2
    return TimeAverage(mean, max(var, 0.0), mse, target)


def _forward(law, a, L: int, b: int, t: float) -> tuple[float, float]:
    """(E A, E A^2) for A = sum_{k in [b, b+L)} (a^T theta_k - t) by one forward pass: with c_k = E[x^_k sum_{j < k,
    j in window} y_j] (y_j = a_j^T x^_j), c_{k+1} = Psi_k (c_k + [k in window] S_k a_k) and
    E A^2 = sum_{k in window} (a_k^T S_k a_k + 2 a_k^T c_k) (any period, any state size; O(b + L) steps)."""
    K, origins = law._centred_or_raw
    n, d, P = K.layout.n, law.d, K.period
    avec = [np.append(np.pad(a, (0, n - 1 - d)), a @ origins[p][:d] - t) for p in range(P)]
    m, S = K.initial(law.theta0, law.cov0)
    c = np.zeros(n)
    first = second = 0.0
    for k in range(b + L):
        p = k % P
        Psi = K.first_matrix(p)
        if k >= b:
            ak = avec[p]
            first += ak @ m
            second += ak @ S @ ak + 2.0 * ak @ c
            c = Psi @ (c + S @ ak)
        else:
            c = Psi @ c
        m, S = Psi @ m, K.second(p, S)
    return first, second


__all__ = ["TimeAverage", "time_average"]
