"""Cheng, Chatterji, Bartlett & Jordan (2018), "Underdamped Langevin MCMC: a non-asymptotic analysis", COLT 2018,
PMLR 75, 300-323 (arXiv:1707.03663), Theorem 1: W2 between the joint law of (x_K, v_K) of underdamped Langevin MCMC
(:func:`simulate.samplers.ulmc`: friction 2, inverse mass u = 1/M) started at (x_0, v_0 = 0) and p*(x, v) =
pi(x) N(v; 0, u I). With kappa = M/m and |x_0 - x*|^2 <= D^2: if the time step is
delta = eps / (104 kappa) (1 / (p/m + D^2))^(1/2) and K >= (kappa / delta) log(24 (p/m + D^2) / eps), then
W2 <= eps. Read as a bound at a given (delta, K):

    W2 <= eps(delta) = 104 kappa delta (p/m + D^2)^(1/2),   provided K >= (kappa/delta) log(24 (p/m + D^2)/eps(delta)).

A point with fewer steps is outside the theorem's assumptions.

Provenance: from memory of the paper; no copy of its text could be read here: *unconfirmed* (the constants 104 and
24 in particular). The integrator (Cheng et al.'s Lemma 11) is checked against Van Loan's route in
tests/test_ulmc.py, and agrees with an independent implementation of the same step (Red-Portal/ControlledSMC.jl,
``src/mcmc.jl``, functions ``klmc_mean`` and ``klmc_cov`` at u = 1).
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source

_MEMORY = "no copy found: the paper's text could not be read (stored copies hold its abstract and introduction only)"


def _r2(c: Constants) -> float:
    return c.p / c.m + c.dist2


def cheng_w2_bound(c: Constants) -> float:
    """eps(delta) = 104 kappa delta (p/m + D^2)^(1/2) (module docstring).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    float
        The bound on W2 between the joint law of (x_K, v_K) and p*(x, v) at ``c`` (+inf where a term overflows: the
        bound is vacuous there).

    References
    ----------
    Cheng, Chatterji, Bartlett & Jordan (2018), COLT, PMLR 75, 300-323, Theorem 1.
    """
    return 104.0 * c.kappa * c.step * math.sqrt(_r2(c))


def cheng_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: friction 2, u = 1/M, v_0 = 0 (the atlas's choice) and K >= (kappa/delta)
    log(24 (p/m + D^2)/eps).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    str or None
        None when the point satisfies it, else the assumption it breaks (with the numbers).

    References
    ----------
    Cheng, Chatterji, Bartlett & Jordan (2018), COLT, PMLR 75, 300-323, Theorem 1.
    """
    if c.friction is not None and (abs(c.friction - 2.0) > 1e-12 or abs(c.u * c.M - 1.0) > 1e-9):
        return "the theorem takes friction 2 and inverse mass u = 1/M"
    eps = cheng_w2_bound(c)
    need = c.kappa / c.step * math.log(24.0 * _r2(c) / eps)
    return None if c.K >= need else f"K = {c.K} < (kappa/delta) log(24 (p/m + D^2)/eps) = {need:.4g}"


CHENG = Bound(
    key="cheng2018.thm1",
    title="Cheng, Chatterji, Bartlett & Jordan (2018), Theorem 1",
    reference="Cheng, Chatterji, Bartlett & Jordan (2018), COLT, PMLR 75, 300-323, Theorem 1",
    metric="w2_joint", sampler="ulmc", law="last iterate", start="point",
    formula="W2((x_K, v_K), p*) <= 104 kappa delta (p/m + D^2)^(1/2) when K >= (kappa/delta) log(24 (p/m + D^2)/eps)",
    assumptions="f m-strongly convex, M-smooth; friction 2, u = 1/M; x_0 a point with |x_0 - x*| <= D, v_0 = 0",
    value=cheng_w2_bound, outside=cheng_outside,
    sources=(Source("104, 24 and the form eps = 104 kappa delta (p/m + D^2)^(1/2)", _MEMORY, "memory"),),
)

__all__ = ["CHENG", "cheng_outside", "cheng_w2_bound"]
