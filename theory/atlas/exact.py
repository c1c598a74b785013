"""The exact distance between a chain's law and the target at one atlas point, as an interval [lo, hi] that holds
the true value (lo = hi where it is known exactly), with the route that produced it.

    Gaussian law (ULA, underdamped Langevin MCMC)   W2, KL, TV exactly (:mod:`theory.distances`)
    moments only (stochastic gradients)             W2 in [Gelbrich's lower bound, the independent coupling's
                                                    |m - mu|^2 + tr C + tr S], KL >= the maximum-entropy bound
    averaged law (a mixture of Gaussians)           KL in [KL of the moment-matched Gaussian, mean KL of the
                                                    components] (convexity); exact by quadrature in 1-D

A bound is violated at a point when it is below lo, holds when it is at least hi, and the point is undecided in
between (:mod:`theory.atlas.evaluate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theory.distances import gelbrich_w2, kl_gaussian, kl_lower_from_moments, tv_gaussian, w2_gaussian

#: Points of the 1-D quadrature grid for the averaged law's KL.
GRID_1D = 4001


@dataclass(frozen=True)
class Exact:
    """lo <= the distance <= hi, and how it was computed.

    Parameters
    ----------
    lo, hi : float
        The interval that holds the exact distance (equal where it is known exactly).
    route : str
        How it was computed.
    """

    lo: float
    hi: float
    route: str

    @property
    def exact(self) -> bool:
        return self.lo == self.hi


def _definite(C: np.ndarray) -> bool:
    return bool(np.linalg.eigvalsh(C)[0] > 0.0)


def psd(C: np.ndarray, m: np.ndarray) -> np.ndarray:
    """A covariance from the engine, symmetrised, with its negative eigenvalues set to 0 where they are rounding.

    The engine forms Cov = E x x^T - m m^T (here through an eigendecomposition of its second-moment map, whose
    eigenvectors may be ill-conditioned), so its error is a small multiple of 1e-16 (``|m|^2 + tr C``), and an
    eigenvalue above -1e-8 (``|m|^2 + tr C``) is read as 0 (e.g. the position variance ~ h^3 of an underdamped step
    from a point); a larger negative eigenvalue is left for the distances to refuse.

    Parameters
    ----------
    C : numpy.ndarray
        The covariance.
    m : numpy.ndarray
        The mean (its size sets the tolerance).

    Returns
    -------
    numpy.ndarray
        The symmetrised covariance, rounding-negative eigenvalues set to 0.
    """
    C = 0.5 * (C + C.T)
    tol = 1e-8 * (float(m @ m) + float(np.abs(np.diag(C)).sum()))
    if np.all(C == np.diag(np.diag(C))):
        d = np.diag(C)
        return np.diag(np.where((d < 0) & (d >= -tol), 0.0, d))
    lam, U = np.linalg.eigh(C)
    if lam[0] >= 0 or lam[0] < -tol:
        return C
    return (U * np.clip(lam, 0.0, None)) @ U.T


def _blockwise(metric: str, mean, cov, target, blocks) -> Exact:
    """W2 or KL of a product law against a product target, block by block (W2^2 and KL add over independent
    blocks); equal blocks are computed once."""
    mu, S = target
    total, seen = 0.0, {}
    for b in blocks:
        ix = np.ix_(b, b)
        key = (mean[b] - mu[b]).tobytes() + cov[ix].tobytes() + S[ix].tobytes()
        if key not in seen:
            ex = distance(metric, mean[b], psd(cov[ix], mean), True, (mu[b], S[ix]))
            seen[key] = ex.lo**2 if metric in ("w2", "w2_joint") else ex.lo
        total += seen[key]
    v = math.sqrt(total) if metric in ("w2", "w2_joint") else total
    return Exact(v, v, "Gaussian, block by block (a product of independent coordinate blocks)")


def distance(metric: str, mean, cov, gaussian: bool, target, blocks=None) -> Exact:
    """The distance ``metric`` between the law with these moments and the target, as an interval.

    Parameters
    ----------
    metric : str
        "w2", "w2_joint", "kl" or "tv".
    mean, cov : numpy.ndarray
        The law's moments.
    gaussian : bool
        Whether the law is Gaussian (otherwise only its moments are known: module docstring).
    target : tuple of numpy.ndarray
        The target's (mean, covariance).
    blocks : list of numpy.ndarray, optional
        Index arrays that the law and the target both factor over: W2 and KL of a Gaussian law are computed block by
        block (W2^2 and KL add over independent blocks).

    Returns
    -------
    Exact
        The distance (+inf where the moments overflow: a mean-square unstable chain).

    References
    ----------
    Gelbrich (1990), Theorem 2.1 (the W2 lower bound from moments); the maximum-entropy KL bound and the independent
    coupling's W2 upper bound are standard (:mod:`theory.distances`).
    """
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        return Exact(math.inf, math.inf, "the chain is mean-square unstable at this step: its exact second moments "
                                         "overflow")
    if blocks is not None and gaussian and metric != "tv":
        return _blockwise(metric, np.asarray(mean, float), np.asarray(cov, float), target, blocks)
    mu, S = target
    cov = psd(cov, np.asarray(mean, dtype=float))
    if metric in ("w2", "w2_joint"):
        if gaussian:
            w = w2_gaussian(mean, cov, mu, S)
            return Exact(w, w, "Gaussian (Bures)")
        lo = gelbrich_w2(mean, cov, mu, S)
        hi = math.sqrt(float(np.sum((mean - mu) ** 2) + np.trace(cov) + np.trace(S)))
        return Exact(lo, hi, "moments: Gelbrich lower bound, independent-coupling upper bound")
    if metric == "kl":
        if gaussian:
            v = kl_gaussian(mean, cov, mu, S) if _definite(cov) else math.inf
            return Exact(v, v, "Gaussian")
        return Exact(kl_lower_from_moments(mean, cov, mu, S) if _definite(cov) else 0.0, math.inf,
                     "moments: maximum-entropy lower bound")
    if gaussian:
        v = tv_gaussian(mean, cov, mu, S) if _definite(cov) else 1.0
        return Exact(v, v, "Gaussian (exact in 1-D, Gil-Pelaez in p-D)")
    return Exact(0.0, 1.0, "moments only: TV is not determined by them")


def average_kl(avg, target) -> Exact:
    """KL of the averaged law (1/K) sum_k nu_k to the target.

    Parameters
    ----------
    avg : tuple
        ``ChainLaws.average[K]`` = (mean, cov, the components' mean KL, the exact KL in 1-D or None).
    target : tuple of numpy.ndarray
        The target's (mean, covariance).

    Returns
    -------
    Exact
        Exact in 1-D (quadrature); otherwise [KL of the moment-matched Gaussian, the components' mean KL] (convexity
        of KL).
    """
    mean, cov, mean_kl, exact_1d = avg
    mu, S = target
    lo = kl_lower_from_moments(mean, cov, mu, S)
    if exact_1d is not None:
        return Exact(exact_1d, exact_1d, "1-D mixture by quadrature")
    return Exact(lo, max(lo, float(mean_kl)), "mixture: moment-matched Gaussian (lower), mean of components (upper)")


def _grid_1d(m, v, mu: float, s2: float) -> np.ndarray:
    sd = np.sqrt(v)
    lo = min(float(np.min(m - 12 * sd)), mu - 12 * math.sqrt(s2))
    hi = max(float(np.max(m + 12 * sd)), mu + 12 * math.sqrt(s2))
    return np.linspace(lo, hi, GRID_1D)


def _mixture_density(x, m, v) -> np.ndarray:
    f = np.zeros_like(x)
    sd = np.sqrt(v)
    for a in range(0, m.size, 256):
        z = (x[None, :] - m[a:a + 256, None]) / sd[a:a + 256, None]
        f += (np.exp(-0.5 * z * z) / (sd[a:a + 256, None] * math.sqrt(2 * math.pi))).sum(axis=0)
    return f / m.size


def _kl_on_grid(x, f, mu: float, s2: float) -> float:
    logg = -0.5 * (x - mu) ** 2 / s2 - 0.5 * math.log(2 * math.pi * s2)
    integrand = np.where(f > 0, f * (np.log(np.where(f > 0, f, 1.0)) - logg), 0.0)
    return max(float(np.trapezoid(integrand, x)), 0.0)


def mixture_kls_1d(comps: np.ndarray, ks, mu: float, s2: float) -> dict:
    """KL of the averaged 1-D law to a Gaussian for every K of ``ks``, by quadrature on one grid.

    Parameters
    ----------
    comps : numpy.ndarray
        The components' (mean, variance), one row per iterate k = 1, 2, ...
    ks : iterable of int
        The iteration counts K.
    mu, s2 : float
        The target's mean and variance.

    Returns
    -------
    dict
        ``{K: KL((1/K) sum_{k<=K} N(m_k, v_k) || N(mu, s2))}``.
    """
    m, v = comps[:, 0], np.maximum(comps[:, 1], 1e-300)
    x = _grid_1d(m, v, mu, s2)
    out, f, done = {}, np.zeros_like(x), 0
    for k in sorted(ks):
        f += _mixture_density(x, m[done:k], v[done:k]) * (k - done)
        done = k
        out[k] = _kl_on_grid(x, f / k, mu, s2)
    return out


def start_distance(metric: str, start, target) -> float:
    """The distance at the start (K = 0), for "vacuous": the start's law is Gaussian (or a point).

    Parameters
    ----------
    metric : str
        "w2", "w2_joint", "kl" or "tv".
    start : tuple of numpy.ndarray
        The start's (mean, covariance) (covariance 0 for a point).
    target : tuple of numpy.ndarray
        The target's (mean, covariance).

    Returns
    -------
    float
        The distance (KL +inf and TV 1 from a point start).
    """
    m0, C0 = start
    if metric in ("w2", "w2_joint"):
        return w2_gaussian(m0, C0, *target)
    if metric == "kl":
        return kl_gaussian(m0, C0, *target) if _definite(C0) else math.inf
    return tv_gaussian(m0, C0, *target) if _definite(C0) else 1.0


__all__ = ["Exact", "average_kl", "distance", "mixture_kls_1d", "psd", "start_distance"]
