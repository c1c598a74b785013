"""Baker et al.'s Sec. 3.2 bimodal mixture with scalar data (new reduction): x_i ~ (1/2) N(theta_1, s^2) +
(1/2) N(theta_2, s^2), theta = (theta_1, theta_2) ~ N(0, sigma0^2 I), the allocation summed out.

The paper's mixture has bivariate data and a 4-D posterior
(:class:`simulate.models.gaussian_mixture.GaussianMixtureLocation`); with scalar data the posterior is 2-D, still
bimodal under the label swap theta_1 <-> theta_2, and within reach of the exact grid law. With
r_k(x) = N(x | theta_k, s^2) / sum_j N(x | theta_j, s^2): grad_{theta_k} log p(x | theta) = r_k (x - theta_k) / s^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_finite_array, check_int, check_positive
from .base import ModelBase


@dataclass
class ScalarMixtureLocation(ModelBase):
    """x_i ~ (1/2) N(theta_1, scale^2) + (1/2) N(theta_2, scale^2), theta ~ N(0, sigma0^2 I) (module docstring).

    Parameters
    ----------
    data : array_like, shape (N,)
        The observations.
    scale : float
        The components' standard deviation s.
    sigma0 : float
        Prior standard deviation of each mean.
    """

    data: np.ndarray
    scale: float = 1.0
    sigma0: float = 10.0

    dim = 2
    grad_cov_is_constant = False

    def __post_init__(self) -> None:
        self.data = np.ascontiguousarray(check_finite_array("data", self.data, ndim=(1,)))
        self.n_data = self.data.size
        self.scale = check_positive("scale", self.scale)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.grad_lipschitz = None

    @classmethod
    def simulate_data(cls, n_data: int = 60, theta_true=(-1.0, 1.0), scale: float = 1.0, sigma0: float = 10.0,
                      seed: int = 35) -> ScalarMixtureLocation:
        """N draws from the mixture with means ``theta_true`` (seeded).

        Parameters
        ----------
        n_data : int
            N, at least 1.
        theta_true : tuple of float
            The two means the data are drawn from, each with probability 1/2.
        scale : float
            The components' standard deviation s > 0.
        sigma0 : float
            Prior standard deviation.
        seed : int
            The seed of the draws.

        Returns
        -------
        ScalarMixtureLocation
            The model on the simulated data.

        Raises
        ------
        ParameterError
            When ``n_data`` < 1 or a parameter is out of its range.
        """
        n_data = check_int("n_data", n_data, 1)
        mu = check_finite_array("theta_true", theta_true, ndim=(1,))
        rng = np.random.default_rng(seed)
        z = rng.integers(0, 2, size=n_data)
        return cls(mu[z] + scale * rng.standard_normal(n_data), scale, sigma0)

    def _terms(self, t1: np.ndarray, t2: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s2 = self.scale**2
        q1, q2 = (x - t1) ** 2 / s2, (x - t2) ** 2 / s2
        mn = np.minimum(q1, q2)
        e1, e2 = np.exp(-0.5 * (q1 - mn)), np.exp(-0.5 * (q2 - mn))
        tot = e1 + e2
        lp = -0.5 * mn + np.log(0.5 * tot)
        return lp, (e1 / tot) * (x - t1) / s2, (e2 / tot) * (x - t2) / s2

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """-theta / sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 2)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 2)
            The prior's gradient at every point.
        """
        return -np.asarray(theta, float) / self.sigma0**2

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """r_k (x_i - theta_k) / s^2 for the data idx[j, m] (r_k the component's responsibility).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 2)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, 2)
            grad_theta log p(x_i | theta_m) for i = idx[j, m].

        References
        ----------
        Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.2 (the mixture), with scalar data (new reduction, module
        docstring).
        """
        th = np.asarray(theta, float)
        x = self.data.take(np.asarray(idx), axis=0)  # (n, M)
        _, g1, g2 = self._terms(th[None, :, 0], th[None, :, 1], x)
        return np.stack([g1, g2], axis=-1)

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """sum_i grad log p(x_i | theta), over all the data.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 2)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, 2)
            The full-data likelihood gradient at every point.
        """
        th = np.asarray(theta, float)
        _, g1, g2 = self._terms(th[:, :1], th[:, 1:2], self.data[None, :])
        return np.stack([g1.sum(axis=1), g2.sum(axis=1)], axis=-1)

    def log_post(self, theta: np.ndarray) -> np.ndarray:
        """Unnormalised log posterior.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 2)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
            log pi(theta) up to a constant.
        """
        th = np.asarray(theta, float)
        lp, _, _ = self._terms(th[:, :1], th[:, 1:2], self.data[None, :])
        return lp.sum(axis=1) - 0.5 * np.einsum("mi,mi->m", th, th) / self.sigma0**2


__all__ = ["ScalarMixtureLocation"]
