"""Step-size conventions.

The workbench convention (Welling & Teh 2011, Vollmer et al. 2016, Baker et al. 2019):

    theta' = theta + (h/2) g + sqrt(h) xi,  xi ~ N(0, I).

Chen et al. (vrSG-MCMC), blackjax and SGMCMCJax write theta' = theta + eps g + sqrt(2 eps) xi, which is the
same map with h = 2 eps.
"""

from __future__ import annotations

from .validation import check_positive


def from_chen_step(eps: float) -> float:
    """The workbench's h for a step eps of the convention theta' = theta + eps g + sqrt(2 eps) xi: h = 2 eps.

    Parameters
    ----------
    eps : float
        The step, eps > 0.

    Returns
    -------
    float
        h = 2 eps.

    Raises
    ------
    ParameterError
        When eps is not a finite positive number.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 (:doc:`/papers/chen`, sec. 2).

    Examples
    --------
    >>> from simulate import from_chen_step
    >>> from_chen_step(0.05)
    0.1
    """
    return 2.0 * check_positive("eps", eps)


def to_chen_step(h: float) -> float:
    """The step eps of the convention theta' = theta + eps g + sqrt(2 eps) xi for the workbench's h: eps = h / 2.

    Parameters
    ----------
    h : float
        The workbench's step size, h > 0.

    Returns
    -------
    float
        eps = h / 2.

    Raises
    ------
    ParameterError
        When h is not a finite positive number.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 (:doc:`/papers/chen`, sec. 2).
    """
    return 0.5 * check_positive("h", h)
