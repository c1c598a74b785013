"""Mutants of the core simulator (Langevin/mSGLD steps, minibatch estimator, runner, vrSG-MCMC estimator).

Each mutant is a realistic bug of the kind published SG-MCMC libraries shipped (a noise-scale typo in TensorFlow
Probability's SGLD, a missing scale, a convention mix-up); ``claims`` lists the default claims that must turn to
"fails" when it is planted. Patches replace one function or method for the duration of a ``with`` block.

Drawing the vrSG-MCMC correction minibatch once per epoch and reusing it is invisible on the Gaussian mean model
(the correction term is N (theta_tilde - theta)/sigma^2 whatever the batch) and in any single estimate's moments;
``chen.alg1.vr_estimator_moments`` catches it through two successive estimates of one epoch on the logistic model.
"""

from __future__ import annotations

import copy
from contextlib import ExitStack, contextmanager
from unittest import mock

import numpy as np

import simulate.estimators as estimators
import simulate.estimators.minibatch as minibatch_mod
import simulate.estimators.vr as vr_estimators
import simulate.integrators as integrators
import simulate.runtime.runner as runner_mod
from simulate.integrators.base import EMPTY

from . import Mutant, register_mutant

SGLD_VAR = "vollmer.eq18.sgld_variance"
EULER_VAR = "vollmer.eq18.euler_variance"
MEAN = "vollmer.eq17.stationary_mean"
MSGLD_VAR = "vollmer.eq21.msgld_variance"
MSE2 = "vollmer.eq22.mse2_finite_time"
MSE1 = "vollmer.sec2.mse1_finite_time"
CHEN_MSE = "chen.gaussian.exact_mse_formulas"
CHEN_ALG1 = "chen.alg1.vr_estimator_moments"


def _patch(target, name: str, new):
    return lambda: mock.patch.object(target, name, new)


def _reg(id_: str, description: str, patch, claims: tuple[str, ...]) -> None:
    register_mutant(Mutant(f"core.{id_}", description, patch, claims))


# ------------------------------------------------------------------------------------------ integrators

_reg("noise_sqrt_2h", "Langevin noise sqrt(2h) instead of sqrt(h) (Chen's eps convention mixed in; cf. TFP's SGLD)",
     _patch(integrators.Langevin, "noise_scale", lambda self, h: float(np.sqrt(2.0 * h))), (SGLD_VAR, EULER_VAR))


def _update_full_h(self, theta, grad, xi, h, noise, state=EMPTY, rng=None):
    grad *= h  # bug: h g instead of (h/2) g
    theta += grad
    xi *= noise
    theta += xi
    return theta, state


_reg("drift_h_not_half", "Langevin drift h g instead of (h/2) g (convention mix-up between eps and h = 2 eps)",
     _patch(integrators.Langevin, "update", _update_full_h), (EULER_VAR, SGLD_VAR))

def _update_frozen_noise():
    """Langevin update that keeps the first xi it sees and reuses it every step (the JAX 'key not split' bug)."""
    first: dict[tuple, np.ndarray] = {}

    def update(self, theta, grad, xi, h, noise, state=EMPTY, rng=None):
        xi0 = first.setdefault(xi.shape, xi.copy())
        grad *= 0.5 * h
        theta += grad
        theta += xi0 * noise
        return theta, state

    return lambda: mock.patch.object(integrators.Langevin, "update", update)


_reg("noise_not_refreshed", "the same injected noise xi every step (PRNG key not split; cf. SGMCMCJax's constant "
     "samples)", _update_frozen_noise(), (SGLD_VAR, EULER_VAR))

_reg("msgld_sign", "mSGLD correction with the wrong sign: sqrt(h)(I + (h/8) Cov g)",
     _patch(integrators.ModifiedLangevin, "noise_matrix",
            lambda self, h, cov: np.sqrt(h) * (np.eye(cov.shape[-1]) + (h / 8.0) * cov)), (MSGLD_VAR,))

_reg("msgld_cov_g", "mSGLD uses Cov g instead of Cov fhat = Cov g / 4: sqrt(h)(I - (h/2) Cov g) (eq. 9 as printed)",
     _patch(integrators.ModifiedLangevin, "noise_matrix",
            lambda self, h, cov: np.sqrt(h) * (np.eye(cov.shape[-1]) - (h / 2.0) * cov)), (MSGLD_VAR,))

# ------------------------------------------------------------------------------------------ minibatch estimator

_reg("scale_dropped", "minibatch likelihood sum not scaled by N/n",
     _patch(estimators.Minibatch, "scale", lambda self, model: 1.0), (MEAN,))


def _apply_prior_scaled(self, model, theta, state, idx):
    g = model.grad_log_lik_sum(theta, idx) + model.grad_log_prior(theta)
    return g * self.scale(model), state  # bug: the prior gradient is scaled by N/n too


_reg("prior_scaled", "prior gradient scaled by N/n along with the minibatch sum",
     _patch(estimators.Minibatch, "apply", _apply_prior_scaled), (MEAN,))


def _apply_no_prior(self, model, theta, state, idx):
    return model.grad_log_lik_sum(theta, idx) * self.scale(model), state


_reg("prior_dropped", "prior gradient dropped from the minibatch estimate",
     _patch(estimators.Minibatch, "apply", _apply_no_prior), (MEAN,))

_orig_sample_indices = minibatch_mod.sample_indices


def _always_with_replacement(rng, N, n, M, replace):
    return _orig_sample_indices(rng, N, n, M, True)


