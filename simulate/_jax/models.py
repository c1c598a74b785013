"""The JAX backend's views of the models: the gradients a step calls (:class:`simulate.contracts.Model`), in jax.numpy.

* :class:`AffineView` serves every model with an affine gradient (:class:`simulate.affine.AffineModel`: the Gaussian
  mean model, linear regression, a user's model with ``affine_parts()``) from the parts the exact engine reads:
  grad log p(x_i | theta) = r_i - P_i theta, grad log p(theta) = r_0 - P_0 theta.
* :class:`LogisticView` serves Bayesian logistic regression (Vollmer et al. 2016, eq. 73): the per-datum gradient
  z_i sigma(-z_i^T theta).

Minibatch indices may arrive deferred (:class:`simulate._jax.streams.DeferredIndices`): they are drawn where a
gradient reads them. Validation (``check_theta``) and constants are the numpy model's.
"""

from __future__ import annotations

from functools import cached_property

import jax
import jax.numpy as jnp
import numpy as np

from ..affine import AffineModel
from ..models.logistic import LogisticRegressionModel
from .namespace import HIGHEST
from .streams import materialise


def _ein(spec: str, *ops) -> jax.Array:
    return jnp.einsum(spec, *ops, precision=HIGHEST)


class _View:
    """What every view shares: sizes, the Lipschitz constant, validation by the numpy model."""

    def __init__(self, model, dtype) -> None:
        self.base, self.dtype = model, dtype
        self.n_data, self.dim = int(model.n_data), int(model.dim)
        self.grad_lipschitz = model.grad_lipschitz
        self.grad_cov_is_constant = model.grad_cov_is_constant

    def _a(self, x) -> jax.Array:
        return jnp.asarray(np.asarray(x), dtype=self.dtype)

    def check_theta(self, theta, name: str = "theta") -> jax.Array:
        """The numpy model's check of a host array, then the backend's dtype (a device array: its shape only, the
        runner has checked its values)."""
        if isinstance(theta, jax.Array):
            if theta.ndim != 2 or theta.shape[1] != self.dim:
                raise ValueError(f"{name} must have shape (M, {self.dim}), got {theta.shape}")
            return jnp.asarray(theta, dtype=self.dtype)
        return self._a(self.base.check_theta(np.asarray(theta), name))

    def grad_log_post(self, theta) -> jax.Array:
        return self.grad_log_prior(theta) + self.grad_log_lik_full(theta)


class AffineView(_View):
    """grad log p(x_i | theta) = r_i - P_i theta with P_i common, rank one (w_i z_i z_i^T) or dense."""

    def __init__(self, model, dtype) -> None:
        super().__init__(model, dtype)
        p = model.affine_parts()
        self.form = p.form
        self.P0, self.r0, self.R = self._a(p.prior_precision), self._a(p.prior_shift), self._a(p.shifts)
        self.Rsum, self.Psum = self._a(p.shifts.sum(axis=0)), self._a(p.precision_sum())
        self._parts = p
        if p.form == "common":
            self.C = self._a(p.common)
        elif p.form == "rank_one":
            self.w, self.Z = self._a(p.weights), self._a(p.factors)
        else:
            self.Pi = self._a(p.precisions)

    def grad_log_prior(self, theta) -> jax.Array:
        return self.r0 - jnp.matmul(theta, self.P0, precision=HIGHEST)  # P_0 symmetric

    def _precision_times(self, idx, x) -> jax.Array:
        """sum_j P_{idx[j, m]} x_m, (M, d)."""
        if self.form == "common":
            return idx.shape[0] * jnp.matmul(x, self.C, precision=HIGHEST)
        if self.form == "rank_one":
            Zs = self.Z[idx]
            return _ein("nm,nmd->md", self.w[idx] * _ein("nmd,md->nm", Zs, x), Zs)
        return _ein("nmij,mj->mi", self.Pi[idx], x)

    def grad_log_lik_sum(self, theta, idx) -> jax.Array:
        idx = materialise(idx)
        return jnp.sum(self.R[idx], axis=0) - self._precision_times(idx, theta)

    def grad_log_lik_diff_sum(self, theta, theta_hat, idx) -> jax.Array:
        """sum_j [g_j(theta) - g_j(theta_hat)] = -sum_j P_j (theta - theta_hat)."""
        return -self._precision_times(materialise(idx), theta - theta_hat)

    def grad_log_lik(self, theta, idx) -> jax.Array:
        idx = materialise(idx)
        if self.form == "common":
            return self.R[idx] - jnp.matmul(theta, self.C, precision=HIGHEST)[None]
        if self.form == "rank_one":
            Zs = self.Z[idx]
            return self.R[idx] - (self.w[idx] * _ein("nmd,md->nm", Zs, theta))[..., None] * Zs
        return self.R[idx] - _ein("nmij,mj->nmi", self.Pi[idx], theta)

    def grad_log_lik_full(self, theta) -> jax.Array:
        return self.Rsum - jnp.matmul(theta, self.Psum, precision=HIGHEST)

    @cached_property
    def _moments(self) -> tuple[jax.Array, jax.Array, jax.Array]:
        """(C0, C1, C2): S(theta) = C0 - C1 theta - (C1 theta)^T + C2 : theta theta, centred g_i = u_i - B_i theta."""
        p = self._parts
        u = p.shifts - p.shifts.mean(axis=0)
        B = p.datum_precisions()
        B = B - B.mean(axis=0)
        N = p.n_data
        return (self._a(u.T @ u / N), self._a(np.einsum("na,nbk->abk", u, B) / N),
                self._a(np.einsum("nak,nbl->akbl", B, B) / N))

    def per_datum_grad_cov(self, theta=None) -> jax.Array:
        """Covariance (divisor N) of the N per-datum gradients: (d, d) when constant, else (M, d, d)."""
        if self.grad_cov_is_constant or theta is None:
            return self._a(self.base.per_datum_grad_cov(None))
        C0, C1, C2 = self._moments
        lin = _ein("abk,mk->mab", C1, theta)
        return C0 - lin - jnp.swapaxes(lin, 1, 2) + _ein("akbl,mk,ml->mab", C2, theta, theta)


