"""A sampler = integrator x gradient estimator on a model, with a fixed step size h.

Pure init/step functions in the style of blackjax, vectorized over the chain axis:
``state = sampler.init(theta0, rng)``, then ``state = sampler.step(state, rng)`` (theta updated in place).

Where a step's random numbers do not depend on the state (``sampler.draws_ahead``), a step also splits into
``draws = sampler.draw(n_chains, k, rng)`` and ``state = sampler.apply(state, draws)``: the same numbers in the
same stream order, so ``apply(state, draw(M, k, rng))`` is ``step(state, rng)`` to the last bit. The runner uses
the split to draw step k+1 while step k computes (:mod:`simulate.pipeline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from . import _draws
from .estimators import FullGradient, Minibatch
from .integrators import Langevin, ModifiedLangevin
from .models import Model
from .validation import ParameterError, check_step_size


class StepDraws(NamedTuple):
    """The random numbers of one step: the estimator's (e.g. minibatch indices) and the injected noise xi (M, d)."""

    estimator: Any
    xi: np.ndarray


class SamplerState(NamedTuple):
    theta: np.ndarray  # (M, d)
    estimator_state: Any
    integrator_state: Any = None  # e.g. the SGHMC momentum; None for first-order integrators


@dataclass(frozen=True)
class Sampler:
    model: Model
    estimator: Any
    integrator: Any
    h: float
    name: str = ""
    _noise: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        L = self.model.grad_lipschitz
        if L is not None:
            bound = getattr(self.integrator, "step_bound", None)
            h_max, why = bound(L) if bound is not None else (
                4.0 / L, "mean-square stability, h < 4/L with L the Lipschitz constant of grad log posterior")
            object.__setattr__(self, "h", check_step_size(self.h, h_max, why))
        else:
            check_step_size(self.h, np.inf, "no stability bound known")
        check = getattr(self.estimator, "check", None)
        if check is not None:
            check(self.model)
        if not self.name:
            object.__setattr__(self, "name", f"{self.integrator.name}+{self.estimator.name}")
        if not self.integrator.needs_noise_cov:
            object.__setattr__(self, "_noise", self.integrator.noise_matrix(self.h, None))
        elif self.model.grad_cov_is_constant:
            cov = self.estimator.noise_cov(self.model, None)
            object.__setattr__(self, "_noise", self.integrator.noise_matrix(self.h, cov))

    def init(self, theta0, rng: np.random.Generator) -> SamplerState:
        theta = np.array(self.model.check_theta(theta0, "theta0"), dtype=np.float64, copy=True)
        est_state = self.estimator.init(self.model, theta.shape[0], rng)
        init_state = getattr(self.integrator, "init_state", None)
        int_state = None if init_state is None else init_state(theta, self.h, rng)
        return SamplerState(theta, est_state, int_state)

    def step(self, state: SamplerState, rng: np.random.Generator) -> SamplerState:
        """One step: draw the gradient estimate (indices first), then the injected noise xi."""
        theta = state.theta
        grad, est_state = self.estimator.estimate(self.model, theta, state.estimator_state, rng)
        xi = _draws.standard_normal(rng, theta.shape)  # rng.standard_normal(theta.shape), bit for bit
        noise = self._noise
        if noise is None:
            noise = self.integrator.noise_matrix(self.h, self.estimator.noise_cov(self.model, theta))
        if state.integrator_state is None:
            self.integrator.update(theta, grad, xi, self.h, noise)
            return SamplerState(theta, est_state)
        int_state = self.integrator.update_stateful(theta, grad, xi, self.h, noise, state.integrator_state, rng)
        return SamplerState(theta, est_state, int_state)

    @property
    def draws_ahead(self) -> bool:
        """True when step k's random numbers can be drawn before step k - 1 has run: the estimator's ``estimate`` is
        its ``apply`` of its ``draw`` (marked by :func:`simulate.estimators.draw_then_apply`), the noise matrix is
        constant and the integrator has no state."""
        est = self.estimator
        return (getattr(getattr(est, "estimate", None), "draw_then_apply", False) and self._noise is not None
                and getattr(self.integrator, "init_state", None) is None)

    def draw(self, n_chains: int, step: int, rng: np.random.Generator) -> StepDraws:
        """The random numbers of step ``step`` (0 = the first step after init) for ``n_chains`` chains, drawn from
        rng exactly as :meth:`step` draws them. Only where :attr:`draws_ahead`."""
        if not self.draws_ahead:
            raise ParameterError(f"sampler {self.name!r}: its draws depend on the state (draws_ahead is False); "
                                 "use step")
        est = self.estimator.draw(self.model, n_chains, step, rng)
        return StepDraws(est, _draws.standard_normal(rng, (n_chains, self.model.dim)))

    def apply(self, state: SamplerState, draws: StepDraws) -> SamplerState:
        """The step that consumes ``draws`` (from :meth:`draw` for this step number): step(state, rng) split."""
        theta = state.theta
        if draws.xi.shape != theta.shape:
            raise ParameterError(f"draws.xi has shape {draws.xi.shape}, the state theta {theta.shape}")
        grad, est_state = self.estimator.apply(self.model, theta, state.estimator_state, draws.estimator)
        self.integrator.update(theta, grad, draws.xi, self.h, self._noise)
        return SamplerState(theta, est_state)

    def grads_per_step(self) -> float:
        """Per-datum gradient evaluations per chain-step (data passes = steps * this / N)."""
        return self.estimator.grads_per_step(self.model)


def euler(model: Model, h: float) -> Sampler:
    """Euler-Maruyama with the full gradient (the 'Euler' / ULA baseline of Vollmer et al.)."""
    return Sampler(model, FullGradient(), Langevin(), h, name="euler")


def sgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """SGLD, Welling & Teh (2011); Vollmer et al. eq. (5)-(6)."""
    return Sampler(model, Minibatch(n, replace), Langevin(), h, name="sgld")


def msgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """Modified SGLD with the exact gradient-noise covariance, Vollmer et al. eq. (9)/(20)/(54)."""
    return Sampler(model, Minibatch(n, replace), ModifiedLangevin(), h, name="msgld")
