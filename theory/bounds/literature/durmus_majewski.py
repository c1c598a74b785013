"""Durmus, Majewski & Miasojedow (2019), "Analysis of Langevin Monte Carlo via convex optimization", JMLR 20(73),
1-46 (arXiv:1802.09188): KL of the *averaged* law of ULA, nu_bar_K = (1/K) sum_{k=1}^K nu_k, for a convex,
M-smooth f and gamma <= 1/M:

    KL(nu_bar_K || pi) <= W2^2(nu_0, pi) / (2 gamma K) + M p gamma.

Provenance: from memory of the paper; no copy of its text or another implementation could be read here:
*unconfirmed*.

The exact value: nu_bar_K is a mixture of K Gaussians (not Gaussian). The atlas brackets its KL between the KL of
the Gaussian with the mixture's mean and covariance (a lower bound: :func:`theory.distances.kl_lower_from_moments`)
and the average of the components' KL (an upper bound, by the convexity of KL), and computes it by quadrature in 1-D.
"""

from __future__ import annotations

from .base import Bound, Constants, Source, step_at_most

_MEMORY = "no copy found: the paper's text could not be read (stored copies hold its abstract and introduction only)"


def dmm_kl_bound(c: Constants) -> float:
    """The right-hand side W2^2(nu_0, pi) / (2 gamma K) + M p gamma (module docstring).

    Parameters
    ----------
    c : Constants
        The constants of the atlas point (:class:`theory.bounds.literature.base.Constants`).

    Returns
    -------
    float
        The bound on KL(nu_bar_K || pi) at ``c`` (+inf where a term overflows: the bound is vacuous there).

    References
    ----------
    Durmus, Majewski & Miasojedow (2019), JMLR 20(73), 1-46 (the averaged law of ULA; module docstring).
    """
    return c.w0**2 / (2.0 * c.step * c.K) + c.M * c.p * c.step


def dmm_outside(c: Constants) -> str | None:
    """The assumption of the bound at ``c``: gamma <= 1/M.

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
    Durmus, Majewski & Miasojedow (2019), JMLR 20(73), 1-46 (the averaged law of ULA; module docstring).
    """
    return step_at_most(c, 1.0 / c.M, "1/M")


DMM_AVERAGE = Bound(
    key="durmus_majewski_miasojedow2019.kl_average",
    title="Durmus, Majewski & Miasojedow (2019), KL of the averaged law",
    reference="Durmus, Majewski & Miasojedow (2019), JMLR 20(73), 1-46 (KL of the averaged ULA law, convex case)",
    metric="kl", sampler="ula", law="average of iterates 1..K", start="offset",
    formula="KL(nu_bar_K || pi) <= W2^2(nu_0, pi)/(2 gamma K) + M p gamma",
    assumptions="f convex and M-smooth; gamma <= 1/M",
    value=dmm_kl_bound, outside=dmm_outside,
    sources=(Source("W2^2(nu_0, pi)/(2 gamma K) + M p gamma; gamma <= 1/M", _MEMORY, "memory"),),
)

__all__ = ["DMM_AVERAGE", "dmm_kl_bound", "dmm_outside"]
