"""Vectorized many-chain simulator for SG-MCMC samplers (chains are an array axis).

A sampler is an integrator composed with a gradient estimator on a model (:mod:`simulate.contracts`):

    models/        Gaussian mean, linear and logistic regression, 1-D potentials, Baker et al.'s toys, LDA
    estimators/    full gradient, minibatch, control variate, vr / SVRG, SAGA, stratified, Remark 7, additive noise
    integrators/   Langevin (SGLD, any temperature), mSGLD, SGHMC, explicit-Euler SGHMC, BAOAB, SGRLD
    samplers.py    every named sampler: sgld, msgld, sgld_cv, svrgld, vrsgld, saga_ld, sghmc, cp_sgld, ...
    runtime/       run(): M chains in blocks with their own random streams; threads, drawing ahead, Dask
    analysis/      KL, ZV, divide-and-conquer, reference posteriors (MALA, quadrature), ArviZ export
    _fast/         private speed code, reached through two doors (draws, kernels)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

from .affine import AffineModel, AffineParts
from .analysis import (
    consensus,
    ess,
    gaussian_kl,
    kdemc,
    knn_kl_divergence,
    laplace_cv_run,
    mala,
    mala_reference,
    posterior_moments_quadrature,
    reference_draws,
    run_with_gradients,
    sg_draws,
    subposterior_draws,
    to_inference_data,
    weierstrass,
    zv_coefficients,
    zv_controls,
    zv_estimate,
    zv_from_model,
)
from .contracts import GradientEstimator, Integrator
from .conventions import from_chen_step, to_chen_step
from .estimators import (
    SAGA,
    SVRG,
    AdditiveNoise,
    ControlVariate,
    CovEstimate,
    EstimatedCovMinibatch,
    FullGradient,
    Minibatch,
    Reused,
    ReuseState,
    SAGAState,
    Strata,
    Stratified,
    VRMinibatch,
    VRState,
    allocate,
    control_variate,
    estimated_covariance,
    kmeans_strata,
    sgd_mode,
    stratified_estimator,
)
from .integrators import SGHMC, Langevin, ModifiedLangevin, SGHMCState, UnderdampedLangevinMC
from .models import (
    BivariateTLocation,
    ChainDivergedError,
    GaussianLocation,
    GaussianMeanModel,
    GaussianMixtureLocation,
    LDAModel,
    LinearRegressionModel,
    LogisticRegressionModel,
    Model,
    PotentialModel,
    WarpedGaussian,
    breast_cancer_model,
    document_strata,
    double_well,
    quartic,
    synthetic_lda_corpus,
    topic_error,
)
from .runtime import RunResult, StepHook, block_rng, run
from .runtime.distributed import run_distributed, run_many
from .sampler import Sampler, SamplerState
from .samplers import (
    cp_sghmc,
    cp_sgld,
    euler,
    msgld,
    msgld_estimated_cov,
    saga_ld,
    sghmc,
    sghmc_cv,
    sgld,
    sgld_cv,
    sgrld,
    svrgld,
    ulmc,
    vrsgld,
)
from .validation import ParameterError

__all__ = [
    "AffineModel", "AffineParts", "ReuseState", "Reused",
    "AdditiveNoise", "ChainDivergedError", "CovEstimate", "EstimatedCovMinibatch", "FullGradient",
    "GaussianMeanModel", "GradientEstimator", "Integrator", "Langevin", "LogisticRegressionModel", "Minibatch",
    "Model", "ModifiedLangevin", "ParameterError", "PotentialModel", "RunResult", "Sampler", "SamplerState",
    "StepHook", "block_rng", "breast_cancer_model", "double_well", "estimated_covariance", "euler", "from_chen_step",
    "laplace_cv_run", "mala", "mala_reference", "msgld", "msgld_estimated_cov", "posterior_moments_quadrature",
    "quartic", "run", "sgld", "to_chen_step",
    "SVRG", "VRMinibatch", "VRState", "svrgld", "vrsgld",
    # Baker et al.: control variates, SAGA, ZV, SGHMC, Sec. 3 toys and divide-and-conquer
    "ControlVariate", "LinearRegressionModel", "SAGA", "SAGAState", "SGHMC", "SGHMCState", "control_variate",
    "run_with_gradients", "saga_ld", "sgd_mode", "sghmc", "sghmc_cv", "sgld_cv", "zv_coefficients", "zv_controls",
    "zv_estimate", "zv_from_model",
    "BivariateTLocation", "GaussianLocation", "GaussianMixtureLocation", "WarpedGaussian", "consensus",
    "gaussian_kl", "kdemc", "knn_kl_divergence", "reference_draws", "sg_draws", "subposterior_draws", "weierstrass",
    # Fu & Zhang: stratified minibatches, SGRLD; ArviZ export
    "LDAModel", "Strata", "Stratified", "allocate", "cp_sghmc", "cp_sgld", "document_strata", "kmeans_strata",
    "sgrld", "stratified_estimator", "synthetic_lda_corpus", "topic_error", "ess", "to_inference_data",
    # chain blocks on Dask (bit-identical to one process)
    "run_distributed", "run_many",
    # Cheng et al. (2018): underdamped Langevin MCMC (CV-ULD with a control-variate estimator)
    "UnderdampedLangevinMC", "ulmc",
    # affine models (read by the exact engine) and the K-step minibatch reuse
    "AffineModel", "AffineParts", "ReuseState", "Reused",
]


# Module paths of the previous release's flat layout, kept for one release: importing one warns with the new place
# and resolves its names there. (simulate.sghmc and simulate.sgrld are not kept: they are the sampler functions, and
# an alias module would replace the function on the package; import from simulate.integrators / simulate.models.)
_MOVED = {
    "control_variates": ("estimators.control_variates", "samplers"),
    "covariance_estimators": ("estimators.estimated_cov", "samplers"),
    "datasets": ("models.datasets",),
    "distributed": ("runtime.distributed",),
    "divide_conquer": ("analysis.divide_conquer",),
    "inference_data": ("analysis.inference_data",),
    "kl": ("analysis.kl",),
    "linear_regression": ("models.linear_regression",),
    "logistic": ("models.logistic", "analysis.reference"),
    "pipeline": ("runtime.pipeline",),
    "potentials": ("models.potentials", "estimators.additive_noise"),
    "runner": ("runtime.runner", "runtime.blocks"),
    "saga": ("estimators.saga", "integrators.langevin", "samplers"),
    "stratified": ("estimators.stratified", "samplers"),
    "subsample": ("estimators.subsample",),
    "toy_targets": ("models.toy_targets",),
    "vr": ("estimators.vr", "samplers"),
    "zv": ("analysis.zv",),
}


class _MovedModule(types.ModuleType):
    """Stands for a module of the old layout: attributes are looked up in the modules that now hold them."""

    def __init__(self, name: str, targets: tuple[str, ...]) -> None:
        super().__init__(name)
        self.__targets = tuple(f"{__name__}.{t}" for t in targets)

    def __getattr__(self, item: str):
        for target in self.__targets:
            mod = importlib.import_module(target)
            if hasattr(mod, item):
                return getattr(mod, item)
        raise AttributeError(f"module {self.__name__!r} (moved to {', '.join(self.__targets)}) has no {item!r}")


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        head, _, tail = fullname.partition(".")
        if head == __name__ and tail in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return _MovedModule(spec.name, _MOVED[spec.name.partition(".")[2]])

    def exec_module(self, module) -> None:
        new = ", ".join(f"{__name__}.{t}" for t in _MOVED[module.__name__.partition(".")[2]])
        warnings.warn(f"{module.__name__} moved to {new}; the old path works for this release only",
                      DeprecationWarning, stacklevel=2)


if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
    sys.meta_path.append(_MovedFinder())
