"""Baker et al.'s Sec. 3.2 bimodal mixture with scalar data (new reduction): x_i ~ (1/2) N(theta_1, s^2) +
(1/2) N(theta_2, s^2), theta = (theta_1, theta_2) ~ N(0, sigma0^2 I), the allocation summed out.

The paper's mixture has bivariate data and a 4-D posterior
(:class:`simulate.models.gaussian_mixture.GaussianMixtureLocation`); with scalar data the posterior is 2-D, still
bimodal under the label swap theta_1 <-> theta_2, and within reach of the exact grid cubature (:mod:`theory.grid`).
With r_k(x) = N(x | theta_k, s^2) / sum_j N(x | theta_j, s^2): grad_{theta_k} log p(x | theta) =
r_k (x - theta_k) / s^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_finite_array, check_int, check_positive
from .log_density import LogDensityModel

#: Points per chunk of :meth:`ScalarMixtureLocation.log_post`.
_POINT_CHUNK = 1024


@dataclass
class ScalarMixtureLocation(LogDensityModel):
    """x_i ~ (1/2) N(theta_1, scale^2) + (1/2) N(theta_2, scale^2), theta ~ N(0, sigma0^2 I) (module docstring).

    A :class:`simulate.models.log_density.LogDensityModel`, so the divide-and-conquer samplers
    (:func:`simulate.subposterior_draws`) and MALA run on it; the posterior is invariant under
    :meth:`swap_labels`. No Lipschitz constant is stated.

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The observations.
    scale : float, default 1.0
        The components' standard deviation s > 0.
    sigma0 : float, default 10.0
        Prior standard deviation of each mean, > 0.

    Raises
    ------
    ParameterError
        When the data are not finite or a scale is not positive.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 3.2 (the mixture; scalar data are the workbench's reduction).
    """

    scale: float = 1.0
    sigma0: float = 10.0

    grad_cov_is_constant = False

    def __post_init__(self) -> None:
        self._set_data(self.data, 1)
        self.dim = 2
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
        scale = check_positive("scale", scale)
        rng = np.random.default_rng(seed)
        z = rng.integers(0, 2, size=n_data)
        return cls(mu[z] + scale * rng.standard_normal(n_data), scale, sigma0)

    def terms(self, theta: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-datum log densities log((N_1 + N_2)/2) + const and their gradients r_k (x - theta_k) / s^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., 2)
            Points, broadcast against ``x``.
        x : numpy.ndarray, shape (..., 1)
            Data, broadcast against ``theta``.

        Returns
        -------
        log_lik : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., 2)

        References
        ----------
        Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.2 (the mixture), with scalar data (module docstring).
        """
        s2 = self.scale**2
        r1, r2 = x[..., 0] - theta[..., 0], x[..., 0] - theta[..., 1]
        q1, q2 = r1 * r1 / s2, r2 * r2 / s2
        mn = np.minimum(q1, q2)
        e1, e2 = np.exp(-0.5 * (q1 - mn)), np.exp(-0.5 * (q2 - mn))
        tot = e1 + e2
        lp = -0.5 * mn + np.log(0.5 * tot)
        return lp, np.stack([(e1 / tot) * r1 / s2, (e2 / tot) * r2 / s2], axis=-1)

    def prior_terms(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The prior's log density -``|theta|^2``/(2 sigma0^2) and gradient -theta/sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., 2)
            Points.

        Returns
        -------
        log_prior : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., 2)
        """
        s2 = self.sigma0**2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def log_post(self, theta: np.ndarray) -> np.ndarray:
        """Unnormalised log posterior, without the gradients (the points in chunks of 1024).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, 2)
            One point per row.

        Returns
        -------
        numpy.ndarray, shape (M,)
            log pi(theta) up to a constant: -``|theta|^2`` / (2 sigma0^2) + sum_i log((N(x_i | theta_1, s^2) +
            N(x_i | theta_2, s^2)) / 2) + const.
        """
        th = np.asarray(theta, float).reshape(-1, 2)
        x = self.data[:, 0] / self.scale
        out = self.prior_terms(th)[0]
        for a in range(0, th.shape[0], _POINT_CHUNK):
            t = th[a:a + _POINT_CHUNK, :, None] / self.scale
            out[a:a + _POINT_CHUNK] += np.logaddexp(-0.5 * (x - t[:, 0]) ** 2, -0.5 * (x - t[:, 1]) ** 2).sum(axis=1)
        return out - self.n_data * np.log(2.0)

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough posterior covariance: about half the data inform each mean, (2 s^2 / n) I.

        Parameters
        ----------
        n_data : int
            n, the number of data the (sub)posterior conditions on.
        prior_power : float, default 1.0
            Ignored.

        Returns
        -------
        numpy.ndarray, shape (2, 2)
        """
        return 2.0 * self.scale**2 / max(n_data, 1) * np.eye(2)

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Label-symmetric overdispersed starts: theta_1, theta_2 iid N(mean of the block, variance of the block).

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        shape : tuple of int
            The leading shape of the draws.
        xb : numpy.ndarray, shape (n, 1)
            The block's data.

        Returns
        -------
        numpy.ndarray, shape shape + (2,)
        """
        x = np.asarray(xb, float).reshape(-1)
        return x.mean() + x.std() * rng.standard_normal(shape + (2,))

    def cluster_means(self) -> np.ndarray:
        """The two cluster means of the data by exact 1-D 2-means (the split of the sorted data with the smallest
        within-cluster sum of squares), ascending.

        Used only to start chains in a label mode.

        Returns
        -------
        numpy.ndarray, shape (2, 1)

        References
        ----------
        Fisher (1958), "On grouping for maximum homogeneity", JASA 53 (optimal 1-D grouping: contiguous in the
        sorted data).
        """
        x = np.sort(self.data[:, 0])
        if x.size < 2:
            return np.array([[x[0]], [x[0]]])
        k = np.arange(1, x.size)
        c = np.cumsum(x)
        left, right = c[:-1] / k, (c[-1] - c[:-1]) / (x.size - k)
        j = int(np.argmax(k * left**2 + (x.size - k) * right**2))  # min SSE = max between-cluster sum
        return np.array([[left[j]], [right[j]]])

    @staticmethod
    def swap_labels(theta: np.ndarray) -> np.ndarray:
        """The label swap theta_1 <-> theta_2, under which the posterior is invariant.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., 2)
            Points.

        Returns
        -------
        numpy.ndarray, shape (..., 2)
        """
        return np.asarray(theta)[..., ::-1]


__all__ = ["ScalarMixtureLocation"]
