"""The typed contracts of the simulator: what a model, a gradient estimator and an integrator provide.

A sampler is an integrator composed with a gradient estimator on a model, with a step size h
(:class:`simulate.Sampler`):

    theta' = integrator(theta, g, xi; h),   g = estimator.apply(model, theta, state, estimator.draw(...)),

so every estimator runs under every integrator. Shapes: theta (M, d) for M chains; minibatch indices (n, M), one
column per chain. These are ``typing.Protocol`` classes: a class satisfies one by having the members, no inheritance
needed (the workbench's own classes also inherit ``simulate.estimators.base.EstimatorBase`` or
``simulate.integrators.base.IntegratorBase`` for the defaults). Optional model capabilities (fused kernels,
affine structure, a gradient that needs random numbers) are separate runtime-checkable protocols, asked with
``isinstance``, never with ``getattr``. docs/add_a_sampler.md builds a new estimator and integrator against them.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


class Model(Protocol):
    """A Bayesian model with N data and a d-dimensional parameter: pi(theta) = pi_0(theta) prod_i p(x_i | theta).

    The workbench's models inherit the defaults of :class:`simulate.models.base.ModelBase`. Every method is vectorised
    over M chains: theta is (M, d).
    """

    #: N, the number of data.
    n_data: int
    #: d, the dimension of theta.
    dim: int
    #: Lipschitz constant of grad log posterior (None if unknown): the default step-size bound h < 4/L.
    grad_lipschitz: float | None
    #: True when the per-datum gradient covariance does not depend on theta.
    grad_cov_is_constant: bool

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient grad log pi_0(theta).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients grad log p(x_i | theta_m) for i = idx[:, m].

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, d)
        """

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The sum of the per-datum gradients of a minibatch, sum_j grad log p(x_{idx[j, m]} | theta_m).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient sum_{i=1}^N grad log p(x_i | theta_m).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """

    def grad_log_post(self, theta: np.ndarray) -> np.ndarray:
        """The posterior's gradient grad log pi(theta): prior plus full likelihood gradient (Welling & Teh eq. 4).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """

    def per_datum_grad_cov(self, theta: np.ndarray | None) -> np.ndarray:
        """The covariance (divisor N) of the N per-datum gradients at each theta_m.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d), or None
            The points; None where the covariance does not depend on theta (``grad_cov_is_constant``).

        Returns
        -------
        numpy.ndarray, shape (M, d, d), or (d, d) if constant
        """

    def check_theta(self, theta: Any, name: str = "theta") -> np.ndarray:
        """Validate a chain state.

        Parameters
        ----------
        theta : array_like
            The state: (M, d), or (d,) for one chain.
        name : str, default "theta"
            The parameter's name in an error message.

        Returns
        -------
        numpy.ndarray, shape (M, d)
            The state as a float array.

        Raises
        ------
        ParameterError
            When theta is not finite or has the wrong shape.
        """


