"""Vectorized many-chain simulator for SG-MCMC samplers (chains are an array axis).

A sampler is an integrator composed with a gradient estimator on a model (:mod:`simulate.contracts`):

    models/        Gaussian mean (any Sigma), linear and logistic regression, 1-D potentials, Baker et al.'s toys, LDA
    estimators/    full gradient, minibatch, control variate, vr / SVRG, SAGA, stratified, Remark 7, additive noise
    integrators/   Langevin (SGLD, any temperature), mSGLD, SGHMC, explicit-Euler SGHMC, BAOAB, SGRLD
    samplers.py    every named sampler: sgld, msgld, sgld_cv, svrgld, vrsgld, saga_ld, sghmc, cp_sgld, ...
    runtime/       run(): M chains in blocks with their own random streams; threads, drawing ahead, Dask
    analysis/      KL, ZV, divide-and-conquer, reference posteriors (MALA, quadrature), ArviZ export
    _fast/         private speed code, reached through two doors (draws, kernels)
"""

from __future__ import annotations

from . import samplers as _samplers
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
from .contracts import GradientEstimator, Integrator, Model
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
    GaussianMeanModel,
    GaussianMixtureLocation,
    LDAModel,
    LinearRegressionModel,
    LogisticRegressionModel,
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
from .samplers import *  # noqa: F403 - every named sampler, one line each (appended to __all__ below)
from .validation import ChainDivergedError, ParameterError

__all__ = [
    "AdditiveNoise", "ChainDivergedError", "CovEstimate", "EstimatedCovMinibatch", "FullGradient",
    "GaussianMeanModel", "GradientEstimator", "Integrator", "Langevin", "LogisticRegressionModel", "Minibatch",
    "Model", "ModifiedLangevin", "ParameterError", "PotentialModel", "RunResult", "Sampler", "SamplerState",
    "StepHook", "block_rng", "breast_cancer_model", "double_well", "estimated_covariance", "from_chen_step",
    "laplace_cv_run", "mala", "mala_reference", "posterior_moments_quadrature",
    "quartic", "run", "to_chen_step",
    "SVRG", "VRMinibatch", "VRState",
    # Baker et al.: control variates, SAGA, ZV, SGHMC, Sec. 3 toys and divide-and-conquer
    "ControlVariate", "LinearRegressionModel", "SAGA", "SAGAState", "SGHMC", "SGHMCState", "control_variate",
    "run_with_gradients", "sgd_mode", "zv_coefficients", "zv_controls",
    "zv_estimate", "zv_from_model",
    "BivariateTLocation", "GaussianMixtureLocation", "WarpedGaussian", "consensus",
    "gaussian_kl", "kdemc", "knn_kl_divergence", "reference_draws", "sg_draws", "subposterior_draws", "weierstrass",
    # Fu & Zhang: stratified minibatches, SGRLD; ArviZ export
    "LDAModel", "Strata", "Stratified", "allocate", "document_strata", "kmeans_strata",
    "stratified_estimator", "synthetic_lda_corpus", "topic_error", "ess", "to_inference_data",
    # chain blocks on Dask (bit-identical to one process)
    "run_distributed", "run_many",
    # Cheng et al. (2018): underdamped Langevin MCMC (the sampler ulmc is in samplers.py)
    "UnderdampedLangevinMC",
    # affine models (read by the exact engine) and the K-step minibatch reuse
    "AffineModel", "AffineParts", "ReuseState", "Reused",
]
__all__ += [name for name in _samplers.__all__ if name not in __all__]  # a new sampler is one line in samplers.py

