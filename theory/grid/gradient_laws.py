"""The law of each estimator's gradient estimate g at given points theta, on the route "grid" of
:mod:`theory.laws`: what :func:`theory.grid_law` needs is the characteristic function E exp(-i kappa . G g) on the
grid's Fourier lattice, for the matrix G that maps g into the grid's coordinates (:mod:`.kernels`).

* :class:`FullGradient`: g = grad log pi(theta), a point mass;
* :class:`Minibatch`: g = grad log pi_0(theta) + (N/n) sum_{j in tau} g_j(theta), tau a minibatch (with or without
  replacement): the exact law of the minibatch sum (:mod:`theory.grid.minibatch`);
* :class:`ControlVariate` (SGLD-CV, Baker et al. 2019 Algorithm 1, any centre theta_hat):
  g = grad log pi_0(theta) + sum_i g_i(theta_hat) + (N/n) sum_{j in tau} [g_j(theta) - g_j(theta_hat)];
* :class:`AdditiveNoise`: g = grad log pi(theta) + N(0, V(theta)), Gaussian.

Each law also gives its exact covariance (the one mSGLD's noise matrix reads), for checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.estimators.additive_noise import AdditiveNoise
from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.minibatch import FullGradient, Minibatch
from simulate.validation import ParameterError

from ..laws import law_for
from .minibatch import minibatch_cf, phases, tensor_sum

#: Largest error bound accepted for the characteristic function of a minibatch sum (per frequency).
CF_TOL = 1e-11


@dataclass(frozen=True)
class GridContext:
    """What a law on the grid route reads.

    Parameters
    ----------
    model : Model
        The model.
    h : float
        The step size.
    points : numpy.ndarray
        The points theta, shape (P, d).
    """

    model: object
    h: float
    points: np.ndarray


def _finite(name: str, arr: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``arr`` if finite, else a ParameterError naming the first point where it is not."""
    bad = ~np.all(np.isfinite(arr.reshape(arr.shape[0], -1)), axis=1)
    if np.any(bad):
        where = points[np.flatnonzero(bad)[0]]
        raise ParameterError(f"{name}: non-finite gradient at theta = {np.round(where, 6).tolist()} (inside the "
                             "grid's region); the grid law needs a finite gradient everywhere the law has mass")
    return arr


def gaussian_factor(Q: np.ndarray, axes: tuple[np.ndarray, ...]) -> np.ndarray:
    """exp(-kappa^T Q kappa / 2) on the lattice, for one Q per point.

    Parameters
    ----------
    Q : numpy.ndarray
        Covariances, shape (P, D, D).
    axes : tuple of numpy.ndarray
        The Fourier lattice's axes, K_1, ..., K_D frequencies.

    Returns
    -------
    numpy.ndarray
        Shape (P, K_1, ..., K_D).
    """
    mesh = np.meshgrid(*axes, indexing="ij")
    D = len(axes)
    quad = np.zeros((Q.shape[0],) + mesh[0].shape)
    for i in range(D):
        for j in range(D):
            quad += Q[:, i, j].reshape((-1,) + (1,) * D) * (mesh[i] * mesh[j])[None]
    return np.exp(-0.5 * quad)


@dataclass(frozen=True)
class PointMass:
    """g = ``mean`` exactly.

    Parameters
    ----------
    mean : numpy.ndarray
        The gradient at every point, shape (P, d).
    bound : float
        Its characteristic function's error bound (0: exact).
    """

    mean: np.ndarray
    bound: float = 0.0

    def cf(self, G: np.ndarray, axes: tuple[np.ndarray, ...]) -> np.ndarray:
        """E exp(-i kappa . G g) on the lattice.

        Parameters
        ----------
        G : numpy.ndarray
            The matrix (D, d) that maps g into the grid's coordinates.
        axes : tuple of numpy.ndarray
            The grid's Fourier lattice, one axis of frequencies kappa per coordinate.

        Returns
        -------
        numpy.ndarray
            Shape (P, K_1, ..., K_D).
        """
        return tensor_sum(phases(-(self.mean @ G.T)[:, None, :], axes))

    def cov(self) -> np.ndarray:
        """Cov(g | theta) = 0.

        Returns
        -------
        numpy.ndarray
            Cov(g | theta) at every point, shape (P, d, d).
        """
        return np.zeros(self.mean.shape + (self.mean.shape[1],))


