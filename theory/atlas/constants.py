"""The constants of an atlas point (:class:`theory.bounds.literature.Constants`), computed by the workbench: m and
M from the spectrum of the posterior precision, the start's distances, and Dalalyan & Karagulyan's sigma^2 from the
exact noise law of the gradient estimator along the exact law of the chain.

The noise: for per-datum gradients G_i(theta) = r_i - P_i theta, a minibatch of n of N without replacement has
Cov(g | theta) = K_n sum_i (G_i - Gbar)(G_i - Gbar)^T (:func:`theory.noise.minibatch.minibatch_noise_cov`,
K_n = N (N - n) / (n (N - 1))), so under theta ~ N(m, C)

    E tr Cov(g | theta) = K_n [sum_i |c_i - B_i m|^2 + tr((sum_i B_i^2) C)],   B_i = P_i - Pbar,

with c_i = r_i - rbar (SGLD), c_i = B_i theta_hat (SGLD-CV, control variate at theta_hat) or, for SVRG-LD, the same
with theta - anchor in place of theta - theta_hat (the whole state's moments). sigma^2 = max_{k < K} E tr Cov(g |
theta_k) / p, exact: a constant where the trace does not depend on theta (the Gaussian targets and the Gaussian
mean model: B_i = 0), otherwise the running maximum over the moments of every step (:func:`_noise_path`; +inf once
the moments of a mean-square unstable chain overflow).
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np

from theory.bounds.literature import Bound, Constants
from theory.distances import kl_gaussian, w2_gaussian
from theory.noise.minibatch import k_factor

from .laws import ChainLaws, functional_path
from .problems import AtlasProblem, problem
from .samplers import MINIBATCH, UNDERDAMPED


@lru_cache(maxsize=64)
def _noise_parts(prob: AtlasProblem):
    """(K-free) sum_i B_i^2, B_i (None when every B_i = 0: a common per-datum precision) and the centred shifts c_i
    of the problem's per-datum gradients."""
    parts = prob.model.affine_parts()
    c = parts.shifts - parts.shifts.mean(axis=0)
    if parts.form == "common":
        return np.zeros((prob.p, prob.p)), None, c
    Pi = parts.datum_precisions()
    B = Pi - Pi.mean(axis=0)
    return np.einsum("nij,njk->ik", B, B), (B if np.any(B) else None), c


def additive(prob: AtlasProblem) -> bool:
    """True when every per-datum precision is the same (B_i = 0): the minibatch noise does not depend on theta.

    Parameters
    ----------
    prob : AtlasProblem
        The test problem.

    Returns
    -------
    bool
        Whether the problem's minibatch noise is additive.
    """
    return _noise_parts(prob)[1] is None


def noise_trace(prob: AtlasProblem, sampler_name: str, n: int, mean: np.ndarray, cov: np.ndarray) -> float:
    """E tr Cov(g | theta) under theta ~ N(mean, cov) (module docstring).

    Parameters
    ----------
    prob : AtlasProblem
        The test problem.
    sampler_name : str
        The atlas sampler (:data:`theory.bounds.literature.base.BOUND_SAMPLERS`).
    n : int
        The minibatch size.
    mean, cov : numpy.ndarray
        The moments of theta (for SVRG-LD, of theta - anchor).

    Returns
    -------
    float
        The expected trace of the gradient noise's covariance (0 for an estimator without minibatch noise).

    References
    ----------
    The minibatch covariance: :func:`theory.noise.minibatch.minibatch_noise_cov`; its expectation under a Gaussian is
    new (module docstring).
    """
    BB, B, c = _noise_parts(prob)
    Kn = k_factor(prob.N, n, replace=False)
    if B is None:  # additive: SGLD's noise is K_n sum |c_i|^2, the control variates' is 0
        return Kn * float(np.sum(c**2)) if sampler_name == "sgld" else 0.0
    if sampler_name == "sgld":
        resid = c - np.einsum("nij,j->ni", B, mean)
    elif sampler_name in ("sgld_cv", "cv_uld"):
        resid = np.einsum("nij,j->ni", B, mean - prob.mean)
    elif sampler_name == "svrgld":
        resid = np.einsum("nij,j->ni", B, mean)
    else:
        return 0.0
    return Kn * float(np.sum(resid**2) + np.trace(BB @ cov))


def sigma2(prob: AtlasProblem, sampler_name: str, n: int | None, laws: ChainLaws, K: int) -> float:
    """Dalalyan & Karagulyan's sigma^2 at K (module docstring); 0 for full gradients.

    Parameters
    ----------
    prob : AtlasProblem
        The test problem.
    sampler_name : str
        The atlas sampler.
    n : int or None
        The minibatch size (None for full gradients).
    laws : ChainLaws
        The exact laws of the chain (:func:`theory.atlas.laws.chain_laws`).
    K : int
        The iteration count.

    Returns
    -------
    float
        max_{k < K} E tr Cov(g | theta_k) / p (+inf once the moments of an unstable chain overflow).

    References
    ----------
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Section 4 (the definition of sigma^2).
    """
    if sampler_name not in MINIBATCH or sampler_name == "saga_ld":
        return 0.0
    if additive(prob):  # B_i = 0: the trace does not depend on theta
        return noise_trace(prob, sampler_name, n, prob.mean, np.zeros((prob.p, prob.p))) / prob.p
    running_max = _noise_path(prob.name, sampler_name, laws.h, n, laws.start_name)
    return float(running_max[K - 1]) / prob.p


