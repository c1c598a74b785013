"""The Gaussian mean model x_i ~ N(theta, sigma_x^2 I_d), the 1-D Gaussian toy model of Vollmer et al. (2016)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._fast import kernels
from ..affine import AffineParts
from ..validation import check_finite_array, check_int, check_positive
from .base import Model


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
        x = check_finite_array("theta_true", theta_true, ndim=(0, 1)) + sigma_x * rng.standard_normal((n_data, dim))
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
            xsum = kernels.take_sum_flat(self._flat, idx)[:, None]
        else:
            xsum = kernels.take_sum_rows(self.data, idx)
        return (xsum - n * theta) / self.sigma_x**2

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        return (self._sum - self.n_data * theta) / self.sigma_x**2

    def per_datum_grad_cov(self, theta: np.ndarray | None = None) -> np.ndarray:
        """Cov_emp(x) / sigma_x^4 (divisor N), independent of theta: shape (d, d)."""
        xc = self.data - self.data.mean(axis=0)
        return kernels.gram(xc) / self.n_data / self.sigma_x**4

    def affine_parts(self) -> AffineParts:
        """P_0 = I/sigma_theta^2, r_0 = 0; P_i = I/sigma_x^2 (common), r_i = x_i/sigma_x^2 (eq. 11)."""
        eye = np.eye(self.dim)
        return AffineParts.with_common(eye / self.sigma_theta**2, np.zeros(self.dim), eye / self.sigma_x**2,
                                       self.data / self.sigma_x**2)


__all__ = ["GaussianMeanModel"]