@dataclass(frozen=True)
class GaussianGradient:
    """g ~ N(mean, covariance) at every point.

    Parameters
    ----------
    mean : numpy.ndarray
        Shape (P, d).
    covariance : numpy.ndarray
        Shape (P, d, d).
    bound : float
        Its characteristic function's error bound (0: exact).
    """

    mean: np.ndarray
    covariance: np.ndarray
    bound: float = 0.0

    def cf(self, G: np.ndarray, axes: tuple[np.ndarray, ...]) -> np.ndarray:
        """E exp(-i kappa . G g) = exp(-i kappa . G m - kappa^T G V G^T kappa / 2).

        Parameters
        ----------
        G : numpy.ndarray
            The matrix (D, d) that maps g into the grid's coordinates.
        axes : tuple of numpy.ndarray
            The grid's Fourier lattice, one axis of frequencies kappa per coordinate.

        Returns
        -------
        numpy.ndarray
            Shape (P, K_1, ..., K_D).
        """
        out = PointMass(self.mean).cf(G, axes)
        Q = np.einsum("ij,pjk,lk->pil", G, self.covariance, G)
        return out * gaussian_factor(Q, axes)

    def cov(self) -> np.ndarray:
        """Cov(g | theta), the Gaussian's covariance.

        Returns
        -------
        numpy.ndarray
            Cov(g | theta) at every point, shape (P, d, d).
        """
        return self.covariance


@dataclass(frozen=True)
class MinibatchGradient:
    """g = offset + scale * sum_{j in tau} vectors[:, j], tau of size n of N (with or without replacement).

    Parameters
    ----------
    offset : numpy.ndarray
        The exact part, shape (P, d).
    vectors : numpy.ndarray
        The per-datum terms, shape (P, N, d).
    scale : float
        The factor of the minibatch sum (N/n).
    n : int
        The minibatch size.
    replace : bool
        Whether the minibatch is drawn with replacement.
    bound : float
        The error bound of the last characteristic function computed (set by :meth:`cf`).
    """

    offset: np.ndarray
    vectors: np.ndarray
    scale: float
    n: int
    replace: bool
    bound: float = 0.0

    def cf(self, G: np.ndarray, axes: tuple[np.ndarray, ...]) -> np.ndarray:
        """E exp(-i kappa . G g), exact (:mod:`theory.grid.minibatch`); its error bound is stored in ``bound``.

        Parameters
        ----------
        G : numpy.ndarray
            The matrix (D, d) that maps g into the grid's coordinates.
        axes : tuple of numpy.ndarray
            The grid's Fourier lattice, one axis of frequencies kappa per coordinate.

        Returns
        -------
        numpy.ndarray
            Shape (P, K_1, ..., K_D).
        """
        W = -self.scale * np.einsum("ij,pnj->pni", G, self.vectors)
        cf, bound, _ = minibatch_cf(W, self.n, self.replace, axes, CF_TOL)
        object.__setattr__(self, "bound", bound)
        return PointMass(self.offset).cf(G, axes) * cf

    def cov(self) -> np.ndarray:
        """scale^2 n f S(theta), S the per-datum covariance (divisor N), f = 1 or (N - n)/(N - 1).

        Returns
        -------
        numpy.ndarray
            Cov(g | theta) at every point, shape (P, d, d).

        References
        ----------
        The finite-population correction (N - n)/(N - 1) of sampling without replacement (standard);
        :func:`theory.noise.minibatch.minibatch_noise_cov` is the same law.
        """
        N = self.vectors.shape[1]
        c = self.vectors - self.vectors.mean(axis=1, keepdims=True)
        S = np.einsum("pni,pnj->pij", c, c) / N
        f = 1.0 if self.replace else ((N - self.n) / (N - 1) if N > 1 else 0.0)
        return self.scale**2 * self.n * f * S


