"""The exact law of a minibatch sum, as its characteristic function on the grid's Fourier lattice.

For per-datum vectors w_1, ..., w_N (the data's gradients mapped into the grid's coordinates) and a minibatch tau of
size n, S = sum_{j in tau} w_j. Its characteristic function E exp(i kappa . S) is computed at every frequency kappa
of the lattice (a tensor product over the axes, so sums over data are matrix products):

* with replacement (n iid uniform draws): psi(kappa)^n with psi = (1/N) sum_j exp(i kappa . w_j): exact;
* without replacement, C(N, n) <= ENUMERATE_MAX: the finite mixture over every n-subset: exact;
* without replacement otherwise: E exp(i kappa . S) = e_n(a) / C(N, n), the n-th elementary symmetric polynomial of
  a_j = exp(i kappa . w_j), from the power sums p_m = sum_j a_j^m by Newton's identities in normalised form,
  E_k = sum_{m=1}^{min(k, M)} (-1)^(m-1) [N C(N, k-m) / (k C(N, k))] psi_m E_{k-m},  psi_m = p_m / N,
  truncated at M power sums (exact when M = n). Truncation error (new, derived in docs/grid_law.md): with
  log prod_j (1 + t a_j) = sum_m (-1)^(m-1) p_m t^m / m and |p_m| <= N, the dropped part R(t) = sum_{m > M} ...
  is majorised by Rbar(t) = sum_{m > M} N t^m / m, so
  |E_n - E_n^(M)| <= sum_{j > M} C(N, n - j) / C(N, n) [t^j](exp(Rbar) - 1),
  computed exactly (positive series); M is the smallest that brings it below the tolerance. Rounding is bounded by
  running the recursion on magnitudes (B_k with |coefficients|): error <= eps (M + 4 + log2 N) n B_n. When n > N/2
  the complement is used (S = sum_j w_j - S', S' of size N - n). A bound above the tolerance is refused, naming n.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import gammaln

from simulate._fast import kernels
from simulate.validation import ParameterError

#: Largest number of minibatches enumerated as a finite mixture.
ENUMERATE_MAX = 4096
#: Largest complex entries held at once by one chunk of the computation.
CHUNK_ENTRIES = 1 << 22
EPS = float(np.finfo(float).eps)


def _fft_steps(k: np.ndarray) -> float | None:
    """dk when k is numpy's FFT frequency order 0, 1, ..., n/2 - 1, -n/2, ..., -1 times dk (n even), else None."""
    n = k.size
    if n < 2 or n % 2:
        return None
    dk = float(k[1])
    ideal = dk * np.fft.fftfreq(n, 1.0 / n)
    return dk if np.allclose(k, ideal, rtol=0, atol=1e-12 * abs(dk) * n) else None


def axis_phases(w: np.ndarray, k: np.ndarray, last: bool) -> np.ndarray:
    """exp(i k_q w_pm) for w of shape (P, M): shape (P, M, K) if ``last`` else (P, K, M). On numpy's FFT frequency
    order the powers of exp(i dk w) are taken by doubling products (one exp per datum instead of K)."""
    dk = _fft_steps(k)
    if dk is None:
        out = np.exp(1j * w[:, :, None] * k[None, None, :])
        return out if last else np.ascontiguousarray(out.transpose(0, 2, 1))
    n = k.size
    half = n // 2
    # exp(i q dk w) for q = 0 .. n/2 by doubling (log2(n) products, written in the caller's layout directly); the
    # negative frequencies -q are the conjugates of the positive ones
    out = np.empty(w.shape + (n,) if last else (w.shape[0], n, w.shape[1]), dtype=complex)
    pos = out if last else np.moveaxis(out, 1, 2)  # a (P, M, n) view
    pos[..., 0] = 1.0
    pos[..., 1] = np.exp(1j * dk * w)
    filled = 2
    while filled <= half:
        m = min(filled - 1, half + 1 - filled)
        np.multiply(pos[..., 1:m + 1], pos[..., filled - 1:filled], out=pos[..., filled:filled + m])
        filled += m
    np.conjugate(pos[..., half - 1:0:-1], out=pos[..., half + 1:])
    pos[..., half] = np.conj(pos[..., half])  # -n/2 dk: the conjugate of +n/2 dk
    return out


