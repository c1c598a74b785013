"""Every named sampler of the workbench, one line each: an integrator composed with a gradient estimator.

Step-size convention (README): theta' = theta + (h/2) g + sqrt(h) xi for the Langevin family; SGHMC's learning rate
is ``h`` (Chen, Fox & Guestrin 2014 eq. 15). Adding a sampler is one estimator or integrator module plus one line
here (docs/add_a_sampler.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from .contracts import GradientEstimator, Model
from .estimators.control_variates import control_variate
from .estimators.estimated_cov import EstimatedCovMinibatch
from .estimators.minibatch import FullGradient, Minibatch
from .estimators.saga import SAGA
from .estimators.stratified import Strata, Stratified, allocate, stratified_estimator
from .estimators.vr import SVRG, VRMinibatch
from .integrators.langevin import Langevin, ModifiedLangevin, NoiselessLangevin
from .integrators.sghmc import SGHMC
from .integrators.sgrld import ExpandedMeanLangevin
from .integrators.ulmc import UnderdampedLangevinMC
from .models.lda import LDAModel
from .sampler import Sampler
from .validation import ParameterError


def euler(model: Model, h: float) -> Sampler:
    """Euler-Maruyama with the full gradient (the 'Euler' / ULA baseline of Vollmer et al.)."""
    return Sampler(model, FullGradient(), Langevin(), h, name="euler")


def sgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """SGLD, Welling & Teh (2011); Vollmer et al. eq. (5)-(6)."""
    return Sampler(model, Minibatch(n, replace), Langevin(), h, name="sgld")


def msgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """Modified SGLD with the exact gradient-noise covariance, Vollmer et al. eq. (9)/(20)/(54)."""
    return Sampler(model, Minibatch(n, replace), ModifiedLangevin(), h, name="msgld")


def msgld_estimated_cov(model: Model, h: float, n: int, replace: bool = False,
                        cov_multiplier: float = 1.0) -> Sampler:
    """mSGLD with the minibatch-estimated covariance, Vollmer et al. eq. (54) and Remark 7 (``cov_multiplier=4``:
    eq. (9) as printed)."""
    name = "msgld_covhat" if cov_multiplier == 1.0 else f"msgld_covhat_x{cov_multiplier:g}"
    return Sampler(model, EstimatedCovMinibatch(n, replace, cov_multiplier), ModifiedLangevin(), h, name=name)


def sgld_cv(model: Model, h: float, n: int, theta_hat=None, replace: bool = False, **opt) -> Sampler:
    """SGLD-CV (Baker et al. 2019, Algorithm 1): theta' = theta + (h/2) g_CV(theta) + sqrt(h) xi.

    The paper starts the chain at theta_hat (the optimisation replaces burn-in): pass
    ``theta0=sampler.estimator.theta_hat`` to :func:`simulate.run`. ``opt``: opt_step, opt_iters, opt_n, opt_seed,
    opt_refine (:func:`simulate.estimators.control_variates.sgd_mode`).
    """
    return Sampler(model, control_variate(model, n, theta_hat, replace, **opt), Langevin(), h, name="sgld_cv")


def vrsgld(model: Model, h: float, n1: int, n2: int, m: int, replace: bool = False) -> Sampler:
    """vrSGLD: Chen et al. (2019) Algorithm 1 with NextS = SGLD, theta' = theta + (h/2) g + sqrt(h) xi (h = 2 eps)."""
    return Sampler(model, VRMinibatch(n1, n2, m, replace), Langevin(), h, name="vrsgld")


def svrgld(model: Model, h: float, n2: int, m: int) -> Sampler:
    """SVRG-LD (Dubey et al. 2016): Langevin step with the SVRG gradient (full-data anchor, every m steps)."""
    return Sampler(model, SVRG(n2, m), Langevin(), h, name="svrgld")


def saga_ld(model: Model, h: float, n: int, noise: bool = True) -> Sampler:
    """SAGA-LD (Dubey et al. 2016): Langevin step with the SAGA gradient; ``noise=False`` is the printed map of
    Baker et al. Sec. 4.4 (an erratum)."""
    return Sampler(model, SAGA(n), Langevin() if noise else NoiselessLangevin(), h, name="saga_ld")


