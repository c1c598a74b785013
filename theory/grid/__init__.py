"""Exact answers beyond linear-Gaussian models: the law of any sampler on any 1-D or 2-D posterior.

``grid_law(sampler)`` discretises the sampler's one-step kernel on a periodic grid in whitened coordinates and
returns its law: stationary expectations and density, expectations after k steps, the MSE of time averages for any
window, the first-order coefficient in h, each with an error estimate from grid refinement (docs/grid_law.md).

    grid         the grid and its Fourier lattice
    region       where the grid goes (the posterior's region and frame)
    minibatch    the exact law of a minibatch sum (characteristic function; enumeration, with replacement,
                 Newton's identities with an error bound)
    gradient_laws  each estimator's gradient law (route "grid" of theory.laws)
    kernels      each integrator's conditional law and the transition matrix
    chain        the linear algebra of the discretised chain (stationary law, closed sums)
    law          GridLaw and grid_law
    refusal      GridRefusal: the settings at which the grid route has no answer
"""

from . import gradient_laws, kernels  # noqa: F401  (registers the laws on the route "grid")
from .law import GridLaw, GridTimeAverage, Result, grid_law
from .refusal import GridRefusal

__all__ = ["GridLaw", "GridRefusal", "Result", "GridTimeAverage", "grid_law"]
