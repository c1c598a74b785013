"""Tools applied to samples, not samplers: ``kl`` (k-NN and Gaussian KL divergence), ``zv`` (zero-variance control
variates), ``divide_conquer`` (consensus, KDEMC, Weierstrass over subposteriors), ``reference`` (quadrature, MALA and
the Laplace control variate for logistic regression), ``inference_data`` (ArviZ export, ESS)."""

from .divide_conquer import consensus, kdemc, reference_draws, sg_draws, subposterior_draws, weierstrass
from .inference_data import ess, to_inference_data
from .kl import gaussian_kl, knn_kl_divergence
from .reference import laplace_cv_run, mala, mala_reference, posterior_moments_quadrature
from .zv import run_with_gradients, zv_coefficients, zv_controls, zv_estimate, zv_from_model

__all__ = [
    "consensus", "ess", "gaussian_kl", "kdemc", "knn_kl_divergence", "laplace_cv_run", "mala", "mala_reference",
    "posterior_moments_quadrature", "reference_draws", "run_with_gradients", "sg_draws", "subposterior_draws",
    "to_inference_data", "weierstrass", "zv_coefficients", "zv_controls", "zv_estimate", "zv_from_model",
]
