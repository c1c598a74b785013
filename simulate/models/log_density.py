"""Models given by their log densities: the base class of Baker et al.'s Sec. 3 toy targets and the Gaussian mean model.

A :class:`LogDensityModel` defines per-datum log-likelihood terms and their gradients and the prior's; from them it
gives the sampler's gradients (:class:`simulate.contracts.Model`) and the log densities of tempered block posteriors
p(theta)^lam prod_{i in B} p(x_i | theta), which the MALA reference sampler and the divide-and-conquer subposterior
samplers (``simulate.analysis.divide_conquer``) need.

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
    """A model given by its per-datum log density and gradient (:meth:`terms`) and its prior's (:meth:`prior_terms`).

    From them, up to constants, it gives the gradients a sampler needs and the log densities of tempered block
    posteriors that the MALA reference sampler (:func:`simulate.mala`) and the divide-and-conquer subposterior
    samplers (:func:`simulate.subposterior_draws`) need. A subclass stores its data with ``_set_data`` and defines
    :meth:`terms`, :meth:`prior_terms` and :meth:`approx_cov`.

    Parameters
    ----------
    data : numpy.ndarray, shape (N, dx)
        The observations.
    """

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
        """Per-datum log-likelihood terms log p(x | theta) (up to a constant) and their gradients in theta.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points, broadcast against ``x``.
        x : numpy.ndarray, shape (..., dx)
            Data, broadcast against ``theta``.

        Returns
        -------
        log_lik : numpy.ndarray, shape (...)
            The broadcast shape without the last axis.
        grad : numpy.ndarray, shape (..., d)
        """
        raise NotImplementedError

    def prior_terms(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The prior's log density (up to a constant) and its gradient (0 and zeros for a flat prior).

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points.

        Returns
        -------
        log_prior : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., d)
        """
        raise NotImplementedError

    # --- Model interface
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient, from :meth:`prior_terms`.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return self.prior_terms(theta)[1]

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients for i = idx[:, m], from :meth:`terms`.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, d)
        """
        return self.terms(theta[None, :, :], self.data.take(idx, axis=0))[1]

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient, summed in chunks (:meth:`block_log_post_and_grad` without the prior).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return self.block_log_post_and_grad(theta[None], self.data[None], prior_power=0.0)[1][0]

    # --- log densities
    def block_log_post_and_grad(self, theta: np.ndarray, xb: np.ndarray, prior_power: float = 1.0,
                                weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The tempered-prior log posteriors of B data blocks at once, and their gradients.

        log pi_b(theta) = prior_power * log p(theta) + sum_j w_bj log p(x_bj | theta), up to a constant; the data
        are summed in chunks of :data:`FULL_DATA_CHUNK`.

        Parameters
        ----------
        theta : numpy.ndarray, shape (B, M, d)
            M points per block.
        xb : numpy.ndarray, shape (B, m, dx)
            The blocks' data (padded to a common m).
        prior_power : float, default 1.0
            lam, the prior's power (1/S for a subposterior of S blocks; 0: the likelihood alone).
        weights : numpy.ndarray, shape (B, m), optional
            w_bj in {0, 1}, marking padding; None: all 1.

        Returns
        -------
        log_post : numpy.ndarray, shape (B, M)
        grad : numpy.ndarray, shape (B, M, d)
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
        """The full log posterior (up to a constant) and its gradient.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        log_post : numpy.ndarray, shape (M,)
        grad : numpy.ndarray, shape (M, d)
        """
        lp, g = self.block_log_post_and_grad(theta[None], self.data[None])
        return lp[0], g[0]

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough (Laplace / Fisher) posterior covariance, used only to precondition MALA and start chains.

        Parameters
        ----------
        n_data : int
            The number of data the (sub)posterior conditions on.
        prior_power : float, default 1.0
            The prior's power.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        raise NotImplementedError


__all__ = ["FULL_DATA_CHUNK", "LogDensityModel"]
