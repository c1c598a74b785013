"""Bayesian logistic regression (Vollmer, Zygalakis & Teh 2016, Section 7, eq. 73).

Model: p(y_i | x_i, beta) = sigma(y_i beta^T x_i), sigma(z) = 1/(1 + e^{-z}), y_i in {-1, +1}; prior
beta ~ N(0, sigma0^2 I) (the paper: C_0 = I). With z_i = y_i x_i the per-datum gradient is
grad log p(y_i | x_i, beta) = z_i sigma(-z_i^T beta). The gradients run through the vector kernels of
``simulate._fast.kernels`` (the same bits on every CPU); reference posterior moments (quadrature, MALA) live in
``simulate.analysis.reference``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from .._fast import kernels
from ..validation import ParameterError, check_finite_array, check_int, check_positive
from .base import ModelBase

#: beta_true of the synthetic labels of :meth:`simulate.LogisticRegressionModel.paper_synthetic`. The paper does not
#: state how its labels were drawn (Vollmer et al. Sec. 7; docs/papers/vollmer.md sec. 9); this is our choice.
PAPER_BETA_TRUE = (1.0, -1.0, 0.5)
#: N of Vollmer et al.'s Section 7 design.
PAPER_N_DATA = 1000
#: The seed of the synthetic data of :meth:`simulate.LogisticRegressionModel.paper_synthetic` (our choice).
PAPER_DATA_SEED = 2016


def sigmoid_neg(s: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The logistic function at -s, sigma(-s) = 1/(1 + e^s), computed as (1 - tanh(s/2))/2 elementwise (new).

    Parameters
    ----------
    s : numpy.ndarray
        The arguments.
    out : numpy.ndarray, optional
        Where to write the result (may be ``s`` itself).

    Returns
    -------
    numpy.ndarray
        ``out`` when given.
    """
    out = np.multiply(s, 0.5, out=out)
    np.tanh(out, out=out)
    out *= -0.5
    out += 0.5
    return out


def log_sigmoid(s: np.ndarray) -> np.ndarray:
    """The log of the logistic function, log sigma(s) = min(s, 0) - log(1 + exp(-abs(s))), elementwise (new).

    The form never overflows.

    Parameters
    ----------
    s : numpy.ndarray
        The arguments.

    Returns
    -------
    numpy.ndarray
    """
    t = np.abs(s)
    np.negative(t, out=t)
    np.exp(t, out=t)
    np.log1p(t, out=t)
    return np.minimum(s, 0.0) - t


