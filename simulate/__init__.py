"""Vectorized many-chain simulator for SG-MCMC samplers (chains are an array axis)."""

from .conventions import from_chen_step, to_chen_step
from .covariance_estimators import (
    CovEstimate,
    EstimatedCovMinibatch,
    EstimatedCovSampler,
    estimated_covariance,
    msgld_estimated_cov,
)
from .datasets import breast_cancer_model
from .estimators import FullGradient, Minibatch
from .integrators import Langevin, ModifiedLangevin
from .logistic import LogisticRegressionModel, laplace_cv_run, mala, mala_reference, posterior_moments_quadrature
from .models import GaussianMeanModel, Model
from .potentials import AdditiveNoise, ChainDivergedError, PotentialModel, double_well, quartic
from .runner import RunResult, block_rng, run
from .sampler import Sampler, SamplerState, euler, msgld, sgld
from .validation import ParameterError
from .vr import SVRG, VRMinibatch, VRState, svrgld, vrsgld

__all__ = [
    "AdditiveNoise", "ChainDivergedError", "CovEstimate", "EstimatedCovMinibatch", "EstimatedCovSampler",
    "FullGradient", "GaussianMeanModel", "Langevin", "LogisticRegressionModel", "Minibatch", "Model",
    "ModifiedLangevin", "ParameterError", "PotentialModel", "RunResult", "Sampler", "SamplerState",
    "block_rng", "breast_cancer_model", "double_well", "estimated_covariance", "euler", "from_chen_step",
    "laplace_cv_run", "mala", "mala_reference", "msgld", "msgld_estimated_cov", "posterior_moments_quadrature",
    "quartic", "run", "sgld", "to_chen_step",
    "SVRG", "VRMinibatch", "VRState", "svrgld", "vrsgld",
]
