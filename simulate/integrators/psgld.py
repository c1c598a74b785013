"""pSGLD: Langevin with an adaptive diagonal preconditioner (Li, Chen, Carlson & Carin 2016, Algorithm 1).

Per step, with g the gradient estimate of grad log posterior (the sampler's estimator) and ``V`` carried in the state:

    gbar  = g / N,
    V'    = alpha V + (1 - alpha) gbar * gbar,                      (RMSprop's second moment, elementwise)
    G     = diag(1 / (lambda + sqrt(V'))),
    theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi,      xi ~ N(0, I_d),   V_0 = 0.

Conventions. Li et al. write theta_{t+1} = theta_t + (eps_t/2) [G(theta_t) g + Gamma(theta_t)] + N(0, eps_t G(theta_t)):
with a constant step this is the workbench convention with h = eps. Their gbar is the minibatch mean of the per-datum
log-likelihood gradients; the integrator sees the estimate g only, so here gbar = g / N, which is their gbar plus
grad log p(theta) / N (the prior's share, of relative order 1/N; TensorFlow Probability's pSGLD builds its RMSprop
moment from the same mean-loss gradient). The correction Gamma_i = sum_j dG_ij / dtheta_j is dropped, as in the
paper's experiments (it is of order 1 - alpha). Defaults alpha = 0.99, lambda = 1e-5 are the paper's; V starts at 0
as in Algorithm 1 (the authors' code starts it at the first squared gradient instead, which shortens the first steps'
large preconditioner; a burn-in of several averaging windows 1 / (1 - alpha) makes the two agree).

There is no exact law: V' is quadratic in the gradient, so the step is not affine in the state (theta, V) and the
chain's moments do not close (:func:`theory.exact_law` refuses it and says so). The chain is not even a
time-homogeneous Langevin scheme for pi: G follows the recent gradients, and only as alpha -> 1 with the chain mixing
within the averaging window 1 / (1 - alpha) does it approach a fixed-preconditioner SGLD
(:mod:`simulate.integrators.preconditioned`), whose exact law the engine has. Check it by simulation
(``docs/add_a_sampler.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..validation import ParameterError, check_int, check_positive, check_real
from .base import IntegratorBase


class PSGLDState(NamedTuple):
    """RMSprop's second moment V (M, d) of every chain and the number of steps taken (shared by all chains).

    Parameters
    ----------
    V : numpy.ndarray, shape (M, d)
        RMSprop's second moment of every chain.
    step : int
        The steps taken (shared by all chains).

    References
    ----------
    Li, Chen, Carlson & Carin (2016), Algorithm 1.
    """

    V: np.ndarray
    step: int


@dataclass(frozen=True)
class AdaptivePreconditionedLangevin(IntegratorBase):
    """pSGLD's step (Li et al. 2016 Alg. 1; module docstring) with a preconditioner adapted by RMSprop.

    Parameters
    ----------
    n_data : int
        N, the number of data: gbar = g / N.
    alpha : float
        RMSprop's decay, 0 < alpha < 1 (paper: 0.99).
    lam : float
        lambda > 0, the regulariser of G = 1 / (lambda + sqrt(V)) (paper: 1e-5).

    Raises
    ------
    ParameterError
        If a parameter is out of its range.
    """

    n_data: int
    alpha: float = 0.99
    lam: float = 1e-5

    name = "psgld"

    def __post_init__(self) -> None:
        check_int("n_data", self.n_data, 1)
        a = check_real("alpha", self.alpha)
        if not 0.0 < a < 1.0:
            raise ParameterError(f"alpha must satisfy 0 < alpha < 1 (RMSprop's decay), got {self.alpha!r}")
        check_positive("lam", self.lam)

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """No bound from L: G adapts (up to 1 / lambda), so h L says nothing about stability.

        Parameters
        ----------
        lipschitz : float
            L, the Lipschitz constant of grad log posterior.

        Returns
        -------
        h_max : float
            inf.
        why : str
            Why there is no bound.
        """
        return math.inf, "no stability bound: pSGLD's preconditioner adapts to the gradients"

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float:
        """sqrt(h): the preconditioner's G^{1/2} is applied inside :meth:`update`, where G is known.

        Parameters
        ----------
        h : float
            The step size.
        noise_cov : numpy.ndarray or None
            Unused.

        Returns
        -------
        float
            sqrt(h).
        """
        return float(np.sqrt(h))

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> PSGLDState:
        """V_0 = 0 (Algorithm 1); draws nothing.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' starting points.
        h : float
            The step size.
        rng : numpy.random.Generator
            Unused.

        Returns
        -------
        PSGLDState
            V_0 = 0 and step 0.

        References
        ----------
        Li, Chen, Carlson & Carin (2016), Algorithm 1.
        """
        return PSGLDState(np.zeros_like(theta, dtype=np.float64), 0)

    def preconditioner(self, V: np.ndarray) -> np.ndarray:
        """The diagonal of G = diag(1 / (lambda + sqrt(V))), same shape as V.

        Parameters
        ----------
        V : numpy.ndarray
            RMSprop's second moment.

        Returns
        -------
        numpy.ndarray
            The diagonal of G.

        References
        ----------
        Li, Chen, Carlson & Carin (2016), Algorithm 1.
        """
        return 1.0 / (self.lam + np.sqrt(V))

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float,
               state: PSGLDState, rng: np.random.Generator | None = None) -> tuple[np.ndarray, PSGLDState]:
        """V <- alpha V + (1 - alpha) (g/N)^2; theta <- theta + (h/2) G g + noise G^{1/2} xi, in place (grad and xi
        are overwritten); returns (theta, the new state).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points (numpy: advanced in place).
        grad : numpy.ndarray, shape (M, d)
            The gradient estimate g.
        xi : numpy.ndarray, shape (M, d)
            Standard normal noise.
        h : float
            The step size.
        noise : float
            sqrt(h), from :meth:`noise_matrix`.
        state : PSGLDState
            V and the step count.
        rng : numpy.random.Generator or None
            Unused.

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points.
        state : PSGLDState
            The new V and step count.

        References
        ----------
        Li, Chen, Carlson & Carin (2016), Algorithm 1 (the Gamma(theta) correction term is dropped, as in the paper's
        experiments).
        """
        if not isinstance(state, PSGLDState):
            raise ParameterError("pSGLD needs its second moment V: build the state with Sampler.init")
        V = state.V
        gbar = grad / self.n_data
        V *= self.alpha
        V += (1.0 - self.alpha) * gbar * gbar
        G = self.preconditioner(V)
        grad *= G
        grad *= 0.5 * h
        theta += grad
        xi *= np.sqrt(G)
        xi *= noise
        theta += xi
        return theta, PSGLDState(V, state.step + 1)


__all__ = ["AdaptivePreconditionedLangevin", "PSGLDState"]
