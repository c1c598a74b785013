"""Durmus & Moulines (2019), "High-dimensional Bayesian inference via the unadjusted Langevin algorithm",
Bernoulli 25(4A), 2854-2882 (arXiv:1605.01559): W2 of the ULA iterate from a point start x, constant step
gamma <= 1/(m + M), kappa = 2 m M / (m + M):

    W2^2(delta_x R_gamma^K, pi) <= 2 (1 - kappa gamma / 2)^K (|x - x*|^2 + p/m)
                                   + 2 kappa^-1 M^2 gamma (kappa^-1 + gamma) (2 + M^2 gamma / m + M^2 gamma^2 / 6) p.

(the constant-step case of the paper's bound for non-increasing steps; the bound is on W2^2, the atlas compares its
square root with W2). The atlas starts the chain at N(x* + Delta, I/M), shared with the other ULA bounds, and reads
the bound with E|x_0 - x*|^2 in place of |x - x*|^2: W2^2 is jointly convex in the pair of laws, so the point bound
averaged over the start bounds W2^2 of the mixture (a consequence of the theorem, not its statement).

Provenance: from memory of the paper; no copy of its text (or another implementation of this theorem) could be read
here: *unconfirmed*. Its total-variation companion (Durmus & Moulines 2017, Ann. Appl. Probab.) is implemented in
Tom271/LangevinMC (``durmus_moulines_bounds.py``) but is a different theorem and not used.
"""

from __future__ import annotations

import math

from .base import Bound, Constants, Source, finite_or_inf, step_at_most

_MEMORY = "no copy found: the paper's text could not be read (stored copies hold its abstract and introduction only)"


def dm_w2_bound(c: Constants) -> float:
    """The square root of the right-hand side (module docstring).

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
    Durmus & Moulines (2019), Bernoulli 25(4A), 2854-2882 (constant-step case; module docstring).
    """
    g, kap = c.step, 2.0 * c.m * c.M / (c.m + c.M)
    transient = 2.0 * finite_or_inf((1.0 - kap * g / 2.0) ** c.K) * (c.dist2 + c.p / c.m)
    bias = 2.0 / kap * c.M**2 * g * (1.0 / kap + g) * (2.0 + c.M**2 * g / c.m + c.M**2 * g**2 / 6.0) * c.p
    return math.sqrt(transient + bias)


def dm_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma <= 1/(m + M).

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
    Durmus & Moulines (2019), Bernoulli 25(4A), 2854-2882 (constant-step case; module docstring).
    """
    return step_at_most(c, 1.0 / (c.m + c.M), "1/(m + M)")


DM_W2 = Bound(
    key="durmus_moulines2019.w2",
    title="Durmus & Moulines (2019), W2 for ULA (constant step)",
    reference="Durmus & Moulines (2019), Bernoulli 25(4A), 2854-2882, Section 3 (W2 bound, constant step)",
    metric="w2", sampler="ula", law="last iterate", start="offset",
    formula="W2^2 <= 2 (1 - kappa gamma/2)^K (|x - x*|^2 + p/m) + 2 kappa^-1 M^2 gamma (kappa^-1 + gamma) "
            "(2 + M^2 gamma/m + M^2 gamma^2/6) p, kappa = 2 m M/(m + M)",
    assumptions="f m-strongly convex and M-smooth; gamma <= 1/(m + M); point start x (a random start through "
                "E|x - x*|^2, by convexity)",
    value=dm_w2_bound, outside=dm_outside,
    sources=(Source("every constant of the bound and gamma <= 1/(m + M)", _MEMORY, "memory"),),
)

__all__ = ["DM_W2", "dm_outside", "dm_w2_bound"]
