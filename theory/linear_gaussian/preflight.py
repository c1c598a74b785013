"""Before a run: is the sampler's step size inside the exact engine's mean-square stability limit?

The simulator refuses h at or past its integrator's step bound (h < 4/L for a Langevin step), which is the limit of
the chain's mean. The chain's second moments diverge at a smaller h wherever the gradient noise grows with theta
(minibatch noise on a regression: on scikit-learn's diabetes regression SGLD with n = 10 of N = 442 has its
mean-square limit near 3.5/L), and a run there produces chains with ever larger excursions and no stationary
variance. The exact engine knows that limit on every model with an affine gradient; :func:`check_stable` asks it.
"""

from __future__ import annotations

from simulate.validation import ParameterError

from .law import exact_law


def check_stable(sampler, rtol: float = 1e-6) -> float:
    """Refuse a sampler whose step size is at or past the exact engine's mean-square stability limit.

    Parameters
    ----------
    sampler : simulate.Sampler
        The sampler about to be run, on a model with an affine gradient (Gaussian mean, linear regression, ...).
    rtol : float, optional
        Relative precision of the limit (bisection on the spectral radius of the second-moment recursion).

    Returns
    -------
    float
        The mean-square stability limit h* (the chain's second moments converge for 0 < h < h*); the sampler's h
        is below it.

    Raises
    ------
    simulate.validation.ParameterError
        When ``sampler.h >= h*``: the message names h, h* (also in units of 1/L) and the simulator's own bound,
        which is the limit of the mean. Also when the model has no affine gradient (no exact law: there
        :func:`simulate.run` detects divergence while it runs).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (18): on their Gaussian toy the stationary variance
    (1 + h Var(B)) / (2A - A^2 h) is finite iff h < 2/A, where the mean's and the variance's limits coincide
    because the gradient noise does not depend on theta. Where it does (minibatches on a regression) the limit is
    the spectral radius of the engine's second-moment recursion reaching 1 (new; the engine's derivation,
    "Stability").
    """
    law = exact_law(sampler)
    rho = law.spectral_radius()
    limit = law.stability_limit(rtol)
    if rho < 1.0 and sampler.h < limit:
        return limit
    L = sampler.model.grad_lipschitz
    per_L = f" = {limit * L:.4g}/L" if L else ""
    mean_bound = ""
    if L is not None:
        h_max, _ = sampler.integrator.step_bound(L)
        mean_bound = (f"; the simulator's own check, h < {h_max:.6g}{f' = {h_max * L:.4g}/L'}, is the limit of the "
                      "chain's mean, not of its variance")
    raise ParameterError(
        f"h = {sampler.h:.6g} is past the mean-square stability limit h* = {limit:.6g}{per_L} of {sampler.name} on "
        f"this model (the exact engine: spectral radius {rho:.6g} >= 1 at this h, so the chain's second moments "
        f"grow without bound and there is no stationary variance){mean_bound}. Use 0 < h < {limit:.6g}.")


__all__ = ["check_stable"]
