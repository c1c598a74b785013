"""Bayesian linear regression with known noise variance (Baker, Fearnhead, Fox & Nemeth 2019; docs/papers/baker.md
sec. 2).

Model: y_i = z_i^T theta + e_i, e_i ~ N(0, sigma^2), prior theta ~ N(0, sigma0^2 I). With A_i = z_i z_i^T / sigma^2
and r_i = z_i y_i / sigma^2 the per-datum gradient is affine in theta,

    g_i(theta) = grad log p(y_i | z_i, theta) = r_i - A_i theta,

so the posterior is N(mu, P^{-1}) with P = sum_i A_i + I/sigma0^2, mu = P^{-1} sum_i r_i, and the empirical
covariance of the per-datum gradients (divisor N) is exactly quadratic in theta:

    S(theta) = (1/N) sum_i (u_i - B_i theta)(u_i - B_i theta)^T,   u_i = r_i - r_bar, B_i = A_i - A_bar.

Unlike the Gaussian location model, A_i varies with i, so the control-variate noise (N/n) sum_S [g_i(theta) -
g_i(theta_hat)] = -(N/n) sum_S A_i (theta - theta_hat) is not degenerate (docs/papers/baker.md sec. 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._fast import kernels
from ..affine import AffineParts
from ..validation import ParameterError, check_finite_array, check_int, check_positive
from .base import ModelBase


@dataclass
class LinearRegressionModel(ModelBase):
    """Bayesian linear regression y_i ~ N(z_i^T theta, sigma^2) with known sigma, prior theta ~ N(0, sigma0^2 I).

    The per-datum gradients are affine in theta (module docstring), so the posterior is N(mu, P^{-1}) and
    :func:`theory.exact_law` answers exactly for every sampler on it.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design, one row z_i per datum (a 1-D array is d = 1).
    y : array_like, shape (N,)
        The responses.
    sigma : float, default 1.0
        The noise's standard deviation, > 0.
    sigma0 : float, default 10.0
        The prior's scale, > 0.

    Raises
    ------
    ParameterError
        When Z or y are not finite numbers of matching shapes, or a scale is not positive.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), the linear-regression experiments (:doc:`/papers/baker`, secs. 2 and 5).
    """

    Z: np.ndarray
    y: np.ndarray
    sigma: float = 1.0
    sigma0: float = 10.0
    _C1: np.ndarray = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        Z = check_finite_array("Z", self.Z, ndim=(1, 2))
        if Z.ndim == 1:
            Z = Z[:, None]
        y = check_finite_array("y", self.y, ndim=(1,))
        if y.shape[0] != Z.shape[0]:
            raise ParameterError(f"y must have shape ({Z.shape[0]},) to match Z {Z.shape}, got {y.shape}")
        self.sigma = check_positive("sigma", self.sigma)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.Z, self.y = np.ascontiguousarray(Z), y
        self.n_data, self.dim = Z.shape
        s2 = self.sigma**2
        self._r = Z * (y / s2)[:, None]  # (N, d)
        self._rsum = self._r.sum(axis=0)
        self._ZtZ = kernels.gram(self.Z) / s2  # sum_i A_i (fixed summation order: the same bits on every CPU)
        self.precision = self._ZtZ + np.eye(self.dim) / self.sigma0**2
        self.grad_lipschitz = float(kernels.eigvalsh(self.precision)[-1])
        self._Zcols = tuple(np.ascontiguousarray(Z[:, j]) for j in range(self.dim))
        if self.dim <= 6:
            # moments for the exact per-datum gradient covariance, quadratic in theta
            N = self.n_data
            A = np.einsum("ni,nj->nij", Z, Z) / s2
            u = self._r - self._r.mean(axis=0)
            B = A - A.mean(axis=0)
            self._C0 = kernels.gram(u) / N
            self._C1 = np.einsum("na,nbk->abk", u, B) / N  # (1/N) sum u_a B_bk
            self._C2 = np.einsum("nak,nbl->akbl", B, B) / N  # (1/N) sum B_ak B_bl

    grad_cov_is_constant = False

    @classmethod
    def simulate_data(
        cls, n_data: int, dim: int = 2, theta_true=None, sigma: float = 1.0, sigma0: float = 10.0,
        scale_spread: float = 0.25, seed: int = 0,
    ) -> LinearRegressionModel:
        """A model on simulated data with a varied design (new): z_i = s_i w_i, y_i = z_i^T theta_true + sigma e_i.

        w_i ~ N(0, I_d), log s_i ~ N(0, scale_spread^2) and e_i ~ N(0, 1), drawn from ``seed``; the row scales s_i
        make the per-datum precisions A_i differ, so a control variate's noise does not vanish.

        Parameters
        ----------
        n_data : int
            N >= 2.
        dim : int, default 2
            d, 1 <= d <= 64.
        theta_true : float or array_like of shape (d,), optional
            The coefficients (a number is repeated); default (1, -0.5, 0.25, ...).
        sigma : float, default 1.0
            The noise's standard deviation, > 0.
        sigma0 : float, default 10.0
            The prior's scale, > 0.
        scale_spread : float, default 0.25
            The standard deviation of log s_i, >= 0.
        seed : int, default 0
            The seed of the data's generator.

        Returns
        -------
        LinearRegressionModel

        Raises
        ------
        ParameterError
            For a size, scale or coefficient vector out of its range.
        """
        n_data = check_int("n_data", n_data, 2)
        dim = check_int("dim", dim, 1, 64)
        sigma = check_positive("sigma", sigma)
        if not (np.isfinite(scale_spread) and scale_spread >= 0):
            raise ParameterError(f"scale_spread must satisfy 0 <= scale_spread < inf, got {scale_spread!r}")
        if theta_true is None:
            theta_true = (-0.5) ** np.arange(dim)
        theta_true = check_finite_array("theta_true", theta_true, ndim=(0, 1)).reshape(-1)
        if theta_true.shape[0] == 1 and dim > 1:
            theta_true = np.full(dim, theta_true[0])
        if theta_true.shape[0] != dim:
            raise ParameterError(f"theta_true must have {dim} entries, got {theta_true.shape[0]}")
        rng = np.random.default_rng(seed)
        Z = rng.standard_normal((n_data, dim)) * kernels.exp(scale_spread * rng.standard_normal(n_data))[:, None]
        y = kernels.matmul(Z, theta_true[:, None])[:, 0] + sigma * rng.standard_normal(n_data)
        return cls(Z, y, sigma=sigma, sigma0=sigma0)

    # ------------------------------------------------------------------ posterior facts
    @property
    def posterior_mean(self) -> np.ndarray:
        """The posterior mean mu = P^{-1} sum_i r_i, shape (d,)."""
        return kernels.solve_spd(self.precision, self._rsum[:, None])[:, 0]

    @property
    def posterior_cov(self) -> np.ndarray:
        """The posterior covariance P^{-1}, shape (d, d)."""
        return kernels.solve_spd(self.precision, np.eye(self.dim))

    def posterior_mode(self) -> np.ndarray:
        """The posterior mode, which equals the mean (the posterior is Gaussian).

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        return self.posterior_mean

    # ------------------------------------------------------------------ gradients
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient -theta / sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return theta * (-1.0 / self.sigma0**2)

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients g_i(theta_m) = z_i (y_i - z_i^T theta_m) / sigma^2 for i = idx[:, m].

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
        Zs = self.Z.take(idx, axis=0)  # (n, M, d)
        res = (self.y.take(idx) - np.einsum("nmd,md->nm", Zs, theta)) / self.sigma**2
        Zs *= res[..., None]
        return Zs

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The minibatch sum sum_j z_i (y_i - z_i^T theta_m) / sigma^2 over i = idx[j, m] (column by column for d <= 8).

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
        if self.dim > 8:
            return self.grad_log_lik(theta, idx).sum(axis=0)
        cols = [c.take(idx) for c in self._Zcols]  # d arrays (n, M)
        res = self.y.take(idx) - cols[0] * theta[:, 0]
        for j in range(1, self.dim):
            res -= cols[j] * theta[:, j]
        res /= self.sigma**2
        out = np.empty((theta.shape[0], self.dim))
        for j in range(self.dim):
            out[:, j] = (cols[j] * res).sum(axis=0)
        return out

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient sum_i r_i - (sum_i A_i) theta.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return self._rsum - kernels.matmul(np.ascontiguousarray(theta, dtype=np.float64), self._ZtZ)

    def per_datum_grad_cov(self, theta: np.ndarray) -> np.ndarray:
        """The per-datum gradients' covariance S(theta) (divisor N), exactly quadratic in theta (module docstring).

        S(theta) = C0 - C1 theta - (C1 theta)^T + B theta theta^T B from moments precomputed for d <= 6; the
        generic sum over the data above.

        Parameters
        ----------
        theta : array_like, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d, d)
        """
        theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
        if self._C1 is None:
            return super().per_datum_grad_cov(theta)
        lin = np.einsum("abk,mk->mab", self._C1, theta)
        quad = np.einsum("akbl,mk,ml->mab", self._C2, theta, theta)
        return self._C0 - lin - np.swapaxes(lin, 1, 2) + quad

    def affine_parts(self) -> AffineParts:
        """The model's affine gradients, for the exact engine.

        Returns
        -------
        AffineParts
            P_0 = I/sigma0^2, r_0 = 0; P_i = z_i z_i^T/sigma^2 (form "rank_one"), r_i = z_i y_i/sigma^2.
        """
        w = np.full(self.n_data, 1.0 / self.sigma**2)
        return AffineParts.rank_one(np.eye(self.dim) / self.sigma0**2, np.zeros(self.dim), w, self.Z, self._r)

    def log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data log likelihood sum_i log N(y_i; z_i^T theta, sigma^2), constants included.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
        """
        res = self.y[None, :] - theta @ self.Z.T
        return -0.5 * (res * res).sum(axis=1) / self.sigma**2 - 0.5 * self.n_data * np.log(2 * np.pi * self.sigma**2)


__all__ = ["LinearRegressionModel"]
