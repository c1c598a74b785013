"""The full gradient and the plain minibatch estimator of grad log posterior (Welling & Teh 2011, eq. 4;
Vollmer et al. 2016, eq. 6), as :class:`simulate.contracts.GradientEstimator` draw/apply pairs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..contracts import Model
from ..validation import ParameterError, check_int
from .base import EstimatorBase
from .subsample import index_support, sample_indices


@dataclass(frozen=True)
class FullGradient(EstimatorBase):
    """The exact gradient grad log pi_0(theta) + sum_{i=1}^N grad log p(x_i | theta)."""

    name = "full"

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> None:
        """Nothing: the full gradient draws no random numbers.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).
        rng : numpy.random.Generator
            Unused.

        Returns
        -------
        None
            Nothing is drawn.
        """
        return None

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[None, float]]:
        """The one value :meth:`draw` returns (None), with probability 1.

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
        """
        return [(None, 1.0)]

    def apply(self, model: Model, theta: np.ndarray, state, draws):
        return model.grad_log_post(theta), state

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        return np.zeros((model.dim, model.dim))

    def grads_per_step(self, model: Model) -> float:
        return float(model.n_data)


@dataclass(frozen=True)
class Minibatch(EstimatorBase):
    """grad log pi_0(theta) + (N/n) sum_{j=1}^n grad log p(x_{tau_j} | theta), tau a size-n minibatch.

    ``replace=False`` (the workbench default): tau is a uniform n-subset, drawn afresh each step.
    ``replace=True``: tau holds n iid uniform indices.
    Exact noise covariance given theta (Vollmer et al. eq. 16, generalised to any model):
    Cov = (N^2 / n) S(theta) * f, with S the per-datum gradient covariance (divisor N) and
    f = 1 (with replacement) or f = (N - n)/(N - 1) (without).

    Parameters
    ----------
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        True: n iid uniform indices; False: a uniform n-subset.

    References
    ----------
    Welling & Teh (2011), eq. (4); Vollmer et al. (2016), eq. (6) (the estimator) and eq. (16) (its covariance, here for
    any model).
    """

    n: int
    replace: bool = False

    name = "minibatch"

    def check(self, model: Model) -> None:
        """Check ``1 <= n <= N`` and that ``replace`` is a bool.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When n is not in 1..N or replace is not a bool.
        """
        check_int("n", self.n, 1, model.n_data)
        if self.replace is not True and self.replace is not False:
            raise ParameterError(f"replace must be True or False, got {self.replace!r}")

    def scale(self, model: Model) -> float:
        return model.n_data / self.n

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> np.ndarray:
        """The minibatch indices (n, M) (any step: a fresh draw each step).

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
        numpy.ndarray, shape (n, M)
            The minibatch indices.
        """
        return sample_indices(rng, model.n_data, self.n, n_chains, self.replace)

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[np.ndarray, float]]:
        """Every minibatch :meth:`draw` can return, (n, M) the same for all chains, with its probability
        (:func:`simulate.estimators.subsample.index_support`; exact enumeration at small N).

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
        """
        return index_support(model.n_data, self.n, self.replace, n_chains)

    def apply(self, model: Model, theta: np.ndarray, state, idx: np.ndarray):
        """grad log pi_0(theta) + (N/n) sum_j grad log p(x_{idx[j, m]} | theta_m).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : object
            The estimator's state.
        idx : numpy.ndarray, shape (n, M)
            This step's minibatch indices, from :meth:`draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate of grad log posterior at theta.
        state : object
            The new state.
        """
        g = model.grad_log_lik_sum(theta, idx)
        g *= self.scale(model)
        g += model.grad_log_prior(theta)
        return g, state

    def finite_population_factor(self, model: Model) -> float:
        if self.replace:
            return 1.0
        N = model.n_data
        return (N - self.n) / (N - 1) if N > 1 else 0.0

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        N = model.n_data
        S = model.per_datum_grad_cov(theta)
        return S * (N * N / self.n * self.finite_population_factor(model))

    def grads_per_step(self, model: Model) -> float:
        return float(self.n)