@dataclass
class LogisticRegressionModel(ModelBase):
    """Bayesian logistic regression p(y | x, beta) = sigma(y beta^T x), prior beta ~ N(0, sigma0^2 I).

    The gradient's Lipschitz constant is bounded by 1/sigma0^2 + lambda_max(X^T X)/4 (sigma' <= 1/4), which gives
    the samplers' step-size bound.

    Parameters
    ----------
    X : array_like, shape (N, d)
        The design (include a column of ones for an intercept).
    y : array_like, shape (N,)
        The labels, each -1 or +1.
    sigma0 : float, default 1.0
        The prior's standard deviation, > 0.

    Raises
    ------
    ParameterError
        When X or y are not finite numbers of matching shapes, a label is not -1 or +1, or sigma0 is not positive.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 7, eq. (73) (:doc:`/papers/vollmer`, sec. 8).
    """

    X: np.ndarray
    y: np.ndarray
    sigma0: float = 1.0
    _Z: np.ndarray = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        X = check_finite_array("X", self.X, ndim=(2,))
        y = check_finite_array("y", self.y, ndim=(1,))
        if y.shape[0] != X.shape[0]:
            raise ParameterError(f"y must have shape ({X.shape[0]},) to match X {X.shape}, got {y.shape}")
        if not np.all((y == 1.0) | (y == -1.0)):
            bad = np.unique(y[(y != 1.0) & (y != -1.0)])[:5]
            raise ParameterError(f"y must contain only the labels -1 and +1, got values such as {bad.tolist()}")
        self.X, self.y = X, y
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.n_data, self.dim = X.shape
        self._Z = np.ascontiguousarray(y[:, None] * X)  # z_i = y_i x_i
        self._Zcols = tuple(np.ascontiguousarray(self._Z[:, j]) for j in range(self.dim))
        self._ZZ = np.einsum("ni,nj->nij", self._Z, self._Z).reshape(self.n_data, self.dim * self.dim)
        # sigma' <= 1/4, so the Hessian of -log posterior is <= I/sigma0^2 + X^T X / 4.
        self.grad_lipschitz = 1.0 / self.sigma0**2 + float(kernels.eigvalsh(kernels.gram(X))[-1]) / 4.0

    grad_cov_is_constant = False

    # ------------------------------------------------------------------ factories
    @classmethod
    def paper_synthetic(
        cls, n_data: int = PAPER_N_DATA, beta_true=PAPER_BETA_TRUE, seed: int = PAPER_DATA_SEED,
        sigma0: float = 1.0,
    ) -> LogisticRegressionModel:
        """The model on Vollmer et al.'s Section 7 design: rows (x_i1, ..., x_i,d-1, 1), x_ij ~ N(0, 1).

        Labels y_i = +1 with probability sigma(beta_true^T x_i), else -1. The paper does not state beta_true
        (nor its seed); (1, -1, 0.5) is our choice (docs/papers/vollmer.md sec. 9).

        Parameters
        ----------
        n_data : int, default PAPER_N_DATA
            N >= 1 (the paper: 1000).
        beta_true : array_like, shape (d,), default PAPER_BETA_TRUE
            The coefficients, the last one the intercept's (d = 3 by default).
        seed : int, default PAPER_DATA_SEED
            The seed of the design and the labels.
        sigma0 : float, default 1.0
            The prior's scale (the paper: C_0 = I).

        Returns
        -------
        LogisticRegressionModel

        Raises
        ------
        ParameterError
            When n_data is not a positive integer or beta_true is not a finite non-empty vector.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), Section 7 (:doc:`/papers/vollmer`, secs. 8-9).
        """
        n_data = check_int("n_data", n_data, 1)
        beta = check_finite_array("beta_true", beta_true, ndim=(1,))
        if beta.shape[0] < 1:
            raise ParameterError("beta_true must have at least one entry (the intercept)")
        rng = np.random.default_rng(seed)
        X = np.hstack([rng.standard_normal((n_data, beta.shape[0] - 1)), np.ones((n_data, 1))])
        y = np.where(rng.random(n_data) < expit(kernels.matmul(X, beta[:, None])[:, 0]), 1.0, -1.0)
        return cls(X, y, sigma0=sigma0)

    # ------------------------------------------------------------------ gradients
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient grad log N(theta; 0, sigma0^2 I) = -theta / sigma0^2.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return theta * (-1.0 / self.sigma0**2)

    def _kernel_args(self, theta: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(theta C-contiguous float64 (M, d), idx (n, M)) for the numba kernels; indices checked as ``take`` does."""
        idx = np.asarray(idx)
        if idx.ndim != 2 or idx.dtype.kind not in "iu":
            raise IndexError(f"idx must be an (n, M) integer array, got shape {idx.shape} and dtype {idx.dtype}")
        N = self.n_data
        if idx.size and (int(idx.min()) < -N or int(idx.max()) >= N):
            raise IndexError(f"idx must lie in [-{N}, {N}) (N = {N} data)")
        theta = np.ascontiguousarray(np.broadcast_to(theta, (idx.shape[1], self.dim)), dtype=np.float64)
        return theta, idx

    @functools.cached_property
    def _Zp(self) -> np.ndarray:
        """z_i as rows padded with zero columns to a multiple of 8 (the layout of the vector kernels; built once)."""
        return kernels.padded(self._Z)

    @property
    def _blocks(self) -> tuple[int, ...]:
        """The 8-column block count of :attr:`_Zp` in the kernels' compile-time form (``kernels.blocks``)."""
        return kernels.blocks(self._Zp.shape[1])

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients z_i sigma(-z_i^T theta_m) for i = idx[:, m] (z_i = y_i x_i; a fused kernel).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, d)

        Raises
        ------
        IndexError
            When idx is not an (n, M) integer array of indices in [-N, N).
        """
        theta, idx = self._kernel_args(theta, idx)
        out = np.empty((idx.shape[0], idx.shape[1], self.dim))
        kernels.per_datum(self._Zp, theta, idx, out, self._blocks)
        return out

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The minibatch sum sum_j z_{idx[j,m]} sigma(-z_{idx[j,m]}^T theta_m), without the (n, M, d) gather.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)

        Raises
        ------
        IndexError
            When idx is not an (n, M) integer array of indices in [-N, N).
        """
        theta, idx = self._kernel_args(theta, idx)
        out = np.empty((idx.shape[1], self.dim))
        kernels.call(kernels.grad_sum, kernels.grad_sum_shared, (self._Zp, theta, idx, out, self._blocks))
        return out

    def grad_log_lik_diff_sum(self, theta: np.ndarray, theta_hat: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The control-variate / SVRG correction sum_j [g_j(theta_m) - g_j(theta_hat_m)], in one pass.

        Equals ``grad_log_lik_sum(theta, idx) - grad_log_lik_sum(theta_hat, idx)``
        (:class:`simulate.contracts.SupportsDiffSum`).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        theta_hat : numpy.ndarray, shape (d,) or (M, d)
            The centre(s).
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        theta, idx = self._kernel_args(theta, idx)
        theta_hat = np.ascontiguousarray(np.broadcast_to(theta_hat, theta.shape), dtype=np.float64)
        out = np.empty((idx.shape[1], self.dim))
        kernels.call(kernels.diff_sum, kernels.diff_sum_shared,
                      (self._Zp, theta, theta_hat, idx, out, self._blocks))
        return out

    def fill_gradient_table(self, theta: np.ndarray, table: np.ndarray, total: np.ndarray) -> None:
        """Fill SAGA's table in place: table[m, i] = z_i sigma(-z_i^T theta_m) for every i, total[m] = sum_i of them.

        :class:`simulate.contracts.SupportsGradientTable`; the per-datum kernel's weights, so an entry equals
        ``grad_log_lik``'s.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        table : numpy.ndarray, shape (M, N, d)
            Overwritten.
        total : numpy.ndarray, shape (M, d)
            Overwritten.
        """
        theta = np.ascontiguousarray(theta, dtype=np.float64)
        kernels.saga_table(self._Zp, theta, table, total, self._blocks)

    def _scores(self, theta: np.ndarray) -> np.ndarray:
        """s_{m i} = z_i^T theta_m, shape (M, N)."""
        return theta @ self._Z.T

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient sum_{i=1}^N z_i sigma(-z_i^T theta).

        The minibatch kernel over all N rows in order: the same fixed summation order and bits on every CPU (no
        BLAS).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d) or (d,)
            The point(s).

        Returns
        -------
        numpy.ndarray, shape (M, d), or (d,) for a 1-D theta
        """
        th = np.asarray(theta, dtype=np.float64)
        th2 = th[None, :] if th.ndim == 1 else th
        out = self.grad_log_lik_sum(th2, np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, th2.shape[0])))
        return out[0] if th.ndim == 1 else out

    def log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data log likelihood sum_i log sigma(z_i^T theta).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
        """
        return log_sigmoid(self._scores(theta)).sum(axis=1)

    def log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's log density up to its constant, ``-|theta|^2 / (2 sigma0^2)``.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
        """
        return -0.5 * np.einsum("md,md->m", theta, theta) / self.sigma0**2

    def log_post(self, theta: np.ndarray) -> np.ndarray:
        """The unnormalised log posterior ``-|theta|^2/(2 sigma0^2) + sum_i log sigma(z_i^T theta)``.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M,)
        """
        return self.log_prior(theta) + self.log_lik_full(theta)

    def log_post_and_grad(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The unnormalised log posterior and its gradient, sharing the scores z_i^T theta (MALA uses it).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        log_post : numpy.ndarray, shape (M,)
        grad : numpy.ndarray, shape (M, d)
        """
        s = self._scores(theta)
        lp = log_sigmoid(s).sum(axis=1) + self.log_prior(theta)
        g = sigmoid_neg(s, out=s) @ self._Z + self.grad_log_prior(theta)
        return lp, g

    def neg_hessian_log_post(self, theta: np.ndarray) -> np.ndarray:
        """The negative Hessian of the log posterior, I/sigma0^2 + sum_i sigma(s_i) sigma(-s_i) x_i x_i^T.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d, d)
        """
        s = self._scores(theta)
        w = expit(s) * expit(-s)
        H = (w @ self._ZZ).reshape(-1, self.dim, self.dim)
        H += np.eye(self.dim) / self.sigma0**2
        return H

    def per_datum_grad_cov(self, theta: np.ndarray) -> np.ndarray:
        """The exact covariance (divisor N) of the N per-datum gradients at each theta_m.

        S(theta) = (1/N) sum_i w_i^2 z_i z_i^T - gbar gbar^T, w_i = sigma(-z_i^T theta), gbar = (1/N) sum_i w_i z_i.

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d, d)

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (16) generalised; the exact-covariance mSGLD (eq. (54)) reads it.
        """
        theta = np.asarray(theta, dtype=np.float64)
        w = sigmoid_neg(self._scores(theta))  # (M, N)
        N = self.n_data
        gbar = w @ self._Z / N
        second = ((w * w) @ self._ZZ).reshape(-1, self.dim, self.dim) / N
        return second - np.einsum("mi,mj->mij", gbar, gbar)

    # ------------------------------------------------------------------ posterior facts
    def posterior_mode(self, tol: float = 1e-12, max_iter: int = 100) -> np.ndarray:
        """The MAP estimate by Newton's method on the (strictly concave) log posterior, from 0.

        Parameters
        ----------
        tol : float, default 1e-12
            Stop when every coordinate of a Newton step is below it.
        max_iter : int, default 100
            The most Newton steps.

        Returns
        -------
        numpy.ndarray, shape (d,)

        Raises
        ------
        RuntimeError
            When Newton's method has not converged after max_iter steps.
        """
        beta = np.zeros((1, self.dim))
        for _ in range(max_iter):
            g = self.grad_log_post(beta)[0]
            step = np.linalg.solve(self.neg_hessian_log_post(beta)[0], g)
            beta = beta + step
            if np.max(np.abs(step)) < tol:
                return beta[0]
        raise RuntimeError("Newton's method for the posterior mode did not converge")

    def laplace(self) -> tuple[np.ndarray, np.ndarray]:
        """The Laplace approximation N(mode, H(mode)^{-1}) of the posterior, H the negative Hessian.

        Returns
        -------
        mode : numpy.ndarray, shape (d,)
        cov : numpy.ndarray, shape (d, d)

        Raises
        ------
        RuntimeError
            When the mode search does not converge (:meth:`posterior_mode`).
        """
        mode = self.posterior_mode()
        return mode, np.linalg.inv(self.neg_hessian_log_post(mode[None, :])[0])


__all__ = ["PAPER_BETA_TRUE", "PAPER_DATA_SEED", "PAPER_N_DATA", "LogisticRegressionModel", "log_sigmoid",
           "sigmoid_neg"]
