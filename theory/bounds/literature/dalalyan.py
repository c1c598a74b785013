"""Dalalyan (2017), "Theoretical guarantees for approximate sampling from smooth and log-concave densities",
J. R. Stat. Soc. B 79(3), 651-676 (arXiv:1412.7392), Theorem 2: total variation of the Langevin Monte Carlo
iterate (ULA) started at the warm start nu_0 = N(x*, M^-1 I_p), x* the minimiser of f.

As implemented (papers' step gamma = h/2, T = K gamma): for gamma <= 1/M and alpha = min(1/(gamma M), K) >= 1,

    ||nu_K - pi||_TV <= (1/2) exp((p/4) log(M/m) - T m / 2) + (p M^2 T gamma alpha / (4 (2 alpha - 1)))^(1/2).

Provenance: the formula, both terms and the choice of alpha agree with an independent implementation
(Tom271/LangevinMC, ``dalalyan_bounds.py`` at commit bf8d190f, "Add experiments on the Dalalyan bounds", function
``theorem2``). No copy of the paper's text could be read here (the stored copies hold its abstract and introduction
only): the constants are *unconfirmed* against the paper.
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source, finite_or_inf, step_at_most

_WHERE = ("github.com/Tom271/LangevinMC, dalalyan_bounds.py at commit bf8d190f6825cf9c65b30cef1d76f016b17bff16 "
          "(function theorem2)")


def _alpha(c: Constants) -> float:
    return min(1.0 / (c.step * c.M), float(c.K))


def dalalyan_tv_bound(c: Constants) -> float:
    """The right-hand side of Theorem 2 (module docstring).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    float
        The bound on TV(nu_K, pi) at ``c`` (+inf where a term overflows: the bound is vacuous there).

    References
    ----------
    Dalalyan (2017), J. R. Stat. Soc. B 79(3), 651-676, Theorem 2.
    """
    a = _alpha(c)
    T = c.K * c.step
    first = 0.5 * finite_or_inf(math.exp(min(0.25 * c.p * math.log(c.M / c.m) - 0.5 * T * c.m, 700.0)))
    return first + math.sqrt(c.p * c.M**2 * T * c.step * a / (4.0 * (2.0 * a - 1.0)))


def dalalyan_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma <= 1/M and alpha = min(1/(gamma M), K) >= 1.

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
    Dalalyan (2017), J. R. Stat. Soc. B 79(3), 651-676, Theorem 2.
    """
    return step_at_most(c, 1.0 / c.M, "1/M") or (None if _alpha(c) >= 1.0 else "alpha = min(1/(gamma M), K) < 1")


DALALYAN = Bound(
    key="dalalyan2017.thm2",
    title="Dalalyan (2017), Theorem 2",
    reference="Dalalyan (2017), J. R. Stat. Soc. B 79(3), 651-676, Theorem 2",
    metric="tv", sampler="ula", law="last iterate", start="warm",
    formula="TV <= (1/2) exp((p/4) log(M/m) - K gamma m/2) + (p M^2 K gamma^2 alpha / (4 (2 alpha - 1)))^(1/2), "
            "alpha = min(1/(gamma M), K)",
    assumptions="f m-strongly convex and M-smooth; gamma <= 1/M; start N(x*, M^-1 I)",
    value=dalalyan_tv_bound, outside=dalalyan_outside,
    sources=(Source("(1/2) exp((p/4) log(M/m) - T m/2)", _WHERE, "secondary"),
             Source("(p M^2 T gamma alpha / (4 (2 alpha - 1)))^(1/2), alpha = min(1/(gamma M), K)", _WHERE,
                    "secondary"),
             Source("gamma <= 1/M; warm start N(x*, I/M)", _WHERE, "secondary")),
)

__all__ = ["DALALYAN", "dalalyan_outside", "dalalyan_tv_bound"]
