"""Affine gradient structure of a model: the contract the exact engine (:func:`theory.exact_law`) reads.

A model has an *affine gradient* when the prior and every per-datum log-likelihood gradient are affine in theta:

    grad log p(theta)          = -P_0 theta + r_0,
    grad log p(x_i | theta)    = -P_i theta + r_i,          i = 1..N,

so grad log posterior = -P theta + r with P = P_0 + sum_i P_i, r = r_0 + sum_i r_i, and the posterior is
N(P^{-1} r, P^{-1}) when P is positive definite. A model declares it by a method ``affine_parts()`` returning
:class:`AffineParts` (the :class:`AffineModel` protocol). The per-datum precisions come in one of three forms:

* ``common``: every P_i equals one (d, d) matrix C (the Gaussian mean / location models: additive gradient noise);
* ``rank_one``: P_i = w_i z_i z_i^T with ``weights`` w (N,) and ``factors`` Z (N, d) (linear regression:
  w_i = 1/sigma^2, z_i the features), which keeps the engine's cost O(N d^2) per operator application;
* ``dense``: an (N, d, d) array of symmetric matrices (any other affine model).

Your own model: add ``def affine_parts(self) -> AffineParts`` returning, e.g.,
``AffineParts.dense(prior_precision, prior_shift, precisions, shifts)``; the engine then answers exactly for
every sampler on it. The parts must describe the model's ``grad_log_prior`` and ``grad_log_lik`` exactly; the
engine never calls the gradients, so a mismatch is not detected by the engine itself (test it with
:meth:`AffineParts.check_against`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from .validation import ParameterError, check_finite_array

#: The three forms of the per-datum precisions P_i: one common matrix, rank one, or dense (module docstring).
FORMS = ("common", "rank_one", "dense")


@dataclass(frozen=True)
class AffineParts:
    """A model's affine gradients: grad log p(theta) = -P_0 theta + r_0, grad log p(x_i | theta) = -P_i theta + r_i.

    Build one with a validating constructor (:meth:`with_common`, :meth:`rank_one`, :meth:`dense`); the fields are
    the parts as given. The posterior is N(P^{-1} r, P^{-1}) with P = P_0 + sum_i P_i, r = r_0 + sum_i r_i.

    Parameters
    ----------
    prior_precision : numpy.ndarray, shape (d, d)
        P_0 (zeros for a flat prior).
    prior_shift : numpy.ndarray, shape (d,)
        r_0.
    shifts : numpy.ndarray, shape (N, d)
        r_i, one row per datum.
    form : {"common", "rank_one", "dense"}
        Which field holds the per-datum precisions (:data:`simulate.affine.FORMS`).
    common : numpy.ndarray, shape (d, d), optional
        The one P_i of every datum (form "common").
    weights : numpy.ndarray, shape (N,), optional
        w_i of P_i = w_i z_i z_i^T (form "rank_one").
    factors : numpy.ndarray, shape (N, d), optional
        z_i of P_i = w_i z_i z_i^T (form "rank_one").
    precisions : numpy.ndarray, shape (N, d, d), optional
        Every P_i (form "dense").

    References
    ----------
    docs/engine.md, section 1 (:doc:`/engine`): affine models and the quantities the engine reads from them.
    """

    prior_precision: np.ndarray
    prior_shift: np.ndarray
    shifts: np.ndarray
    form: str
    common: np.ndarray | None = None
    weights: np.ndarray | None = None
    factors: np.ndarray | None = None
    precisions: np.ndarray | None = None

    # ------------------------------------------------------------------ constructors (validated)
    @classmethod
    def with_common(cls, prior_precision, prior_shift, common, shifts) -> AffineParts:
        """Parts whose per-datum precisions all equal one matrix (the Gaussian mean and location models).

        Parameters
        ----------
        prior_precision : array_like, shape (d, d)
            P_0, symmetric (zeros for a flat prior).
        prior_shift : array_like, shape (d,)
            r_0.
        common : array_like, shape (d, d)
            The symmetric matrix every P_i equals.
        shifts : array_like, shape (N, d)
            r_i, one row per datum.

        Returns
        -------
        AffineParts
            Of form "common".

        Raises
        ------
        ParameterError
            When an input is not finite, has the wrong shape, or a matrix is not symmetric.
        """
        P0, r0, R = _prior_and_shifts(prior_precision, prior_shift, shifts)
        C = _symmetric("common", common, R.shape[1])
        return cls(P0, r0, R, "common", common=C)

    @classmethod
    def rank_one(cls, prior_precision, prior_shift, weights, factors, shifts) -> AffineParts:
        """Parts with rank-one per-datum precisions P_i = w_i z_i z_i^T (linear regression: w_i = 1/sigma^2).

        Parameters
        ----------
        prior_precision : array_like, shape (d, d)
            P_0, symmetric (zeros for a flat prior).
        prior_shift : array_like, shape (d,)
            r_0.
        weights : array_like, shape (N,)
            w_i.
        factors : array_like, shape (N, d)
            z_i, one row per datum.
        shifts : array_like, shape (N, d)
            r_i, one row per datum.

        Returns
        -------
        AffineParts
            Of form "rank_one"; the engine's cost stays O(N d^2) per operator application.

        Raises
        ------
        ParameterError
            When an input is not finite, has the wrong shape, or P_0 is not symmetric.
        """
        P0, r0, R = _prior_and_shifts(prior_precision, prior_shift, shifts)
        w = check_finite_array("weights", weights, ndim=(1,))
        Z = check_finite_array("factors", factors, ndim=(2,))
        if w.shape != (R.shape[0],) or Z.shape != R.shape:
            raise ParameterError(f"weights must have shape ({R.shape[0]},) and factors {R.shape}, got {w.shape} and "
                                 f"{Z.shape}")
        return cls(P0, r0, R, "rank_one", weights=w, factors=Z)

    @classmethod
    def dense(cls, prior_precision, prior_shift, precisions, shifts) -> AffineParts:
        """Parts with per-datum precisions given as an (N, d, d) array of symmetric matrices (any affine model).

        Parameters
        ----------
        prior_precision : array_like, shape (d, d)
            P_0, symmetric (zeros for a flat prior).
        prior_shift : array_like, shape (d,)
            r_0.
        precisions : array_like, shape (N, d, d)
            P_i, each symmetric (the Jacobian of a gradient is).
        shifts : array_like, shape (N, d)
            r_i, one row per datum.

        Returns
        -------
        AffineParts
            Of form "dense".

        Raises
        ------
        ParameterError
            When an input is not finite, has the wrong shape, or a matrix is not symmetric.
        """
        P0, r0, R = _prior_and_shifts(prior_precision, prior_shift, shifts)
        Pi = check_finite_array("precisions", precisions, ndim=(3,))
        N, d = R.shape
        if Pi.shape != (N, d, d):
            raise ParameterError(f"precisions must have shape ({N}, {d}, {d}), got {Pi.shape}")
        if not np.allclose(Pi, np.swapaxes(Pi, 1, 2), rtol=1e-12, atol=1e-14 * max(1.0, np.abs(Pi).max())):
            raise ParameterError("precisions must be symmetric (the Jacobian of a gradient is symmetric)")
        return cls(P0, r0, R, "dense", precisions=Pi)

    # ------------------------------------------------------------------ derived quantities
    @property
    def n_data(self) -> int:
        """N, the number of data."""
        return int(self.shifts.shape[0])

    @property
    def dim(self) -> int:
        """d, the dimension of theta."""
        return int(self.shifts.shape[1])

    def datum_precisions(self, idx=None) -> np.ndarray:
        """The per-datum precisions P_i for i in ``idx``, whatever the form.

        Parameters
        ----------
        idx : array_like of int, optional
            Data indices; None: all N.

        Returns
        -------
        numpy.ndarray, shape (len(idx), d, d)
            A new array.
        """
        idx = np.arange(self.n_data) if idx is None else np.asarray(idx)
        if self.form == "common":
            return np.broadcast_to(self.common, (idx.size, self.dim, self.dim)).copy()
        if self.form == "rank_one":
            Z = self.factors[idx]
            return self.weights[idx, None, None] * Z[:, :, None] * Z[:, None, :]
        return self.precisions[idx].copy()

    def precision_sum(self, idx=None) -> np.ndarray:
        """The sum of the per-datum precisions, sum_{i in idx} P_i.

        Parameters
        ----------
        idx : array_like of int, optional
            Data indices; None: all N.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        idx = np.arange(self.n_data) if idx is None else np.asarray(idx)
        if self.form == "common":
            return idx.size * self.common
        if self.form == "rank_one":
            Z = self.factors[idx]
            return (Z * self.weights[idx, None]).T @ Z
        return self.precisions[idx].sum(axis=0)

    def check_against(self, model, theta, rtol: float = 1e-10) -> None:
        """Check that the parts reproduce ``model``'s prior and per-datum gradients at ``theta``.

        A test helper for a model that declares its own parts: the engine never calls the gradients, so a mismatch
        would otherwise go unnoticed.

        Parameters
        ----------
        model : Model
            The model whose ``grad_log_prior`` and ``grad_log_lik`` the parts describe.
        theta : array_like, shape (M, d) or (d,)
            The points to compare at.
        rtol : float, default 1e-10
            Relative tolerance (and absolute, times the largest gradient's size, at least 1).

        Raises
        ------
        ParameterError
            When a gradient differs.
        """
        theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
        idx = np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, theta.shape[0]))
        lik = model.grad_log_lik(theta, idx)  # (N, M, d)
        mine = self.shifts[:, None, :] - np.einsum("nij,mj->nmi", self.datum_precisions(), theta)
        prior = self.prior_shift - theta @ self.prior_precision.T
        scale = max(1.0, float(np.abs(lik).max()))
        if not (np.allclose(lik, mine, rtol=rtol, atol=rtol * scale)
                and np.allclose(model.grad_log_prior(theta), prior, rtol=rtol, atol=rtol * scale)):
            raise ParameterError(f"{type(model).__name__}.affine_parts() does not reproduce its gradients")


