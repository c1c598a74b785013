"""The typed contracts of the simulator: what a model, a gradient estimator and an integrator provide.

A sampler is an integrator composed with a gradient estimator on a model, with a step size h
(:class:`simulate.sampler.Sampler`):

    theta' = integrator(theta, g, xi; h),   g = estimator.apply(model, theta, state, estimator.draw(...)),

so every estimator runs under every integrator. Shapes: theta (M, d) for M chains; minibatch indices (n, M), one
column per chain. These are ``typing.Protocol`` classes: a class satisfies one by having the members, no inheritance
needed (the workbench's own classes also inherit :class:`simulate.estimators.base.EstimatorBase` or
:class:`simulate.integrators.base.IntegratorBase` for the defaults). Optional model capabilities (fused kernels,
affine structure, a gradient that needs random numbers) are separate runtime-checkable protocols, asked with
``isinstance``, never with ``getattr``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


class Model(Protocol):
    """A Bayesian model with N data and a d-dimensional parameter (the workbench's models inherit the defaults of
    :class:`simulate.models.base.ModelBase`)."""

    n_data: int
    dim: int
    #: Lipschitz constant of grad log posterior (None if unknown): the default step-size bound h < 4/L.
    grad_lipschitz: float | None
    #: True when the per-datum gradient covariance does not depend on theta.
    grad_cov_is_constant: bool

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """grad log pi_0(theta), (M, d)."""

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients grad log p(x_i | theta_m) for i = idx[:, m], (n, M, d)."""

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """sum_j grad log p(x_{idx[j, m]} | theta_m), (M, d)."""

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """sum_{i=1}^N grad log p(x_i | theta_m), (M, d)."""

    def grad_log_post(self, theta: np.ndarray) -> np.ndarray:
        """grad log pi(theta) = prior + full likelihood gradient, (M, d) (Welling & Teh eq. 4)."""

    def per_datum_grad_cov(self, theta: np.ndarray | None) -> np.ndarray:
        """Covariance (divisor N) of the N per-datum gradients at each theta_m, (M, d, d) (or (d, d) if constant)."""

    def check_theta(self, theta: Any, name: str = "theta") -> np.ndarray:
        """Validate a chain state, returning it as an (M, d) float array."""


@runtime_checkable
class SupportsDiffSum(Protocol):
    """A fused kernel for the control-variate / SVRG correction (one pass over the minibatch for both points)."""

    def grad_log_lik_diff_sum(self, theta: np.ndarray, theta_hat: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """sum_j [g_{idx[j,m]}(theta_m) - g_{idx[j,m]}(theta_hat_m)], (M, d)."""


@runtime_checkable
class SupportsGradientTable(Protocol):
    """Fused kernels for SAGA's (M, N, d) table of per-datum gradients."""

    def fill_gradient_table(self, theta: np.ndarray, table: np.ndarray, total: np.ndarray) -> None:
        """table[m, i] = g_i(theta_m) for every i; total[m] = sum_i table[m, i] (in place)."""


@runtime_checkable
class StochasticGradientModel(Protocol):
    """A model whose minibatch gradient is itself a random estimate (e.g. LDA's Gibbs expectations): it consumes
    random numbers while it computes, so its sampler cannot draw a step's random numbers ahead."""

    def grad_log_lik_weighted_sum(self, theta: np.ndarray, idx: np.ndarray, row_weights: np.ndarray,
                                  rng: np.random.Generator) -> np.ndarray:
        """sum_j row_weights[j] (estimate of grad log p(x_{idx[j, m]} | theta_m)), (M, d)."""


@runtime_checkable
class SupportsDrawEnumeration(Protocol):
    """A gradient estimator whose draws take finitely many values and that lists them (exact enumeration at small N:
    a brute-force referee mixes the chain's law over every sequence of draws)."""

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[Any, float]]:
        """Every value ``draw(model, n_chains, step, rng)`` can return, the same for all chains, with its probability
        (the probabilities sum to 1)."""


class GradientEstimator(Protocol):
    """An estimate g of grad log posterior, in two parts: ``draw`` takes the step's random numbers (minibatch
    indices, ...), ``apply`` computes g from them. A step is apply(draw(...)): the only contract, so a sampler can
    draw step k + 1 while step k computes (:mod:`simulate.runtime.pipeline`) with the same numbers in the same order."""

    name: str

    def check(self, model: Model) -> None:
        """Raise ParameterError if the estimator's parameters do not fit ``model`` (e.g. n > N)."""

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> Any:
        """The estimator's state before the first step (None when stateless)."""

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> Any:
        """The random numbers of step ``step`` (0 = the first estimate after init)."""

    def apply(self, model: Model, theta: np.ndarray, state: Any, draws: Any) -> tuple[np.ndarray, Any]:
        """(g (M, d), the new state) from this step's draws; may overwrite nothing but its own state."""

    def draws_ahead(self, model: Model) -> bool:
        """True when :meth:`draw` depends on the step number only (not on theta or the state)."""

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """Exact Cov(g | theta) (mSGLD reads it); raises ParameterError where it is not defined."""

    def step_noise_cov(self, state: Any) -> np.ndarray | None:
        """A per-step estimate of Cov(g) carried in the state (Vollmer et al. Remark 7), or None."""

    def grads_per_step(self, model: Model) -> float:
        """Per-datum gradient evaluations per chain-step (the cost unit)."""


class Integrator(Protocol):
    """The one-step map theta' = f(theta, g, xi; h), with a (possibly empty) state of its own (e.g. a momentum)."""

    name: str
    #: True when the noise matrix needs the gradient-noise covariance (mSGLD).
    needs_noise_cov: bool

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """The largest stable h for a gradient Lipschitz constant, and where the bound comes from."""

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> float | np.ndarray:
        """What multiplies xi: a number, a (d, d) matrix or per-chain (M, d, d) matrices."""

    def init_state(self, theta: np.ndarray, h: float, rng: np.random.Generator) -> Any:
        """The integrator's state at theta_0 (:data:`simulate.integrators.base.EMPTY` for first-order ones)."""

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: float | np.ndarray,
               state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        """(theta', the new integrator state): numpy advances theta in place and returns it (grad and xi may be
        overwritten; the sampler's :meth:`~simulate.sampler.Sampler.step` copies the state first unless
        ``inplace=True``), an immutable array is returned anew (written once against :mod:`simulate.arrays`)."""

    def draws_in_update(self) -> bool:
        """True when :meth:`update` takes random numbers from rng itself (e.g. a momentum refresh)."""
