"""Patterson & Teh's (2013) SGRLD step on the expanded-mean parameterisation of the probability simplex (LDA;
Fu & Zhang Sec. 4.3), the workbench convention with h = their eps (see :mod:`simulate.models.lda`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import EMPTY, IntegratorBase


@dataclass(frozen=True)
class ExpandedMeanLangevin(IntegratorBase):
    """Patterson & Teh (2013) SGRLD step on the expanded mean: theta <- ``|theta + (h/2) g + sqrt(h theta) xi|``.

    ``g`` is beta - theta + (weighted) sum of Gibbs expectations; the mirroring ``|.|`` keeps theta >= 0.
    """

    name = "sgrld"

    def noise_matrix(self, h: float, noise_cov) -> float:
        return float(np.sqrt(h))

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise, state=EMPTY,
               rng: np.random.Generator | None = None):
        """theta <- ``|theta + (h/2) grad + noise sqrt(theta) xi|`` in place; returns (theta, state).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points on the expanded mean, >= 0 (advanced in place).
        grad : numpy.ndarray, shape (M, d)
            The gradient estimate g.
        xi : numpy.ndarray, shape (M, d)
            Standard normal noise.
        h : float
            The step size.
        noise : float
            sqrt(h), from :meth:`~simulate.Integrator.noise_matrix`.
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
        Patterson & Teh (2013), the SGRLD update on the expanded-mean parameterisation; Fu & Zhang (2017), Sec. 4.3.
        """
        xi *= np.sqrt(theta)
        xi *= noise
        grad *= 0.5 * h
        theta += grad
        theta += xi
        np.abs(theta, out=theta)
        return theta, state


__all__ = ["ExpandedMeanLangevin"]
