"""What the JAX backend runs: the estimators and integrators whose step is written against :mod:`simulate.arrays` (by
exact type, as the exact engine's registry; a subclass may change the step), on the models it has a view of
(:mod:`simulate._jax.models`). :func:`missing` names the part of a sampler it does not cover."""

from __future__ import annotations

from ..estimators.additive_noise import AdditiveNoise
from ..estimators.control_variates import ControlVariate
from ..estimators.minibatch import FullGradient, Minibatch
from ..estimators.reuse import Reused
from ..estimators.saga import SAGA
from ..estimators.stratified import Stratified
from ..estimators.vr import SVRG, VRMinibatch
from ..integrators.langevin import Langevin, ModifiedLangevin, NoiselessLangevin, PrintedEq9Langevin
from ..integrators.preconditioned import PreconditionedLangevin
from ..integrators.sghmc import SGHMC
from ..integrators.ulmc import UnderdampedLangevinMC
from ..integrators.underdamped import BAOAB, ExplicitEulerSGHMC

ESTIMATORS = (FullGradient, Minibatch, Stratified, AdditiveNoise, ControlVariate, VRMinibatch, SVRG, SAGA, Reused)
INTEGRATORS = (Langevin, NoiselessLangevin, ModifiedLangevin, PrintedEq9Langevin, PreconditionedLangevin, SGHMC,
               ExplicitEulerSGHMC, BAOAB, UnderdampedLangevinMC)
#: Estimators whose ``noise_cov(model, theta)`` is written against the namespace (mSGLD with a covariance that
#: depends on theta calls it every step).
NOISE_COV_AT_THETA = (Minibatch, FullGradient, AdditiveNoise)


def _names(classes) -> str:
    return ", ".join(c.__name__ for c in classes)


def _estimator_gap(est) -> str | None:
    if type(est) not in ESTIMATORS:
        return f"the estimator {type(est).__name__} (covered: {_names(ESTIMATORS)})"
    if type(est) is AdditiveNoise and not est.is_constant:
        return "the estimator AdditiveNoise with a variance V(theta) that depends on theta (a constant V or " \
               "covariance matrix is covered)"
    if type(est) is Reused:
        return _estimator_gap(est.inner)
    return None


def missing(sampler, view) -> str | None:
    """What of ``sampler`` the JAX backend does not run (None: all of it); ``view`` is the model's view or None."""
    if view is None:
        return (f"the model {type(sampler.model).__name__} (covered: models with an affine gradient, "
                "simulate.AffineModel, and LogisticRegressionModel)")
    gap = _estimator_gap(sampler.estimator)
    if gap:
        return gap
    integ = sampler.integrator
    if type(integ) not in INTEGRATORS:
        return f"the integrator {type(integ).__name__} (covered: {_names(INTEGRATORS)})"
    if integ.needs_noise_cov and sampler._noise is None:
        est = sampler.estimator.inner if type(sampler.estimator) is Reused else sampler.estimator
        if type(est) not in NOISE_COV_AT_THETA:
            return (f"the integrator {type(integ).__name__} with the theta-dependent noise covariance of the "
                    f"estimator {type(est).__name__} (covered: a constant covariance, or {_names(NOISE_COV_AT_THETA)})")
    return None
