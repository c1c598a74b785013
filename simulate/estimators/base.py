"""Defaults shared by the gradient estimators (:class:`simulate.contracts.GradientEstimator`).

An estimator is written as two functions, ``draw`` (the step's random numbers) and ``apply`` (the estimate from
them); :meth:`EstimatorBase.estimate` composes them, the one place where that happens outside the sampler.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..contracts import Model
from ..validation import ParameterError


class EstimatorBase:
    """Defaults: no state, draws that depend on the step number only, no exact noise covariance."""

    name = "estimator"
    #: True for estimators that carry a per-step estimate of Cov(g) in their state (Remark 7 of Vollmer et al.).
    estimates_noise_cov = False

    def check(self, model: Model) -> None:
        """Nothing to check against the model.

        Parameters
        ----------
        model : Model
            The model.
        """

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> Any:
        """Check against ``model``; no state (None).

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
        None
            No state.
        """
        self.check(model)
        return None

    def draws_ahead(self, model: Model) -> bool:
        """The step's random numbers depend on the step number only.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
            Whether :meth:`~simulate.GradientEstimator.draw` depends on the step number only (not on theta or the
            state).
        """
        return True

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        raise ParameterError(f"{type(self).__name__}: no exact gradient-noise covariance is defined for this "
                             "estimator, so mSGLD (ModifiedLangevin) cannot use it; use the Langevin integrator")

    def step_noise_cov(self, state: Any) -> np.ndarray | None:
        """No per-step covariance estimate.

        Parameters
        ----------
        state : object
            The estimator's state after :meth:`~simulate.GradientEstimator.apply`.

        Returns
        -------
        None
            No per-step estimate.
        """
        return None

    def steps_taken(self, state: Any) -> int:
        """Estimates made since ``init`` as recorded in the state (0 for estimators that do not count them).

        Parameters
        ----------
        state : object
            The estimator's state.

        Returns
        -------
        int
            The step count the state records.
        """
        return 0

    def estimate(self, model: Model, theta: np.ndarray, state: Any, rng: np.random.Generator,
                 step: int | None = None) -> tuple[np.ndarray, Any]:
        """One estimate outside a sampler: ``apply(model, theta, state, draw(model, M, step, rng))``, step
        defaulting to :meth:`steps_taken` of the state.

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : object
            The estimator's state.
        rng : numpy.random.Generator
            The stream the draws come from (advanced).
        step : int or None
            The step number handed to ``draw``; None: :meth:`steps_taken` of the state.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate.
        state : object
            The new state.
        """
        step = self.steps_taken(state) if step is None else step
        return self.apply(model, theta, state, self.draw(model, theta.shape[0], step, rng))
