"""Models given by their log densities: the base class of Baker et al.'s Sec. 3 toy targets and the Gaussian mean model.

A :class:`LogDensityModel` defines per-datum log-likelihood terms and their gradients and the prior's; from them it
gives the sampler's gradients (:class:`simulate.contracts.Model`) and the log densities of tempered block posteriors
p(theta)^lam prod_{i in B} p(x_i | theta), which the MALA reference sampler and the divide-and-conquer subposterior
samplers (:mod:`simulate.analysis.divide_conquer`) need.

**Flat priors.** An improper flat prior has log density 0 and gradient 0 (``grad_log_prior`` returns zeros and
``prior_is_flat`` is True); raising a flat prior to the power 1/S (subposteriors) leaves it flat.

Shapes: the elementwise kernels take theta of shape (..., d) and data of shape (..., dx), broadcast, and return
per-datum log densities (...) and gradients (..., d).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import ParameterError, check_finite_array
from .base import ModelBase

#: Data per chunk when a full-data sum is evaluated (bounds memory at about chunk * M * d floats).
FULL_DATA_CHUNK = 2048


@dataclass
class LogDensityModel(ModelBase):
    """A model given by its per-datum log density and gradient (``terms``) and its prior's (``prior_terms``), up to
    constants: the gradients a sampler needs, and the log densities the MALA reference sampler and the
    divide-and-conquer subposterior samplers (:mod:`simulate.analysis.divide_conquer`) need. Data (N, dx)."""

    data: np.ndarray
    prior_is_flat: bool = field(init=False, default=False)

    def _set_data(self, data, dx: int) -> None:
        x = check_finite_array("data", data, ndim=(1, 2))
        if x.ndim == 1:
            x = x[:, None]
        if x.shape[1] != dx:
            raise ParameterError(f"data must have shape (N, {dx}), got {x.shape}")
        self.data = np.ascontiguousarray(x)
        self.n_data = x.shape[0]

    # --- to be defined by subclasses
    def terms(self, theta: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def prior_terms(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    # --- Model interface
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        return self.prior_terms(theta)[1]

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.terms(theta[None, :, :], self.data.take(idx, axis=0))[1]

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        return self.block_log_post_and_grad(theta[None], self.data[None], prior_power=0.0)[1][0]

    # --- log densities
    def block_log_post_and_grad(self, theta: np.ndarray, xb: np.ndarray, prior_power: float = 1.0,
                                weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Tempered-prior log posterior of B data blocks at once: theta (B, M, d), xb (B, m, dx).

        log pi_b(theta) = prior_power * log p(theta) + sum_j w_bj log p(x_bj | theta) (up to a constant), with
        weights (B, m) in {0, 1} marking padding (None: all 1). Returns ((B, M), (B, M, d)).
        """
        B, M, d = theta.shape
        lp, g = self.prior_terms(theta)
        lp = lp * prior_power
        g = g * prior_power
        m = xb.shape[1]
        for a in range(0, m, FULL_DATA_CHUNK):
            xc = xb[:, a:a + FULL_DATA_CHUNK]
            l_i, g_i = self.terms(theta[:, None, :, :], xc[:, :, None, :])  # (B, c, M), (B, c, M, d)
            if weights is not None:
                w = weights[:, a:a + FULL_DATA_CHUNK, None]
                l_i = l_i * w
                g_i = g_i * w[..., None]
            lp = lp + l_i.sum(axis=1)
            g = g + g_i.sum(axis=1)
        return lp, g

    def log_post_and_grad(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Full log posterior (up to a constant) and its gradient at theta (M, d): ((M,), (M, d))."""
        lp, g = self.block_log_post_and_grad(theta[None], self.data[None])
        return lp[0], g[0]

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough (Laplace / Fisher) posterior covariance for n_data data, used only to precondition MALA."""
        raise NotImplementedError


__all__ = ["FULL_DATA_CHUNK", "LogDensityModel"]
