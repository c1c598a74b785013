"""Vempala & Wibisono (2019), "Rapid convergence of the unadjusted Langevin algorithm: isoperimetry suffices",
NeurIPS 32 (arXiv:1903.08568), Theorem 1: KL of the ULA iterate when pi satisfies a log-Sobolev inequality with
constant alpha and f is L-smooth; for 0 < gamma <= alpha / (4 L^2) and any start rho_0 with finite KL,

    KL(rho_K || pi) <= exp(-alpha gamma K) KL(rho_0 || pi) + 8 gamma p L^2 / alpha.

On a Gaussian target alpha = m (Bakry-Emery, with equality) and L = M.

Provenance: the step range, the rate and the constant 8 agree with a restatement in a public research note found
by the code search (a repository's markdown note quoting "Main result (Theorem 1)" of arXiv:1903.08568; the search
index does not name the repository); *unconfirmed* against the paper's text, which could not be read here.
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source, step_at_most

_WHERE = ("a restatement of Theorem 1 in a public GitHub research note (code-search index; repository not named by "
          "the index)")


def vw_kl_bound(c: Constants) -> float:
    """The right-hand side of Theorem 1 (module docstring).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    float
        The bound on KL(rho_K || pi) at ``c`` (+inf where a term overflows: the bound is vacuous there).

    References
    ----------
    Vempala & Wibisono (2019), NeurIPS 32, Theorem 1.
    """
    a = c.lsi if c.lsi is not None else c.m
    return math.exp(-a * c.step * c.K) * c.kl0 + 8.0 * c.step * c.p * c.M**2 / a


def vw_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma <= alpha / (4 L^2).

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
    Vempala & Wibisono (2019), NeurIPS 32, Theorem 1.
    """
    a = c.lsi if c.lsi is not None else c.m
    return step_at_most(c, a / (4.0 * c.M**2), "alpha/(4 L^2)")


VW_KL = Bound(
    key="vempala_wibisono2019.thm1",
    title="Vempala & Wibisono (2019), Theorem 1",
    reference="Vempala & Wibisono (2019), NeurIPS 32, Theorem 1",
    metric="kl", sampler="ula", law="last iterate", start="offset",
    formula="KL <= exp(-alpha gamma K) KL(rho_0 || pi) + 8 gamma p L^2 / alpha",
    assumptions="pi satisfies LSI(alpha) (alpha = m for a Gaussian), f L-smooth (L = M); gamma <= alpha/(4 L^2); "
                "KL(rho_0 || pi) < inf",
    value=vw_kl_bound, outside=vw_outside,
    sources=(Source("exp(-alpha gamma K) KL_0 + 8 gamma p L^2/alpha; gamma <= alpha/(4 L^2)", _WHERE, "secondary"),),
)

__all__ = ["VW_KL", "vw_kl_bound", "vw_outside"]