class LogisticView(_View):
    """z_i sigma(-z_i^T theta) per datum, prior N(0, sigma0^2 I) (Vollmer et al. 2016, eq. 73)."""

    def __init__(self, model: LogisticRegressionModel, dtype) -> None:
        super().__init__(model, dtype)
        self.Z = self._a(model._Z)
        self.prior_scale = -1.0 / model.sigma0**2

    def grad_log_prior(self, theta) -> jax.Array:
        return theta * self.prior_scale

    def _weighted(self, idx, *thetas) -> jax.Array:
        """sum_j (sum_t +-sigma(-z_j^T theta_t)) z_j over the minibatch: first theta +, second -."""
        rows = self.Z[materialise(idx)]  # (n, M, d)
        w = jax.nn.sigmoid(-_ein("nmd,md->nm", rows, thetas[0]))
        if len(thetas) > 1:
            hat = jnp.broadcast_to(thetas[1], thetas[0].shape)
            w = w - jax.nn.sigmoid(-_ein("nmd,md->nm", rows, hat))
        return _ein("nm,nmd->md", w, rows)

    def grad_log_lik_sum(self, theta, idx) -> jax.Array:
        return self._weighted(idx, theta)

    def grad_log_lik_diff_sum(self, theta, theta_hat, idx) -> jax.Array:
        return self._weighted(idx, theta, theta_hat)

    def grad_log_lik(self, theta, idx) -> jax.Array:
        rows = self.Z[materialise(idx)]
        return rows * jax.nn.sigmoid(-_ein("nmd,md->nm", rows, theta))[..., None]

    def grad_log_lik_full(self, theta) -> jax.Array:
        w = jax.nn.sigmoid(-jnp.matmul(theta, self.Z.T, precision=HIGHEST))
        return jnp.matmul(w, self.Z, precision=HIGHEST)

    def per_datum_grad_cov(self, theta) -> jax.Array:
        """S(theta) = (1/N) sum_i w_i^2 z_i z_i^T - gbar gbar^T, w_i = sigma(-z_i^T theta), (M, d, d)."""
        w = jax.nn.sigmoid(-jnp.matmul(theta, self.Z.T, precision=HIGHEST))  # (M, N)
        gbar = jnp.matmul(w, self.Z, precision=HIGHEST) / self.n_data
        second = _ein("mn,na,nb->mab", w * w, self.Z, self.Z) / self.n_data
        return second - gbar[:, :, None] * gbar[:, None, :]


def view_of(model, dtype) -> AffineView | LogisticView | None:
    """The JAX view of ``model``, or None where the backend has none."""
    if type(model) is LogisticRegressionModel:
        return LogisticView(model, dtype)
    if isinstance(model, AffineModel):
        return AffineView(model, dtype)
    return None
