"""Langevin with a fixed preconditioner G (constant, symmetric positive definite), in the workbench convention

    theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi,   xi ~ N(0, I_d),

with G^{1/2} any square root of G (here its Cholesky factor L, L L^T = G, computed in fixed order so that runs
repeat bit for bit): only the noise's covariance h G enters the law.
the Euler-Maruyama step of d theta = (1/2) G grad log pi dt + G^{1/2} dW, whose stationary law is pi for every
constant G (the preconditioned Langevin diffusion). It is the form of pSGLD (Li, Chen, Carlson & Carin 2016, Alg. 1)
with the preconditioner frozen and the Gamma correction zero (Gamma = 0 for a constant G); the adaptive pSGLD, whose
G follows the gradients, is :mod:`simulate.integrators.psgld`. In the coordinates u = G^{-1/2} theta the step is
SGLD on the target with precision G^{1/2} P G^{1/2}: preconditioning changes the step's conditioning, not its target.
Its exact law on affine models is :func:`theory.linear_gaussian.integrator_laws.preconditioned_langevin` (new).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._fast import kernels
from ..arrays import namespace_of
from ..validation import ParameterError, check_finite_array
from .base import EMPTY, IntegratorBase


def spd_root(name: str, G) -> tuple[np.ndarray, np.ndarray]:
    """(G, L) for a symmetric positive definite G given as a (d, d) array, L its lower Cholesky factor (L L^T = G).

    Parameters
    ----------
    name : str
        The parameter's name (for the message).
    G : array_like, shape (d, d)
        The matrix.

    Returns
    -------
    G : numpy.ndarray, shape (d, d)
        The matrix as float64.
    L : numpy.ndarray, shape (d, d)
        Its lower Cholesky factor.

    Raises
    ------
    ParameterError
        Unless G is finite, square, symmetric and positive definite.
    """
    G = np.array(check_finite_array(name, G, ndim=(2,)), dtype=np.float64)
    if G.shape[0] != G.shape[1]:
        raise ParameterError(f"{name} must be a square (d, d) matrix, got shape {G.shape}")
    if not np.array_equal(G, G.T):
        raise ParameterError(f"{name} must be symmetric (G == G.T exactly; symmetrise it as (G + G.T) / 2)")
    lam = np.linalg.eigvalsh(G)
    if lam[0] <= 0.0:
        raise ParameterError(f"{name} must be positive definite, its smallest eigenvalue is {lam[0]:.3g}")
    return G, kernels.cholesky(np.ascontiguousarray(G))


@dataclass(frozen=True, eq=False)
class PreconditionedLangevin(IntegratorBase):
    """theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi with G constant, symmetric positive definite (module docstring).

    Parameters
    ----------
    G : array_like
        (d, d) preconditioner, symmetric positive definite; d must be the model's dimension.

    Raises
    ------
    ParameterError
        If G is not a finite symmetric positive definite matrix.
    """

    G: np.ndarray
    root: np.ndarray = field(init=False, repr=False)

    name = "preconditioned_langevin"

    def __post_init__(self) -> None:
        G, root = spd_root("G", self.G)
        object.__setattr__(self, "G", G)
        object.__setattr__(self, "root", root)

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        """h < 4 / (L lambda_max(G)): the mean map I - (h/2) G P is stable iff h lambda_max(G P) < 4, and
        lambda_max(G P) <= L lambda_max(G).

        Parameters
        ----------
        lipschitz : float
            L, the Lipschitz constant of grad log posterior.

        Returns
        -------
        h_max : float
            The sampler refuses h >= h_max (inf: no bound).
        why : str
            Where the bound comes from (quoted in the error message).
        """
        top = float(np.linalg.eigvalsh(self.G)[-1])
        return 4.0 / (lipschitz * top), (
            f"preconditioned Langevin, h < 4 / (L lambda_max(G)) with lambda_max(G) = {top:.4g} and L the Lipschitz "
            "constant of grad log posterior")

    def noise_matrix(self, h: float, noise_cov: np.ndarray | None) -> np.ndarray:
        """sqrt(h) L, (d, d), with L L^T = G.

        Parameters
        ----------
        h : float
            The step size.
        noise_cov : numpy.ndarray or None
            Unused.

        Returns
        -------
        numpy.ndarray, shape (d, d)
            sqrt(h) L.
        """
        return np.sqrt(h) * self.root

    def update(self, theta: np.ndarray, grad: np.ndarray, xi: np.ndarray, h: float, noise: np.ndarray,
               state=EMPTY, rng: np.random.Generator | None = None):
        """theta' = theta + (h/2) G g + noise xi (theta (M, d), noise the (d, d) matrix sqrt(h) L; numpy advances
        theta in place and overwrites grad).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points (numpy: advanced in place).
        grad : numpy.ndarray, shape (M, d)
            The gradient estimate g.
        xi : numpy.ndarray, shape (M, d)
            Standard normal noise.
        h : float
            The step size.
        noise : numpy.ndarray, shape (d, d)
            sqrt(h) L, from :meth:`noise_matrix`.
        state : object
            The integrator's state.
        rng : numpy.random.Generator or None
            Unused.

        Returns
        -------
        theta : numpy.ndarray, shape (M, d)
            The new points (numpy: the array passed in, advanced).
        state : object
            The new integrator state.

        References
        ----------
        Li, Chen, Carlson & Carin (2016), Algorithm 1, with the preconditioner G frozen (Gamma = 0).
        """
        if theta.shape[1:] != self.G.shape[:1]:
            raise ParameterError(f"G is ({self.G.shape[0]}, {self.G.shape[0]}) but the model has dimension "
                                 f"{theta.shape[1]}")
        xp = namespace_of(theta)
        grad *= 0.5 * h
        theta += xp.matmul(xp.ascontiguousarray(grad), self.G)  # fixed order, no BLAS (G symmetric)
        theta += xp.matmul(xp.ascontiguousarray(xi), xp.ascontiguousarray(noise.T))
        return theta, state


__all__ = ["PreconditionedLangevin", "spd_root"]