@runtime_checkable
class SupportsDiffSum(Protocol):
    """A fused kernel for the control-variate / SVRG correction (one pass over the minibatch for both points)."""

    def grad_log_lik_diff_sum(self, theta: np.ndarray, theta_hat: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The minibatch sum of gradient differences, sum_j [g_{idx[j,m]}(theta_m) - g_{idx[j,m]}(theta_hat_m)].

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        theta_hat : numpy.ndarray, shape (M, d)
            The centres (a control variate's theta_hat, an SVRG anchor).
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """


@runtime_checkable
class SupportsGradientTable(Protocol):
    """Fused kernels for SAGA's (M, N, d) table of per-datum gradients."""

    def fill_gradient_table(self, theta: np.ndarray, table: np.ndarray, total: np.ndarray) -> None:
        """Fill SAGA's table at theta in place: table[m, i] = g_i(theta_m) for every i, total[m] = sum_i table[m, i].

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        table : numpy.ndarray, shape (M, N, d)
            Overwritten with the per-datum gradients.
        total : numpy.ndarray, shape (M, d)
            Overwritten with their sums.
        """


@runtime_checkable
class StochasticGradientModel(Protocol):
    """A model whose minibatch gradient is itself a random estimate (e.g. LDA's Gibbs expectations): it consumes
    random numbers while it computes, so its sampler cannot draw a step's random numbers ahead."""

    def grad_log_lik_weighted_sum(self, theta: np.ndarray, idx: np.ndarray, row_weights: np.ndarray,
                                  rng: np.random.Generator) -> np.ndarray:
        """A weighted minibatch sum of per-datum gradient estimates, sum_j row_weights[j] g_{idx[j, m]}(theta_m).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.
        row_weights : numpy.ndarray, shape (n,)
            The weight of each row of ``idx`` (e.g. n_i / b_i of a stratified draw).
        rng : numpy.random.Generator
            The stream the estimate draws from (advanced).

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """


@runtime_checkable
class SupportsDrawEnumeration(Protocol):
    """A gradient estimator whose draws take finitely many values and that lists them (exact enumeration at small N:
    a brute-force referee mixes the chain's law over every sequence of draws)."""

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[Any, float]]:
        """Every value ``draw(model, n_chains, step, rng)`` can return, the same for all chains, with its probability.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first after init).

        Returns
        -------
        list of (object, float)
            (draw, probability) pairs; the probabilities sum to 1.
        """


class GradientEstimator(Protocol):
    """An estimate g of grad log posterior, in two parts: ``draw`` takes the step's random numbers (minibatch
    indices, ...), ``apply`` computes g from them. A step is apply(draw(...)): the only contract, so a sampler can
    draw step k + 1 while step k computes with the same numbers in the same order."""

    #: A short label (the default sampler name joins the integrator's and the estimator's).
    name: str

    def check(self, model: Model) -> None:
        """Validate the estimator's parameters against ``model``.

        Parameters
        ----------
        model : Model
            The model the estimator will run on.

        Raises
        ------
        ParameterError
            When a parameter does not fit the model (e.g. n > N).
        """

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> Any:
        """The estimator's state before the first step.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        rng : numpy.random.Generator
            The stream for any random initial state (advanced).

        Returns
        -------
        object
            The state; None when stateless.
        """

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> Any:
        """The random numbers of one step.

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
            Whatever :meth:`apply` consumes (e.g. minibatch indices (n, M)); None when nothing is drawn.
        """

    def apply(self, model: Model, theta: np.ndarray, state: Any, draws: Any) -> tuple[np.ndarray, Any]:
        """The estimate g from this step's draws; may overwrite nothing but its own state.

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : object
            The estimator's state.
        draws : object
            This step's draws, from :meth:`draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate of grad log posterior at theta.
        state : object
            The new state.
        """

    def draws_ahead(self, model: Model) -> bool:
        """Whether :meth:`draw` depends on the step number only (not on theta or the state).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
        """

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """The exact covariance Cov(g | theta) of the estimate (mSGLD reads it).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d), optional
            The points; None where the covariance does not depend on theta.

        Returns
        -------
        numpy.ndarray, shape (M, d, d), or (d, d) if constant

        Raises
        ------
        ParameterError
            Where it is not defined.
        """

    def step_noise_cov(self, state: Any) -> np.ndarray | None:
        """A per-step estimate of Cov(g) carried in the state (Vollmer et al. Remark 7), or None.

        Parameters
        ----------
        state : object
            The estimator's state after :meth:`apply`.

        Returns
        -------
        numpy.ndarray or None
            (M, d, d); None when the estimator carries no estimate.
        """

    def grads_per_step(self, model: Model) -> float:
        """Per-datum gradient evaluations per chain-step (the cost unit).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
        """


class Integrator(Protocol):
    """The one-step map theta' = f(theta, g, xi; h), with a (possibly empty) state of its own (e.g. a momentum)."""

    #: A short label (the default sampler name joins the integrator's and the estimator's).
    name: str
    #: True when the noise matrix needs the gradient-noise covariance (mSGLD).
    needs_noise_cov: bool

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """The largest stable h for a gradient Lipschitz constant, and where the bound comes from.

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

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float | np.ndarray:
        """What multiplies the standard normal xi in the update.

        Parameters
        ----------
        h : float
            The step size.
        noise_cov : numpy.ndarray or None
            The gradient-noise covariance, (d, d) or per chain (M, d, d), where :attr:`needs_noise_cov`; else None.

        Returns
        -------
        float or numpy.ndarray
            A number, a (d, d) matrix or per-chain (M, d, d) matrices.
        """

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> Any:
        """The integrator's state at theta_0.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' starting points.
        h : float
            The step size.
        rng : numpy.random.Generator
            The stream for a random initial state (e.g. a momentum; advanced).

        Returns
        -------
        object
            The state (``simulate.integrators.base.EMPTY`` for first-order integrators).
        """

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float | np.ndarray,
               state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        """One step: (theta', the new integrator state).

        Written once against the array namespace of :mod:`simulate.arrays` (``xp = namespace_of(theta)``): numpy
        advances theta in place and returns it (grad and xi may be overwritten), an immutable array (the JAX
        backend's) is returned anew. The sampler's :meth:`~simulate.Sampler.step` copies the state first unless
        ``inplace=True``.

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
            The noise matrix from :meth:`noise_matrix`.
        state : object
            The integrator's state.
        rng : numpy.random.Generator or None
            The stream, for integrators that draw in their update (:meth:`draws_in_update`); None otherwise.

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.
        """

    def draws_in_update(self) -> bool:
        """Whether :meth:`update` takes random numbers from rng itself (e.g. a momentum refresh).

        Returns
        -------
        bool
        """
