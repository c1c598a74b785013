"""The workbench sampler a :class:`~verify.conformance.declared.Declared` algorithm names (new).

The conformance layer asks the exact engine ``theory.exact_law(sampler)`` about the same :class:`simulate.Sampler`
the simulator runs, built here from the declaration:

=====================  ==============================================================================================
declared               workbench sampler (``problem.model``, step ``h``)
=====================  ==============================================================================================
sgld                   ``Minibatch(n, replace)`` + ``Langevin(temperature)``
sgld_cv                ``ControlVariate.at(model, n, theta_hat, replace)`` + ``Langevin(temperature)``
svrg_ld                ``SVRG(n, update_rate, replace)`` + ``Langevin(temperature)`` (anchor offset: two segments,
                       :func:`svrg_segments`)
sghmc, momentum_first  ``Minibatch`` + ``SGHMC(alpha, resample_every, temperature, v0_var, refresh_var)``
sghmc, explicit_euler  ``Minibatch`` + ``ExplicitEulerSGHMC(...)`` (same parameters)
baoab                  ``Minibatch`` + ``BAOAB(alpha, temperature, v0_var)``
=====================  ==============================================================================================

A call of L inner steps is L sampler steps; ``momentum_refresh`` is ``resample_every = L`` with v_0 drawn from the
refresh law (the refresh before call 0 replaces it); ``minibatch_per_call`` wraps the minibatch in
``Reused(Minibatch, L)``. The injected noise of every step has variance scaled by ``temperature * noise_scale^2``
(the integrator's ``temperature``); the momentum's initial and redrawn variances are the declared ones, unscaled
(``noise_scale`` is the power calculation's perturbation of the step noise only).
"""

from __future__ import annotations

import math

from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.minibatch import Minibatch
from simulate.estimators.reuse import Reused
from simulate.estimators.vr import SVRG
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.integrators.underdamped import BAOAB, ExplicitEulerSGHMC
from simulate.sampler import Sampler
from simulate.validation import ParameterError

from .declared import Declared
from .problems import Problem


def _temperature(declared: Declared, noise_scale: float) -> float:
    if not (math.isfinite(noise_scale) and noise_scale >= 0):
        raise ParameterError(f"noise_scale must satisfy 0 <= noise_scale < inf, got {noise_scale!r}")
    return declared.temperature * float(noise_scale) ** 2


def _estimator(declared: Declared, problem: Problem, anchor_every: int | None):
    dec, N = declared, problem.n_data
    if dec.n > N:
        raise ParameterError(f"n must satisfy 1 <= n <= N = {N}, got {dec.n}")
    if dec.algorithm == "sgld_cv":
        return ControlVariate.at(problem.model, dec.n, dec.theta_hat, dec.replace)
    if dec.algorithm == "svrg_ld":
        return SVRG(dec.n, dec.update_rate if anchor_every is None else anchor_every, dec.replace)
    est = Minibatch(dec.n, dec.replace)
    return Reused(est, dec.inner_steps) if dec.minibatch_per_call else est


def _integrator(declared: Declared, T: float):
    dec = declared
    if dec.algorithm in ("sgld", "sgld_cv", "svrg_ld"):
        return Langevin(temperature=T)
    if dec.algorithm == "baoab":
        return BAOAB(dec.alpha, temperature=T, v0_var=dec.initial_momentum_var())
    cls = SGHMC if dec.order == "momentum_first" else ExplicitEulerSGHMC
    if dec.momentum_refresh:
        return cls(dec.alpha, dec.inner_steps, temperature=T, v0_var=dec.momentum_var, refresh_var=dec.momentum_var)
    return cls(dec.alpha, temperature=T, v0_var=dec.initial_momentum_var())


def workbench_sampler(declared: Declared, problem: Problem, noise_scale: float = 1.0,
                      anchor_every: int | None = None) -> Sampler:
    """The sampler that runs ``declared`` on ``problem`` (module docstring); ``anchor_every`` overrides SVRG's epoch
    length (the first segment of :func:`svrg_segments`)."""
    T = _temperature(declared, noise_scale)
    return Sampler(problem.model, _estimator(declared, problem, anchor_every), _integrator(declared, T), declared.h,
                   name=f"declared {declared.algorithm}")


def svrg_segments(declared: Declared) -> tuple[int, int]:
    """SVRG's anchors come before calls 0 and ``anchor_offset + j update_rate``: (steps of the first segment, whose
    only anchor is at call 0; 0 when the schedule is periodic from call 0) and the period after it."""
    off, m = declared.anchor_offset, declared.update_rate
    return (0 if off % m == 0 and off <= m else off), m


__all__ = ["svrg_segments", "workbench_sampler"]
