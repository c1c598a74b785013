"""First-order Langevin steps in the workbench convention

    theta' = theta + (h/2) g + sqrt(h) xi,   xi ~ N(0, I_d)

(Welling & Teh 2011; Vollmer et al. 2016 eq. 2/5), ``g`` an estimate of grad log posterior: SGLD's step
(:class:`Langevin`), mSGLD's (:class:`ModifiedLangevin`) and SAGA's printed map without noise
(:class:`NoiselessLangevin`). Updates work in place on ``theta`` (M, d); their state is empty. :class:`Langevin`
takes a ``temperature`` T: the injected noise becomes sqrt(h T) xi (stationary law p^(1/T) as h -> 0; T = 1 is SGLD,
as in blackjax's ``temperature`` and SGMCMCJax's ``tau`` where they are right).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import namespace_of
from .base import EMPTY, IntegratorBase, check_temperature


@dataclass(frozen=True)
class Langevin(IntegratorBase):
    """Euler-Maruyama step of d theta = (1/2) grad log pi dt + sqrt(T) dW (Vollmer et al. eq. 2; SGLD eq. 5 at
    ``temperature`` T = 1): theta' = theta + (h/2) g + sqrt(h T) xi.

    Parameters
    ----------
    temperature : float, default 1.0
        T, 0 <= T < inf (0: no injected noise).

    Raises
    ------
    ParameterError
        For a temperature outside [0, inf).

    References
    ----------
    Welling & Teh (2011), eq. (4); Vollmer et al. (2016), eqs. (2) and (5).
    """

    temperature: float = 1.0

    name = "langevin"

    def __post_init__(self) -> None:
        object.__setattr__(self, "temperature", check_temperature(self.temperature))

    def noise_scale(self, h: float) -> float:
        """Standard deviation of the injected noise per coordinate: sqrt(h T).

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            sqrt(h T).
        """
        return float(np.sqrt(h * self.temperature))

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float:
        return self.noise_scale(h)

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise, state=EMPTY,
               rng: np.random.Generator | None = None):
        """theta' = (theta + grad (h/2)) + xi noise, elementwise in that order (grad and xi may be overwritten).

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
        noise : float or numpy.ndarray
            The noise matrix from :meth:`~simulate.Integrator.noise_matrix`.
        state : object
            The integrator's state.
        rng : numpy.random.Generator or None
            The stream, for integrators that draw in their update (:meth:`~simulate.Integrator.draws_in_update`); None
            otherwise.

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.

        References
        ----------
        Welling & Teh (2011), eq. (4); Vollmer et al. (2016), eqs. (2) and (5).
        """
        return namespace_of(theta).langevin_step(theta, grad, 0.5 * h, xi, noise), state


@dataclass(frozen=True)
class ModifiedLangevin(IntegratorBase):
    """mSGLD, Vollmer et al. eq. (9)/(54): theta' = theta + h fhat + sqrt(h) (I - (h/2) Cov fhat) xi.

    fhat = (1/2) g, so Cov fhat = Cov(g)/4 and the noise matrix is sqrt(h) (I - (h/8) Cov g).
    ``noise_cov`` is the exact covariance of the gradient estimate, (d, d) or per chain (M, d, d).
    (Eq. (9) as printed uses Cov of g; the derivation (53) and the toy model (20) need Cov fhat: see
    :class:`~simulate.integrators.langevin.PrintedEq9Langevin`.) ``correction`` is the denominator c of the noise matrix
    sqrt(h) (I - (h/c) Cov g).
    """

    name = "modified_langevin"
    needs_noise_cov = True
    correction = 8

    def noise_scale(self, h: float) -> float:
        """sqrt(h): the noise before the correction (I - (h/8) Cov g).

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            sqrt(h).
        """
        return float(np.sqrt(h))

    def noise_matrix(self, h: float, noise_cov: np.ndarray) -> np.ndarray:
        d = noise_cov.shape[-1]
        return np.sqrt(h) * (np.eye(d) - (h / self.correction) * noise_cov)

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise, state=EMPTY,
               rng: np.random.Generator | None = None):
        """theta' = theta + (h/2) grad + noise xi, noise (d, d) or per chain (M, d, d).

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
        noise : numpy.ndarray
            The noise matrix from :meth:`~simulate.Integrator.noise_matrix`, (d, d) or per chain (M, d, d).
        state : object
            The integrator's state.
        rng : numpy.random.Generator or None
            The stream, for integrators that draw in their update (:meth:`~simulate.Integrator.draws_in_update`); None
            otherwise.

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.

        References
        ----------
        Vollmer et al. (2016), eqs. (9) and (54).
        """
        xp = namespace_of(theta)
        grad *= 0.5 * h
        theta += grad
        if noise.ndim == 2 and noise.shape == (1, 1):
            xi *= noise[0, 0]
            theta += xi
        elif noise.ndim == 2:
            theta += xp.matmul(xi, xp.ascontiguousarray(noise.T))  # fixed order, no BLAS
        else:
            theta += xp.einsum("mij,mj->mi", noise, xi)
        return theta, state


class PrintedEq9Langevin(ModifiedLangevin):
    """mSGLD exactly as printed in Vollmer et al. eq. (9): noise sqrt(h) (I - (h/2) Cov g) with Cov of the gradient
    estimate g itself, four times the correction of eqs. (20), (51), (54) (the erratum vollmer.eq9.printed_first_order).
    """

    name = "modified_langevin_printed_eq9"
    correction = 2


class NoiselessLangevin(Langevin):
    """theta' = theta + (h/2) g: the SAGA update as printed in Baker et al. Sec. 4.4 (no injected noise; erratum).

    Parameters
    ----------
    temperature : float, default 1.0
        Kept from :class:`Langevin`; no noise is injected whatever it is.

    References
    ----------
    Baker et al. (2019), Sec. 4.4 (the printed SAGA update; an erratum).
    """

    name = "langevin_no_noise"

    def noise_scale(self, h: float) -> float:
        """No injected noise.

        Parameters
        ----------
        h : float
            The step size.

        Returns
        -------
        float
            0.0.
        """
        return 0.0
