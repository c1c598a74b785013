"""How good a sampler's samples are at one (h, n), beside the MSE of one time average: the accuracy of its
stationary law against the posterior, and the effective sample size its budget buys.

* W2 of the stationary law to the posterior: exact (:func:`theory.distances.w2_gaussian`) where the stationary law is
  Gaussian (the full gradient, n = N, on a chain of period 1: the chain is then linear with Gaussian noise), else the
  Gelbrich lower bound from its exact mean and covariance (:func:`theory.distances.gelbrich_w2`: minibatch noise makes
  the law non-Gaussian);
* KL(stationary || posterior): exact (:func:`theory.distances.kl_gaussian`) where the law is Gaussian, else the lower
  bound over every law with its moments (:func:`theory.distances.kl_lower_from_moments`);
* the variance inflation max_i C_ii / Sigma_ii and the largest relative error ``max_i |C_ii / Sigma_ii - 1|`` of the
  posterior variances (C the stationary covariance, Sigma the posterior's; exact);
* the effective sample size of the window, ESS = a^T Sigma a / Var(time average of a^T theta) (exact), and per
  gradient evaluation of the budget.

A periodic chain (SVRG-LD, vrSG-MCMC) is read at a uniformly random phase (the mixture of its phases' laws, the law
its time averages converge to), which is not Gaussian: the bounds apply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError

from ..distances import gelbrich_w2, kl_gaussian, kl_lower_from_moments, w2_gaussian

#: The variance inflation above which an optimum's samples are flagged as not a usable approximation.
INFLATION_WARN = 2.0


@dataclass(frozen=True)
class LawAccuracy:
    """The stationary law's accuracy at one (h, n) and the window's effective sample size (module docstring).

    Parameters
    ----------
    w2 : float
        W2(stationary law, posterior), exact or its Gelbrich lower bound (``gaussian``).
    kl : float
        KL(stationary law || posterior), exact or its lower bound from the moments.
    gaussian : bool
        Whether the stationary law is Gaussian (w2 and kl exact) or not (lower bounds).
    inflation : float
        max_i C_ii / Sigma_ii.
    var_error : float
        ``max_i |C_ii / Sigma_ii - 1|``.
    worst : int
        The coordinate i (0-based) of ``var_error``.
    ess : float
        a^T Sigma a / Var(time average of a^T theta) over the budget's window.
    ess_per_gradient : float
        ``ess`` per per-datum gradient evaluation of the budget.
    """

    w2: float
    kl: float
    gaussian: bool
    inflation: float
    var_error: float
    worst: int
    ess: float
    ess_per_gradient: float

    @property
    def usable(self) -> bool:
        """False when the stationary variance exceeds :data:`INFLATION_WARN` x the posterior's in some coordinate."""
        return self.inflation <= INFLATION_WARN

    def warning(self) -> str:
        """The warning shown with an optimum whose samples are not a usable approximation, or "".

        Returns
        -------
        str
            E.g. "WARNING: the stationary variance of theta_3 is 19555x the posterior's ...".
        """
        if self.usable:
            return ""
        return (f"WARNING: at this optimum the stationary variance of theta_{self.worst + 1} is {self.inflation:.3g}x "
                f"the posterior's (W2 {'=' if self.gaussian else '>='} {self.w2:.3g} from the posterior): the samples "
                "are not a usable approximation of the posterior; only the time average this objective scores is "
                "accurate. Choose a law objective (--objective w2 or varerr) for samples you can use.")

    def describe(self) -> str:
        """The accuracy in one line.

        Returns
        -------
        str
            W2, KL, the variance inflation and error, and the ESS per gradient.
        """
        rel = "=" if self.gaussian else ">="
        return (f"stationary law: W2 {rel} {self.w2:.3g}, KL {rel} {self.kl:.3g}, variance x{self.inflation:.3g} "
                f"(largest relative error {self.var_error:.2g}, theta_{self.worst + 1}); ESS {self.ess:.3g} "
                f"({self.ess_per_gradient:.3g} per gradient)")


def law_accuracy(law, n: int, a: np.ndarray, window: tuple[int, int], gradients: float) -> LawAccuracy:
    """The :class:`LawAccuracy` of an exact law (module docstring).

    Parameters
    ----------
    law : theory.ExactLaw
        The sampler's exact law (an affine model: its ``posterior_mean`` and ``posterior_cov``).
    n : int
        The minibatch size (n = N on a chain of period 1: the stationary law is Gaussian).
    a : numpy.ndarray, shape (d,)
        The linear functional whose ESS is reported.
    window : tuple of int
        (b, L), the budget's burn-in and window.
    gradients : float
        The budget in per-datum gradient evaluations.

    Returns
    -------
    LawAccuracy
        The accuracy.

    Raises
    ------
    simulate.validation.ParameterError
        When the chain has no stationary law at its h.

    References
    ----------
    Gelbrich (1990), Theorem 2.1 (the W2 lower bound from moments); Vollmer, Zygalakis & Teh (2016), eq. (7) (the time
    average whose variance gives the ESS).
    """
    m, C = law.stationary_moments("average" if law.period > 1 else None)
    mu, S = law.posterior_mean, law.posterior_cov
    gaussian = law.period == 1 and n >= int(law.sampler.model.n_data)
    try:
        w2 = (w2_gaussian if gaussian else gelbrich_w2)(m, C, mu, S)
        kl = (kl_gaussian if gaussian else kl_lower_from_moments)(m, C, mu, S)
    except ParameterError:
        w2 = kl = math.nan
    ratio = np.diag(C) / np.diag(S)
    worst = int(np.argmax(np.abs(ratio - 1.0)))
    b, L = window
    ta = law.time_average(a, n_steps=L, burn_in=b)
    ess = float(a @ S @ a / ta.variance) if ta.variance > 0 else math.inf
    return LawAccuracy(float(w2), float(kl), gaussian, float(ratio.max()), float(abs(ratio[worst] - 1.0)), worst,
                       ess, ess / gradients)


__all__ = ["INFLATION_WARN", "LawAccuracy", "law_accuracy"]
