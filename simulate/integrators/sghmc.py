"""Stochastic-gradient Hamiltonian Monte Carlo (SGHMC), Chen, Fox & Guestrin (2014), eq. (15), as an integrator.

Chen et al.'s practical form, with unit mass and beta_hat = 0 (as in their experiments and in Baker et al. 2019,
Sec. 2.4; the equation printed there writes increments as assignments and flips the gradient sign,
docs/papers/baker.md sec. 1.2):

    v     <- (1 - alpha) v + eta g(theta) + sqrt(2 alpha eta) xi,      xi ~ N(0, I_d)
    theta <- theta + v

with g an estimate of grad log posterior at the current theta (any estimator: minibatch, control variate,
stratified, ...). This is eq. (15) with the momentum updated first (the order of the R package sgmcmc,
R/update.R): theta_{t+1} = theta_t + v_{t+1} uses the new momentum, so the pair (theta_t, v_t) is the same chain
as Chen et al.'s (theta_{t+1} = theta_t + v_t, v_{t+1} = v_t + eta g(theta_{t+1}) - alpha v_t + noise) read one
half-step later. The learning rate eta is the Sampler's ``h``. In terms of Chen et al.'s eq. (13) (step eps,
mass M = I, friction C): eta = eps^2, alpha = eps C (see :meth:`SGHMC.from_friction`).

The momentum starts at v ~ N(0, eta I) and, when ``resample_every = L`` is given, is redrawn from N(0, eta I) after
every L steps (the "trajectory of L steps" of Baker et al. Sec. 2.4; the sgmcmc package's L inner steps).
``temperature`` T scales every injected variance: the step's noise is sqrt(2 alpha eta T) xi and the momentum's
default law N(0, eta T I) (target p^(1/T)); ``v0_var`` and ``refresh_var`` override the variance per coordinate of
the initial and of the redrawn momentum (absolute units; a library that draws them otherwise is declared so).
The sgmcmc package writes the same update with eps for eta and refreshes v as 0.5 sqrt(2 eps) N(0, 1), i.e.
N(0, eps/2); the workbench uses Chen et al.'s N(0, eta I), the stationary momentum law of the dynamics.

Stability (new): on a Gaussian target with gradient Lipschitz constant L, the deterministic map on (theta, v) has
characteristic polynomial lambda^2 - (2 - alpha - eta L) lambda + (1 - alpha); by the Jury criterion both roots lie
in the unit disc iff 0 < alpha < 2 and 0 < eta L < 4 - 2 alpha.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..arrays import namespace_of
from ..validation import ParameterError, check_int, check_positive
from .base import IntegratorBase, check_temperature, check_variance


class SGHMCState(NamedTuple):
    """Momentum v (M, d) of every chain and the number of steps taken (shared by all chains).

    Parameters
    ----------
    v : numpy.ndarray, shape (M, d)
        The momentum of every chain.
    step : int
        The steps taken (shared by all chains).
    """

    v: np.ndarray
    step: int


@dataclass(frozen=True)
class SGHMC(IntegratorBase):
    """SGHMC integrator (Chen et al. 2014 eq. 15, M = I, beta_hat = 0) with friction ``alpha`` in (0, 1],
    ``temperature`` T >= 0 and optional momentum variances ``v0_var``, ``refresh_var`` (default eta T).

    Parameters
    ----------
    alpha : float
        The friction, 0 < alpha <= 1.
    resample_every : int or None, default None
        Redraw the momentum after every this many steps (None: never).
    temperature : float, default 1.0
        T >= 0.
    v0_var : float or None, default None
        The variance per coordinate of v_0 (default eta T).
    refresh_var : float or None, default None
        The variance of a redrawn momentum (default eta T).

    Raises
    ------
    ParameterError
        For a parameter out of its range.

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) (M = I, beta_hat = 0).
    """

    alpha: float
    resample_every: int | None = None
    temperature: float = 1.0
    v0_var: float | None = None
    refresh_var: float | None = None

    name = "sghmc"

    def __post_init__(self) -> None:
        a = check_positive("alpha", self.alpha)
        if a > 1.0:
            raise ParameterError(f"alpha must satisfy 0 < alpha <= 1 (friction per step), got {self.alpha!r}")
        if self.resample_every is not None:
            check_int("resample_every", self.resample_every, 1)
        object.__setattr__(self, "temperature", check_temperature(self.temperature))
        object.__setattr__(self, "v0_var", check_variance("v0_var", self.v0_var))
        object.__setattr__(self, "refresh_var", check_variance("refresh_var", self.refresh_var))

    def initial_var(self, h: float) -> float:
        """Variance per coordinate of v_0: ``v0_var``, else eta T.

        Parameters
        ----------
        h : float
            eta, the learning rate.

        Returns
        -------
        float
            The variance.
        """
        return h * self.temperature if self.v0_var is None else self.v0_var

    def redraw_var(self, h: float) -> float:
        """Variance per coordinate of a redrawn momentum: ``refresh_var``, else eta T.

        Parameters
        ----------
        h : float
            eta, the learning rate.

        Returns
        -------
        float
            The variance.
        """
        return h * self.temperature if self.refresh_var is None else self.refresh_var

    @classmethod
    def from_friction(cls, eps: float, friction: float, resample_every: int | None = None) -> tuple[SGHMC, float]:
        """Chen et al. eq. (13) parameters (step eps, friction C, M = I) -> (integrator, eta) with eta = eps^2,
        alpha = eps C (their eq. 15 substitution).

        Parameters
        ----------
        eps : float
            Chen et al.'s step eps.
        friction : float
            Their friction C.
        resample_every : int or None, optional
            As for :class:`SGHMC`.

        Returns
        -------
        integrator : SGHMC
            With alpha = eps C.
        eta : float
            eps^2, the h to run it with.

        Raises
        ------
        ParameterError
            For an alpha outside (0, 1].

        References
        ----------
        Chen et al. (2014), eqs. (13) and (15).
        """
        eps = check_positive("eps", eps)
        friction = check_positive("friction", friction)
        return cls(eps * friction, resample_every), eps * eps

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """Largest stable learning rate: eta < (4 - 2 alpha) / L (Jury criterion on the Gaussian target).

        Parameters
        ----------
        lipschitz : float
            L, the Lipschitz constant of grad log posterior.

        Returns
        -------
        h_max : float
            The sampler refuses h >= h_max (inf: no bound).
        why : str
            Where the bound comes from (quoted in the error message).

        References
        ----------
        New (the Jury criterion of the linear map on a Gaussian target).
        """
        return (4.0 - 2.0 * self.alpha) / lipschitz, (
            f"SGHMC stability on a Gaussian target, h < (4 - 2 alpha)/L with alpha = {self.alpha:g} and L the "
            "Lipschitz constant of grad log posterior")

    def noise_scale(self, h: float) -> float:
        """Standard deviation of the injected momentum noise per coordinate: sqrt(2 alpha eta T).

        Parameters
        ----------
        h : float
            eta, the learning rate.

        Returns
        -------
        float
            sqrt(2 alpha eta T).
        """
        return float(np.sqrt(2.0 * self.alpha * h * self.temperature))

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float:
        return self.noise_scale(h)

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> SGHMCState:
        """v_0 ~ N(0, eta T I) (or ``v0_var``), drawn after the estimator's initial random numbers.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' starting points.
        h : float
            eta, the learning rate.
        rng : numpy.random.Generator
            The stream v_0 is drawn from (advanced).

        Returns
        -------
        SGHMCState
            v_0 and step 0.
        """
        return SGHMCState(np.sqrt(self.initial_var(h)) * rng.standard_normal(theta.shape), 0)

    def draws_in_update(self) -> bool:
        """The momentum refresh (every ``resample_every`` steps) draws from rng inside the update.

        Returns
        -------
        bool
            True when ``resample_every`` is set.
        """
        return self.resample_every is not None

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float,
               state: SGHMCState, rng: np.random.Generator | None) -> tuple[np.ndarray, SGHMCState]:
        """v <- (1 - alpha) v + h g + noise xi, theta <- theta + v (numpy: in place); the momentum redrawn after
        every ``resample_every`` steps. Returns (theta, state).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points (numpy: advanced in place).
        grad : numpy.ndarray, shape (M, d)
            The gradient estimate g.
        xi : numpy.ndarray, shape (M, d)
            Standard normal noise.
        h : float
            eta, the learning rate.
        noise : float
            The noise scale, from :meth:`~simulate.Integrator.noise_matrix`.
        state : SGHMCState
            The momentum and the step count.
        rng : numpy.random.Generator or None
            The stream for the momentum refresh (:meth:`~simulate.Integrator.draws_in_update`).

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.

        References
        ----------
        Chen, Fox & Guestrin (2014), eq. (15).
        """
        if not isinstance(state, SGHMCState):
            raise ParameterError("SGHMC needs its momentum: build the state with Sampler.init (integrator_state)")
        v = state.v
        v *= 1.0 - self.alpha
        grad *= h
        v += grad
        xi *= noise
        v += xi
        theta += v
        return theta, self._after_step(v, state.step + 1, h, rng)

    def _after_step(self, v: np.ndarray, k: int, h: float, rng: np.random.Generator | None) -> SGHMCState:
        """The state after step k (1-based): v redrawn from N(0, redraw_var) (numpy: in place) when L divides k."""
        if self.resample_every is None:
            return SGHMCState(v, k)

        def redraw():
            w = xp.assign(v, rng.standard_normal(v.shape))
            w *= np.sqrt(self.redraw_var(h))
            return w

        xp = namespace_of(v)
        return SGHMCState(xp.cond(k % self.resample_every == 0, redraw, lambda: v), k)


__all__ = ["SGHMC", "SGHMCState"]
