"""The samplers behind this package's per-paper stationary laws, built so that each law is an engine call.

A paper's chain on a Gaussian target with a theta-free gradient noise of given covariance (Fu & Zhang's stratified
noise, the SGHMC law of Chen et al. on a Gaussian posterior) is the simulator's sampler with the
:class:`simulate.AdditiveNoise` estimator on a model whose posterior is that Gaussian; its exact law is
``theory.linear_gaussian.exact_law(sampler)``. The model: one datum x_1 = 0 ~ N(theta, P^{-1}) under a flat prior
(:class:`simulate.GaussianLocation`), whose posterior is N(0, P^{-1}) (the mean does not enter a covariance).
"""

from __future__ import annotations

import numpy as np

from simulate.estimators.additive_noise import AdditiveNoise
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.models.toy_targets import GaussianLocation
from simulate.sampler import Sampler
from simulate.validation import ParameterError, check_finite_array
from theory.linear_gaussian import ExactLaw, exact_law


def gaussian_target(precision, name: str = "precision") -> GaussianLocation:
    """A model whose posterior is N(0, precision^{-1}) (module docstring); ParameterError naming ``name`` unless
    ``precision`` is a symmetric positive definite (d, d) matrix (a positive number in 1-D)."""
    P = np.atleast_2d(check_finite_array(name, precision, ndim=(0, 1, 2)).astype(np.float64))
    d = P.shape[0]
    if P.shape != (d, d) or not np.allclose(P, P.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(P).max())):
        raise ParameterError(f"{name} must be a positive number or a symmetric (d, d) matrix, got shape {P.shape}")
    P = 0.5 * (P + P.T)
    if np.linalg.eigvalsh(P)[0] <= 0.0:
        raise ParameterError(f"{name} must be positive definite (the target N(mu, {name}^-1) is a proper Gaussian)")
    S = np.linalg.inv(P)
    return GaussianLocation(np.zeros((1, d)), Sigma=0.5 * (S + S.T))


def additive_noise_law(precision, h: float, noise_cov, integrator) -> ExactLaw:
    """The exact law of ``integrator`` with the full gradient plus N(0, noise_cov) noise on N(0, precision^{-1})."""
    model = gaussian_target(precision)
    Sg = np.atleast_2d(np.asarray(noise_cov, dtype=np.float64))
    if Sg.shape != (model.dim, model.dim):
        raise ParameterError(f"noise_cov must have shape ({model.dim}, {model.dim}) like the precision, got {Sg.shape}")
    return exact_law(Sampler(model, AdditiveNoise(Sg), integrator, h))


def sgld_law(precision, h: float, noise_cov) -> ExactLaw:
    """SGLD (workbench step theta' = theta + (h/2) g + sqrt(h) xi) with additive noise of covariance noise_cov."""
    return additive_noise_law(precision, h, noise_cov, Langevin())


def sghmc_law(precision, h: float, alpha: float, noise_cov) -> ExactLaw:
    """SGHMC (Chen et al. 2014 eq. 15, M = I, beta_hat = 0; learning rate h, friction alpha, no momentum refresh)
    with additive noise of covariance noise_cov."""
    return additive_noise_law(precision, h, noise_cov, SGHMC(alpha))


__all__ = ["additive_noise_law", "gaussian_target", "sghmc_law", "sgld_law"]
