"""Planted bugs in the Baker et al. (2019) code: SGLD-CV, SAGA-LD and ZV post-processing."""

from __future__ import annotations

import functools
from unittest import mock

import numpy as np

import simulate.analysis.zv as zv_mod
import simulate.samplers as samplers_mod
from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.saga import SAGA
from simulate.estimators.subsample import sample_indices

from . import Mutant, register_mutant


def _cv_draw_two(self, model, n_chains, step, rng):
    """Two independent minibatches, one for theta and one for theta_hat."""
    return (sample_indices(rng, model.n_data, self.n, n_chains, self.replace),
            sample_indices(rng, model.n_data, self.n, n_chains, self.replace))


def _cv_different_minibatch(self, model, theta, state, draws):
    """Control variate with an independent minibatch at theta_hat (the variance reduction is lost)."""
    idx, idx2 = draws
    corr = model.grad_log_lik_sum(theta, idx) - model.grad_log_lik_sum(self.anchor(theta), idx2)
    return corr * self.scale(model) + self.grad_lik_hat + model.grad_log_prior(theta), state


def _cv_patch():
    from .core import _multi

    return _multi((ControlVariate, "draw", _cv_draw_two), (ControlVariate, "apply", _cv_different_minibatch))


def _saga_no_update(self, state, rows, idx, g_new, g_old):
    """SAGA table (and total) never refreshed: it stays at theta_0 (an SVRG with a frozen anchor)."""
    return state


_saga_ld = samplers_mod.saga_ld


def _saga_ld_without_noise(model, h, n, noise=True):
    """SAGA-LD built as the paper prints it: no injected Langevin noise."""
    return _saga_ld(model, h, n, noise=False)


def _zv_sign_flipped(h, f, pooled=False):
    """ZV coefficient a = +Var(h)^{-1} Cov(h, f), the paper's printed sign."""
    hc = h - h.mean(axis=0)
    fc = f - f.mean(axis=0)
    if pooled:
        hc = hc.reshape(-1, 1, hc.shape[2])
        fc = fc.reshape(-1, 1, fc.shape[2])
    return np.linalg.solve(np.einsum("tmp,tmq->mpq", hc, hc), np.einsum("tmp,tmk->mpk", hc, fc))


register_mutant(Mutant(
    id="baker.cv_different_minibatch",
    description="SGLD-CV: the correction at theta_hat uses a different minibatch than at theta",
    patch=_cv_patch,
    claims=("baker.noise.simulated", "baker.stationary.cv_linreg", "baker.thm1.strong_error_recursion",
            "baker.sghmc_cv.stationary"),
))
register_mutant(Mutant(
    id="baker.saga_table_not_updated",
    description="SAGA: the stored gradient table (and its total) is never updated at the minibatch entries",
    patch=lambda: mock.patch.object(SAGA, "update", _saga_no_update),
    claims=("baker.saga.table_refresh", "baker.saga.stationary"),
))
register_mutant(Mutant(
    id="baker.saga_noise_missing",
    description="SAGA-LD without the injected Langevin noise (the paper's printed update)",
    patch=lambda: mock.patch.object(samplers_mod, "saga_ld", functools.wraps(_saga_ld)(_saga_ld_without_noise)),
    claims=("baker.saga.stationary",),
))
register_mutant(Mutant(
    id="baker.zv_sign_flipped",
    description="ZV post-processing with a = +Var^-1 Cov (the paper's printed sign)",
    patch=lambda: mock.patch.object(zv_mod, "zv_coefficients", _zv_sign_flipped),
    claims=("baker.thm3.zv_noisy_gradients",),
))
