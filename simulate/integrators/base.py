"""Defaults shared by the integrators (:class:`simulate.contracts.Integrator`): an empty state, the step-size bound
h < 4/L of a first-order Langevin step (the limit of its mean), no random numbers inside the update."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..validation import ParameterError, check_real

#: The state of an integrator without one (first-order schemes).
EMPTY: tuple = ()


def check_temperature(value) -> float:
    """``temperature`` T scales the injected noise variance (target p^(1/T)); 0 <= T < inf (0: no injected noise).

    Parameters
    ----------
    value : float
        T.

    Returns
    -------
    float
        T as a float.

    Raises
    ------
    ParameterError
        Unless 0 <= T < inf.
    """
    v = check_real("temperature", value)
    if not (math.isfinite(v) and v >= 0.0):
        raise ParameterError(f"temperature must satisfy 0 <= temperature < inf, got {value!r}")
    return v


def check_variance(name: str, value) -> float | None:
    """A momentum variance given in absolute units: None (the integrator's default) or 0 <= value < inf.

    Parameters
    ----------
    name : str
        The parameter's name (for the message).
    value : float or None
        The variance.

    Returns
    -------
    float or None
        The variance as a float, or None.

    Raises
    ------
    ParameterError
        Unless 0 <= value < inf.
    """
    if value is None:
        return None
    v = check_real(name, value)
    if not (math.isfinite(v) and v >= 0.0):
        raise ParameterError(f"{name} must satisfy 0 <= {name} < inf (a variance per coordinate), got {value!r}")
    return v


class IntegratorBase:
    """First-order defaults; SGHMC and others override what differs."""

    name = "integrator"
    needs_noise_cov = False

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """h < 4/L: the mean of theta' = (I - (h/2) P) theta + ... on a Gaussian target (P <= L) converges. The
        second moments can diverge at a smaller h where the gradient noise grows with theta (the mean-square limit:
        ``theory.check_stable(sampler)``; :func:`simulate.run` detects divergence).

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
        return 4.0 / lipschitz, ("the chain's mean is stable for h < 4/L, L the Lipschitz constant of grad log "
                                 "posterior; its variance can be unstable at a smaller h, the mean-square limit")

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> Any:
        """No state: draws nothing.

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
        tuple
            :data:`~simulate.integrators.EMPTY`.
        """
        return EMPTY

    def draws_in_update(self) -> bool:
        """The update takes no random numbers of its own.

        Returns
        -------
        bool
            False.
        """
        return False
