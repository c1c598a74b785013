"""The Student-t location model (new): x_i ~ t_nu(theta, s) (location theta, scale s, nu degrees of freedom),
prior theta ~ N(0, sigma0^2): a 1-D posterior with heavy-tailed data, non-log-concave when the data have outliers.

log p(x | theta) = -((nu + 1)/2) log(1 + r^2 / (nu s^2)), r = x - theta;
grad_theta log p(x | theta) = (nu + 1) r / (nu s^2 + r^2), whose derivative lies in [-(nu + 1)/(nu s^2),
(nu + 1)/(8 nu s^2)], so |grad^2 log pi| <= N (nu + 1)/(nu s^2) + 1/sigma0^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ParameterError, check_finite_array, check_int, check_positive
from .base import ModelBase


@dataclass
class StudentTLocation(ModelBase):
    """x_i ~ t_nu(theta, scale), theta ~ N(0, sigma0^2) (module docstring).

    Parameters
    ----------
    data : array_like, shape (N,)
        The observations.
    nu : float
        Degrees of freedom, > 0.
    scale : float
        Scale s > 0.
    sigma0 : float
        Prior standard deviation.
    """

    data: np.ndarray
    nu: float = 3.0
    scale: float = 1.0
    sigma0: float = 10.0

    dim = 1
    grad_cov_is_constant = False

    def __post_init__(self) -> None:
        x = check_finite_array("data", self.data, ndim=(1, 2))
        if x.ndim == 2 and x.shape[1] != 1:
            raise ParameterError(f"data must have shape (N,) or (N, 1), got {x.shape}")
        self.data = np.ascontiguousarray(x.reshape(-1))
        self.n_data = self.data.size
        self.nu = check_positive("nu", self.nu)
        self.scale = check_positive("scale", self.scale)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.grad_lipschitz = self.n_data * (self.nu + 1) / (self.nu * self.scale**2) + 1.0 / self.sigma0**2

    @classmethod
    def simulate_data(cls, n_data: int = 20, theta_true: float = 1.0, nu: float = 3.0, scale: float = 1.0,
                      sigma0: float = 10.0, seed: int = 7) -> StudentTLocation:
        """N draws from t_nu(theta_true, scale) (seeded).

        Parameters
        ----------
        n_data : int
            N, at least 1.
        theta_true : float
            The location the data are drawn at.
        nu : float
            Degrees of freedom, > 0.
        scale : float
            Scale s > 0.
        sigma0 : float
            Prior standard deviation.
        seed : int
            The seed of the draws.

        Returns
        -------
        StudentTLocation
            The model on the simulated data.

        Raises
        ------
        ParameterError
            When ``n_data`` < 1 or a parameter is out of its range.
        """
        n_data = check_int("n_data", n_data, 1)
        rng = np.random.default_rng(seed)
        return cls(theta_true + scale * rng.standard_t(nu, size=n_data), nu, scale, sigma0)

    def _terms(self, theta: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = x - theta
        q = self.nu * self.scale**2 + r * r
        return -0.5 * (self.nu + 1) * np.log1p(r * r / (self.nu * self.scale**2)), (self.nu + 1) * r / q

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """-theta / sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 1)
            The prior's gradient at every point.
        """
        return -np.asarray(theta, float) / self.sigma0**2

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """(nu + 1) r / (nu s^2 + r^2), r = x_i - theta, for the data idx[j, m].

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 1)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, 1)
            grad_theta log p(x_i | theta_m) for i = idx[j, m].

        References
        ----------
        New (module docstring): the score of the Student-t location family.
        """
        x = self.data.take(np.asarray(idx), axis=0)  # (n, M)
        return self._terms(np.asarray(theta, float)[None, :, 0], x)[1][..., None]

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """sum_i grad log p(x_i | theta), over all the data.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 1)
            The full-data likelihood gradient at every point.
        """
        th = np.asarray(theta, float)
        return self._terms(th[:, :1], self.data[None, :])[1].sum(axis=1, keepdims=True)

    def log_post(self, theta: np.ndarray) -> np.ndarray:
        """Unnormalised log posterior.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 1)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
            log pi(theta) up to a constant.
        """
        th = np.asarray(theta, float)[:, :1]
        return self._terms(th, self.data[None, :])[0].sum(axis=1) - 0.5 * th[:, 0] ** 2 / self.sigma0**2


__all__ = ["StudentTLocation"]
