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
    """A :class:`verify.conformance.ChainStep` from a vectorised numpy step.

    ``step(state, rng) -> state``; ``init(theta0, rng) -> state`` (default: the (M, d) array theta0 itself);
    ``position(state) -> (M, d)`` (default: the state itself)."""

    name: str
    declared: Declared
    step_fn: Callable[[Any, np.random.Generator], Any]
    init_fn: Callable[[np.ndarray, np.random.Generator], Any] | None = None
    position_fn: Callable[[Any], np.ndarray] | None = None

    def init(self, theta0: np.ndarray, seed: int) -> Any:
        rng = np.random.default_rng(seed)
        state = theta0.copy() if self.init_fn is None else self.init_fn(theta0, rng)
        return state, rng

    def step(self, state: Any) -> Any:
        st, rng = state
        return self.step_fn(st, rng), rng

    def position(self, state: Any) -> np.ndarray:
        return state[0] if self.position_fn is None else self.position_fn(state[0])


def numpy_sgld(problem, h: float, n: int, replace: bool = False, noise: float = 1.0, scale_batch: bool = True,
               name: str = "numpy SGLD") -> NumpyStep:
    """A plain vectorised numpy SGLD on a :class:`verify.conformance.Problem` (the docs' example), with two knobs
    that plant the bugs the tests must catch: ``noise`` multiplies the noise sd (sqrt(2) plants sqrt(2h)),
    ``scale_batch=False`` drops the N/n scale of the minibatch sum."""
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
