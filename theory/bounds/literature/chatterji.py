"""Chatterji, Flammarion, Ma, Bartlett & Jordan (2018), "On the theory of variance reduction for stochastic gradient
Monte Carlo", ICML 2018, PMLR 80 (arXiv:1802.05431): W2 of SAGA-LD (Theorem 4.1) and SVRG-LD (Theorem 4.2) with
batch size b, for f = sum_{i=1}^N f_i m-strongly convex, M-smooth, each f_i M~-smooth, with a Hessian-Lipschitz
constant L_H (0 here: f is quadratic). Papers' step h_p = h/2. As the atlas reads them:

    SAGA-LD (h_p <= b / (8 N M~)):
        W2 <= 5 exp(-m h_p K / 4) W0 + 2 h_p L_H p / m + 2 h_p M^(3/2) p^(1/2) / m + 24 h_p M (p N)^(1/2) / (m^(1/2) b),
    SVRG-LD (epoch length tau = N/b, h_p <= b / (8 N M~)):
        the same right-hand side.

Provenance: reconstructed from memory of the paper; no copy of its text or another implementation could be read
here: every constant is *unconfirmed*, and so is the step condition. CV-ULD (the paper's third method) runs in the
atlas as :func:`simulate.samplers.ulmc` with a control variate (its exact W2 is computed), but its bound is not
registered: its constants could neither be read nor recalled reliably.
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source, finite_or_inf, step_at_most

_MEMORY = "no copy found: the paper's text could not be read (stored copies hold its abstract and introduction only)"


def chatterji_w2_bound(c: Constants) -> float:
    """The right-hand side of the W2 bound of SAGA-LD and SVRG-LD (module docstring).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    float
        The bound on W2(nu_K, pi) at ``c`` (+inf where a term overflows: the bound is vacuous there).

    References
    ----------
    Chatterji, Flammarion, Ma, Bartlett & Jordan (2018), ICML, PMLR 80, Theorems 4.1 (SAGA-LD) and 4.2 (SVRG-LD).
    """
    g = c.step
    return (5.0 * finite_or_inf(math.exp(-c.m * g * c.K / 4.0)) * c.w0 + 2.0 * g * c.hessian_lipschitz * c.p / c.m
            + 2.0 * g * c.M**1.5 * math.sqrt(c.p) / c.m
            + 24.0 * g * c.M * math.sqrt(c.p * c.N) / (math.sqrt(c.m) * c.n))


def chatterji_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: h_p <= b / (8 N M~).

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
    Chatterji, Flammarion, Ma, Bartlett & Jordan (2018), ICML, PMLR 80, Theorems 4.1 (SAGA-LD) and 4.2 (SVRG-LD).
    """
    return step_at_most(c, c.n / (8.0 * c.N * c.M_datum), "b/(8 N M~)")


def _theorem(sampler: str, number: str, name: str) -> Bound:
    return Bound(
        key=f"chatterji2018.thm{number}",
        title=f"Chatterji, Flammarion, Ma, Bartlett & Jordan (2018), Theorem {number} ({name})",
        reference=f"Chatterji et al. (2018), ICML, PMLR 80, Theorem {number}",
        metric="w2", sampler=sampler, law="last iterate", start="offset",
        formula="5 exp(-m h K/4) W0 + 2 h L_H p/m + 2 h M^(3/2) p^(1/2)/m + 24 h M (p N)^(1/2)/(m^(1/2) b)",
        assumptions="f m-strongly convex, M-smooth, each f_i M~-smooth, Hessian L_H-Lipschitz; h <= b/(8 N M~)",
        value=chatterji_w2_bound, outside=chatterji_outside,
        sources=(Source("every constant and the step condition", _MEMORY, "memory"),),
        minibatch=(1, 5),
    )


CHATTERJI_SAGA = _theorem("saga_ld", "4.1", "SAGA-LD")
CHATTERJI_SVRG = _theorem("svrgld", "4.2", "SVRG-LD")

__all__ = ["CHATTERJI_SAGA", "CHATTERJI_SVRG", "chatterji_outside", "chatterji_w2_bound"]
