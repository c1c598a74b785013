"""The bivariate t location model of Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.1 (a toy target).

x_i ~ t_nu(theta, Sigma) in R^2 with a flat prior on theta (the posterior is proper for N >= 1: the t likelihood is
integrable in theta). The paper omits the scales; the workbench chooses (the defaults of ``simulate_data``)
Sigma = [[1, 0.5], [0.5, 1]], nu = 3, theta_true = (0, 0), N = 800.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import check_covariance, check_finite_array, check_int, check_positive
from .log_density import LogDensityModel


@dataclass
class BivariateTLocation(LogDensityModel):
    """The bivariate t location model x_i ~ t_nu(theta, Sigma) in R^2 with a flat prior on theta.

    log p(x | theta) = -((nu + p)/2) log(1 + q/nu), q = (x - theta)^T Sigma^{-1} (x - theta), p = 2;
    grad_theta = (nu + p)/(nu + q) Sigma^{-1} (x - theta). The gradient's Lipschitz constant is bounded by
    N (nu + 2)/nu lambda_max(Sigma^{-1}).

    Parameters
    ----------
    data : array_like, shape (N, 2)
        The observations.
    Sigma : array_like, shape (2, 2), default [[1, 0.5], [0.5, 1]]
        The scale matrix, symmetric positive definite.
    nu : float, default 3.0
        The degrees of freedom, > 0.

    Raises
    ------
    ParameterError
        When the data are not finite (N, 2), Sigma is not symmetric positive definite or nu is not positive.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 3.1 (the scales are the workbench's choice;
    :doc:`/papers/baker`, sec. 5).
    """

    Sigma: np.ndarray = field(default_factory=lambda: np.array([[1.0, 0.5], [0.5, 1.0]]))
    nu: float = 3.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 2)
        self.dim = 2
        self.Sigma = check_covariance("Sigma", self.Sigma, 2)
        self.nu = check_positive("nu", self.nu)
        self.P = np.linalg.inv(self.Sigma)
        self.prior_is_flat = True
        # |Hessian of one term| <= (nu + p)/nu lambda_max(P)
        self.grad_lipschitz = self.n_data * (self.nu + 2) / self.nu * float(np.linalg.eigvalsh(self.P)[-1])

    @classmethod
    def simulate_data(cls, n_data: int = 800, theta_true=(0.0, 0.0), Sigma=None, nu: float = 3.0,
                      seed: int = 0) -> BivariateTLocation:
        """The model on N draws x_i = theta_true + L z_i / sqrt(w_i), z_i ~ N(0, I), w_i ~ chi^2_nu / nu, L L^T = Sigma.

        Parameters
        ----------
        n_data : int, default 800
            N >= 1.
        theta_true : array_like, shape (2,), default (0, 0)
            The location.
        Sigma : array_like, shape (2, 2), optional
            The scale matrix (default [[1, 0.5], [0.5, 1]]).
        nu : float, default 3.0
            The degrees of freedom, > 0.
        seed : int, default 0
            The seed of the data's generator.

        Returns
        -------
        BivariateTLocation

        Raises
        ------
        ParameterError
            For a size, scale, location or covariance out of its range.
        """
        n_data = check_int("n_data", n_data, 1)
        nu = check_positive("nu", nu)
        Sigma = check_covariance("Sigma", np.array([[1.0, 0.5], [0.5, 1.0]]) if Sigma is None else Sigma, 2)
        rng = np.random.default_rng(seed)
        z = rng.standard_normal((n_data, 2)) @ np.linalg.cholesky(Sigma).T
        w = rng.chisquare(nu, size=n_data) / nu
        x = check_finite_array("theta_true", theta_true, ndim=(0, 1)) + z / np.sqrt(w)[:, None]
        return cls(x, Sigma=Sigma, nu=nu)

    def terms(self, theta, x):
        """Per-datum t log densities -((nu + 2)/2) log(1 + q/nu) and their gradients (nu + 2)/(nu + q) P (x - theta).

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
        r = x - theta
        Pr = r @ self.P
        q = np.einsum("...i,...i->...", r, Pr)
        lp = -0.5 * (self.nu + 2.0) * np.log1p(q / self.nu)
        g = ((self.nu + 2.0) / (self.nu + q))[..., None] * Pr
        return lp, g

    def prior_terms(self, theta):
        """The flat prior's log density and gradient: zeros.

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points.

        Returns
        -------
        log_prior : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., d)
        """
        return np.zeros(theta.shape[:-1]), np.zeros_like(theta)

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """The inverse Fisher information of the t location, Sigma (nu + p + 2)/((nu + p) n) with p = 2.

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
        return self.Sigma * (self.nu + 4.0) / ((self.nu + 2.0) * n_data)

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Overdispersed starting points for a block's chains: N(median of the block, 4 approx_cov).

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
        c = np.linalg.cholesky(4.0 * self.approx_cov(xb.shape[0]))
        return np.median(xb, axis=0) + rng.standard_normal(shape + (2,)) @ c.T


__all__ = ["BivariateTLocation"]
