"""Dalalyan & Karagulyan (2019), "User-friendly guarantees for the Langevin Monte Carlo with inaccurate gradient",
Stoch. Proc. Appl. 129(12), 5278-5311 (arXiv:1710.00095).

Theorem 1 (W2 of the LMC iterate, exact gradient; papers' step gamma = h/2, W0 = W2(nu_0, pi)):

    gamma <= 2/(m + M):            W2(nu_K, pi) <= (1 - m gamma)^K W0 + 1.65 (M/m) (gamma p)^(1/2),
    2/(m + M) <= gamma < 2/M:      W2(nu_K, pi) <= (M gamma - 1)^K W0 + 1.65 M gamma / (2 - M gamma) (gamma p)^(1/2).

Provenance: both branches, their step ranges and the constant 1.65 agree with an independent implementation and
restatement (Tom271/LangevinMC: ``dalalyan_bounds.py``, function ``theorem1``, at commit 955fd672, and the report
``WriteUp/BeyondMoments.tex``, the theorem "Wasserstein distance"); *unconfirmed* against the paper's text, which
could not be read here.

Theorem 4 (inaccurate gradient: LMC run with g = grad f + zeta, E|E(zeta | theta_k)|^2 <= delta^2 p and
E|zeta - E(zeta | theta_k)|^2 <= sigma^2 p), for gamma <= 2/(m + M):

    W2(nu_K, pi) <= (1 - m gamma)^K W0 + 1.65 (M/m) (gamma p)^(1/2) + delta p^(1/2) / m
                    + sigma^2 (gamma p)^(1/2) / (1.65 M (gamma p)^(1/2) + sigma m^(1/2)).

Provenance: from memory of the paper; no copy of its text or another implementation of this theorem could be
found: *unconfirmed* (the form of the last term is the one the atlas tests; a reader with the paper should check
it). The oracles are SGLD, SGLD-CV and SVRG-LD: delta = 0 (unbiased estimators), sigma^2 from the exact noise law.
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source, finite_or_inf, step_at_most

_WHERE = ("github.com/Tom271/LangevinMC, dalalyan_bounds.py (function theorem1) and WriteUp/BeyondMoments.tex "
          "(theorem 'Wasserstein distance'), commit 955fd6726dab598108bf791927512845473702a2")
_MEMORY = "no copy found: the paper's text could not be read (stored copies hold its abstract and introduction only)"
C165 = 1.65


def dk_w2_bound(c: Constants) -> float:
    """Theorem 1, the branch of the step (module docstring).

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
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 1.
    """
    g = c.step
    if g <= 2.0 / (c.m + c.M):
        return finite_or_inf((1.0 - c.m * g) ** c.K * c.w0) + C165 * c.kappa * math.sqrt(g * c.p)
    return finite_or_inf((c.M * g - 1.0) ** c.K * c.w0) + C165 * c.M * g / (2.0 - c.M * g) * math.sqrt(g * c.p)


def dk_w2_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma < 2/M.

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
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 1.
    """
    return None if c.step < 2.0 / c.M else f"step {c.step:.4g} >= 2/M = {2.0 / c.M:.4g}"


DK_W2 = Bound(
    key="dalalyan_karagulyan2019.thm1",
    title="Dalalyan & Karagulyan (2019), Theorem 1",
    reference="Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 1 (both branches)",
    metric="w2", sampler="ula", law="last iterate", start="offset",
    formula="gamma <= 2/(m+M): (1 - m gamma)^K W0 + 1.65 (M/m) (gamma p)^(1/2); 2/(m+M) <= gamma < 2/M: "
            "(M gamma - 1)^K W0 + 1.65 M gamma/(2 - M gamma) (gamma p)^(1/2)",
    assumptions="f m-strongly convex and M-smooth; gamma < 2/M; any start nu_0 (W0 = W2(nu_0, pi))",
    value=dk_w2_bound, outside=dk_w2_outside,
    sources=(Source("(1 - m gamma)^K W0 + 1.65 (M/m)(gamma p)^(1/2) for gamma <= 2/(m+M)", _WHERE, "secondary"),
             Source("(M gamma - 1)^K W0 + 1.65 M gamma/(2 - M gamma)(gamma p)^(1/2) for gamma >= 2/(m+M)", _WHERE,
                    "secondary")),
)


def dk_inaccurate_bound(c: Constants) -> float:
    """Theorem 4, inaccurate gradients (module docstring).

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
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 4.
    """
    g, s = c.step, math.sqrt(max(c.sigma2, 0.0))
    base = finite_or_inf((1.0 - c.m * g) ** c.K * c.w0) + C165 * c.kappa * math.sqrt(g * c.p)
    if math.isinf(s):
        return math.inf  # the last term grows like sigma (gamma p / m)^(1/2)
    noise = c.sigma2 * math.sqrt(g * c.p) / (C165 * c.M * math.sqrt(g * c.p) + s * math.sqrt(c.m)) if s > 0 else 0.0
    return base + c.delta * math.sqrt(c.p) / c.m + noise


def dk_inaccurate_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma <= 2/(m + M).

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
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 4.
    """
    return step_at_most(c, 2.0 / (c.m + c.M), "2/(m + M)")


def _theorem_4(sampler: str, name: str) -> Bound:
    return Bound(
        key=f"dalalyan_karagulyan2019.thm4.{sampler}",
        title=f"Dalalyan & Karagulyan (2019), Theorem 4 ({name} as the oracle)",
        reference="Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Theorem 4 (inaccurate "
                  "gradients)",
        metric="w2", sampler=sampler, law="last iterate", start="offset",
        formula="(1 - m gamma)^K W0 + 1.65 (M/m)(gamma p)^(1/2) + delta p^(1/2)/m + sigma^2 (gamma p)^(1/2) / "
                "(1.65 M (gamma p)^(1/2) + sigma m^(1/2))",
        assumptions="f m-strongly convex and M-smooth; gamma <= 2/(m+M); E|E(zeta|theta)|^2 <= delta^2 p, "
                    "E|zeta - E(zeta|theta)|^2 <= sigma^2 p at every step (delta = 0: unbiased; sigma^2 the sup "
                    "over k < K of the exact E tr Cov(g | theta_k) / p)",
        value=dk_inaccurate_bound, outside=dk_inaccurate_outside,
        sources=(Source("the first two terms (as Theorem 1 (a))", _WHERE, "secondary"),
                 Source("delta p^(1/2)/m and sigma^2 (gamma p)^(1/2)/(1.65 M (gamma p)^(1/2) + sigma m^(1/2)); "
                        "gamma <= 2/(m+M)", _MEMORY, "memory")),
        minibatch=(1, 10),
    )


DK_INACCURATE = tuple(_theorem_4(s, n) for s, n in (("sgld", "SGLD"), ("sgld_cv", "SGLD-CV"), ("svrgld", "SVRG-LD")))

__all__ = ["C165", "DK_INACCURATE", "DK_W2", "dk_inaccurate_bound", "dk_inaccurate_outside", "dk_w2_bound",
           "dk_w2_outside"]
