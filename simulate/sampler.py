"""A sampler = integrator x gradient estimator on a model, with a fixed step size h.

init/step functions in the style of blackjax, vectorized over the chain axis: ``state = sampler.init(theta0, rng)``,
then ``state = sampler.step(state, rng)``. A step is pure by default: it returns a new :class:`SamplerState` and
leaves its input untouched (it copies theta, the estimator's and the integrator's states first, e.g. SAGA's gradient
table and SGHMC's momentum). ``step(state, rng, inplace=True)`` skips the copies and advances the input's arrays in
place (the returned state holds them; the input must not be used again): what :func:`simulate.run` does in its hot
loop, with the same numbers to the last bit.

A step is the estimator's ``draw`` (minibatch indices, ...), then the injected noise xi, then the estimator's
``apply`` and the integrator's ``update`` (:mod:`simulate.contracts`). Where the draws do not depend on the state
(:attr:`Sampler.draws_ahead`), ``draws = sampler.draw(n_chains, k, rng)`` and ``state = sampler.apply(state, draws)``
split a step: the same numbers in the same stream order, so ``apply(state, draw(M, state.step, rng))`` is
``step(state, rng)`` to the last bit, and the runner may draw step k + 1 while step k computes
(``simulate.runtime.pipeline``). ``apply`` is pure by default too (it leaves ``draws`` untouched as well).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ._fast import draws as fast_draws
from .arrays import is_backend_stream, namespace_of
from .contracts import GradientEstimator, Integrator, Model
from .integrators.base import EMPTY
from .validation import ParameterError, check_step_size


class StepDraws(NamedTuple):
    """The random numbers of one step, drawn ahead of it by :meth:`simulate.Sampler.draw`.

    Parameters
    ----------
    estimator : object
        The estimator's draws (e.g. minibatch indices, (n, M)), as its ``draw`` returns them.
    xi : numpy.ndarray, shape (M, d)
        The injected noise, standard normal.
    """

    estimator: Any
    xi: np.ndarray


class SamplerState(NamedTuple):
    """The state of M chains: theta, the estimator's and the integrator's states, and the steps taken since init.

    Parameters
    ----------
    theta : numpy.ndarray, shape (M, d)
        One row per chain.
    estimator_state : object
        The estimator's state (None when stateless; e.g. SAGA's gradient table, an SVRG anchor).
    integrator_state : object, optional
        The integrator's state (e.g. SGHMC's momentum); ``EMPTY`` for first-order integrators.
    step : int, default 0
        Steps taken since :meth:`simulate.Sampler.init`.
    """

    theta: np.ndarray
    estimator_state: Any
    integrator_state: Any = EMPTY
    step: int = 0


def _standard_normal(rng, shape: tuple[int, ...]):
    """xi ~ N(0, I) of ``shape``: ``rng.standard_normal(shape)`` bit for bit (numba, for a numpy generator), or the
    stream's own ``standard_normal`` (another backend's, :mod:`simulate.arrays`)."""
    if is_backend_stream(rng):
        return rng.standard_normal(shape)
    return fast_draws.standard_normal(rng, shape)


def _fresh_state(state: SamplerState) -> SamplerState:
    """A copy of ``state`` that shares no array with it: theta copied, the estimator's and the integrator's states
    deep-copied (:func:`copy.deepcopy`: arrays, tuples of arrays, ...), so that a step on the copy leaves ``state`` as
    it was."""
    return SamplerState(state.theta.copy(), copy.deepcopy(state.estimator_state),
                        copy.deepcopy(state.integrator_state), state.step)


@dataclass(frozen=True)
class Sampler:
    """``integrator`` applied to ``estimator``'s gradient estimates on ``model`` with step size ``h``.

    Build one with a named constructor (:func:`simulate.sgld`, :func:`simulate.sghmc`, ...) or directly from any
    estimator and integrator (:class:`simulate.GradientEstimator`, :class:`simulate.Integrator`): every estimator
    runs under every integrator. A sampler is immutable; :func:`simulate.run` advances many chains of it and
    :func:`theory.exact_law` gives its exact law where the model's gradient is affine.

    Parameters
    ----------
    model : Model
        The target (:class:`simulate.Model`).
    estimator : GradientEstimator
        The estimate g of grad log posterior.
    integrator : Integrator
        The one-step map theta' = f(theta, g, xi; h).
    h : float
        Step size (SGHMC: the learning rate eta). Checked against the integrator's bound from the model's gradient
        Lipschitz constant L where the model states one (h < 4/L for the Langevin family: the mean's stability
        limit; the mean-square limit can be smaller, see :func:`theory.check_stable`), else only h > 0.
    name : str, optional
        A label; default ``"<integrator name>+<estimator name>"``.

    Raises
    ------
    ParameterError
        When h is not in (0, bound), or the estimator does not fit the model (e.g. n > N).

    See Also
    --------
    simulate.run : many chains of a sampler at once.
    theory.exact_law : the exact law of a sampler on a model with an affine gradient.
    """

    model: Model
    estimator: GradientEstimator
    integrator: Integrator
    h: float
    name: str = ""
    _noise: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        L = self.model.grad_lipschitz
        if L is not None:
            h_max, why = self.integrator.step_bound(L)
            object.__setattr__(self, "h", check_step_size(self.h, h_max, why))
        else:
            object.__setattr__(self, "h", check_step_size(self.h, np.inf, "no stability bound known"))
        self.estimator.check(self.model)
        if not self.name:
            object.__setattr__(self, "name", f"{self.integrator.name}+{self.estimator.name}")
        if not self.integrator.needs_noise_cov:
            object.__setattr__(self, "_noise", self.integrator.noise_matrix(self.h, None))
        elif self.estimator.estimates_noise_cov:
            pass  # a per-step estimate (Remark 7): the noise matrix changes every step
        elif self.model.grad_cov_is_constant:
            cov = self.estimator.noise_cov(self.model, None)
            object.__setattr__(self, "_noise", self.integrator.noise_matrix(self.h, cov))

    def init(self, theta0, rng: np.random.Generator) -> SamplerState:
        """The state of M chains at theta0: the estimator's initial state first, then the integrator's.

        Parameters
        ----------
        theta0 : array_like, shape (M, d)
            The chains' starting points (copied).
        rng : numpy.random.Generator
            The stream the initial states draw from (e.g. SGHMC's momentum; advanced); another backend's stream
            (:class:`simulate.arrays.BackendStream`) where that backend runs the step.

        Returns
        -------
        SamplerState
            The state at step 0.

        Raises
        ------
        ParameterError
            When theta0 is not a finite (M, d) array for the model, or the estimator does not fit the model (e.g.
            SAGA's table would not fit in memory).
        """
        theta = self.model.check_theta(theta0, "theta0")
        theta = namespace_of(theta).copy(theta)  # numpy: a float64 copy
        est_state = self.estimator.init(self.model, theta.shape[0], rng)
        int_state = self.integrator.init_state(theta, self.h, rng)
        return SamplerState(theta, est_state, int_state, 0)

    def step(self, state: SamplerState, rng: np.random.Generator, *, inplace: bool = False) -> SamplerState:
        """One step: the estimator's draws (indices first) and estimate, then the injected noise xi, then the
        update (an estimator whose ``apply`` takes random numbers itself, e.g. LDA's Gibbs sums, does so before xi).

        Parameters
        ----------
        state : SamplerState
            The chains' state after ``state.step`` steps (from :meth:`init` or an earlier step).
        rng : numpy.random.Generator
            The stream the step's random numbers are drawn from (advanced).
        inplace : bool, default False
            False: ``state`` is left untouched (its arrays are copied first). True: its arrays are advanced in place
            and ``state`` must not be used again (the runner's hot loop; the same numbers, without the copies).

        Returns
        -------
        SamplerState
            The state after one more step (``step`` increased by one).
        """
        if not inplace:
            state = _fresh_state(state)
        theta = state.theta
        draws = self.estimator.draw(self.model, theta.shape[0], state.step, rng)
        grad, est_state = self.estimator.apply(self.model, theta, state.estimator_state, draws)
        xi = _standard_normal(rng, theta.shape)
        return self._update(state, grad, est_state, xi, rng)

    @property
    def draws_ahead(self) -> bool:
        """Whether step k's random numbers can be drawn before step k - 1 has run.

        True when the estimator's draws depend on the step number only, the noise matrix is constant and the
        integrator draws nothing in its update; :meth:`draw` and :meth:`apply` then split a step.
        """
        return (self.estimator.draws_ahead(self.model) and self._noise is not None
                and not self.integrator.draws_in_update())

    def draw(self, n_chains: int, step: int, rng: np.random.Generator) -> StepDraws:
        """The random numbers of one step, drawn from rng exactly as :meth:`step` draws them.

        Parameters
        ----------
        n_chains : int
            M, the number of chains.
        step : int
            The step the draws are for (0 = the first step after init).
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        StepDraws
            The estimator's draws, then the noise xi (M, d); ``apply(state, draw(M, state.step, rng))`` is
            ``step(state, rng)`` to the last bit.

        Raises
        ------
        ParameterError
            When the sampler's draws depend on the state (:attr:`draws_ahead` is False).
        """
        if not self.draws_ahead:
            raise ParameterError(f"sampler {self.name!r}: its draws depend on the state (draws_ahead is False); "
                                 "use step")
        est = self.estimator.draw(self.model, n_chains, step, rng)
        return StepDraws(est, _standard_normal(rng, (n_chains, self.model.dim)))

    def apply(self, state: SamplerState, draws: StepDraws, *, inplace: bool = False) -> SamplerState:
        """The step that consumes ``draws`` (from :meth:`draw` for step ``state.step``): step(state, rng) split.

        Parameters
        ----------
        state : SamplerState
            The chains' state after ``state.step`` steps.
        draws : StepDraws
            The random numbers of step ``state.step``, from :meth:`draw`.
        inplace : bool, default False
            False: ``state`` and ``draws`` are left untouched. True: the state's arrays are advanced in place and the
            draws' noise is overwritten; neither may be used again (the runner's draw-ahead loop).

        Returns
        -------
        SamplerState
            The state after one more step.

        Raises
        ------
        ParameterError
            When the draws' noise does not have the shape of the state's theta.
        """
        if draws.xi.shape != state.theta.shape:
            raise ParameterError(f"draws.xi has shape {draws.xi.shape}, the state theta {state.theta.shape}")
        if not inplace:
            state, draws = _fresh_state(state), StepDraws(draws.estimator, draws.xi.copy())
        grad, est_state = self.estimator.apply(self.model, state.theta, state.estimator_state, draws.estimator)
        return self._update(state, grad, est_state, draws.xi, None)

    def _update(self, state: SamplerState, grad: np.ndarray, est_state: Any, xi: np.ndarray,
                rng: np.random.Generator | None) -> SamplerState:
        """The integrator's step with this step's noise matrix (constant, the exact covariance at theta, or the
        estimator's per-step estimate)."""
        theta = state.theta
        noise = self._noise
        if noise is None:
            cov = self.estimator.step_noise_cov(est_state)
            if cov is None:
                cov = self.estimator.noise_cov(self.model, theta)
            noise = self.integrator.noise_matrix(self.h, cov)
        theta, int_state = self.integrator.update(theta, grad, xi, self.h, noise, state.integrator_state, rng)
        return SamplerState(theta, est_state, int_state, state.step + 1)

    def grads_per_step(self) -> float:
        """Per-datum gradient evaluations per chain-step, the cost unit (data passes = steps * this / N).

        Returns
        -------
        float
            The estimator's count on this model: n for a minibatch, 2n for a control variate (the same minibatch
            at theta and theta_hat), N for the full gradient, 2 n2 + n1/m for vrSG-MCMC (anchors averaged over an
            epoch).
        """
        return self.estimator.grads_per_step(self.model)


__all__ = ["Sampler", "SamplerState", "StepDraws"]

