"""A user's own vectorised numpy step as a conformance adapter (example in docs/conformance.md).

The step advances all M chains at once: ``step(state, rng) -> state`` with ``state`` an (M, d) array of positions
(or any object, with ``position(state) -> (M, d)``) and ``rng`` a ``numpy.random.Generator`` seeded by the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..declared import Declared


@dataclass
class NumpyStep:
    """A :class:`verify.conformance.ChainStep` from a vectorised numpy step (every chain at once).

    Parameters
    ----------
    name : str
        The implementation's name in the report.
    declared : Declared
        The algorithm it declares.
    step_fn : callable
        ``step_fn(state, rng) -> state``, rng a ``numpy.random.Generator``.
    init_fn : callable, optional
        ``init_fn(theta0, rng) -> state`` (default: the (M, d) array theta0 itself).
    position_fn : callable, optional
        ``position_fn(state) -> (M, d)`` (default: the state itself).
    """

    name: str
    declared: Declared
    step_fn: Callable[[Any, np.random.Generator], Any]
    init_fn: Callable[[np.ndarray, np.random.Generator], Any] | None = None
    position_fn: Callable[[Any], np.ndarray] | None = None

    def init(self, theta0: np.ndarray, seed: int) -> Any:
        """The state of M chains at ``theta0`` with a generator from ``seed`` (:meth:`ChainStep.init`).

        Parameters
        ----------
        theta0 : numpy.ndarray, shape (M, d)
            The chains' start.
        seed : int
            Seed of the generator.

        Returns
        -------
        tuple
            (the step function's state, the generator).
        """
        rng = np.random.default_rng(seed)
        state = theta0.copy() if self.init_fn is None else self.init_fn(theta0, rng)
        return state, rng

    def step(self, state: Any) -> Any:
        """One call of the step function for every chain.

        Parameters
        ----------
        state : tuple
            As :meth:`init` returns it.

        Returns
        -------
        tuple
            The state after the call.
        """
        st, rng = state
        return self.step_fn(st, rng), rng

    def position(self, state: Any) -> np.ndarray:
        """theta of every chain.

        Parameters
        ----------
        state : tuple
            As :meth:`init` returns it.

        Returns
        -------
        numpy.ndarray
            Shape (M, d).
        """
        return state[0] if self.position_fn is None else self.position_fn(state[0])


def numpy_sgld(problem, h: float, n: int, replace: bool = False, noise: float = 1.0, scale_batch: bool = True,
               name: str = "numpy SGLD") -> NumpyStep:
    """A plain vectorised numpy SGLD on a test problem (the docs' example), with two knobs that plant bugs.

    Parameters
    ----------
    problem : Problem
        The test model.
    h : float
        Step size (workbench convention).
    n : int
        Minibatch size.
    replace : bool
        Draw minibatches with replacement.
    noise : float
        Multiplies the injected noise's standard deviation (sqrt(2) plants the sqrt(2h) bug).
    scale_batch : bool
        False drops the N/n scale of the minibatch sum (a planted bug).
    name : str
        Its name in the report.

    Returns
    -------
    NumpyStep
        Declared as SGLD with ``h``, ``n`` and ``replace``: the planted bugs make its conformance case fail.

    References
    ----------
    Welling & Teh (2011), eq. (4), in the workbench convention theta' = theta + (h/2) g + sqrt(h) xi.
    """
    from simulate.estimators.subsample import sample_indices

    Z, y, s2, s02, N = problem.Z, problem.y, problem.sigma**2, problem.sigma0**2, problem.n_data

    def step(theta, rng):  # theta: (M, d), every chain at once
        idx = sample_indices(rng, N, n, theta.shape[0], replace).T  # (M, n): a uniform n-subset per chain
        zb = Z[idx]  # (M, n, d)
        resid = y[idx] - np.einsum("mnd,md->mn", zb, theta)
        lik = np.einsum("mnd,mn->md", zb, resid) / s2
        g = -theta / s02 + (N / n if scale_batch else 1.0) * lik
        return theta + 0.5 * h * g + noise * np.sqrt(h) * rng.standard_normal(theta.shape)

    return NumpyStep(name, Declared("sgld", h=h, n=n, replace=replace, convention="workbench convention"), step)


__all__ = ["NumpyStep", "numpy_sgld"]
