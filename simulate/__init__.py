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
