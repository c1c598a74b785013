"""The exact engine: the law of every sampler of the workbench on every model with an affine gradient.

``exact_law(sampler)`` reads the same :class:`simulate.Sampler` the simulator runs (model, gradient estimator,
integrator, h) and answers exactly: E theta_k and Cov theta_k for every k, the stationary law (per phase when it is
periodic), the mean-square spectral radius and stability limit in h, the MSE of time averages over any window, the
first terms of the expansion in h, and the same at 50 digits (mpmath). docs/engine.md derives the mathematics; the
modules:

  affine          reading a model's affine structure (P_i, r_i), the posterior
  noise           exact joint moments of minibatch sums per sampling scheme, as an operator
  stages          one random affine stage: its first and second moments
  kernel          the state layout and the periodic sequence of steps
  estimator_laws  each gradient estimator's law (full, minibatch, CV, SVRG / vrSG-MCMC, SAGA, stratified, reuse)
  integrator_laws each integrator's law (Langevin, no noise, mSGLD, SGHMC with refresh)
  contract        what a law returns (EstimatorLaw, IntegratorLaw, Core, Fluct, Layout, Context, Stage): public
  compose         the chain's kernel from the two laws, found by type through theory.law_of
  symmetric       coordinates on symmetric matrices (the upper triangle), their duals, congruences
  assembled       the moment maps as matrices on those coordinates (pair covariances by one product over the data)
  solve           stationary covariance with a certificate: one LU on the assembled map, or the operator route
  krylov          the operator route (Lyapunov-preconditioned Richardson / GMRES), Arnoldi for the spectral radius
  stability       the stability limit in h as a certified bracket
  preflight       check_stable: refuse a sampler past its mean-square stability limit before a run
  law             the ExactLaw object
  stability       check_stable(sampler): refuse an h past the mean-square limit before a run
  time_average    MSE of time averages of linear and quadratic observables, cost independent of the window
  quadratic       fourth moments of the chain (quadratic observables)
  expansion       series in h of the stationary mean and covariance (sympy or contour integral)
  mp              the same recursions in mpmath
"""

from . import estimator_laws, integrator_laws  # noqa: F401 - importing them registers the built-in laws
from .law import ExactLaw, exact_law
from .preflight import check_stable

__all__ = ["ExactLaw", "check_stable", "exact_law"]
