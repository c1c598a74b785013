"""The chain's kernel from the laws of its two parts: the estimator's and the integrator's, each found by its exact
type through :func:`theory.law_of` on the "affine" route (built-in laws and a user's alike).

The composition (:mod:`.contract`): the state is (theta, integrator blocks, estimator blocks); at phase p the
estimator's ``pre`` stages run, then the update

    x'^ = (A + S - I) x^ + B Gm x^ + noise,   noise covariance Qn + B Sigma_g B^T, fluctuation B (counts),

with (A, B, Qn) the integrator's update, (Gm, S, Sigma_g) the estimator's core (A and S both carry the identity off
their own blocks, so it is counted once), then the integrator's ``post`` stages. The phases repeat with the least
common multiple of the two periods. What a law returns is checked here, so a user's law that builds a wrong shape is
told which field and which law.
"""

from __future__ import annotations

import numpy as np

from simulate.validation import ParameterError

from ..laws import law_of
from .contract import Context, EstimatorLaw, IntegratorLaw, Layout, Stage, eye
from .kernel import Kernel, common_period


def estimator_law(est, ctx: Context) -> EstimatorLaw:
    """The :class:`~.contract.EstimatorLaw` of the estimator ``est`` (its registered law, checked).

    Raises
    ------
    ParameterError
        If no law is registered for its type, or the law returns something else than an EstimatorLaw.
    """
    law = law_of(est, "affine")(est, ctx)
    _check_parts(law, EstimatorLaw, est)
    return law


def integrator_law(integ, ctx: Context) -> IntegratorLaw:
    """The :class:`~.contract.IntegratorLaw` of the integrator ``integ`` (its registered law, checked).

    Raises
    ------
    ParameterError
        If no law is registered for its type, or the law returns something else than an IntegratorLaw.
    """
    law = law_of(integ, "affine")(integ, ctx)
    _check_parts(law, IntegratorLaw, integ)
    return law


def _who(obj) -> str:
    return f"the law of {type(obj).__name__}"


def _check_parts(law, kind: type, obj) -> None:
    if not isinstance(law, kind):
        raise ParameterError(f"{_who(obj)} must return an {kind.__name__} (theory.linear_gaussian.contract), got "
                             f"{type(law).__name__}")
    if not (isinstance(law.period, (int, np.integer)) and law.period >= 1):
        raise ParameterError(f"{_who(obj)}: period must be an integer >= 1, got {law.period!r}")
    for b in law.blocks:
        if not (isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], str) and isinstance(b[1], (int, np.integer))
                and b[1] >= 1):
            raise ParameterError(f"{_who(obj)}: blocks must be (name, size >= 1) pairs, got {b!r}")


def _check_shape(what: str, M, shape: tuple[int, int], obj) -> None:
    if np.shape(M) != shape:
        raise ParameterError(f"{_who(obj)}: {what} must have shape {shape} for the state layout, got {np.shape(M)}")


def _check_update(update, lay: Layout, integ) -> None:
    if not (isinstance(update, tuple) and len(update) == 3):
        raise ParameterError(f"{_who(integ)}: update must return (A, B, Qn), got {type(update).__name__}")
    A, B, Qn = update
    _check_shape("A", A, (lay.n, lay.n), integ)
    _check_shape("B", B, (lay.n, lay.d), integ)
    _check_shape("Qn", Qn, (lay.n, lay.n), integ)


def _layout(est: EstimatorLaw, integ: IntegratorLaw, ctx: Context, estimator, integrator) -> Layout:
    blocks = (("theta", ctx.parts.dim),) + integ.blocks + est.blocks
    names = [b[0] for b in blocks]
    if len(set(names)) != len(names):
        raise ParameterError(f"the laws of {type(estimator).__name__} and {type(integrator).__name__} name the same "
                             f"state block twice: {names}")
    return Layout(tuple(names), tuple(int(b[1]) for b in blocks), ctx.dtype)


def build_kernel(estimator, integrator, ctx: Context) -> Kernel:
    """The chain's kernel: layout (theta, integrator blocks, estimator blocks), the stages of every phase and, where the
    integrator's step 0 differs (BAOAB), the stages of step 0.

    Parameters
    ----------
    estimator, integrator : object
        The simulator's gradient estimator and integrator (their laws are looked up by exact type).
    ctx : Context
        The model's affine parts, h and the number type.

    Returns
    -------
    Kernel

    Raises
    ------
    ParameterError
        If either part has no law, a law refuses this model or configuration, or a law returns a malformed part.
    """
    est, integ = estimator_law(estimator, ctx), integrator_law(integrator, ctx)
    lay = _layout(est, integ, ctx, estimator, integrator)
    cov_g = est.msgld_cov(lay) if integ.needs_grad_cov else None

    def stages(p: int, update) -> tuple[Stage, ...]:
        A, B, Qn = update
        core = est.core(p % est.period, lay)
        _check_shape("core.grad_mean", core.grad_mean, (lay.d, lay.n), estimator)
        _check_shape("core.state_mean", core.state_mean, (lay.n, lay.n), estimator)
        # A and the estimator's state map both carry the identity off their own blocks: count it once
        mean = A + core.state_mean - eye(lay.n, lay.dtype) + B @ core.grad_mean
        noise = Qn if core.grad_noise is None else Qn + B @ core.grad_noise @ B.T  # Gaussian gradient noise
        main = Stage(mean, noise, None if core.fluct is None else core.fluct.stage_fluct(B))
        return tuple(est.pre(p % est.period, lay)) + (main,) + tuple(integ.post(p % integ.period, lay))

    update = integ.update(lay, cov_g)
    _check_update(update, lay, integrator)
    phases = tuple(stages(p, update) for p in range(common_period(est.period, integ.period)))
    first = None
    if integ.first is not None:
        first_update = integ.first(lay)
        _check_update(first_update, lay, integrator)
        first = stages(0, first_update)
    init, init_noise = est.init(lay), integ.init_noise(lay)
    _check_shape("init", init, (lay.n, lay.d + 1), estimator)
    _check_shape("init_noise", init_noise, (lay.n, lay.n), integrator)
    return Kernel(lay, phases, init, init_noise, first)


__all__ = ["build_kernel", "estimator_law", "integrator_law"]
