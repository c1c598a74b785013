"""Vectorized many-chain simulator for SG-MCMC samplers (chains are an array axis)."""

from .affine import AffineModel, AffineParts
from .control_variates import ControlVariate, control_variate, sgd_mode, sghmc_cv, sgld_cv
from .conventions import from_chen_step, to_chen_step
from .covariance_estimators import (
    CovEstimate,
    EstimatedCovMinibatch,
    EstimatedCovSampler,
    estimated_covariance,
    msgld_estimated_cov,
)
from .datasets import breast_cancer_model
from .distributed import run_distributed, run_many
from .divide_conquer import consensus, kdemc, reference_draws, sg_draws, subposterior_draws, weierstrass
from .estimators import FullGradient, Minibatch
from .inference_data import ess, to_inference_data
from .integrators import Langevin, ModifiedLangevin
from .kl import gaussian_kl, knn_kl_divergence
from .linear_regression import LinearRegressionModel
from .logistic import LogisticRegressionModel, laplace_cv_run, mala, mala_reference, posterior_moments_quadrature
from .models import GaussianMeanModel, Model
from .potentials import AdditiveNoise, ChainDivergedError, PotentialModel, double_well, quartic
from .reuse import Reused, ReuseState
from .runner import RunResult, block_rng, run
from .saga import SAGA, SAGAState, saga_ld
from .sampler import Sampler, SamplerState, euler, msgld, sgld
from .sghmc import SGHMC, SGHMCState, sghmc
from .sgrld import LDAModel, document_strata, sgrld, synthetic_lda_corpus, topic_error
from .stratified import Strata, Stratified, allocate, cp_sghmc, cp_sgld, kmeans_strata, stratified_estimator
from .toy_targets import BivariateTLocation, GaussianLocation, GaussianMixtureLocation, WarpedGaussian
from .validation import ParameterError
from .vr import SVRG, VRMinibatch, VRState, svrgld, vrsgld
from .zv import run_with_gradients, zv_coefficients, zv_controls, zv_estimate, zv_from_model

__all__ = [
    "AdditiveNoise", "ChainDivergedError", "CovEstimate", "EstimatedCovMinibatch", "EstimatedCovSampler",
    "FullGradient", "GaussianMeanModel", "Langevin", "LogisticRegressionModel", "Minibatch", "Model",
    "ModifiedLangevin", "ParameterError", "PotentialModel", "RunResult", "Sampler", "SamplerState",
    "block_rng", "breast_cancer_model", "double_well", "estimated_covariance", "euler", "from_chen_step",
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
    # affine models (read by the exact engine) and the K-step minibatch reuse
    "AffineModel", "AffineParts", "ReuseState", "Reused",
]
