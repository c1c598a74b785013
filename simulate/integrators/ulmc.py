"""Underdamped Langevin MCMC (Cheng, Chatterji, Bartlett & Jordan 2018, Algorithm 1 and Lemma 11; the CV-ULD of
Chatterji, Flammarion, Ma, Bartlett & Jordan 2018 with a control-variate gradient) as an integrator.

The underdamped Langevin diffusion with friction gamma and inverse mass u,

    dv = -gamma v dt + u grad log pi(x) dt + sqrt(2 gamma u T) dB,      dx = v dt,

(Cheng et al. eq. (2) with f = -log pi; invariant law pi(x) N(0, u T I) at temperature T = 1) is integrated
*exactly* over one step of length h with the gradient frozen at the step's start (the estimate g of
grad log pi(x_k)). With eta = exp(-gamma h):

    v' = eta v + u (1 - eta)/gamma g + xi_v,
    x' = x + (1 - eta)/gamma v + u (h - (1 - eta)/gamma)/gamma g + xi_x,

where (xi_x, xi_v) is Gaussian, independent across coordinates, with (Cheng et al. Lemma 11; rederived here)

    Var xi_v = u T (1 - eta^2),   Var xi_x = (u T/gamma) (2 h - 4 (1 - eta)/gamma + (1 - eta^2)/gamma),
    Cov(xi_x, xi_v) = (u T/gamma) (1 - eta)^2.

``h`` is the step's time length delta (not SGHMC's learning rate). Cheng et al. choose gamma = 2 and u = 1/L
(:func:`simulate.samplers.ulmc` defaults to these). The integrator draws the second normal vector of each step
itself (xi_v from the sampler's xi, the part of xi_x independent of it from the generator), so the sampler does not
draw ahead. The momentum starts at N(0, ``v0_var`` I), default u T (the stationary momentum law); Cheng et al.'s
theorem starts it at 0 (``v0_var=0``).

Stability: on a Gaussian target the exact-gradient map is stable iff its 2 x 2 matrix per eigenvalue lam of the
precision has spectral radius < 1; :meth:`UnderdampedLangevinMC.step_bound` finds the largest such h at lam = L by
bisection on the Jury conditions (new).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import ParameterError, check_positive
from .base import IntegratorBase, check_temperature, check_variance
from .sghmc import SGHMCState


def ulmc_coefficients(h: float, gamma: float, u: float) -> dict[str, float]:
    """The step's coefficients (module docstring), in floats: eta, the v- and g-coefficients of x' and v', and the
    noise variances per unit temperature.

    Parameters
    ----------
    h : float
        The step size.
    gamma : float
        The friction gamma > 0.
    u : float
        The inverse mass u > 0.

    Returns
    -------
    dict of str to float
        The named coefficients.

    References
    ----------
    Cheng, Chatterji, Bartlett & Jordan (2018), Algorithm 1 and Lemma 11.
    """
    eta = math.exp(-gamma * h)
    one = -math.expm1(-gamma * h)  # 1 - eta without cancellation
    one2 = -math.expm1(-2.0 * gamma * h)
    return {"eta": eta, "xv": one / gamma, "xg": u * (h - one / gamma) / gamma, "vg": u * one / gamma,
            "var_v": u * one2, "var_x": (u / gamma) * (2.0 * h - 4.0 * one / gamma + one2 / gamma),
            "cov_xv": (u / gamma) * one * one}


def _stable(h: float, gamma: float, u: float, lam: float) -> bool:
    c = ulmc_coefficients(h, gamma, u)
    M = np.array([[1.0 - c["xg"] * lam, c["xv"]], [-c["vg"] * lam, c["eta"]]])
    return bool(np.max(np.abs(np.linalg.eigvals(M))) < 1.0)


@dataclass(frozen=True)
class UnderdampedLangevinMC(IntegratorBase):
    """Cheng et al.'s underdamped Langevin MCMC step (module docstring): friction ``gamma`` > 0, inverse mass
    ``u`` > 0, ``temperature`` T >= 0, initial momentum N(0, ``v0_var`` I) (default u T).

    Parameters
    ----------
    gamma : float, default 2.0
        The friction, > 0.
    u : float, default 1.0
        The inverse mass, > 0.
    temperature : float, default 1.0
        T >= 0.
    v0_var : float or None, default None
        The variance per coordinate of v_0 (default u T).

    Raises
    ------
    ParameterError
        For a parameter out of its range.

    References
    ----------
    Cheng, Chatterji, Bartlett & Jordan (2018), Algorithm 1 and Lemma 11.
    """

    gamma: float = 2.0
    u: float = 1.0
    temperature: float = 1.0
    v0_var: float | None = None

    name = "ulmc"

    def __post_init__(self) -> None:
        check_positive("gamma", self.gamma)
        check_positive("u", self.u)
        object.__setattr__(self, "temperature", check_temperature(self.temperature))
        object.__setattr__(self, "v0_var", check_variance("v0_var", self.v0_var))

    def initial_var(self, h: float) -> float:
        """Variance per coordinate of v_0: ``v0_var``, else u T.

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            The variance.
        """
        return self.u * self.temperature if self.v0_var is None else self.v0_var

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """The largest h with a stable exact-gradient map at the precision eigenvalue L (bisection, module
        docstring).

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
        New (bisection on the exact-gradient map's spectral radius).
        """
        lo, hi = 0.0, 1.0 / (self.u * lipschitz)
        while _stable(hi, self.gamma, self.u, lipschitz):
            lo, hi = hi, 2.0 * hi
            if hi > 1e6 / (self.u * lipschitz):
                return math.inf, "underdamped Langevin MCMC: stable at every h on a Gaussian target"
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _stable(mid, self.gamma, self.u, lipschitz) else (lo, mid)
        return lo, (f"underdamped Langevin MCMC stability on a Gaussian target (spectral radius < 1 of the exact-"
                    f"gradient map at the precision eigenvalue L, gamma = {self.gamma:g}, u = {self.u:g})")

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> dict[str, float]:
        """The step's coefficients at this h (:func:`~simulate.integrators.ulmc.ulmc_coefficients`).

        Parameters
        ----------
        h : float
            The step size.
        noise_cov : numpy.ndarray or None
            Unused.

        Returns
        -------
        dict of str to float
            The coefficients of :func:`~simulate.integrators.ulmc.ulmc_coefficients`.
        """
        return ulmc_coefficients(h, self.gamma, self.u)

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
        return SGHMCState(math.sqrt(self.initial_var(h)) * rng.standard_normal(theta.shape), 0)

    def draws_in_update(self) -> bool:
        """The part of xi_x independent of xi_v is drawn inside the update.

        Returns
        -------
        bool
            True.
        """
        return True

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: dict[str, float],
               state: SGHMCState, rng: np.random.Generator | None) -> tuple[np.ndarray, SGHMCState]:
        """x and v advance by the exact frozen-gradient flow (module docstring), in place; returns (theta, state)
        (:meth:`simulate.Integrator.update`; numpy only: the JAX backend does not run this integrator).

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
        noise : dict of str to float
            The coefficients, from :meth:`noise_matrix`.
        state : SGHMCState
            The momentum and the step count.
        rng : numpy.random.Generator
            The stream for the part of xi_x independent of xi_v (advanced).

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.

        References
        ----------
        Cheng, Chatterji, Bartlett & Jordan (2018), Algorithm 1 and Lemma 11.
        """
        if not isinstance(state, SGHMCState):
            raise ParameterError("UnderdampedLangevinMC needs its momentum: build the state with Sampler.init")
        if rng is None:
            raise ParameterError("UnderdampedLangevinMC draws a second normal vector per step: use Sampler.step")
        c, T = noise, self.temperature
        v = state.v
        sv = math.sqrt(c["var_v"] * T)
        z = rng.standard_normal(theta.shape)
        rest = max(c["var_x"] - c["cov_xv"] ** 2 / c["var_v"], 0.0) if c["var_v"] > 0 else c["var_x"]
        xi_v = xi * sv
        xi_x = (xi_v * (c["cov_xv"] / c["var_v"]) if c["var_v"] > 0 else 0.0) + z * math.sqrt(rest * T)
        theta += c["xv"] * v + c["xg"] * grad + xi_x
        v *= c["eta"]
        v += c["vg"] * grad + xi_v
        return theta, SGHMCState(v, state.step + 1)


__all__ = ["UnderdampedLangevinMC", "ulmc_coefficients"]