@lru_cache(maxsize=512)
def _noise_path(problem_name: str, sampler_name: str, h: float, n: int, start: str) -> np.ndarray:
    """max_{j <= k} E tr Cov(g | theta_j) for every k <= max(K_GRID) (module docstring): with S_k = E x_k x_k^T,
    E tr Cov(g | theta_k) / K_n = |c|^2 - 2 m_k . sum_i B_i c_i + tr(sum_i B_i^2 S_k) in x = theta (SGLD),
    theta - theta_hat (SGLD-CV: c = 0) or theta - anchor (SVRG-LD: c = 0), a linear functional of the exact moments of
    every step (:func:`theory.atlas.laws.functional_path`); +inf once the moments of an unstable chain overflow."""
    prob = problem(problem_name)
    BB, B, c = _noise_parts(prob)
    if sampler_name == "svrgld":  # x = theta - anchor in the state (theta, anchor, anchor gradient)
        F = np.block([[BB, -BB], [-BB, BB]])
        means, tr = functional_path(problem_name, sampler_name, h, n, start, F)
        lin = np.zeros(means.shape[0])
    elif sampler_name in ("sgld_cv", "cv_uld"):  # x = theta - theta_hat
        means, tr = functional_path(problem_name, sampler_name, h, n, start, BB)
        th = prob.mean
        lin = -2.0 * means @ (BB @ th) + th @ BB @ th
    else:
        means, tr = functional_path(problem_name, sampler_name, h, n, start, BB)
        lin = float(np.sum(c**2)) - 2.0 * means @ np.einsum("nij,ni->j", B, c)
    with np.errstate(over="ignore", invalid="ignore"):
        trace = (lin + tr) * k_factor(prob.N, n, replace=False)
    return np.maximum.accumulate(np.where(np.isfinite(trace), trace, np.inf))


def base_constants(bound: Bound, prob: AtlasProblem, h: float, n: int | None, laws: ChainLaws,
                   sampler=None) -> Constants:
    """The constants of the chain (bound, problem, h, n) at K = 1 with sigma^2 = 0.

    The start's distances, the spectrum and the integrator's constants; :func:`at_K` completes them (module docstring).

    Parameters
    ----------
    bound : Bound
        The bound (its sampler says whether the step is h or h/2).
    prob : AtlasProblem
        The test problem.
    h : float
        The step size.
    n : int or None
        The minibatch size (None for full gradients).
    laws : ChainLaws
        The exact laws of the chain (start and target).
    sampler : Sampler, optional
        The sampler, whose integrator gives the friction and inverse mass of an underdamped chain.

    Returns
    -------
    Constants
        The constants at K = 1.
    """
    m0, C0 = laws.start
    target = laws.target
    w0 = w2_gaussian(m0, C0, *target)
    definite = bool(np.all(np.diag(C0) > 0)) and bool(np.linalg.eigvalsh(C0)[0] > 0)
    kl0 = kl_gaussian(m0, C0, *target) if definite else math.inf
    d = prob.p
    dist2 = float(np.sum((m0[:d] - target[0][:d]) ** 2) + np.trace(C0[:d, :d]))
    under = bound.sampler in UNDERDAMPED
    integ = getattr(sampler, "integrator", None)
    return Constants(
        m=prob.m, M=prob.M, p=d, h=h, step=h if under else h / 2.0, K=1, w0=w0, kl0=kl0, dist2=dist2, N=prob.N,
        n=n, sigma2=0.0, delta=0.0, M_datum=prob.M_datum, hessian_lipschitz=0.0, lsi=prob.m,
        friction=getattr(integ, "gamma", None) if under else None, u=getattr(integ, "u", None) if under else None)


def at_K(base: Constants, prob: AtlasProblem, sampler_name: str, laws: ChainLaws, K: int) -> Constants:
    """``base`` at K, with sigma^2 at K (:func:`sigma2`).

    Parameters
    ----------
    base : Constants
        The constants at K = 1 (:func:`base_constants`).
    prob : AtlasProblem
        The test problem.
    sampler_name : str
        The atlas sampler.
    laws : ChainLaws
        The exact laws of the chain.
    K : int
        The iteration count.

    Returns
    -------
    Constants
        The constants at K.
    """
    return dataclasses.replace(base, K=K, sigma2=sigma2(prob, sampler_name, base.n, laws, K))


__all__ = ["additive", "at_K", "base_constants", "noise_trace", "sigma2"]