@runtime_checkable
class AffineModel(Protocol):
    """A model whose prior and per-datum log-likelihood gradients are affine in theta (module docstring).

    :func:`theory.exact_law` answers exactly for every sampler on such a model.
    """

    #: N, the number of data.
    n_data: int
    #: d, the dimension of theta.
    dim: int

    def affine_parts(self) -> AffineParts:
        """The model's gradients as affine parts: P_0, r_0 and the per-datum P_i, r_i.

        Returns
        -------
        AffineParts
        """
        ...


def _symmetric(name: str, value, d: int) -> np.ndarray:
    M = check_finite_array(name, value, ndim=(2,))
    if M.shape != (d, d):
        raise ParameterError(f"{name} must have shape ({d}, {d}), got {M.shape}")
    if not np.allclose(M, M.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(M).max())):
        raise ParameterError(f"{name} must be symmetric")
    return M


def _prior_and_shifts(prior_precision, prior_shift, shifts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    R = check_finite_array("shifts", shifts, ndim=(2,))
    d = R.shape[1]
    P0 = _symmetric("prior_precision", prior_precision, d)
    r0 = check_finite_array("prior_shift", prior_shift, ndim=(1,))
    if r0.shape != (d,):
        raise ParameterError(f"prior_shift must have shape ({d},), got {r0.shape}")
    return P0, r0, R


__all__ = ["FORMS", "AffineModel", "AffineParts"]
