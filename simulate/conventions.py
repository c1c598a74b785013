"""Step-size conventions.

The workbench convention (Welling & Teh 2011, Vollmer et al. 2016, Baker et al. 2019):

    theta' = theta + (h/2) g + sqrt(h) xi,  xi ~ N(0, I).

Chen et al. (vrSG-MCMC), blackjax and SGMCMCJax write theta' = theta + eps g + sqrt(2 eps) xi, which is the
same map with h = 2 eps.
"""

from __future__ import annotations

from .validation import check_positive


def from_chen_step(eps: float) -> float:
    """Workbench h for a step eps in the theta + eps*g + sqrt(2 eps) xi convention: h = 2 eps."""
    return 2.0 * check_positive("eps", eps)


def to_chen_step(h: float) -> float:
    """Step eps in the theta + eps*g + sqrt(2 eps) xi convention for a workbench h: eps = h / 2."""
    return 0.5 * check_positive("h", h)
