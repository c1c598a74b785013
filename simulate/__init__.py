"""Vectorized many-chain simulator for SG-MCMC samplers (chains are an array axis)."""

from .conventions import from_chen_step, to_chen_step
from .estimators import FullGradient, Minibatch
from .integrators import Langevin, ModifiedLangevin
from .models import GaussianMeanModel, Model
from .runner import RunResult, block_rng, run
from .sampler import Sampler, SamplerState, euler, msgld, sgld
from .validation import ParameterError

__all__ = [
    "FullGradient", "GaussianMeanModel", "Langevin", "Minibatch", "Model", "ModifiedLangevin",
    "ParameterError", "RunResult", "Sampler", "SamplerState", "block_rng", "euler", "from_chen_step",
    "msgld", "run", "sgld", "to_chen_step",
]

# Bayesian logistic regression (Vollmer et al. Section 7) and the Remark 7 estimated-covariance mSGLD
from .covariance_estimators import (  # noqa: E402
    CovEstimate,
    EstimatedCovMinibatch,
    EstimatedCovSampler,
    estimated_covariance,
    msgld_estimated_cov,
)
from .datasets import breast_cancer_model  # noqa: E402
from .logistic import (  # noqa: E402
    LogisticRegressionModel,
    laplace_cv_run,
    mala,
    mala_reference,
    posterior_moments_quadrature,
)

__all__ += [
    "CovEstimate", "EstimatedCovMinibatch", "EstimatedCovSampler", "LogisticRegressionModel", "breast_cancer_model",
    "estimated_covariance", "laplace_cv_run", "mala", "mala_reference", "msgld_estimated_cov",
    "posterior_moments_quadrature",
]

# 1-D potential targets pi ∝ exp(-U) and additive Gaussian gradient noise (Vollmer et al. Sections 3-4)
from .potentials import AdditiveNoise, ChainDivergedError, PotentialModel, double_well, quartic  # noqa: E402

__all__ += ["AdditiveNoise", "ChainDivergedError", "PotentialModel", "double_well", "quartic"]