def phases(W: np.ndarray, axes: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """exp(i kappa_j W[..., j]) per axis j, in the layouts :func:`tensor_sum` multiplies.

    Parameters
    ----------
    W : numpy.ndarray
        Shape (P, M, D).
    axes : tuple of numpy.ndarray
        The lattice's frequencies per axis, K_1, ..., K_D of them.

    Returns
    -------
    list of numpy.ndarray
        The first of shape (P, K_1, M) when D = 2 (else (P, M, K_1)), the second (P, M, K_2).
    """
    if len(axes) == 1:
        return [axis_phases(W[:, :, 0], axes[0], last=True)]
    return [axis_phases(W[:, :, 0], axes[0], last=False), axis_phases(W[:, :, 1], axes[1], last=True)]


def tensor_sum(E: list[np.ndarray], weights: np.ndarray | None = None) -> np.ndarray:
    """sum_m weights_m prod_j E_j[...] over the data axis m.

    Parameters
    ----------
    E : list of numpy.ndarray
        The phases of :func:`phases`.
    weights : numpy.ndarray, optional
        Weights over the data axis, shape (P, M) (default 1).

    Returns
    -------
    numpy.ndarray
        Shape (P, K_1, ..., K_D).
    """
    if len(E) == 1:
        return (E[0] if weights is None else E[0] * weights[..., None]).sum(axis=1)
    first = E[0] if weights is None else E[0] * weights[:, None, :]
    if first.shape[2] == 1:  # one term: an outer product per point (a batched matmul with inner size 1 is slow)
        return first * E[1]
    return np.matmul(first, E[1])


def _log_choose(N: int, k: int | np.ndarray) -> np.ndarray:
    return gammaln(N + 1.0) - gammaln(np.asarray(k) + 1.0) - gammaln(N - np.asarray(k) + 1.0)


def truncation_bound(N: int, n: int, M: int) -> float:
    """The bound on ``|E_n - E_n^(M)|`` of the module docstring (exactly 0 when M >= n).

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size (without replacement).
    M : int
        The number of power sums kept.

    Returns
    -------
    float
        The bound on the truncation error of Newton's identities with M power sums.

    References
    ----------
    New (module docstring; the derivation is in docs/grid_law.md).
    """
    if M >= n:
        return 0.0
    q = n / (N - n + 1.0)
    R = np.zeros(n + 1)
    m = np.arange(M + 1, n + 1)
    R[M + 1:] = np.exp(np.log(N) - np.log(m) + m * np.log(q))  # Rbar_m q^m
    E = np.zeros(n + 1)
    E[0] = 1.0
    for j in range(1, n + 1):
        mm = np.arange(1, j + 1)
        E[j] = (mm * R[mm] * E[j - mm]).sum() / j
    j = np.arange(M + 1, n + 1)
    ratio = np.exp(_log_choose(N, n - j) - _log_choose(N, n) - j * np.log(q))
    return float((ratio * E[j]).sum())


def recursion_coefficients(N: int, n: int, M: int) -> np.ndarray:
    """c[k, m] = (-1)^(m-1) N C(N, k-m) / (k C(N, k)) for 1 <= m <= min(k, M).

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size (without replacement).
    M : int
        The number of power sums kept.

    Returns
    -------
    numpy.ndarray
        Shape (n + 1, M + 1) (0 outside 1 <= m <= min(k, M)).

    References
    ----------
    Newton's identities for the elementary symmetric polynomials, in the normalised form of the module docstring.
    """
    c = np.zeros((n + 1, M + 1))
    for k in range(1, n + 1):
        m = np.arange(1, min(k, M) + 1)
        c[k, m] = (-1.0) ** (m - 1) * np.exp(np.log(N) + _log_choose(N, k - m) - np.log(k) - _log_choose(N, k))
    return c


def rounding_bound(N: int, n: int, M: int) -> float:
    """eps (M + 4 + log2 N) n B_n, B the recursion run on the magnitudes of its coefficients (B_0 = 1).

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size (without replacement).
    M : int
        The number of power sums kept.

    Returns
    -------
    float
        The bound on the rounding error of the recursion.

    References
    ----------
    New (module docstring; the derivation is in docs/grid_law.md).
    """
    c = np.abs(recursion_coefficients(N, n, M))
    B = np.zeros(n + 1)
    B[0] = 1.0
    for k in range(1, n + 1):
        m = np.arange(1, min(k, M) + 1)
        B[k] = (c[k, m] * B[k - m]).sum()
    return EPS * (M + 4 + math.log2(N)) * n * float(B[n])


def _newton_plan(N: int, k: int, tol: float) -> tuple[int, float] | None:
    """(M, bound) of the power-sum route for a sum of k of N without replacement, or None above ``tol``."""
    for M in range(1, k + 1):
        trunc = truncation_bound(N, k, M)
        if trunc <= tol / 2:
            total = trunc + rounding_bound(N, k, M)
            return (M, total) if total <= tol else None
    return None


def plan(N: int, n: int, replace: bool, tol: float) -> tuple[str, int, float]:
    """(method, M, error bound) for a sum of n of N: 'replace', 'enumerate' or 'newton' with M power sums.

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size.
    replace : bool
        Whether the minibatch is drawn with replacement.
    tol : float
        The largest error bound accepted.

    Returns
    -------
    tuple
        (method, M, error bound).

    Raises
    ------
    ParameterError
        When the error bound of the power-sum route exceeds ``tol``, naming the n that work.
    """
    if replace:
        return "replace", 1, 0.0
    k = min(n, N - n)
    if k == 0 or math.comb(N, k) <= ENUMERATE_MAX:
        return "enumerate", 0, 0.0
    got = _newton_plan(N, k, tol)
    if got is not None:
        return "newton", got[0], got[1]
    lo, hi = 1, k  # the largest k' whose bound is below tol (the bound grows with k')
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _newton_plan(N, mid, tol) is not None else (lo, mid - 1)
    raise ParameterError(
        f"n = {n} of N = {N} without replacement: the exact law of the minibatch sum cannot be represented to "
        f"{tol:.1g} on this route (the power-sum recursion's error bound exceeds it for min(n, N - n) = {k}); use "
        f"n <= {lo} or n >= {N - lo}, or replace=True (exact for any n)")


def minibatch_cf(W: np.ndarray, n: int, replace: bool, axes: tuple[np.ndarray, ...],
                 tol: float = 1e-13) -> tuple[np.ndarray, float, str]:
    """E exp(i kappa . sum_{j in tau} W[p, j]) on the lattice ``axes``, for every p (module docstring).

    Parameters
    ----------
    W : ndarray, shape (P, N, D)
        The per-datum vectors at P points.
    n : int
        Minibatch size, 1 <= n <= N.
    replace : bool
        With replacement (iid draws) or without (a uniform n-subset).
    axes : tuple of ndarray
        The frequencies per axis (D of them).
    tol : float
        Largest error bound accepted for the non-enumerated exact route.

    Returns
    -------
    (cf, bound, method) : (ndarray (P, K_1, ..., K_D), float, str)
        The characteristic function, its error bound and the method used.

    Raises
    ------
    ParameterError
        When the error bound of the exact route exceeds ``tol`` (module docstring).
    """
    P, N, D = W.shape
    method, M, bound = plan(N, n, replace, tol)
    size = int(np.prod([k.size for k in axes]))
    out = np.empty((P,) + tuple(k.size for k in axes), dtype=complex)
    per_point = size * (M + 2) + N * sum(k.size for k in axes)
    if method == "enumerate":
        return _enumerate(W, n, axes, out), 0.0, method
    step = max(1, CHUNK_ENTRIES // per_point)
    for a in range(0, P, step):
        Wc = W[a:a + step]
        if method == "replace":
            out[a:a + step] = (tensor_sum(phases(Wc, axes)) / N) ** n
        else:
            out[a:a + step] = _newton(Wc, n, M, axes)
    return out, bound, method


def _enumerate(W: np.ndarray, n: int, axes, out: np.ndarray) -> np.ndarray:
    """The finite mixture over every n-subset (through the complement when n > N/2)."""
    P, N, _ = W.shape
    k = min(n, N - n)
    total = W.sum(axis=1)
    if k == 0:
        sums = total[:, None, :] if n == N else np.zeros_like(total)[:, None, :]
        return tensor_sum(phases(sums, axes)).reshape(out.shape)
    subsets = np.array(list(itertools.combinations(range(N), k)))
    B = subsets.shape[0]
    step = max(1, CHUNK_ENTRIES // (B * (sum(x.size for x in axes) + 2)))
    for a in range(0, P, step):
        s = W[a:a + step][:, subsets, :].sum(axis=2)  # (p, B, D)
        if k != n:
            s = total[a:a + step, None, :] - s
        out[a:a + step] = tensor_sum(phases(s, axes)) / B
    return out


def _newton(W: np.ndarray, n: int, M: int, axes) -> np.ndarray:
    """Newton's identities in normalised form with M power sums (through the complement when n > N/2)."""
    P, N, _ = W.shape
    k = min(n, N - n)
    sign = 1.0 if k == n else -1.0
    E1 = phases(sign * W, axes)
    psi = []
    Em = [e.copy() for e in E1]
    for m in range(1, M + 1):
        if m > 1:
            for e, e1 in zip(Em, E1, strict=True):
                e *= e1
        psi.append(tensor_sum(Em) / N)
    c = recursion_coefficients(N, k, M)
    res = kernels.newton_elementary(np.stack(psi).reshape(M, -1), c, k).reshape(psi[0].shape)
    if k != n:
        res = res * tensor_sum(phases(W.sum(axis=1)[:, None, :], axes))
    return res


__all__ = ["ENUMERATE_MAX", "minibatch_cf", "phases", "plan", "recursion_coefficients", "rounding_bound",
           "tensor_sum", "truncation_bound"]