def sghmc(model: Model, h: float, alpha: float, estimator: GradientEstimator | None = None, n: int | None = None,
          replace: bool = False, resample_every: int | None = None) -> Sampler:
    """SGHMC (Chen et al. 2014 eq. 15) with learning rate ``h`` = eta and friction ``alpha``.

    The gradient estimator defaults to ``Minibatch(n, replace)``; pass any estimator (e.g. a control variate for
    SGHMC-CV, Baker et al. Sec. 4) instead. With ``estimator=FullGradient()`` it is (full-gradient) HMC with friction.
    """
    if estimator is None:
        if n is None:
            raise ParameterError("sghmc needs either an estimator or a minibatch size n (1 <= n <= N)")
        estimator = Minibatch(n, replace)
    elif n is not None:
        raise ParameterError("sghmc takes either estimator or n, not both")
    return Sampler(model, estimator, SGHMC(alpha, resample_every), h, name="sghmc")


def sghmc_cv(model: Model, h: float, alpha: float, n: int, theta_hat=None, replace: bool = False,
             resample_every: int | None = None, **opt) -> Sampler:
    """SGHMC-CV (Baker et al. Sec. 4): the SGHMC integrator with the control-variate gradient."""
    est = control_variate(model, n, theta_hat, replace, **opt)
    return Sampler(model, est, SGHMC(alpha, resample_every), h, name="sghmc_cv")


def ulmc(model: Model, h: float, gamma: float = 2.0, u: float | None = None,
         estimator: GradientEstimator | None = None, v0_var: float | None = None) -> Sampler:
    """Underdamped Langevin MCMC (Cheng, Chatterji, Bartlett & Jordan 2018, Algorithm 1): the exact frozen-gradient
    flow over a time step h with friction ``gamma`` (default 2) and inverse mass ``u`` (default 1/L, L the model's
    gradient Lipschitz constant), full gradient by default; with a control-variate ``estimator`` it is CV-ULD
    (Chatterji, Flammarion, Ma, Bartlett & Jordan 2018, Algorithm 3)."""
    if u is None:
        if model.grad_lipschitz is None:
            raise ParameterError("ulmc: u defaults to 1/L, and this model declares no grad_lipschitz; pass u")
        u = 1.0 / model.grad_lipschitz
    integ = UnderdampedLangevinMC(gamma=gamma, u=u, v0_var=v0_var)
    return Sampler(model, FullGradient() if estimator is None else estimator, integ, h, name="ulmc")


def cp_sgld(model: Model, h: float, strata: Strata, b: int, allocation: str | Sequence[int] = "neyman",
            replace: bool = False) -> Sampler:
    """CP-SGLD, Fu & Zhang Algorithm 1 (fixed step; workbench convention theta' = theta + (h/2) g + sqrt(h) xi)."""
    return Sampler(model, stratified_estimator(strata, b, allocation, replace), Langevin(), h, name="cp-sgld")


def cp_sghmc(model: Model, h: float, alpha: float, strata: Strata, b: int,
             allocation: str | Sequence[int] = "neyman", replace: bool = False,
             resample_every: int | None = None) -> Sampler:
    """CP-SGHMC (Fu & Zhang Sec. 4.2): SGHMC (Chen et al. 2014 eq. 15) with the stratified estimator eq. (10)."""
    est = stratified_estimator(strata, b, allocation, replace)
    return Sampler(model, est, SGHMC(alpha, resample_every), h, name="cp-sghmc")


def sgrld(model: LDAModel, h: float, b: int, strata: Strata | None = None, allocation="neyman",
          replace: bool = False) -> Sampler:
    """SGRLD (Patterson & Teh 2013; strata None: a uniform size-b minibatch of documents) or CP-SGRLD (Fu & Zhang
    Sec. 4.3: given document clusters)."""
    if not isinstance(model, LDAModel):
        raise ParameterError(f"model must be an LDAModel, got {type(model).__name__}")
    if strata is None:
        strata = Strata.single(model.n_data)
        allocation = "proportional"
    est = Stratified(strata, tuple(allocate(strata, b, allocation).tolist()), replace)
    return Sampler(model, est, ExpandedMeanLangevin(), h, name="sgrld" if strata.k == 1 else "cp-sgrld")


__all__ = ["cp_sghmc", "cp_sgld", "euler", "msgld", "msgld_estimated_cov", "saga_ld", "sghmc", "sghmc_cv", "sgld",
           "sgld_cv", "sgrld", "svrgld", "ulmc", "vrsgld"]
