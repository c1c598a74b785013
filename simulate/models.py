"""Models: prior gradient, per-datum log-likelihood gradients and the full gradient.

Shapes: ``theta`` is ``(M, d)`` (M chains); minibatch indices are ``(n, M)`` (one column per chain,
so each row is contiguous); per-datum gradients are ``(n, M, d)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _kernels
from .affine import AffineParts
from .validation import ParameterError, check_finite_array, check_int, check_positive


class Model:
    """Base class of a Bayesian model with N data and a d-dimensional parameter."""

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


@dataclass
class GaussianMeanModel(Model):
    """x_i ~ N(theta, sigma_x^2 I_d), theta ~ N(0, sigma_theta^2 I_d) (Vollmer et al. 2016, eq. 11).

    In 1-D this is the Gaussian toy model; its posterior is N(mu_p, sigma_p^2 I) with (eq. 12)
    sigma_p^2 = 1 / (1/sigma_theta^2 + N/sigma_x^2) = 1/(2A), mu_p = (sum_i x_i / sigma_x^2) sigma_p^2.
    """

    data: np.ndarray
    sigma_x: float = 1.0
    sigma_theta: float = 1.0
    _flat: np.ndarray | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        x = check_finite_array("data", self.data, ndim=(1, 2))
        if x.ndim == 1:
            x = x[:, None]
        self.data = x
        self.sigma_x = check_positive("sigma_x", self.sigma_x)
        self.sigma_theta = check_positive("sigma_theta", self.sigma_theta)
        self.n_data, self.dim = x.shape
        self._flat = np.ascontiguousarray(x[:, 0]) if self.dim == 1 else None
        self._sum = x.sum(axis=0)
        self.grad_lipschitz = 1.0 / self.sigma_theta**2 + self.n_data / self.sigma_x**2

    @classmethod
    def simulate_data(
        cls, n_data: int, theta_true=1.0, sigma_x: float = 1.0, sigma_theta: float = 1.0,
        dim: int = 1, seed: int = 0,
    ) -> GaussianMeanModel:
        """Draw x_i ~ N(theta_true, sigma_x^2 I_d), i = 1..N, from ``seed`` and build the model."""
        n_data = check_int("n_data", n_data, 1)
        dim = check_int("dim", dim, 1)
        sigma_x = check_positive("sigma_x", sigma_x)
        rng = np.random.default_rng(seed)
        x = np.asarray(theta_true, dtype=float) + sigma_x * rng.standard_normal((n_data, dim))
        return cls(x, sigma_x=sigma_x, sigma_theta=sigma_theta)

    grad_cov_is_constant = True

    # --- posterior facts (eq. 12, 15)
    @property
    def A(self) -> float:
        """A = (1/2)(1/sigma_theta^2 + N/sigma_x^2), eq. (15): the drift of theta is -A theta + B."""
        return 0.5 * self.grad_lipschitz

    @property
    def posterior_var(self) -> float:
        return 1.0 / self.grad_lipschitz

    @property
    def posterior_mean(self) -> np.ndarray:
        return self._sum / self.sigma_x**2 * self.posterior_var

    # --- gradients
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        return theta * (-1.0 / self.sigma_theta**2)

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return (self.data.take(idx, axis=0) - theta[None, :, :]) / self.sigma_x**2

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        n = idx.shape[0]
        if self._flat is not None:
            xsum = _kernels.take_sum_flat(self._flat, idx)[:, None]
        else:
            xsum = _kernels.take_sum_rows(self.data, idx)
        return (xsum - n * theta) / self.sigma_x**2

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        return (self._sum - self.n_data * theta) / self.sigma_x**2

    def per_datum_grad_cov(self, theta: np.ndarray | None = None) -> np.ndarray:
        """Cov_emp(x) / sigma_x^4 (divisor N), independent of theta: shape (d, d)."""
        xc = self.data - self.data.mean(axis=0)
        return xc.T @ xc / self.n_data / self.sigma_x**4

    def affine_parts(self) -> AffineParts:
        """P_0 = I/sigma_theta^2, r_0 = 0; P_i = I/sigma_x^2 (common), r_i = x_i/sigma_x^2 (eq. 11)."""
        eye = np.eye(self.dim)
        return AffineParts.with_common(eye / self.sigma_theta**2, np.zeros(self.dim), eye / self.sigma_x**2,
                                       self.data / self.sigma_x**2)
