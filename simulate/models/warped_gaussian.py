"""The warped Gaussian model of Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.3 (a toy target).

x_i ~ N(theta_1 + theta_2^2, sigma_x^2), theta_k ~ N(0, sigma0^2). The paper omits the scales; the workbench chooses
(the defaults of ``simulate_data``) sigma_x = 2, sigma0 = 1 (both standard deviations; the paper's N(., sigma) is
read as a scale), theta_true = (0, 1), N = 800.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ParameterError, check_finite_array, check_int, check_positive
from .log_density import LogDensityModel


@dataclass
class WarpedGaussian(LogDensityModel):
    """The warped Gaussian model x_i ~ N(theta_1 + theta_2^2, sigma_x^2), theta_k ~ N(0, sigma0^2).

    grad log p(x | theta) = ((x - theta_1 - theta_2^2)/sigma_x^2) (1, 2 theta_2). The tempered posterior
    pi(theta) propto p(theta)^lam prod_{i in B} p(x_i | theta) is sampled exactly (new): given theta_2, theta_1 is
    Gaussian with precision a = n/sigma_x^2 + lam/sigma0^2 and mean (n/sigma_x^2)(xbar - theta_2^2)/a, and
    theta_2 has the 1-D marginal log pi(theta_2) = -lam theta_2^2/(2 sigma0^2)
    - (xbar - theta_2^2)^2 / (2 (sigma0^2/lam + sigma_x^2/n)), drawn by inverse CDF on a fine grid
    (:meth:`exact_draws`). No Lipschitz constant is stated.

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The observations.
    sigma_x : float, default 2.0
        The data's standard deviation, > 0.
    sigma0 : float, default 1.0
        The prior's standard deviation, > 0.

    Raises
    ------
    ParameterError
        When the data are not finite numbers or a scale is not positive.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 3.3 (the scales are the workbench's choice;
    :doc:`/papers/baker`, sec. 5).
    """

    sigma_x: float = 2.0
    sigma0: float = 1.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 1)
        self.dim = 2
        self.sigma_x = check_positive("sigma_x", self.sigma_x)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.grad_lipschitz = None

    @classmethod
    def simulate_data(cls, n_data: int = 800, theta_true=(0.0, 1.0), sigma_x: float = 2.0,
                      sigma0: float = 1.0, seed: int = 0) -> WarpedGaussian:
        """The model on N draws x_i ~ N(theta_1 + theta_2^2, sigma_x^2).

        Parameters
        ----------
        n_data : int, default 800
            N >= 1.
        theta_true : array_like, shape (2,), default (0, 1)
            (theta_1, theta_2).
        sigma_x : float, default 2.0
            The data's standard deviation, > 0.
        sigma0 : float, default 1.0
            The prior's standard deviation.
        seed : int, default 0
            The seed of the data's generator.

        Returns
        -------
        WarpedGaussian

        Raises
        ------
        ParameterError
            For a size, scale, location or covariance out of its range.
        """
        n_data = check_int("n_data", n_data, 1)
        sigma_x = check_positive("sigma_x", sigma_x)
        t = check_finite_array("theta_true", theta_true, ndim=(1,))
        if t.shape != (2,):
            raise ParameterError(f"theta_true must have shape (2,), got {t.shape}")
        rng = np.random.default_rng(seed)
        return cls(t[0] + t[1] ** 2 + sigma_x * rng.standard_normal((n_data, 1)), sigma_x=sigma_x,
                   sigma0=sigma0)

    def terms(self, theta, x):
        """Per-datum log densities -(x - theta_1 - theta_2^2)^2/(2 sigma_x^2) and their gradients.

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
        r = x[..., 0] - theta[..., 0] - theta[..., 1] ** 2
        s2 = self.sigma_x ** 2
        lp = -0.5 * r * r / s2
        g = np.stack(np.broadcast_arrays(r / s2, 2.0 * theta[..., 1] * r / s2), axis=-1)
        return lp, g

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

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough posterior covariance, diag(sigma_x^2 / n, sigma0^2 / lam).

        Parameters
        ----------
        n_data : int
            n, the number of data the (sub)posterior conditions on.
        prior_power : float, default 1.0
            lam, the prior's power.

        Returns
        -------
        numpy.ndarray, shape (2, 2)
        """
        return np.diag([self.sigma_x ** 2 / max(n_data, 1), self.sigma0 ** 2 / max(prior_power, 1e-12)])

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Starting points drawn from the prior N(0, sigma0^2 I).

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
        return self.sigma0 * rng.standard_normal(shape + (2,))

    def theta2_log_marginal(self, t2: np.ndarray, xbar: float, n: int, prior_power: float = 1.0) -> np.ndarray:
        """The log marginal density of theta_2 under the tempered block posterior, up to a constant (class docstring).

        Parameters
        ----------
        t2 : numpy.ndarray
            Values of theta_2.
        xbar : float
            The block's data mean.
        n : int
            The block's number of data.
        prior_power : float, default 1.0
            lam > 0, the prior's power.

        Returns
        -------
        numpy.ndarray
            Of the shape of ``t2``.

        Raises
        ------
        ParameterError
            When prior_power <= 0 (the marginal is then improper).
        """
        lam = prior_power
        s_th2, s_x2 = self.sigma0 ** 2, self.sigma_x ** 2
        if lam > 0:
            v = s_th2 / lam + s_x2 / n
            return -0.5 * lam * t2 ** 2 / s_th2 - 0.5 * (xbar - t2 ** 2) ** 2 / v
        # no prior: theta_1 flat, the theta_2 marginal is flat too (improper)
        raise ParameterError("prior_power must be > 0 for the warped Gaussian (its marginal is otherwise improper)")

    def exact_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xbar: float, n: int,
                    prior_power: float = 1.0, grid: int = 20001) -> np.ndarray:
        """Exact draws from the tempered posterior of a block with n data of mean xbar (new; class docstring).

        theta_2 by inverse CDF of its marginal on a grid, then theta_1 given theta_2 from its Gaussian conditional.

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        shape : tuple of int
            The leading shape of the draws.
        xbar : float
            The block's data mean.
        n : int
            The block's number of data, >= 1.
        prior_power : float, default 1.0
            lam > 0, the prior's power.
        grid : int, default 20001
            The points of the theta_2 grid.

        Returns
        -------
        numpy.ndarray, shape shape + (2,)

        Raises
        ------
        ParameterError
            When prior_power is not positive or n is not a positive integer.
        """
        lam = check_positive("prior_power", prior_power)
        n = check_int("n", n, 1)
        half = self.sigma0 / np.sqrt(lam) * 8.0 + np.sqrt(abs(xbar)) + 1.0
        t = np.linspace(-half, half, grid)
        lp = self.theta2_log_marginal(t, xbar, n, lam)
        p = np.exp(lp - lp.max())
        cdf = np.concatenate([[0.0], np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(t))])
        cdf /= cdf[-1]
        u = rng.random(shape)
        t2 = np.interp(u, cdf, t)
        a = n / self.sigma_x ** 2 + lam / self.sigma0 ** 2
        m1 = (n / self.sigma_x ** 2) * (xbar - t2 ** 2) / a
        t1 = m1 + rng.standard_normal(shape) / np.sqrt(a)
        return np.stack([t1, t2], axis=-1)

    def posterior_moment_theta2_sq(self, xbar: float | None = None, n: int | None = None,
                                   prior_power: float = 1.0) -> float:
        """E[theta_2^2] under the (tempered block) posterior, by quadrature of the 1-D marginal (new).

        Parameters
        ----------
        xbar : float, optional
            The block's data mean (default: the whole data's).
        n : int, optional
            The block's number of data (default N).
        prior_power : float, default 1.0
            lam > 0, the prior's power.

        Returns
        -------
        float
        """
        from scipy.integrate import quad

        xbar = float(self.data.mean()) if xbar is None else xbar
        n = self.n_data if n is None else n
        grid = np.linspace(-10, 10, 4001)
        ref = self.theta2_log_marginal(grid, xbar, n, prior_power).max()
        f = lambda t, k: t ** k * np.exp(self.theta2_log_marginal(t, xbar, n, prior_power) - ref)  # noqa: E731
        z = quad(f, -np.inf, np.inf, args=(0,), epsabs=0, epsrel=1e-12, limit=500)[0]
        m2 = quad(f, -np.inf, np.inf, args=(2,), epsabs=0, epsrel=1e-12, limit=500)[0]
        return m2 / z


__all__ = ["WarpedGaussian"]
