"""Two more discretisations of underdamped Langevin dynamics with a stochastic gradient, as the peer libraries
(blackjax, SGMCMCJax, posteriors) write them, in the workbench's step units (learning rate h = eta, friction alpha
per step, unit mass; :mod:`.sghmc` for the conventions and :class:`SGHMC` for Chen et al.'s order).

* :class:`ExplicitEulerSGHMC`: the gradient at the position *before* it moves (the "Euler solver" of blackjax's
  ``diffusions.sghmc``, SGMCMCJax's ``diffusions.sghmc`` citing Chen et al. App. G, posteriors' ``sghmc``):

      theta' = theta + v,      v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h T) xi.

  On a Gaussian target with precision eigenvalue P the deterministic map has characteristic polynomial
  lambda^2 - (2 - alpha) lambda + (1 - alpha + h P); by the Jury criterion it is stable iff h P < alpha (new;
  Chen et al.'s order allows h P < 4 - 2 alpha).
* :class:`BAOAB`: Leimkuhler & Matthews (2013) with one gradient per step (SGMCMCJax's ``baoab``; library time step
  dt and friction gamma: h = dt^2, alpha = gamma dt, v = dt times the library's velocity), c = exp(-alpha):

      B: v += (h/2) g(theta);  A: theta += v/2;  O: v = c v + sqrt(h T (1 - c^2)) xi;  A: theta += v/2;
      B: v += (h/2) g(theta'),

  where g(theta') is one fresh estimate that the next step's first B reuses. The sampler evaluates one gradient at
  the start of each step, so the workbench step k runs the previous step's closing B and this step's opening B
  together, v += h g(theta_k) (step 0: (h/2) g(theta_0), there is no previous step), then A O A: theta_k is the
  library's theta_k and the stored momentum is the library's minus (h/2) g(theta_k), the closing half-kick not yet
  taken. On a Gaussian target with the exact gradient theta is exactly N(mu, T P^{-1}) at any stable h (h P < 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import namespace_of
from ..validation import ParameterError, check_positive
from .base import IntegratorBase, check_temperature, check_variance
from .sghmc import SGHMC, SGHMCState


@dataclass(frozen=True)
class ExplicitEulerSGHMC(SGHMC):
    """SGHMC in the explicit-Euler order (module docstring): theta' = theta + v, then
    v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h T) xi; momentum options as :class:`simulate.SGHMC`.

    Parameters
    ----------
    alpha : float
        The friction, 0 < alpha <= 1.
    resample_every : int or None, default None
        Redraw the momentum after every this many steps (None: never).
    temperature : float, default 1.0
        T >= 0.
    v0_var : float or None, default None
        The variance per coordinate of v_0 (default h T).
    refresh_var : float or None, default None
        The variance of a redrawn momentum (default h T).

    Raises
    ------
    ParameterError
        For a parameter out of its range.

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) in the explicit-Euler order of the peer libraries (new as a named scheme
    here).
    """

    name = "sghmc_euler"

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """h < alpha / L (Jury criterion on the Gaussian target, module docstring).

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
        New (the Jury criterion on a Gaussian target).
        """
        return self.alpha / lipschitz, (
            f"explicit-Euler SGHMC stability on a Gaussian target, h < alpha/L with alpha = {self.alpha:g} and L the "
            "Lipschitz constant of grad log posterior")

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float,
               state: SGHMCState, rng: np.random.Generator | None) -> tuple[np.ndarray, SGHMCState]:
        """theta <- theta + v, then v <- (1 - alpha) v + h g + noise xi (numpy: in place); refresh as
        :class:`simulate.SGHMC`. Returns (theta, state).

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
        """
        if not isinstance(state, SGHMCState):
            raise ParameterError("ExplicitEulerSGHMC needs its momentum: build the state with Sampler.init")
        v = state.v
        theta += v
        v *= 1.0 - self.alpha
        grad *= h
        v += grad
        xi *= noise
        v += xi
        return theta, self._after_step(v, state.step + 1, h, rng)


@dataclass(frozen=True)
class BAOAB(IntegratorBase):
    """BAOAB with a stochastic gradient (module docstring): friction ``alpha`` = gamma dt > 0, ``temperature`` T >= 0,
    initial momentum N(0, ``v0_var`` I) (default h T, the stationary momentum law).

    Parameters
    ----------
    alpha : float
        The friction gamma dt, > 0.
    temperature : float, default 1.0
        T >= 0.
    v0_var : float or None, default None
        The variance per coordinate of v_0 (default h T).

    Raises
    ------
    ParameterError
        For a parameter out of its range.

    References
    ----------
    Leimkuhler & Matthews (2013), the BAOAB splitting, here with a stochastic gradient.
    """

    alpha: float
    temperature: float = 1.0
    v0_var: float | None = None

    name = "baoab"

    def __post_init__(self) -> None:
        check_positive("alpha", self.alpha)
        object.__setattr__(self, "temperature", check_temperature(self.temperature))
        object.__setattr__(self, "v0_var", check_variance("v0_var", self.v0_var))

    @property
    def damping(self) -> float:
        """c = exp(-alpha): the O-step's momentum factor."""
        return math.exp(-self.alpha)

    def initial_var(self, h: float) -> float:
        """Variance per coordinate of v_0: ``v0_var``, else h T.

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            The variance.
        """
        return h * self.temperature if self.v0_var is None else self.v0_var

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """h < 4/L: the exact-gradient BAOAB map on a Gaussian target is stable iff dt omega < 2.

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
        """
        return 4.0 / lipschitz, "BAOAB stability on a Gaussian target, h < 4/L (dt omega < 2; Leimkuhler & Matthews)"

    def noise_scale(self, h: float) -> float:
        """Standard deviation of the O-step's noise per coordinate: sqrt(h T (1 - c^2)).

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            sqrt(h T (1 - c^2)).
        """
        return float(np.sqrt(h * self.temperature * (1.0 - self.damping**2)))

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float:
        return self.noise_scale(h)

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> SGHMCState:
        """v_0 ~ N(0, v0_var I), drawn after the estimator's initial random numbers.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' starting points.
        h : float
            The step size.
        rng : numpy.random.Generator
            The stream v_0 is drawn from (advanced).

        Returns
        -------
        SGHMCState
            v_0 and step 0.
        """
        return SGHMCState(np.sqrt(self.initial_var(h)) * rng.standard_normal(theta.shape), 0)

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float,
               state: SGHMCState, rng: np.random.Generator | None) -> tuple[np.ndarray, SGHMCState]:
        """v += (h/2 at step 0, else h) g; theta += v/2; v = c v + noise xi; theta += v/2 (numpy: in place).
        Returns (theta, state).

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
            The noise scale, from :meth:`~simulate.Integrator.noise_matrix`.
        state : SGHMCState
            The momentum and the step count.
        rng : numpy.random.Generator or None
            Unused (the O-step's noise is xi).

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.
        """
        if not isinstance(state, SGHMCState):
            raise ParameterError("BAOAB needs its momentum: build the state with Sampler.init")
        v = state.v
        grad *= namespace_of(theta).select(state.step == 0, 0.5 * h, h)
        v += grad
        v *= 0.5
        theta += v
        v *= 2.0 * self.damping
        xi *= noise
        v += xi
        theta += 0.5 * v
        return theta, SGHMCState(v, state.step + 1)


__all__ = ["BAOAB", "ExplicitEulerSGHMC"]