_reg("with_replacement", "minibatches drawn with replacement where without replacement is claimed",
     _patch(minibatch_mod, "sample_indices", _always_with_replacement), (SGLD_VAR,))


def _never_datum_0(rng, N, n, M, replace):
    return _orig_sample_indices(rng, N - 1, n, M, replace) + 1  # bug: off-by-one, datum 0 never drawn


_reg("never_draw_datum_0", "minibatch indices drawn from 1..N-1 (off-by-one: datum 0 never drawn)",
     _patch(minibatch_mod, "sample_indices", _never_datum_0), ("vollmer.app10.higher_moments",))

_reg("finite_population_factor_dropped",
     "mSGLD noise covariance without the finite-population factor (N-n)/(N-1) for draws without replacement",
     _patch(estimators.Minibatch, "finite_population_factor", lambda self, model: 1.0), (MSGLD_VAR,))


def _stale_init(self, model, n_chains, rng):
    return None


def _stale_apply(self, model, theta, state, draws):
    prev = theta.copy() if state is None else state
    return model.grad_log_post(prev), theta.copy()  # bug: gradient at the previous state


_reg("euler_stale_gradient", "full-gradient (Euler) step uses the gradient at the previous state",
     lambda: _multi((estimators.FullGradient, "init", _stale_init), (estimators.FullGradient, "apply", _stale_apply)),
     (EULER_VAR,))


# ------------------------------------------------------------------------------------------ runner

_orig_run_block = runner_mod._BlockSpec.run_block


def _run_block_late(self, b):
    late = copy.copy(self)
    late.burn_in = self.burn_in + 1  # bug: averages theta_{b+1} .. theta_{b+L} (state recorded after the step)
    late.total = max(self.total, late.burn_in + self.n_steps - 1)
    return _orig_run_block(late, b)


_reg("time_average_off_by_one", "time average over theta_{b+1}..theta_{b+L} instead of theta_b..theta_{b+L-1}",
     _patch(runner_mod._BlockSpec, "run_block", _run_block_late), (MSE2, MSE1))


def _zeros_initial_state(theta0, rng, start, stop, dim):
    return np.zeros((stop - start, dim))


_reg("theta0_ignored", "the initial state theta0 is ignored (every chain starts at 0)",
     _patch(runner_mod, "_initial_state", _zeros_initial_state), (CHEN_MSE,))


# ------------------------------------------------------------------------------------------ vrSG-MCMC estimator

def _vr_bug(refresh_once: bool = False, shared_batch: bool = False, corr_scale_n1: bool = False,
            correction_once: bool = False):
    """Algorithm 1's draw and apply (simulate/estimators/vr_estimators.py) with one planted bug."""
    epoch: dict[tuple, np.ndarray] = {}  # (estimator, chains) -> the correction batch reused within an epoch

    def draw(self, model, n_chains, step, rng):
        N, n1 = model.n_data, self.anchor_size(model)
        full = n1 == N and not self.replace
        refresh = step == 0 if refresh_once else step % self.m == 0
        key = (id(self), n_chains)
        anchor = None
        if refresh:
            anchor = () if full else vr_estimators.sample_indices(rng, N, n1, n_chains, self.replace)
            epoch.pop(key, None)
            if shared_batch and not full:
                epoch[key] = anchor[: self.n2]  # bug: the correction batch is part of the anchor batch
        idx = epoch.get(key) if shared_batch or correction_once else None
        if idx is None:
            idx = vr_estimators.sample_indices(rng, N, self.n2, n_chains, self.replace)
            if correction_once:  # bug: the first correction batch of an epoch is reused until the next refresh
                epoch[key] = idx
        return vr_estimators.VRDraws(anchor, idx)

    def apply(self, model, theta, state, draws):
        theta_tilde, g_tilde, step = state
        if draws.anchor is not None:
            theta_tilde = np.array(theta, dtype=np.float64, copy=True)
            g_tilde = self.anchor_gradient_at(model, theta_tilde, draws.anchor)
        N = model.n_data
        corr = model.grad_log_lik_sum(theta, draws.minibatch) - model.grad_log_lik_sum(theta_tilde, draws.minibatch)
        corr *= N / (self.anchor_size(model) if corr_scale_n1 else self.n2)
        g = g_tilde + model.grad_log_prior(theta) + corr
        return g, vr_estimators.VRState(theta_tilde, g_tilde, step + 1)

    return lambda: _multi((vr_estimators.VRMinibatch, "draw", draw), (vr_estimators.VRMinibatch, "apply", apply))


_reg("vr_anchor_not_refreshed", "vrSG-MCMC / SVRG anchor (theta_tilde, g_tilde) set at l = 0 and never refreshed",
     _vr_bug(refresh_once=True), (CHEN_MSE,))
_reg("vr_shared_minibatch", "vrSG-MCMC reuses one minibatch: the correction batch is the first n2 of the anchor batch",
     _vr_bug(shared_batch=True), (CHEN_ALG1,))
_reg("vr_correction_once_per_epoch", "vrSG-MCMC draws the correction minibatch once per epoch and reuses it",
     _vr_bug(correction_once=True), (CHEN_ALG1,))
_reg("vr_correction_scale_n1", "vrSG-MCMC correction scaled by N/n1 instead of N/n2",
     _vr_bug(corr_scale_n1=True), (CHEN_ALG1,))


@contextmanager
def _multi(*patches):
    """Several mock.patch.object patches as one context manager."""
    with ExitStack() as stack:
        for target, name, new in patches:
            stack.enter_context(mock.patch.object(target, name, new))
        yield
