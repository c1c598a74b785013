"""The base class of the models: :class:`ModelBase` satisfies the :class:`simulate.contracts.Model` contract with
generic defaults (a subclass defines the per-datum gradients and the prior's).

Shapes: ``theta`` is ``(M, d)`` (M chains); minibatch indices are ``(n, M)`` (one column per chain,
so each row is contiguous); per-datum gradients are ``(n, M, d)``.
"""

from __future__ import annotations

import numpy as np

from ..validation import ParameterError, check_finite_array


class ModelBase:
    """Base class of a Bayesian model with N data and a d-dimensional parameter: the full-data sums and the gradient
    covariance from the per-datum gradients, and the check of a chain state (:class:`simulate.contracts.Model`)."""

    n_data: int
    dim: int

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients grad log p(x_i | theta) for i = idx[:, m], shape (n, M, d)."""
        raise NotImplementedError

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """sum_j grad log p(x_{idx[j, m]} | theta_m), shape (M, d)."""
        return self.grad_log_lik(theta, idx).sum(axis=0)

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """sum_{i=1}^N grad log p(x_i | theta), shape (M, d)."""
        idx = np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, theta.shape[0]))
        return self.grad_log_lik_sum(theta, idx)

    def grad_log_post(self, theta: np.ndarray) -> np.ndarray:
        """Full gradient of the log posterior, Welling & Teh eq. (4)."""
        return self.grad_log_prior(theta) + self.grad_log_lik_full(theta)

    def per_datum_grad_cov(self, theta: np.ndarray) -> np.ndarray:
        """Empirical covariance (divisor N) of the N per-datum gradients at each theta, (M, d, d)."""
        idx = np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, theta.shape[0]))
        g = self.grad_log_lik(theta, idx)  # (N, M, d)
        gc = g - g.mean(axis=0)
        return np.einsum("nmi,nmj->mij", gc, gc) / self.n_data

    #: True when per_datum_grad_cov does not depend on theta (it may then return (d, d)).
    grad_cov_is_constant: bool = False

    #: Lipschitz constant of grad log posterior (None if unknown); gives the step-size bound.
    grad_lipschitz: float | None = None

    def check_theta(self, theta, name: str = "theta") -> np.ndarray:
        """Validate a chain state of shape (M, d) (or (M,) when d == 1)."""
        arr = check_finite_array(name, theta, ndim=(1, 2))
        if arr.ndim == 1:
            if self.dim != 1:
                raise ParameterError(f"{name} must have shape (M, {self.dim}), got {arr.shape}")
            arr = arr[:, None]
        if arr.shape[1] != self.dim:
            raise ParameterError(f"{name} must have shape (M, {self.dim}), got {arr.shape}")
        return arr


__all__ = ["ModelBase"]
