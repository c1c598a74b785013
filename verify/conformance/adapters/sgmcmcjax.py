"""SGMCMCJax (``sgmcmcjax.kernels``) as conformance adapters.

SGMCMCJax's parametrisation (sgmcmcjax/diffusions.py, gradient_estimation.py, kernels.py, release 0.2.13):

* gradient: ``build_grad_log_post`` = grad of logprior(theta) + N * mean_{batch} loglik(theta, x_i); minibatches
  ``random.choice(key, arange(N), shape=(n,))``: with replacement, a fresh one for every gradient;
* SGLD (``diffusions.sgld``): x' = x + dt g + sqrt(2 dt) xi, so h = 2 dt; the kernel stores the gradient at the
  current x (computed at the end of the previous call, or by ``init_fn``);
* SGLD-CV: ``build_gradient_estimation_fn_CV``: full gradient at the centre + batch difference (Baker et al.);
* SVRG-LD: ``build_gradient_estimation_fn_SVRG``: the anchor is reset when ``i % update_rate == 0`` while computing
  the gradient that the *next* call uses, and ``init_fn`` sets it at theta_0; so the anchor is set before calls
  0, 1, 1 + m, 1 + 2m, ... (``anchor_offset = 1``; Dubey et al.'s epochs start at 0, m, 2m: an index shift);
* SGHMC (``diffusions.sghmc``, Chen et al. App. G variables): x' = x + v, v' = v + dt g(x) - alpha v +
  sqrt(2 (alpha - beta) dt) xi, g computed before x moves (explicit Euler), v ~ sqrt(dt) N(0, 1) redrawn at the start
  of every call of L steps (``resample_momentum``), a fresh minibatch each inner step: workbench h = dt, alpha = alpha.

Chains: ``jit(vmap(kernel))`` over M chains, the call counter i shared (:class:`._jax.JaxChains`).
"""

from __future__ import annotations

from ..declared import Declared
from ..problems import Problem
from ._jax import JaxChains, import_sgmcmcjax


def _model(problem: Problem):
    kernels = import_sgmcmcjax()
    import jax.numpy as jnp

    s2, s02 = problem.sigma**2, problem.sigma0**2
    data = (jnp.asarray(problem.Z), jnp.asarray(problem.y))
    return (kernels, data, lambda th, z, y: -0.5 * (y - jnp.dot(z, th)) ** 2 / s2,
            lambda th: -0.5 * jnp.dot(th, th) / s02)


def _chains(name: str, dec: Declared, built) -> JaxChains:
    """JaxChains from an SGMCMCJax (init_fn, kernel(i, key, state), get_params) triple."""
    init_fn, kernel, get_params = built
    return JaxChains(name, dec, init_fn, kernel, get_params)


def sgmcmcjax_sgld(problem: Problem, h: float, n: int, theta_hat=None) -> JaxChains:
    """``build_sgld_kernel`` (or ``build_sgldCV_kernel`` around ``theta_hat``) with dt = h/2."""
    kernels, data, loglik, logprior = _model(problem)
    dt = h / 2
    conv = f"SGMCMCJax dt = h/2 = {dt:.4g}: x + dt g + sqrt(2 dt) xi"
    if theta_hat is None:
        built = kernels.build_sgld_kernel(dt, loglik, logprior, data, n)
        return _chains("SGMCMCJax SGLD", Declared("sgld", h=h, n=n, replace=True, convention=conv), built)
    import jax.numpy as jnp

    built = kernels.build_sgldCV_kernel(dt, loglik, logprior, data, n, jnp.asarray(theta_hat))
    dec = Declared("sgld_cv", h=h, n=n, replace=True, theta_hat=tuple(theta_hat), convention=conv)
    return _chains("SGMCMCJax SGLD-CV", dec, built)


def sgmcmcjax_svrg(problem: Problem, h: float, n: int, update_rate: int) -> JaxChains:
    """``build_sgld_SVRG_kernel`` with dt = h/2 and the anchor refreshed every ``update_rate`` calls."""
    kernels, data, loglik, logprior = _model(problem)
    dt = h / 2
    built = kernels.build_sgld_SVRG_kernel(dt, loglik, logprior, data, n, update_rate)
    dec = Declared("svrg_ld", h=h, n=n, replace=True, update_rate=update_rate, anchor_offset=1,
                   convention=f"SGMCMCJax dt = h/2 = {dt:.4g}; anchor set before calls 0, 1, 1 + m, ...")
    return _chains("SGMCMCJax SVRG-LD", dec, built)


def sgmcmcjax_sghmc(problem: Problem, h: float, alpha: float, n: int, L: int = 10) -> JaxChains:
    """``build_sghmc_kernel`` with dt = h, friction alpha and L steps per call."""
    kernels, data, loglik, logprior = _model(problem)
    built = kernels.build_sghmc_kernel(h, L, loglik, logprior, data, n, alpha=alpha)
    dec = Declared("sghmc", h=h, n=n, replace=True, alpha=alpha, order="explicit_euler", inner_steps=L,
                   momentum_refresh=True,
                   convention=f"SGMCMCJax dt = h = {h:.4g}, alpha = {alpha:.4g}, v ~ sqrt(dt) N(0, 1) per call")
    return _chains("SGMCMCJax SGHMC", dec, built)





def sgmcmcjax_baoab(problem: Problem, h: float, alpha: float, n: int, tau: float = 1.0,
                    released: bool = True) -> JaxChains:
    """BAOAB with dt = sqrt(h), gamma = alpha / dt and temperature ``tau``: ``build_baoab_kernel`` as released
    (``released=True``), or assembled from SGMCMCJax's own parts as its fix (PR #70, on master since 2023-10, not in
    a release) does: ``_build_langevin_kernel(init, (update1, update2), ...)`` with ``diffusions.baoab``."""
    import math

    kernels, data, loglik, logprior = _model(problem)
    dt = math.sqrt(h)
    gamma = alpha / dt
    if released:
        built = kernels.build_baoab_kernel(dt, loglik, logprior, data, n, gamma, tau)
    else:
        from sgmcmcjax.diffusions import baoab
        from sgmcmcjax.gradient_estimation import build_gradient_estimation_fn
        from sgmcmcjax.util import build_grad_log_post

        estimate, init_gradient = build_gradient_estimation_fn(build_grad_log_post(loglik, logprior, data), data, n)
        init_diff, (update1, update2), get_params = baoab(dt, gamma, tau)
        built = kernels._build_langevin_kernel(init_diff, (update1, update2), get_params, estimate, init_gradient)
    dec = Declared("baoab", h=h, n=n, replace=True, alpha=alpha, v0_var=0.0, temperature=tau,
                   convention=f"SGMCMCJax dt = sqrt(h) = {dt:.4g}, gamma = alpha/dt = {gamma:.4g}, tau = {tau:g}, "
                              "v = 0 at init" + ("" if released else "; kernel assembled as in PR #70"))
    return _chains("SGMCMCJax BAOAB" + ("" if released else " (PR #70)"), dec, built)
__all__ = ["sgmcmcjax_baoab", "sgmcmcjax_sghmc", "sgmcmcjax_sgld", "sgmcmcjax_svrg"]
