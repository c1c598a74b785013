"""A minibatch reused for K consecutive steps: the wrapper estimator ``Reused(inner, K)`` (new).

Steps l = 0, 1, 2, ... (shared by all chains, counted as in :mod:`simulate.estimators.vr`): at every l with l mod K == 0
the inner estimator draws a fresh minibatch (its random indices), and the steps l + 1, ..., l + K - 1 apply the inner
estimator to the current theta with those same indices:

    g_l(theta) = inner.apply(model, theta, state, draws_{K floor(l/K)}).

K = 1 is the inner estimator itself, draw for draw. The inner estimator must be stateless with a draw/apply split
(:class:`~simulate.estimators.Minibatch`, :class:`~simulate.estimators.control_variates.ControlVariate`,
:class:`~simulate.estimators.FullGradient`, :class:`~simulate.estimators.stratified.Stratified`). On an affine
model the gradient error of a reused minibatch is frozen for K steps when the per-datum precisions are equal
(additive noise), and multiplies theta otherwise (the exact engine, :mod:`theory.linear_gaussian`, says where).
Cost per chain-step: the inner estimator's (the gradients are recomputed at every step, only the indices are reused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..arrays import draw_when, namespace_of
from ..contracts import GradientEstimator, Model, SupportsDrawEnumeration
from ..validation import ParameterError, check_int
from .base import EstimatorBase
from .minibatch import FullGradient
from .saga import SAGA
from .vr import VRMinibatch


class ReuseState(NamedTuple):
    """The inner draws of the current block (None before the first step) and the step counter l.

    Parameters
    ----------
    draws : object
        The inner draws of the current block (None before the first step).
    step : int
        The step counter l.
    """

    draws: Any
    step: int


@dataclass(frozen=True)
class Reused(EstimatorBase):
    """The inner estimator with its minibatch redrawn every ``K`` steps and reused in between (module docstring).

    Parameters
    ----------
    inner : GradientEstimator
        A stateless estimator with a draw/apply split (not SAGA, VRMinibatch or another Reused).
    K : int
        Steps per minibatch, >= 1 (1: the inner estimator itself).

    Raises
    ------
    ParameterError
        For K < 1 or an inner estimator that keeps a state or is itself Reused.

    References
    ----------
    New (the workbench's own).
    """

    inner: GradientEstimator
    K: int

    name = "reused"

    def __post_init__(self) -> None:
        check_int("K", self.K, 1)
        if isinstance(self.inner, Reused):
            raise ParameterError("inner must not itself be Reused (use one Reused with the product of the K's)")
        if isinstance(self.inner, (SAGA, VRMinibatch)):
            raise ParameterError(f"inner must be a stateless estimator (Minibatch, ControlVariate, FullGradient, "
                                 f"Stratified), got {type(self.inner).__name__}")

    def check(self, model: Model) -> None:
        """Check the inner estimator against ``model``.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When the inner estimator does not fit the model.
        """
        self.inner.check(model)

    def draws_ahead(self, model: Model) -> bool:
        """Whether the inner estimator's draws depend on the step number only.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
            The inner estimator's answer.
        """
        return self.inner.draws_ahead(model)

    def steps_taken(self, state: ReuseState) -> int:
        """The step counter l of the state (fresh draws when l mod K = 0).

        Parameters
        ----------
        state : ReuseState
            The estimator's state.

        Returns
        -------
        int
            l.
        """
        return int(state.step)

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> ReuseState:
        """No draws yet (the first estimate draws); the inner estimator must keep no state.

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
        ReuseState
            ``ReuseState(None, 0)``.

        Raises
        ------
        ParameterError
            When the inner estimator keeps a state.
        """
        if self.inner.init(model, n_chains, rng) is not None:
            raise ParameterError(f"inner estimator {type(self.inner).__name__} keeps a state; Reused needs a "
                                 "stateless one")
        return ReuseState(None, 0)

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator):
        """Step ``step``'s random numbers: the inner draws when step mod K == 0, else None (reuse).

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        object
            The inner draws at a block start, else None.
        """
        return draw_when(rng, step % self.K == 0, lambda: self.inner.draw(model, n_chains, 0, rng))

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[Any, float]]:
        """Every value :meth:`draw` can return at step ``step``: the inner estimator's at a block start, else
        None (reuse) with probability 1.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).

        Returns
        -------
        list of (object, float)
            (draw, probability) pairs, the same for all chains; the probabilities sum to 1.

        Raises
        ------
        ParameterError
            When the inner estimator does not list its draws.
        """
        if step % self.K != 0:
            return [(None, 1.0)]
        if not isinstance(self.inner, SupportsDrawEnumeration):
            raise ParameterError(f"inner estimator {type(self.inner).__name__} does not list its draws "
                                 "(no draw_support)")
        return self.inner.draw_support(model, n_chains, 0)

    def apply(self, model: Model, theta: np.ndarray, state: ReuseState, draws):
        """The inner estimate on the block's draws (``draws`` at a block start, else the stored ones).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : ReuseState
            The estimator's state.
        draws : object
            This step's draws, from :meth:`draw` (None inside a block).

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The inner estimate.
        state : ReuseState
            The block's draws and l + 1.

        Raises
        ------
        ParameterError
            For draws handed at the wrong step (fresh draws exactly when l mod K = 0).
        """
        stored, step = state
        if isinstance(step, int) and (draws is None) != (step % self.K != 0) and \
                not isinstance(self.inner, FullGradient):
            raise ParameterError(f"draws for the wrong step: fresh draws come exactly at the steps l with l mod K = 0 "
                                 f"(K = {self.K}, l = {step})")
        use = namespace_of(theta).cond(step % self.K == 0, lambda: draws, lambda: stored)
        return self.inner.apply(model, theta, None, use)[0], ReuseState(use, step + 1)

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """The inner estimator's covariance of one estimate given theta (over a fresh draw; mSGLD uses it).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d), optional
            The points.

        Returns
        -------
        numpy.ndarray
            The inner estimator's ``noise_cov``.

        Raises
        ------
        ParameterError
            Where the inner estimator defines none.
        """
        return self.inner.noise_cov(model, theta)

    def grads_per_step(self, model: Model) -> float:
        return self.inner.grads_per_step(model)


__all__ = ["ReuseState", "Reused"]
