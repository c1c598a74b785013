"""A paper's chain on a Gaussian target with a theta-free gradient noise of given covariance, as a simulator sampler.

Fu & Zhang's stratified noise on the Gaussian mean model and the SGHMC law of Chen et al. on a Gaussian posterior are
chains whose gradient estimate is the exact gradient plus a noise of fixed covariance, independent of the state. Each
is the simulator's sampler with the :class:`simulate.AdditiveNoise` estimator on a model whose posterior is that
Gaussian, so its exact law is the engine's: ``theory.exact_law(additive_noise_sampler(P, h, Sigma_g, integrator))``
(the stationary covariance is its ``stationary_cov()``). The model: one datum x_1 = 0 ~ N(theta, P^{-1}) under a
flat prior (:class:`simulate.GaussianMeanModel`), whose posterior is N(0, P^{-1}) (the mean does not enter a
covariance).
"""

from __future__ import annotations

import numpy as np

from simulate.estimators.additive_noise import AdditiveNoise
from simulate.models.gaussian import GaussianMeanModel
from simulate.sampler import Sampler
from simulate.validation import ParameterError, check_finite_array


def gaussian_target(precision, name: str = "precision") -> GaussianMeanModel:
    """A model whose posterior is N(0, precision^{-1}) (module docstring).

    Parameters
    ----------
    precision : float or array_like, shape (d, d)
        A positive number in 1-D or a symmetric positive definite matrix.
    name : str
        The parameter's name in error messages.

    Returns
    -------
    GaussianMeanModel
        One datum at 0 with Sigma = precision^{-1} and a flat prior.

    Raises
    ------
    ParameterError
        Unless ``precision`` is a symmetric positive definite (d, d) matrix (a positive number in 1-D).
    """
    P = np.atleast_2d(check_finite_array(name, precision, ndim=(0, 1, 2)).astype(np.float64))
    d = P.shape[0]
    if P.shape != (d, d) or not np.allclose(P, P.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(P).max())):
        raise ParameterError(f"{name} must be a positive number or a symmetric (d, d) matrix, got shape {P.shape}")
    P = 0.5 * (P + P.T)
    if np.linalg.eigvalsh(P)[0] <= 0.0:
        raise ParameterError(f"{name} must be positive definite (the target N(mu, {name}^-1) is a proper Gaussian)")
    S = np.linalg.inv(P)
    return GaussianMeanModel(np.zeros((1, d)), Sigma=0.5 * (S + S.T), sigma0=None)


def additive_noise_sampler(precision, h: float, noise_cov, integrator) -> Sampler:
    """``integrator`` with the full gradient plus N(0, noise_cov) noise on N(0, precision^{-1}), step size h.

    Parameters
    ----------
    precision : float or array_like, shape (d, d)
        The target's precision P (:func:`gaussian_target`).
    h : float
        The step size (the integrator's convention: h for SGLD, the learning rate eta for SGHMC).
    noise_cov : float or array_like, shape (d, d)
        The covariance of the gradient noise.
    integrator : simulate.contracts.Integrator
        E.g. ``Langevin()`` (SGLD) or ``SGHMC(alpha)`` (Chen et al. 2014 eq. 15, M = I, beta_hat = 0).

    Returns
    -------
    simulate.Sampler
        The chain; ``theory.exact_law(sampler)`` is its exact law.

    Raises
    ------
    ParameterError
        For a bad precision, a noise covariance of another shape, or an unstable step size.
    """
    model = gaussian_target(precision)
    Sg = np.atleast_2d(np.asarray(noise_cov, dtype=np.float64))
    if Sg.shape != (model.dim, model.dim):
        raise ParameterError(f"noise_cov must have shape ({model.dim}, {model.dim}) like the precision, got {Sg.shape}")
    return Sampler(model, AdditiveNoise(Sg), integrator, h)


__all__ = ["additive_noise_sampler", "gaussian_target"]
