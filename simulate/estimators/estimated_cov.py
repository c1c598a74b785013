"""Minibatch gradient whose covariance is estimated from the same minibatch (Vollmer et al. 2016, Remark 7).

mSGLD (eq. 54, workbench convention): theta' = theta + (h/2) g + sqrt(h) (I - (h/8) Cov g) xi needs the
covariance of the gradient estimate g given theta. Remark 7 replaces it by an unbiased estimate from the n
per-datum gradients of the current minibatch (corrected form, docs/papers/vollmer.md sec. 5):

    without replacement:  Covhat(g) = N^2 (N - n) / (N n) * s^2,
    with replacement:     Covhat(g) = N^2 / n * s^2,

s^2 the sample covariance (ddof = 1) of the n per-datum gradients grad log p(x_{tau_j} | theta). Both are unbiased
for the exact Cov(g) = N^2 S(theta) f / n (S with divisor N, f = (N - n)/(N - 1) or 1), since the sample variance of
a simple random sample is unbiased for the population variance with divisor N - 1 (Cochran 1977, Thm. 2.4).

The same minibatch gives g and Covhat, so the estimator returns g and carries Covhat in its state
(:class:`CovEstimate`); :meth:`EstimatedCovMinibatch.step_noise_cov` hands it to the sampler, which gives it to the
integrator at the same step (:func:`simulate.samplers.msgld_estimated_cov`). ``noise_cov(model, theta)`` keeps its
meaning (the exact Cov(g) given theta).

Instability (allowed, not an error): Covhat is a random matrix, so for small n the noise matrix I - (h/8) Covhat
may have eigenvalues <= 0 or far below -1 and inflate the injected noise; this is the instability of mSGLD for
small minibatches that the paper reports (Section 7, Figure 7: n = 10 never gets below MSE 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..contracts import Model
from ..validation import ParameterError, check_int, check_positive
from .minibatch import Minibatch


class CovEstimate(NamedTuple):
    """Estimator state after a step: the per-chain estimated covariance of that step's gradient, (M, d, d).

    Parameters
    ----------
    cov : numpy.ndarray or None
        (M, d, d), Covhat of the last step's gradient; None before the first step.
    """

    cov: np.ndarray | None


def covariance_factor(n_data: int, n: int, replace: bool) -> float:
    """Factor c with Covhat(g) = c * s^2 (ddof = 1): N^2 (N - n)/(N n) without, N^2 / n with replacement (new).

    Parameters
    ----------
    n_data : int
        N, the number of data.
    n : int
        The minibatch size n.
    replace : bool
        Whether the minibatch is drawn with replacement (else a uniform n-subset).

    Returns
    -------
    float
        c.

    References
    ----------
    New (the corrected scaling of Vollmer et al. (2016), Remark 7).
    """
    N = n_data
    return N * N / n if replace else N * (N - n) / n


def estimated_covariance(per_datum: np.ndarray, n_data: int, replace: bool) -> np.ndarray:
    """Remark 7 estimate of Cov(g) from the (n, M, d) per-datum gradients of one minibatch, shape (M, d, d).

    Covhat = c * s^2 with s^2 the sample covariance (ddof = 1) over the n rows and c from
    :func:`~simulate.estimators.estimated_cov.covariance_factor` (Vollmer et al. 2016, Remark 7, corrected scaling).

    Parameters
    ----------
    per_datum : numpy.ndarray, shape (n, M, d)
        The per-datum gradients of one minibatch, n >= 2.
    n_data : int
        N, the number of data.
    replace : bool
        Whether the minibatch is drawn with replacement (else a uniform n-subset).

    Returns
    -------
    numpy.ndarray, shape (M, d, d)
        Covhat per chain.

    Raises
    ------
    ParameterError
        For n < 2.

    References
    ----------
    Vollmer et al. (2016), Remark 7 (scaling corrected; new).
    """
    n = per_datum.shape[0]
    if n < 2:
        raise ParameterError(f"n must satisfy n >= 2 to estimate a covariance from one minibatch, got {n}")
    centred = per_datum - per_datum.mean(axis=0)
    # (M, d, n) @ (M, n, d): batched s^2 (n - 1)
    cov = np.matmul(centred.transpose(1, 2, 0), centred.transpose(1, 0, 2))
    cov *= covariance_factor(n_data, n, replace) / (n - 1)
    return cov


@dataclass(frozen=True)
class EstimatedCovMinibatch(Minibatch):
    """Minibatch gradient g = grad log pi_0 + (N/n) sum_j grad log p(x_{tau_j} | theta) (Vollmer et al. eq. 6)
    that also carries Covhat(g) from the same minibatch (Remark 7) in its state.

    Random numbers are drawn exactly as by :class:`simulate.estimators.minibatch.Minibatch` (one index draw per
    step), so runs with the same seed are coupled: same minibatches and same injected noise as SGLD / exact mSGLD.
    ``cov_multiplier`` scales Covhat before it reaches the integrator: 1 (default) is eq. (54); 4 reproduces eq. (9)
    as printed, sqrt(h) (I - (h/2) Covhat(g)) (the paper's erratum: Cov of g where Cov fhat belongs).

    Parameters
    ----------
    n : int
        The minibatch size, 2 <= n <= N.
    replace : bool, default False
        Draw the minibatch with replacement.
    cov_multiplier : float, default 1.0
        Scales Covhat before it reaches the integrator (> 0).

    Raises
    ------
    ParameterError
        For cov_multiplier <= 0.

    References
    ----------
    Vollmer et al. (2016), eq. (6), Remark 7, eqs. (9) and (54).
    """

    cov_multiplier: float = 1.0

    name = "minibatch+covhat"
    estimates_noise_cov = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "cov_multiplier", check_positive("cov_multiplier", self.cov_multiplier))

    def check(self, model: Model) -> None:
        """Validate n (2 <= n <= N: a covariance needs two per-datum gradients) and replace.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When n is not in 2..N or replace is not a bool.
        """
        super().check(model)
        check_int("n", self.n, 2, model.n_data)

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> CovEstimate:
        """Validate against ``model``; no covariance yet.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        CovEstimate
            ``CovEstimate(None)``.
        """
        self.check(model)
        return CovEstimate(None)

    def apply(self, model: Model, theta: np.ndarray, state: CovEstimate | None,
              idx: np.ndarray) -> tuple[np.ndarray, CovEstimate]:
        """(g (M, d), CovEstimate(Covhat (M, d, d))) from the step's minibatch (eq. 6, Remark 7).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : CovEstimate or None
            The estimator's state.
        idx : numpy.ndarray, shape (n, M)
            This step's minibatch indices, from :meth:`~simulate.GradientEstimator.draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The minibatch estimate.
        state : CovEstimate
            Covhat of this step, (M, d, d).
        """
        per = model.grad_log_lik(theta, idx)  # (n, M, d)
        g = per.sum(axis=0)
        g *= self.scale(model)
        g += model.grad_log_prior(theta)
        return g, CovEstimate(estimated_covariance(per, model.n_data, self.replace))

    def step_noise_cov(self, state: CovEstimate) -> np.ndarray:
        """This step's Covhat times ``cov_multiplier`` (what the integrator's noise matrix uses).

        Parameters
        ----------
        state : CovEstimate
            The state after :meth:`~simulate.GradientEstimator.apply`.

        Returns
        -------
        numpy.ndarray, shape (M, d, d)
            Covhat times cov_multiplier.

        Raises
        ------
        ParameterError
            Before the first :meth:`~simulate.GradientEstimator.apply`.
        """
        if state is None or state.cov is None:
            raise ParameterError("no covariance estimate yet: step_noise_cov is read after apply")
        return state.cov if self.cov_multiplier == 1.0 else state.cov * self.cov_multiplier


def nonpositive_fraction(cov: np.ndarray, h: float) -> float:
    """Fraction of chains whose noise matrix I - (h/8) Covhat has an eigenvalue <= 0 (Remark 7 instability, new).

    Parameters
    ----------
    cov : numpy.ndarray, shape (M, d, d)
        Covhat per chain.
    h : float
        The step size.

    Returns
    -------
    float
        The fraction of chains, in [0, 1].

    References
    ----------
    New (the instability of Vollmer et al. (2016), Remark 7 and Sec. 7, Figure 7).
    """
    lam = np.linalg.eigvalsh(cov)[..., -1]
    return float(np.mean(lam >= 8.0 / h))


__all__ = ["CovEstimate", "EstimatedCovMinibatch", "covariance_factor", "estimated_covariance", "nonpositive_fraction"]
