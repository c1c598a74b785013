"""The Gaussian mean model x_i ~ N(theta, Sigma) in R^d with Sigma known, prior N(0, sigma0^2 I) or flat.

Two papers use it: Vollmer, Zygalakis & Teh (2016), eq. (11), with Sigma = sigma_x^2 I (in 1-D the Gaussian toy model
of their Sections 3-5, posterior N(mu_p, sigma_p^2), eq. 12), and Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.4,
with a full Sigma and a flat prior (the workbench chooses Sigma_ij = 0.5^|i-j|, :meth:`GaussianMeanModel.ar1_cov`;
the posterior is proper for N >= 1). One class serves both: ``Sigma=None`` is the isotropic model sigma_x^2 I, whose
gradients take scalar arithmetic; a matrix ``Sigma`` takes matrix products with Sigma^{-1}.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._fast import kernels
from ..affine import AffineParts
from ..validation import ParameterError, check_covariance, check_finite_array, check_int, check_positive
from .log_density import LogDensityModel


@dataclass
class GaussianMeanModel(LogDensityModel):
    """x_i ~ N(theta, Sigma) in R^d with Sigma known, theta ~ N(0, sigma0^2 I) or a flat prior.

    The posterior is Gaussian; the tempered posterior of n data with sum s and prior power lam (a subposterior) has
    precision Q = n Sigma^{-1} + (lam/sigma0^2) I and mean Q^{-1} Sigma^{-1} s (standard conjugacy). In 1-D with
    Sigma = sigma_x^2 this is the Gaussian toy of Vollmer et al. (2016), posterior N(mu_p, sigma_p^2) with
    sigma_p^2 = 1 / (1/sigma0^2 + N/sigma_x^2) = 1/(2A) and mu_p = (sum_i x_i / sigma_x^2) sigma_p^2 (eq. 12).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, d)
        The observations x_i (a 1-D array is N data of dimension 1).
    sigma_x : float, default 1.0
        Sigma = sigma_x^2 I when ``Sigma`` is None (Vollmer et al. eq. 11).
    sigma0 : float or None, default 1.0
        The prior's scale, theta ~ N(0, sigma0^2 I); None for a flat (improper) prior (Baker et al. Sec. 3.4).
    Sigma : array_like, shape (d, d), optional
        A full known covariance of the data (symmetric positive definite); then ``sigma_x`` must keep its default.

    Raises
    ------
    ParameterError
        When the data are not finite numbers of one or two dimensions, a scale is not positive, ``Sigma`` is not a
        symmetric positive definite (d, d) matrix, or both ``Sigma`` and ``sigma_x`` are given.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (11), (12), (15); Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.4.
    """

    sigma_x: float = 1.0
    sigma0: float | None = 1.0
    Sigma: np.ndarray | None = None
    _flat: np.ndarray | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        x = check_finite_array("data", self.data, ndim=(1, 2))
        if x.ndim == 1:
            x = x[:, None]
        self._set_data(x, x.shape[1])
        self.dim = x.shape[1]
        self.sigma_x = check_positive("sigma_x", self.sigma_x)
        self.prior_is_flat = self.sigma0 is None
        if self.sigma0 is not None:
            self.sigma0 = check_positive("sigma0", self.sigma0)
        self._isotropic = self.Sigma is None
        self._sum = x.sum(axis=0)
        if self._isotropic:
            self._flat = np.ascontiguousarray(x[:, 0]) if self.dim == 1 else None
            self.P = np.eye(self.dim) / self.sigma_x**2
            prior_prec = 0.0 if self.sigma0 is None else 1.0 / self.sigma0**2
            self.grad_lipschitz = prior_prec + self.n_data / self.sigma_x**2
            return
        if self.sigma_x != 1.0:
            raise ParameterError(f"give either sigma_x (Sigma = sigma_x^2 I) or Sigma, not both; got sigma_x = "
                                 f"{self.sigma_x!r} with a Sigma")
        self.Sigma = check_covariance("Sigma", self.Sigma, self.dim)
        self.P = np.linalg.inv(self.Sigma)
        prior_prec = 0.0 if self.sigma0 is None else 1.0 / self.sigma0 ** 2
        self.grad_lipschitz = self.n_data * float(np.linalg.eigvalsh(self.P)[-1]) + prior_prec

    grad_cov_is_constant = True

    @classmethod
    def simulate_data(cls, n_data: int, theta_true=1.0, sigma_x: float = 1.0, sigma0: float | None = 1.0,
                      dim: int = 1, seed: int = 0, Sigma=None) -> GaussianMeanModel:
        """Draw x_i ~ N(theta_true, Sigma), i = 1..N, from ``seed`` and build the model.

        Parameters
        ----------
        n_data : int
            N >= 1.
        theta_true : float or array_like of shape (d,), default 1.0
            The data's mean (a number is repeated over the d coordinates).
        sigma_x, sigma0, Sigma
            As for the class (``Sigma=None``: sigma_x^2 I, drawn as theta_true + sigma_x z; a matrix: drawn as
            theta_true + z L^T with L its Cholesky factor, z ~ N(0, I_d) either way).
        dim : int, default 1
            d >= 1.
        seed : int, default 0
            The seed of the data's generator.

        Returns
        -------
        GaussianMeanModel

        Raises
        ------
        ParameterError
            For a bad size, scale, mean or covariance.
        """
        n_data = check_int("n_data", n_data, 1)
        dim = check_int("dim", dim, 1)
        rng = np.random.default_rng(seed)
        if Sigma is None:
            sigma_x = check_positive("sigma_x", sigma_x)
            x = check_finite_array("theta_true", theta_true, ndim=(0, 1)) + sigma_x * rng.standard_normal((n_data, dim))
            return cls(x, sigma_x=sigma_x, sigma0=sigma0)
        Sigma = check_covariance("Sigma", Sigma, dim)
        mu = np.broadcast_to(check_finite_array("theta_true", theta_true, ndim=(0, 1)), (dim,))
        x = mu + rng.standard_normal((n_data, dim)) @ np.linalg.cholesky(Sigma).T
        return cls(x, sigma_x=sigma_x, sigma0=sigma0, Sigma=Sigma)

    @staticmethod
    def ar1_cov(dim: int, rho: float = 0.5) -> np.ndarray:
        """The AR(1) correlation matrix Sigma_ij = rho^(abs(i - j)), the workbench's choice for Baker et al. Sec. 3.4.

        Parameters
        ----------
        dim : int
            d >= 1.
        rho : float, default 0.5
            The correlation of neighbouring coordinates.

        Returns
        -------
        numpy.ndarray, shape (d, d)

        Raises
        ------
        ParameterError
            When dim is not a positive integer.
        """
        dim = check_int("dim", dim, 1)
        i = np.arange(dim)
        return rho ** np.abs(i[:, None] - i[None, :])

    # --- posterior facts (Vollmer et al. eqs. 12, 15; standard conjugacy)
    @property
    def A(self) -> float:
        """A = (1/2)(1/sigma0^2 + N/sigma_x^2), Vollmer et al. eq. (15): the drift of theta is -A theta + B."""
        return 0.5 * self.grad_lipschitz

    @property
    def posterior_var(self) -> float:
        """sigma_p^2 = 1/(1/sigma0^2 + N/sigma_x^2), each coordinate's posterior variance (Sigma = sigma_x^2 I)."""
        if not self._isotropic:
            raise ParameterError("posterior_var is the isotropic model's (Sigma = sigma_x^2 I); use posterior_cov")
        return 1.0 / self.grad_lipschitz

    @property
    def posterior_mean(self) -> np.ndarray:
        """The posterior mean, shape (d,)."""
        if self._isotropic:
            return self._sum / self.sigma_x**2 * self.posterior_var
        return self.tempered_posterior(self.n_data, self._sum, 1.0)[0]

    @property
    def posterior_cov(self) -> np.ndarray:
        """The posterior covariance, shape (d, d)."""
        if self._isotropic:
            return self.posterior_var * np.eye(self.dim)
        return self.tempered_posterior(self.n_data, self._sum, 1.0)[1]

    def tempered_posterior(self, n: int, xsum: np.ndarray, prior_power: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """The mean and covariance of the tempered block posterior p(theta)^lam prod_{i in B} p(x_i | theta).

        Standard conjugacy: precision Q = n Sigma^{-1} + (lam/sigma0^2) I, mean Q^{-1} Sigma^{-1} xsum.

        Parameters
        ----------
        n : int
            The block's number of data.
        xsum : numpy.ndarray, shape (d,)
            The sum of the block's data.
        prior_power : float, default 1.0
            lam, the prior's power (1/S for a subposterior of S blocks).

        Returns
        -------
        mean : numpy.ndarray, shape (d,)
        cov : numpy.ndarray, shape (d, d)
        """
        prec = n * self.P
        if self.sigma0 is not None:
            prec = prec + (prior_power / self.sigma0 ** 2) * np.eye(self.dim)
        cov = np.linalg.inv(prec)
        cov = 0.5 * (cov + cov.T)
        return cov @ (self.P @ xsum), cov

    # --- gradients
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient -theta / sigma0^2 (zeros for the flat prior).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        if self._isotropic and self.sigma0 is not None:
            return theta * (-1.0 / self.sigma0**2)
        return self.prior_terms(theta)[1]

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients Sigma^{-1} (x_i - theta_m) for i = idx[:, m].

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
        if self._isotropic:
            return (self.data.take(idx, axis=0) - theta[None, :, :]) / self.sigma_x**2
        return self.terms(theta[None, :, :], self.data.take(idx, axis=0))[1]

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The minibatch sum Sigma^{-1} (sum_j x_{idx[j, m]} - n theta_m), the data summed in a fixed order.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        n = idx.shape[0]
        if self._flat is not None:
            xsum = kernels.take_sum_flat(self._flat, idx)[:, None]
        else:
            xsum = kernels.take_sum_rows(self.data, idx)  # the bits of data.take(idx, axis=0).sum(axis=0)
        if self._isotropic:
            return (xsum - n * theta) / self.sigma_x**2
        return (xsum - n * theta) @ self.P

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient Sigma^{-1} (sum_i x_i - N theta).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        if self._isotropic:
            return (self._sum - self.n_data * theta) / self.sigma_x**2
        return (self._sum - self.n_data * theta) @ self.P

    def per_datum_grad_cov(self, theta: np.ndarray | None = None) -> np.ndarray:
        """The per-datum gradients' covariance Sigma^{-1} Cov_emp(x) Sigma^{-1} (divisor N), independent of theta.

        Parameters
        ----------
        theta : numpy.ndarray, optional
            Ignored (the covariance does not depend on theta).

        Returns
        -------
        numpy.ndarray, shape (d, d)

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (16): Var(B) on the toy is (N^2/(4 n)) times it (with replacement).
        """
        xc = self.data - self.data.mean(axis=0)
        if self._isotropic:
            return kernels.gram(xc) / self.n_data / self.sigma_x**4
        return self.P @ (xc.T @ xc / self.n_data) @ self.P

    def affine_parts(self) -> AffineParts:
        """The model's affine gradients, for the exact engine.

        Returns
        -------
        AffineParts
            P_0 = I/sigma0^2 (zeros for the flat prior), r_0 = 0; P_i = Sigma^{-1} for every datum (form "common"),
            r_i = Sigma^{-1} x_i.
        """
        if self._isotropic:
            eye = np.eye(self.dim)
            prior = np.zeros((self.dim, self.dim)) if self.sigma0 is None else eye / self.sigma0**2
            s2 = self.sigma_x**2
            return AffineParts.with_common(prior, np.zeros(self.dim), eye / s2, self.data / s2)
        prior = np.zeros((self.dim, self.dim)) if self.sigma0 is None else np.eye(self.dim) / self.sigma0 ** 2
        return AffineParts.with_common(prior, np.zeros(self.dim), self.P, self.data @ self.P)

    # --- log densities (LogDensityModel)
    def terms(self, theta, x):
        """Per-datum Gaussian log densities -(1/2)(x - theta)^T Sigma^{-1} (x - theta) and their gradients.

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
        Pr = r / self.sigma_x**2 if self._isotropic else r @ self.P
        return -0.5 * np.einsum("...i,...i->...", r, Pr), Pr

    def prior_terms(self, theta):
        """The prior's log density -``|theta|^2``/(2 sigma0^2) and gradient (zeros for the flat prior).

        Parameters
        ----------
        theta : numpy.ndarray, shape (..., d)
            Points.

        Returns
        -------
        log_prior : numpy.ndarray, shape (...)
        grad : numpy.ndarray, shape (..., d)
        """
        if self.sigma0 is None:
            return np.zeros(theta.shape[:-1]), np.zeros_like(theta)
        s2 = self.sigma0 ** 2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """Sigma / n, used only to precondition MALA and start the subposterior chains.

        Parameters
        ----------
        n_data : int
            n, the number of data (at least 1 is used).
        prior_power : float, default 1.0
            Ignored.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        Sigma = self.sigma_x**2 * np.eye(self.dim) if self._isotropic else self.Sigma
        return Sigma / max(n_data, 1)

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Overdispersed starting points for a block's chains: N(block mean, 4 Sigma/n).

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        shape : tuple of int
            The leading shape of the draws.
        xb : numpy.ndarray, shape (n, d)
            The block's data.

        Returns
        -------
        numpy.ndarray, shape shape + (d,)
        """
        c = np.linalg.cholesky(4.0 * self.approx_cov(xb.shape[0]))
        return xb.mean(0) + rng.standard_normal(shape + (self.dim,)) @ c.T


__all__ = ["GaussianMeanModel"]
