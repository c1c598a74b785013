"""Additive Gaussian gradient noise on any model: g = grad log pi(theta) + sqrt(V(theta)) z, z ~ N(0, 1) (new).

The estimator of the 1-D potential experiments (Vollmer et al. Sections 3-4): unbiased, Gaussian, with the exact
covariance V, which may depend on theta. In d dimensions it takes a constant covariance matrix Sigma (d, d):
g = grad log pi(theta) + Sigma^(1/2) z, z ~ N(0, I_d) (the theta-free noise of the Gaussian mean model, in the form
the papers' stationary laws take as given; the exact engine reads it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..contracts import Model
from ..models.potentials import _as_expr, compile_expr
from ..validation import ParameterError
from .base import EstimatorBase


@dataclass(frozen=True, eq=False)
class AdditiveNoise(EstimatorBase):
    """g = grad log pi(theta) + sqrt(V(theta)) N(0, 1): unbiased, Gaussian, exact covariance V (new).

    ``variance``: a number V >= 0, a sympy expression in theta, or a callable V(theta (M, 1)) -> (M, 1) (1-D
    models); or a constant symmetric positive semi-definite (d, d) matrix Sigma (any dimension d).
    ``noise_cov(model, theta)`` is (1, 1) for a constant V, (d, d) for a matrix, and (M, 1, 1) otherwise
    (ModifiedLangevin accepts all three). In the paper's notation Var fhat = V/4 (fhat = g/2).

    Parameters
    ----------
    variance : float, sympy.Expr, callable or numpy.ndarray
        A number V >= 0, a sympy expression in theta, a callable V(theta (M, 1)) -> (M, 1) (1-D models), or a constant
        symmetric positive semi-definite (d, d) matrix Sigma.

    Raises
    ------
    ParameterError
        For a negative or non-finite constant V, or a matrix that is not finite, square, symmetric and positive
        semi-definite.

    References
    ----------
    New (the workbench's own); it is the noise model of Vollmer et al. (2016), Sections 3-4 (1-D potentials).
    """

    variance: float | sp.Expr | Callable

    name = "additive"

    def __post_init__(self) -> None:
        """Validate the variance: a number >= 0, an expression in theta, or a callable (checked when called)."""
        v = self.variance
        object.__setattr__(self, "_cov", None)
        if not callable(v) and not isinstance(v, sp.Basic) and np.ndim(v) == 2:
            cov, root = _covariance_and_root(v)
            object.__setattr__(self, "_cov", cov)
            object.__setattr__(self, "_root", root)
            object.__setattr__(self, "_const", None)
            object.__setattr__(self, "_vfun", None)
            return
        if callable(v) and not isinstance(v, sp.Basic):
            object.__setattr__(self, "_vfun", v)
            object.__setattr__(self, "_const", None)
            return
        e = _as_expr("variance", v)
        if e.is_number:
            c = float(e)
            if not (math.isfinite(c) and c >= 0.0):
                raise ParameterError(f"variance must satisfy 0 <= variance < inf, got {v!r}")
            object.__setattr__(self, "_const", c)
            object.__setattr__(self, "_vfun", None)
        else:
            object.__setattr__(self, "_const", None)
            object.__setattr__(self, "_vfun", compile_expr(e))

    @property
    def is_constant(self) -> bool:
        """True when V does not depend on theta."""
        return self._const is not None or self._cov is not None

    @property
    def covariance(self) -> np.ndarray:
        """The constant covariance of the noise, (d, d) ((1, 1) for a constant V); ParameterError when V depends on
        theta."""
        if self._cov is not None:
            return self._cov.copy()
        if self._const is not None:
            return np.full((1, 1), self._const)
        raise ParameterError("variance: this AdditiveNoise has a theta-dependent variance V(theta), not a constant "
                             "covariance")

    def variance_at(self, theta_arr: np.ndarray) -> np.ndarray:
        """V(theta), shape (M, 1) (or a (1, 1) array for a constant V).

        Parameters
        ----------
        theta_arr : numpy.ndarray, shape (M, 1)
            The chains' points.

        Returns
        -------
        numpy.ndarray
            V(theta), (M, 1); a (1, 1) array for a constant V.

        Raises
        ------
        ParameterError
            For a covariance-matrix noise, or where V(theta) is negative or not finite.
        """
        if self._cov is not None:
            raise ParameterError("variance_at is for a scalar variance V; this AdditiveNoise has a covariance "
                                 "matrix (noise_cov)")
        if self._const is not None:
            return np.full((1, 1), self._const)
        v = np.asarray(self._vfun(theta_arr), dtype=np.float64).reshape(theta_arr.shape[0], 1)
        if not (np.all(np.isfinite(v)) and np.all(v >= 0.0)):
            raise ParameterError("variance V(theta) must be finite and >= 0 at every chain state")
        return v

    def check(self, model: Model) -> None:
        """The model must be 1-D (d-dimensional for a (d, d) covariance matrix).

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When the model's dimension is not 1 (not d for a (d, d) covariance matrix).
        """
        if self._cov is not None:
            d = self._cov.shape[0]
            if model.dim != d:
                raise ParameterError(f"AdditiveNoise with a ({d}, {d}) covariance needs a model of dimension {d}, "
                                     f"got dim = {model.dim}")
            return
        if model.dim != 1:
            raise ParameterError(f"AdditiveNoise needs a 1-D model (dim = 1), got dim = {model.dim}")

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> np.ndarray:
        """z ~ N(0, 1), shape (M, 1).

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        numpy.ndarray, shape (M, d)
            Standard normal draws z.
        """
        return rng.standard_normal((n_chains, model.dim))

    def apply(self, model: Model, theta_arr: np.ndarray, state: None, z: np.ndarray) -> tuple[np.ndarray, None]:
        """(grad log pi(theta) + sqrt(V(theta)) z, state) (z is overwritten).

        Parameters
        ----------
        model : Model
            The model.
        theta_arr : numpy.ndarray, shape (M, d)
            The chains' points.
        state : None
            No state.
        z : numpy.ndarray, shape (M, d)
            This step's draws, from :meth:`draw` (overwritten).

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            grad log pi(theta) + sqrt(V(theta)) z.
        state : None
            The state, unchanged.
        """
        g = model.grad_log_post(theta_arr)
        if self._cov is not None:
            g += z @ self._root.T
            return g, state
        if self._const is not None:
            z *= math.sqrt(self._const)
        else:
            z *= np.sqrt(self.variance_at(theta_arr))
        g += z
        return g, state

    def noise_cov(self, model: Model, theta_arr: np.ndarray | None = None) -> np.ndarray:
        """Exact Cov(g | theta): (1, 1) for a constant V, (d, d) for a covariance matrix, else (M, 1, 1).

        Parameters
        ----------
        model : Model
            The model.
        theta_arr : numpy.ndarray, shape (M, 1), optional
            The points; needed only for a theta-dependent V.

        Returns
        -------
        numpy.ndarray
            (1, 1) for a constant V, (d, d) for a covariance matrix, else (M, 1, 1).

        Raises
        ------
        ParameterError
            For a theta-dependent V without theta.
        """
        if self._cov is not None:
            return self._cov.copy()
        if self._const is not None:
            return np.full((1, 1), self._const)
        if theta_arr is None:
            raise ParameterError("theta is needed for a theta-dependent variance")
        return self.variance_at(theta_arr)[:, :, None]

    def grads_per_step(self, model: Model) -> float:
        """One gradient evaluation per chain-step.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
            1.0.
        """
        return 1.0


def _covariance_and_root(v) -> tuple[np.ndarray, np.ndarray]:
    """(Sigma, R) with R R^T = Sigma (symmetric square root) for a symmetric positive semi-definite (d, d) matrix."""
    try:
        cov = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("variance must be a number, an expression in theta, a callable or a (d, d) "
                             "covariance matrix") from None
    d = cov.shape[0]
    scale = max(1.0, float(np.abs(cov).max(initial=0.0))) if np.all(np.isfinite(cov)) else 1.0
    if (cov.shape != (d, d) or d == 0 or not np.all(np.isfinite(cov))
            or not np.allclose(cov, cov.T, rtol=1e-12, atol=1e-14 * scale)):
        raise ParameterError(f"variance: a covariance matrix must be finite, square and symmetric, got shape "
                             f"{cov.shape}")
    cov = 0.5 * (cov + cov.T)
    lam, U = np.linalg.eigh(cov)
    if lam[0] < -1e-12 * scale:
        raise ParameterError(f"variance: a covariance matrix must be positive semi-definite, smallest eigenvalue "
                             f"{lam[0]:.3g}")
    return cov, (U * np.sqrt(np.clip(lam, 0.0, None))) @ U.T


__all__ = ["AdditiveNoise"]
