"""posteriors (``posteriors.sgmcmc.sgld``, ``posteriors.sgmcmc.sghmc``, on torch) as conformance adapters.

posteriors' parametrisation (posteriors/sgmcmc/sgld.py, sghmc.py, docs/log_posteriors.md, release 0.1.3):

* the docs ask for a log posterior *averaged* over the batch, log prior / N + mean_batch log lik, with
  ``temperature = 1/N``; the adapters do exactly that (the gradient g of that average is grad log posterior / N);
* SGLD: theta' = theta + lr g + sqrt(T lr (2 - T lr beta)) xi; with T = 1/N, beta = 0 this is
  theta + (lr/N) grad log post + sqrt(2 lr/N) xi, so the workbench h = 2 lr / N;
* SGHMC: theta' = theta + lr sigma^-2 m, m' = m + lr g(theta) - lr sigma^-2 alpha m + sqrt(T lr (2 alpha - T lr
  beta)) xi, the gradient at the position *before* it moves (explicit Euler, as its docstring writes it), momenta
  N(0, 1) at ``init`` and never redrawn. With v = lr sigma^-2 m: h = lr^2 sigma^-2 / N, alpha_wb = lr sigma^-2 alpha,
  and the initial momentum variance of v is lr^2 sigma^-4 (beta = 0, T = 1/N);
* minibatches are the user's: the docs' ``DataLoader(shuffle=True)`` reshuffles the data every epoch and cuts it into
  disjoint batches (``epochs=True``; exact law on the 1-D toy), or every chain draws a uniform n-subset afresh at
  every step (the law of one such batch; the default, exact on any linear-Gaussian problem).

Chains: the transform runs on a params tensor of shape (M, d) and a log posterior that is the sum over chains of
each chain's average log posterior; posteriors' updates are elementwise in the params, so each chain gets its own
gradient and its own noise: M independent chains in one batched torch call (no loop over chains, no torch.vmap).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..declared import Declared
from ..problems import Problem
from ._jax import Unavailable


def _torch():
    import warnings

    try:
        import torch

        with warnings.catch_warnings():  # tensordict's FutureWarnings on posteriors' state classes, at import
            warnings.simplefilter("ignore", FutureWarning)
            import posteriors
    except ImportError as e:
        raise Unavailable(f"posteriors/torch not installed ({e}); pip install -e '.[conformance-torch]'") from None
    return torch, posteriors


class TorchChains:
    """A :class:`verify.conformance.ChainStep` for a posteriors transform on an (M, d) params tensor.

    The batch indices (M, n) are drawn with the workbench's exact without-replacement draw
    (``simulate.estimators.subsample.without_replacement``, a numpy Generator from the seed); torch's default generator,
    which posteriors uses for its noise, is seeded with ``torch.manual_seed(seed)``. ``threads`` sets
    ``torch.set_num_threads`` (1 by default: on small tensors torch's OpenMP threads spin and, on a busy 2-core
    machine, make reductions 10-100x slower)."""

    def __init__(self, name: str, declared: Declared, transform, problem: Problem, n: int,
                 threads: int | None = 1) -> None:
        torch, _ = _torch()
        self.name, self.declared, self.transform, self.n = name, declared, transform, n
        self.N, self.threads = problem.n_data, threads
        self.epochs = declared.epochs
        self._torch = torch

    def init(self, theta0: np.ndarray, seed: int) -> Any:
        torch = self._torch
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        torch.manual_seed(seed)
        state = self.transform.init(torch.as_tensor(np.asarray(theta0, dtype=np.float64)))
        return state, np.random.default_rng(seed), None, 0

    def step(self, state: Any) -> Any:
        from simulate.estimators.subsample import without_replacement

        st, rng, perm, k = state
        M = st.params.shape[0]
        if not self.epochs:  # an independent uniform n-subset per chain and step
            idx = without_replacement(rng, self.N, self.n, M).T.astype(np.int64)  # (M, n)
        else:  # DataLoader(shuffle=True): a new permutation per chain every N/n steps, cut into disjoint batches
            j = k % (self.N // self.n)
            if j == 0:
                perm = rng.random((M, self.N)).argsort(axis=1)
            idx = np.ascontiguousarray(perm[:, j * self.n:(j + 1) * self.n])
        st, _ = self.transform.update(st, self._torch.from_numpy(idx))
        return st, rng, perm, k + 1

    def position(self, state: Any) -> np.ndarray:
        return state[0].params.detach().numpy()


def _mean_log_posterior(problem: Problem):
    """Sum over chains of each chain's log prior / N + mean_batch log lik (the posteriors docs' average)."""
    torch, _ = _torch()
    Z, y = torch.as_tensor(problem.Z), torch.as_tensor(problem.y)
    s2, s02, N = problem.sigma**2, problem.sigma0**2, problem.n_data

    def log_posterior(params, batch):  # params (M, d), batch (M, n) indices
        resid = y[batch] - torch.einsum("mnd,md->mn", Z[batch], params)
        per_chain = -0.5 * (params * params).sum(-1) / s02 / N + (-0.5 * resid * resid / s2).mean(-1)
        return per_chain.sum(), torch.tensor([])

    return log_posterior


def posteriors_sgld(problem: Problem, h: float, n: int, epochs: bool = False) -> TorchChains:
    """``posteriors.sgmcmc.sgld.build(log_post, lr=h N / 2, temperature=1/N)``; ``epochs``: batches as the docs'
    ``DataLoader(shuffle=True)`` draws them (reshuffled epochs of disjoint batches)."""
    _, posteriors = _torch()
    N = problem.n_data
    lr = h * N / 2
    tf = posteriors.sgmcmc.sgld.build(_mean_log_posterior(problem), lr=lr, temperature=1.0 / N)
    dec = Declared("sgld", h=h, n=n, replace=False, epochs=epochs,
                   convention=f"posteriors lr = h N / 2 = {lr:.4g}, temperature 1/N, mean log posterior")
    return TorchChains("posteriors SGLD", dec, tf, problem, n)


def posteriors_sghmc(problem: Problem, h: float, alpha: float, n: int) -> TorchChains:
    """``posteriors.sgmcmc.sghmc.build(log_post, lr=sqrt(h N), alpha=alpha/lr, temperature=1/N)`` (sigma = 1)."""
    _, posteriors = _torch()
    N = problem.n_data
    lr = math.sqrt(h * N)
    tf = posteriors.sgmcmc.sghmc.build(_mean_log_posterior(problem), lr=lr, alpha=alpha / lr, temperature=1.0 / N)
    dec = Declared("sghmc", h=h, n=n, replace=False, alpha=alpha, order="explicit_euler", v0_var=lr * lr,
                   convention=f"posteriors lr = sqrt(h N) = {lr:.4g}, alpha_pt = alpha/lr = {alpha / lr:.4g}, "
                              "sigma = 1, temperature 1/N, momenta N(0, 1) at init")
    return TorchChains("posteriors SGHMC", dec, tf, problem, n)


__all__ = ["TorchChains", "posteriors_sghmc", "posteriors_sgld"]
