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
    """lo <= the distance <= hi, and how it was computed."""

    lo: float
    hi: float
    route: str

    @property
    def exact(self) -> bool:
        return self.lo == self.hi


def _definite(C: np.ndarray) -> bool:
    return bool(np.linalg.eigvalsh(C)[0] > 0.0)


def distance(metric: str, mean, cov, gaussian: bool, target) -> Exact:
    """The distance ``metric`` ("w2", "w2_joint", "kl", "tv") between the law with these moments and the target
    (mean, cov); ``gaussian`` says whether the law is Gaussian."""
    mu, S = target
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
    """KL of the averaged law from ChainLaws.average[K] = (mean, cov, mean component KL, components)."""
    mean, cov, mean_kl, comps = avg
    mu, S = target
    lo = kl_lower_from_moments(mean, cov, mu, S)
    if comps is not None:
        v = _mixture_kl_1d(comps, float(mu[0]), float(S[0, 0]))
        return Exact(v, v, "1-D mixture by quadrature")
    return Exact(lo, max(lo, float(mean_kl)), "mixture: moment-matched Gaussian (lower), mean of components (upper)")


def _mixture_kl_1d(comps: np.ndarray, mu: float, s2: float) -> float:
    """KL((1/K) sum_k N(m_k, v_k) || N(mu, s2)) by the trapezoidal rule on a grid covering every component."""
    m, v = comps[:, 0], np.maximum(comps[:, 1], 1e-300)
    sd = np.sqrt(v)
    lo, hi = float(np.min(m - 12 * sd)), float(np.max(m + 12 * sd))
    lo, hi = min(lo, mu - 12 * math.sqrt(s2)), max(hi, mu + 12 * math.sqrt(s2))
    x = np.linspace(lo, hi, GRID_1D)
    f = np.zeros_like(x)
    for a in range(0, m.size, 256):
        z = (x[None, :] - m[a:a + 256, None]) / sd[a:a + 256, None]
        f += (np.exp(-0.5 * z * z) / (sd[a:a + 256, None] * math.sqrt(2 * math.pi))).sum(axis=0)
    f /= m.size
    logg = -0.5 * (x - mu) ** 2 / s2 - 0.5 * math.log(2 * math.pi * s2)
    integrand = np.where(f > 0, f * (np.log(np.where(f > 0, f, 1.0)) - logg), 0.0)
    return max(float(np.trapezoid(integrand, x)), 0.0)


def start_distance(metric: str, start, target) -> float:
    """The distance at the start (K = 0), for "vacuous": the start's law is Gaussian (or a point)."""
    m0, C0 = start
    if metric in ("w2", "w2_joint"):
        return w2_gaussian(m0, C0, *target)
    if metric == "kl":
        return kl_gaussian(m0, C0, *target) if _definite(C0) else math.inf
    return tv_gaussian(m0, C0, *target) if _definite(C0) else 1.0


__all__ = ["Exact", "average_kl", "distance", "start_distance"]
