"""The one place where the engine dispatches on the simulator's estimator and integrator types.

Each entry maps a public simulator class to the function that reads its exact law (:mod:`.estimator_laws`,
:mod:`.integrator_laws`). Lookup is by exact type: a subclass with other semantics must be registered, not guessed.
(When estimators carry a typed contract of their own, this table becomes a method call.)
"""

from __future__ import annotations

from simulate.estimators.additive_noise import AdditiveNoise
from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.minibatch import FullGradient, Minibatch
from simulate.estimators.reuse import Reused
from simulate.estimators.saga import SAGA
from simulate.estimators.stratified import Stratified
from simulate.estimators.vr import SVRG, VRMinibatch
from simulate.integrators.langevin import Langevin, ModifiedLangevin, NoiselessLangevin, PrintedEq9Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.integrators.ulmc import UnderdampedLangevinMC
from simulate.integrators.underdamped import BAOAB, ExplicitEulerSGHMC
from simulate.validation import ParameterError

from . import estimator_laws as el
from . import integrator_laws as il
from .kernel import Context, Kernel, Layout, common_period
from .stages import Stage, eye

ESTIMATORS = {
    FullGradient: el.full_gradient,
    Minibatch: el.minibatch,
    ControlVariate: el.control_variate,
    VRMinibatch: el.vr_minibatch,
    SVRG: el.vr_minibatch,
    SAGA: el.saga,
    Stratified: el.stratified,
    AdditiveNoise: el.additive_noise,
}

INTEGRATORS = {
    Langevin: il.langevin,
    NoiselessLangevin: il.noiseless_langevin,
    ModifiedLangevin: il.modified_langevin,
    PrintedEq9Langevin: il.modified_langevin,
    SGHMC: il.sghmc,
    ExplicitEulerSGHMC: il.explicit_euler_sghmc,
    BAOAB: il.baoab,
    UnderdampedLangevinMC: il.ulmc,
}


def estimator_law(est, ctx: Context) -> el.EstimatorLaw:
    """The law of ``est`` (Reused wraps the law of its inner estimator)."""
    if type(est) is Reused:
        return el.reused(est, ctx, estimator_law(est.inner, ctx))
    build = ESTIMATORS.get(type(est))
    if build is None:
        raise ParameterError(f"estimator {type(est).__name__}: no exact law registered (known: "
                             f"{', '.join(sorted(t.__name__ for t in ESTIMATORS))}, Reused)")
    return build(est, ctx)


def integrator_law(integ, ctx: Context) -> il.IntegratorLaw:
    build = INTEGRATORS.get(type(integ))
    if build is None:
        raise ParameterError(f"integrator {type(integ).__name__}: no exact law registered (known: "
                             f"{', '.join(sorted(t.__name__ for t in INTEGRATORS))})")
    return build(integ, ctx)


def build_kernel(estimator, integrator, ctx: Context) -> Kernel:
    """The chain's kernel: layout (theta, integrator blocks, estimator blocks), the stages of every phase and, where the
    integrator's step 0 differs (BAOAB), the stages of step 0."""
    est, integ = estimator_law(estimator, ctx), integrator_law(integrator, ctx)
    blocks = (("theta", ctx.parts.dim),) + integ.blocks + est.blocks
    lay = Layout(tuple(b[0] for b in blocks), tuple(b[1] for b in blocks), ctx.dtype)
    cov_g = est.msgld_cov(lay) if integ.needs_grad_cov else None

    def stages(p: int, update) -> tuple[Stage, ...]:
        A, B, Qn = update
        core = est.core(p % est.period, lay)
        # A and the estimator's state map both carry the identity off their own blocks: count it once
        mean = A + core.state_mean - eye(lay.n, lay.dtype) + B @ core.grad_mean
        noise = Qn if core.grad_noise is None else Qn + B @ core.grad_noise @ B.T  # Gaussian gradient noise
        main = Stage(mean, noise, None if core.fluct is None else core.fluct.stage_fluct(B))
        return tuple(est.pre(p % est.period, lay)) + (main,) + tuple(integ.post(p % integ.period, lay))

    update = integ.update(lay, cov_g)
    phases = tuple(stages(p, update) for p in range(common_period(est.period, integ.period)))
    first = None if integ.first is None else stages(0, integ.first(lay))
    return Kernel(lay, phases, est.init(lay), integ.init_noise(lay), first)


__all__ = ["ESTIMATORS", "INTEGRATORS", "build_kernel", "estimator_law", "integrator_law"]
