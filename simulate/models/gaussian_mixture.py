"""The Gaussian mixture location model of Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.2 (a toy target).

x_i ~ (1/2) N(theta_1, Sigma) + (1/2) N(theta_2, Sigma) in R^2, theta = (theta_1, theta_2) in R^4,
theta_k ~ N(0, sigma0^2 I); the allocation is summed out. The paper omits the scales; the workbench chooses (the
defaults of ``simulate_data``) Sigma = I_2, theta_true = ((0, 0), (2, 2)), sigma0 = 10 ("large"), N = 10^4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import ParameterError, check_covariance, check_finite_array, check_int, check_positive
from .log_density import LogDensityModel


@dataclass
class GaussianMixtureLocation(LogDensityModel):
    """The Gaussian mixture location model x_i ~ (1/2) N(theta_1, Sigma) + (1/2) N(theta_2, Sigma) in R^2.

    theta = (theta_1, theta_2) in R^4 with independent priors theta_k ~ N(0, sigma0^2 I); the allocation is summed
    out. With r_k(x) = N(x | theta_k, Sigma)/sum_j N(x | theta_j, Sigma): grad_{theta_k} log p(x | theta) =
    r_k Sigma^{-1} (x - theta_k). The posterior is symmetric under the label swap theta_1 <-> theta_2
    (:meth:`swap_labels`). No Lipschitz constant is stated.

    Parameters
    ----------
    data : array_like, shape (N, 2)
        The observations.
    Sigma : array_like, shape (2, 2), default I
        The components' covariance, symmetric positive definite.
    sigma0 : float, default 10.0
        The prior's scale, > 0.

    Raises
    ------
    ParameterError
        When the data are not finite (N, 2), Sigma is not symmetric positive definite or sigma0 is not positive.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 3.2 (the scales are the workbench's choice;
    :doc:`/papers/baker`, sec. 5).
    """

    Sigma: np.ndarray = field(default_factory=lambda: np.eye(2))
    sigma0: float = 10.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 2)
        self.dim = 4
        self.Sigma = check_covariance("Sigma", self.Sigma, 2)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.P = np.linalg.inv(self.Sigma)
        self.grad_lipschitz = None

    @classmethod
    def simulate_data(cls, n_data: int = 10_000, theta_true=((0.0, 0.0), (2.0, 2.0)), Sigma=None,
                      sigma0: float = 10.0, seed: int = 0) -> GaussianMixtureLocation:
        """The model on N draws from the mixture with means theta_true (each component with probability 1/2).

        Parameters
        ----------
        n_data : int, default 10000
            N >= 1.
        theta_true : array_like, shape (2, 2), default ((0, 0), (2, 2))
            The two components' means, one per row.
        Sigma : array_like, shape (2, 2), optional
            The components' covariance (default I).
        sigma0 : float, default 10.0
            The prior's scale.
        seed : int, default 0
            The seed of the data's generator.

        Returns
        -------
        GaussianMixtureLocation

        Raises
        ------
        ParameterError
            For a size, scale, location or covariance out of its range.
        """
        n_data = check_int("n_data", n_data, 1)
        Sigma = check_covariance("Sigma", np.eye(2) if Sigma is None else Sigma, 2)
        mu = check_finite_array("theta_true", theta_true, ndim=(2,))
        if mu.shape != (2, 2):
            raise ParameterError(f"theta_true must have shape (2, 2), got {mu.shape}")
        rng = np.random.default_rng(seed)
        z = rng.integers(0, 2, size=n_data)
        x = mu[z] + rng.standard_normal((n_data, 2)) @ np.linalg.cholesky(Sigma).T
        return cls(x, Sigma=Sigma, sigma0=sigma0)

    def terms(self, theta, x):
        """Per-datum mixture log densities log((N_1 + N_2)/2) + const and their gradients r_k P (x - theta_k).

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points, broadcast against ``x``.
        x : numpy.ndarray, shape (..., dx)
            Data, broadcast against ``theta``.

        Returns
        -------
        log_lik : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., d)
        """
        t1, t2 = theta[..., :2], theta[..., 2:]
        r1, r2 = x - t1, x - t2
        P1, P2 = r1 @ self.P, r2 @ self.P
        q1 = np.einsum("...i,...i->...", r1, P1)
        q2 = np.einsum("...i,...i->...", r2, P2)
        mx = np.minimum(q1, q2)
        e1, e2 = np.exp(-0.5 * (q1 - mx)), np.exp(-0.5 * (q2 - mx))
        s = e1 + e2
        lp = -0.5 * mx + np.log(0.5 * s)
        w1, w2 = (e1 / s)[..., None], (e2 / s)[..., None]
        return lp, np.concatenate([w1 * P1, w2 * P2], axis=-1)

    def prior_terms(self, theta):
        """The prior's log density -``|theta|^2``/(2 sigma0^2) and gradient -theta/sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points.

        Returns
        -------
        log_prior : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., d)
        """
        s2 = self.sigma0 ** 2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def block_log_post_and_grad(self, theta, xb, prior_power=1.0, weights=None):
        """The tempered-prior log posteriors of B data blocks and their gradients, by matrix products.

        The same as the generic
        :meth:`simulate.models.log_density.LogDensityModel.block_log_post_and_grad`, with the quadratic forms expanded:
        q_k(x) = x^T P x - 2 x^T P theta_k + theta_k^T P theta_k and
        sum_i r_ik P (x_i - theta_k) = P (sum_i r_ik x_i - (sum_i r_ik) theta_k).

        Parameters
        ----------
        theta : numpy.ndarray, shape (B, M, 4)
            M points per block.
        xb : numpy.ndarray, shape (B, m, 2)
            The blocks' data (padded to a common m).
        prior_power : float, default 1.0
            lam, the prior's power.
        weights : numpy.ndarray, shape (B, m), optional
            w_bj in {0, 1}, marking padding; None: all 1.

        Returns
        -------
        log_post : numpy.ndarray, shape (B, M)
        grad : numpy.ndarray, shape (B, M, 4)
        """
        lp, g = self.prior_terms(theta)
        lp, g = lp * prior_power, g * prior_power
        xP = xb @ self.P  # (B, m, 2)
        xPx = np.einsum("bmi,bmi->bm", xP, xb)[..., None]  # (B, m, 1)
        t1, t2 = theta[..., :2], theta[..., 2:]
        q1 = xPx - 2 * xP @ t1.transpose(0, 2, 1) + np.einsum("bki,ij,bkj->bk", t1, self.P, t1)[:, None, :]
        q2 = xPx - 2 * xP @ t2.transpose(0, 2, 1) + np.einsum("bki,ij,bkj->bk", t2, self.P, t2)[:, None, :]
        # log(N1 + N2)/2 = -min(q)/2 + log(1 + exp(-|q1 - q2|/2)) - log 2; r_1 = 1/(1 + exp((q1 - q2)/2))
        dq = 0.5 * (q1 - q2)
        e = np.exp(-np.abs(dq))
        l_i = np.log1p(e) - np.log(2.0) - 0.5 * np.minimum(q1, q2)  # (B, m, M)
        w_small = e / (1.0 + e)  # responsibility of the farther component
        far1 = dq > 0
        w1 = np.where(far1, w_small, 1.0 - w_small)
        w2 = 1.0 - w1
        if weights is not None:
            l_i = l_i * weights[..., None]
            w1, w2 = w1 * weights[..., None], w2 * weights[..., None]
        lp = lp + l_i.sum(axis=1)
        wx1 = w1.transpose(0, 2, 1) @ xb  # (B, M, 2)
        wx2 = w2.transpose(0, 2, 1) @ xb
        g1 = (wx1 - w1.sum(axis=1)[..., None] * t1) @ self.P
        g2 = (wx2 - w2.sum(axis=1)[..., None] * t2) @ self.P
        return lp, g + np.concatenate([g1, g2], axis=-1)

    def cluster_means(self) -> np.ndarray:
        """The two cluster means of the data by k-means (scikit-learn), ordered by their coordinate sum.

        Used only to start the reference chains in the label modes.

        Returns
        -------
        numpy.ndarray, shape (2, 2)
        """
        from sklearn.cluster import KMeans

        c = KMeans(2, n_init=5, random_state=0).fit(self.data).cluster_centers_
        return c[np.argsort(c.sum(1))]

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough posterior covariance: about half the data inform each mean, block-diag(2 Sigma/n, 2 Sigma/n).

        Parameters
        ----------
        n_data : int
            n, the number of data the (sub)posterior conditions on.
        prior_power : float, default 1.0
            Ignored.

        Returns
        -------
        numpy.ndarray, shape (4, 4)
        """
        c = 2.0 * self.Sigma / max(n_data, 1)
        out = np.zeros((4, 4))
        out[:2, :2] = c
        out[2:, 2:] = c
        return out

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Label-symmetric overdispersed starts: theta_1, theta_2 iid N(mean of the block, Cov of the block).

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        shape : tuple of int
            The leading shape of the draws.
        xb : numpy.ndarray, shape (n, dx)
            The block's data.

        Returns
        -------
        numpy.ndarray, shape shape + (d,)
        """
        c = np.linalg.cholesky(np.cov(xb.T))
        z = rng.standard_normal(shape + (4,))
        return np.concatenate([xb.mean(0) + z[..., :2] @ c.T, xb.mean(0) + z[..., 2:] @ c.T], axis=-1)

    @staticmethod
    def swap_labels(theta: np.ndarray) -> np.ndarray:
        """The label swap theta_1 <-> theta_2, under which the posterior is invariant.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., 4)
            Points.

        Returns
        -------
        numpy.ndarray, shape (..., 4)
        """
        return np.concatenate([theta[..., 2:], theta[..., :2]], axis=-1)


__all__ = ["GaussianMixtureLocation"]