def per_datum(model, points: np.ndarray) -> np.ndarray:
    """grad log p(x_j | theta) for every datum j at every point.

    Parameters
    ----------
    model : Model
        The model.
    points : numpy.ndarray
        The points theta, shape (P, d).

    Returns
    -------
    numpy.ndarray
        Shape (P, N, d).

    Raises
    ------
    ParameterError
        At a point where a gradient is not finite (named).
    """
    N = model.n_data
    idx = np.broadcast_to(np.arange(N)[:, None], (N, points.shape[0]))
    g = np.asarray(model.grad_log_lik(points, idx), dtype=float)  # (N, P, d)
    return _finite("grad_log_lik", np.ascontiguousarray(g.transpose(1, 0, 2)), points)


@law_for(FullGradient, route="grid")
def full_gradient_grid_law(est: FullGradient, ctx: GridContext) -> PointMass:
    """The exact gradient: a point mass at grad log pi(theta).

    Parameters
    ----------
    est : FullGradient
        The estimator.
    ctx : GridContext
        The model, step size and points.

    Returns
    -------
    PointMass
        The law of g at every point.

    Raises
    ------
    ParameterError
        At a point where the gradient is not finite.
    """
    return PointMass(_finite("grad_log_post", np.asarray(ctx.model.grad_log_post(ctx.points), float), ctx.points))


@law_for(Minibatch, route="grid")
def minibatch_grid_law(est: Minibatch, ctx: GridContext) -> MinibatchGradient:
    """grad log pi_0 + (N/n) times the exact law of the minibatch sum of the per-datum gradients.

    Parameters
    ----------
    est : Minibatch
        The estimator.
    ctx : GridContext
        The model, step size and points.

    Returns
    -------
    MinibatchGradient
        The law of g at every point.

    Raises
    ------
    ParameterError
        At a point where a gradient is not finite.
    """
    m = ctx.model
    prior = _finite("grad_log_prior", np.asarray(m.grad_log_prior(ctx.points), float), ctx.points)
    return MinibatchGradient(prior, per_datum(m, ctx.points), m.n_data / est.n, est.n, est.replace)


@law_for(ControlVariate, route="grid")
def control_variate_grid_law(est: ControlVariate, ctx: GridContext) -> MinibatchGradient:
    """SGLD-CV's estimate: the minibatch law of g_j(theta) - g_j(theta_hat) around the exact full-data part.

    Parameters
    ----------
    est : ControlVariate
        The estimator.
    ctx : GridContext
        The model, step size and points.

    Returns
    -------
    MinibatchGradient
        The law of g at every point.

    Raises
    ------
    ParameterError
        At a point where a gradient is not finite.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Statistics and Computing 29, Algorithm 1 (SGLD-CV).
    """
    m = ctx.model
    prior = _finite("grad_log_prior", np.asarray(m.grad_log_prior(ctx.points), float), ctx.points)
    diff = per_datum(m, ctx.points) - per_datum(m, np.asarray(est.theta_hat, float)[None, :])
    return MinibatchGradient(prior + est.grad_lik_hat, diff, m.n_data / est.n, est.n, est.replace)


@law_for(AdditiveNoise, route="grid")
def additive_noise_grid_law(est: AdditiveNoise, ctx: GridContext) -> GaussianGradient:
    """grad log pi(theta) plus Gaussian noise of the estimator's exact covariance.

    Parameters
    ----------
    est : AdditiveNoise
        The estimator.
    ctx : GridContext
        The model, step size and points.

    Returns
    -------
    GaussianGradient
        The law of g at every point.

    Raises
    ------
    ParameterError
        At a point where the gradient or the variance is not finite.
    """
    P, d = ctx.points.shape
    mean = _finite("grad_log_post", np.asarray(ctx.model.grad_log_post(ctx.points), float), ctx.points)
    cov = np.asarray(est.noise_cov(ctx.model, ctx.points), float)
    cov = np.broadcast_to(cov.reshape((-1, d, d)) if cov.ndim == 3 else cov, (P, d, d))
    return GaussianGradient(mean, _finite("variance", np.ascontiguousarray(cov), ctx.points))


__all__ = ["CF_TOL", "GaussianGradient", "GridContext", "MinibatchGradient", "PointMass", "additive_noise_grid_law",
           "control_variate_grid_law", "full_gradient_grid_law", "gaussian_factor", "minibatch_grid_law", "per_datum"]
