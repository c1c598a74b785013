"""blackjax (``blackjax.sgld``, ``blackjax.sghmc``, ``blackjax.sgmcmc.gradients``) as conformance adapters.

blackjax's parametrisation (blackjax/sgmcmc/diffusions.py, gradients.py, release 1.x):

* gradient: ``grad_estimator(logprior, loglik, N)`` = grad of logprior(theta) + N * mean_{batch} loglik(theta, x_i):
  the scaled minibatch estimate of grad log posterior; ``control_variates(est, theta_hat, data)`` adds Baker et
  al.'s control variate (the full-data estimate at theta_hat, minus the batch estimate at theta_hat);
* SGLD (``overdamped_langevin``): theta' = theta + eps g + sqrt(2 T eps) xi, so the workbench h = 2 eps (T = 1);
* SGHMC (``diffusions.sghmc``, Ma et al. scaling): x' = x + eps p, p' = (1 - alpha eps) p + eps g(x) +
  sqrt(eps T (2 alpha - eps T beta)) xi, with g computed *before* x moves (explicit Euler), p ~ N(0, I) redrawn at
  every ``step`` call, and the call's one minibatch used for all ``num_integration_steps`` = L inner steps. With
  v = eps p this is the workbench's explicit-Euler SGHMC with h = eps^2, alpha_wb = alpha eps (beta = 0, T = 1).
* minibatches are the user's: the sampling book (models/mlp.md, ``batch_data``) draws
  ``jax.random.choice(key, N, (n,))``, with replacement, a fresh batch for every call; so do these adapters.

Chains: ``jit(vmap(step))`` over M chains (:class:`._jax.JaxChains`).
"""

from __future__ import annotations

import math

from ..declared import Declared
from ..problems import Problem
from ._jax import JaxChains, Unavailable, jax_x64


def _blackjax():
    jax = jax_x64()
    try:
        import blackjax
    except ImportError as e:
        raise Unavailable(f"blackjax is not installed ({e}); pip install -e '.[bench]'") from None
    return jax, blackjax


def _model(problem: Problem):
    """(Z, y, logprior, loglik) in JAX; loglik takes one datum (z, y) as blackjax's estimators vmap over the batch."""
    jax, _ = _blackjax()
    jnp = jax.numpy
    Z, y = jnp.asarray(problem.Z), jnp.asarray(problem.y)
    s2, s02 = problem.sigma**2, problem.sigma0**2
    def logprior(th):
        return -0.5 * jnp.dot(th, th) / s02

    def loglik(th, zy):
        return -0.5 * (zy[1] - jnp.dot(zy[0], th)) ** 2 / s2

    return Z, y, logprior, loglik


def blackjax_sgld(problem: Problem, h: float, n: int, theta_hat=None, temperature: float = 1.0) -> JaxChains:
    """M chains of ``blackjax.sgld`` with ``step_size = h/2`` (SGLD-CV around ``theta_hat`` when given)."""
    jax, blackjax = _blackjax()
    Z, y, logprior, loglik = _model(problem)
    N = problem.n_data
    grad_fn = blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, N)
    if theta_hat is not None:
        grad_fn = blackjax.sgmcmc.gradients.control_variates(grad_fn, jax.numpy.asarray(theta_hat), (Z, y))
    sgld, eps = blackjax.sgld(grad_fn), h / 2

    def step(i, key, theta):
        k_batch, k_step = jax.random.split(key)
        idx = jax.random.choice(k_batch, N, (n,))  # the sampling book's batch_data: with replacement
        return sgld.step(k_step, theta, (Z[idx], y[idx]), eps, temperature)

    alg = "sgld" if theta_hat is None else "sgld_cv"
    dec = Declared(alg, h=h, n=n, replace=True, theta_hat=None if theta_hat is None else tuple(theta_hat),
                   temperature=temperature,
                   convention=f"blackjax step_size eps = h/2 = {eps:.4g}: theta + eps g + sqrt(2 eps) xi")
    return JaxChains(f"blackjax {'SGLD' if theta_hat is None else 'SGLD-CV'}", dec, lambda key, th: th, step)


def blackjax_sghmc(problem: Problem, h: float, alpha: float, n: int, num_integration_steps: int = 10,
                   temperature: float = 1.0) -> JaxChains:
    """M chains of ``blackjax.sghmc`` with step_size eps = sqrt(h) and friction alpha / eps (workbench h, alpha)."""
    jax, blackjax = _blackjax()
    Z, y, logprior, loglik = _model(problem)
    N = problem.n_data
    eps = math.sqrt(h)
    grad_fn = blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, N)
    sghmc = blackjax.sghmc(grad_fn, num_integration_steps=num_integration_steps, alpha=alpha / eps, beta=0.0)

    def step(i, key, theta):
        k_batch, k_step = jax.random.split(key)
        idx = jax.random.choice(k_batch, N, (n,))
        return sghmc.step(k_step, theta, (Z[idx], y[idx]), eps, temperature)

    dec = Declared("sghmc", h=h, n=n, replace=True, alpha=alpha, order="explicit_euler", temperature=temperature,
                   inner_steps=num_integration_steps, momentum_refresh=True, minibatch_per_call=True,
                   convention=f"blackjax step_size eps = sqrt(h) = {eps:.4g}, alpha_bj = alpha/eps = {alpha / eps:.4g}"
                              ", p ~ N(0, I) per call, v = eps p")
    return JaxChains("blackjax SGHMC", dec, lambda key, th: th, step)


__all__ = ["blackjax_sghmc", "blackjax_sgld"]
