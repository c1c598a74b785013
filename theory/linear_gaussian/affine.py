"""Reading a model's affine gradient structure (the contract :class:`simulate.affine.AffineModel`).

grad log p(theta) = -P_0 theta + r_0 and grad log p(x_i | theta) = -P_i theta + r_i, so the posterior is
N(P^{-1} r, P^{-1}) with P = P_0 + sum_i P_i, r = r_0 + sum_i r_i. The engine works with the gradient matrices
G_i = [-P_i, r_i] (d x (d+1)), so that g_i(theta) = G_i (theta, 1). :class:`Parts` holds them in one number type:
float64 (the engine), complex (the contour route of :mod:`theory.linear_gaussian.expansion`), mpmath (50 digits,
:mod:`theory.linear_gaussian.mp`) or exact sympy rationals (the symbolic series).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from simulate.affine import AffineParts
from simulate.validation import ParameterError

NUMBER_KINDS = ("float", "complex", "mp", "sympy")


def number(x: Fraction | int | float, like: np.ndarray):
    """The exact rational ``x`` in the number type of the array ``like`` (float64, complex, mpmath or sympy)."""
    if like.dtype != object:
        return float(x)
    probe = next((v for v in like.flat if not isinstance(v, int)), None)
    f = Fraction(x)
    if isinstance(probe, mpmath.mpf):
        return mpmath.mpf(f.numerator) / f.denominator
    return sp.Rational(f.numerator, f.denominator)


def zeros(shape, dtype) -> np.ndarray:
    """Zeros of ``dtype`` in ``shape``; exact integer zeros for object (mpmath / sympy) arrays.

    Parameters
    ----------
    shape : tuple of int
    dtype : object
        ``Layout.dtype``.

    Returns
    -------
    ndarray
    """
    if np.dtype(dtype) == np.dtype(object):
        return np.full(shape, 0, dtype=object)
    return np.zeros(shape, dtype=dtype)


def eye(n: int, dtype) -> np.ndarray:
    """The (n, n) identity in ``dtype`` (exact ones for object arrays).

    Parameters
    ----------
    n : int
    dtype : object
        ``Layout.dtype``.

    Returns
    -------
    ndarray
    """
    out = zeros((n, n), dtype)
    for i in range(n):
        out[i, i] = 1
    return out


def read_parts(model) -> AffineParts:
    """The model's declared affine parts; ParameterError naming the model when it declares none."""
    getter = getattr(model, "affine_parts", None)
    if getter is None:
        raise ParameterError(
            f"model {type(model).__name__} has no affine gradient structure (no affine_parts()): the exact engine "
            "needs grad log p(x_i | theta) = -P_i theta + r_i; declare it with an affine_parts() method returning "
            "simulate.affine.AffineParts")
    parts = getter()
    if not isinstance(parts, AffineParts):
        raise ParameterError(f"model {type(model).__name__}: affine_parts() must return simulate.affine.AffineParts, "
                             f"got {type(parts).__name__}")
    if parts.n_data != model.n_data or parts.dim != model.dim:
        raise ParameterError(f"model {type(model).__name__}: affine_parts() describe N = {parts.n_data}, d = "
                             f"{parts.dim}, the model has N = {model.n_data}, d = {model.dim}")
    return parts


def converter(kind: str):
    """Elementwise conversion of float64 numbers to the number type of ``kind`` (exact for mp and sympy)."""
    if kind == "float":
        return lambda a: np.asarray(a, dtype=np.float64)
    if kind == "complex":
        return lambda a: np.asarray(a, dtype=np.complex128)
    if kind == "mp":
        f = np.vectorize(lambda x: mpmath.mpf(float(x)), otypes=[object])
    elif kind == "sympy":
        f = np.vectorize(lambda x: sp.Rational(float(x)), otypes=[object])
    else:
        raise ParameterError(f"kind must be one of {NUMBER_KINDS}, got {kind!r}")
    return lambda a: f(np.asarray(a, dtype=np.float64)) if np.size(a) else np.asarray(a, dtype=object)


@dataclass(frozen=True)
class Parts:
    """A model's affine parts in one number type: what a law reads as ``ctx.parts``.

    Build with :meth:`of`; the arrays are the :class:`simulate.AffineParts` converted exactly to the number type.
    The per-datum gradient is g_i(theta) = G_i (theta, 1) with G_i = [-P_i, r_i] (d, d + 1).

    Parameters
    ----------
    source : simulate.AffineParts
        The float64 parts the model declared.
    kind : str
        The number type: "float", "complex", "mp" or "sympy".
    prior_precision : ndarray
        P_0, (d, d).
    prior_shift : ndarray
        r_0, (d,).
    shifts : ndarray
        r_i, (N, d).
    common : ndarray or None
        The one P_i of form "common", (d, d).
    weights : ndarray or None
        w_i of form "rank_one", (N,).
    factors : ndarray or None
        z_i of form "rank_one", (N, d).
    precisions : ndarray or None
        P_i of form "dense", (N, d, d).
    along : ndarray or None
        rho_i with r_i = rho_i z_i for rank-one data where that holds (linear regression), else None.
    memo : dict
        Products over the data that do not depend on h (the gradient sum, the minibatch pair sums of the noise
        operator), kept for the next kernel built from these parts (an ``ExactLaw`` reuses its parts across step
        sizes).
    """

    source: AffineParts
    kind: str
    prior_precision: np.ndarray
    prior_shift: np.ndarray
    shifts: np.ndarray
    common: np.ndarray | None
    weights: np.ndarray | None
    factors: np.ndarray | None
    precisions: np.ndarray | None
    along: np.ndarray | None = None  # rank-one data with r_i = along_i z_i (linear regression): G_i = z_i (g_i)^T
    #: products over the data that do not depend on h (the gradient sum, the minibatch pair sums of :mod:`.noise`),
    #: kept for the next kernel built from these parts (an :class:`~.law.ExactLaw` reuses its parts across step sizes)
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, source: AffineParts, kind: str = "float") -> Parts:
        """A model's parts converted to a number type.

        Parameters
        ----------
        source : simulate.AffineParts
            The model's ``affine_parts()``.
        kind : str, default "float"
            "float", "complex", "mp" or "sympy".

        Returns
        -------
        Parts
        """
        c = converter(kind)
        opt = lambda a: None if a is None else c(a)  # noqa: E731
        return cls(source, kind, c(source.prior_precision), c(source.prior_shift), c(source.shifts),
                   opt(source.common), opt(source.weights), opt(source.factors), opt(source.precisions),
                   opt(_shifts_along_factors(source)))

    @property
    def form(self) -> str:
        """The form of the per-datum precisions: "common", "rank_one" or "dense"."""
        return self.source.form

    @property
    def dim(self) -> int:
        """d, the dimension of theta."""
        return self.source.dim

    @property
    def n_data(self) -> int:
        """N, the number of data."""
        return self.source.n_data

    @property
    def dtype(self):
        """The arrays' dtype (float64, complex, or object for mpmath / sympy)."""
        return self.shifts.dtype

    def scalar(self, x):
        """An exact rational in this number type.

        Parameters
        ----------
        x : int or fractions.Fraction
            The number.

        Returns
        -------
        object
            A number of this number type.
        """
        return number(x, self.shifts)

    def datum_precisions(self, idx) -> np.ndarray:
        """The per-datum precisions P_i for i in idx.

        Parameters
        ----------
        idx : array_like of int
            Data indices.

        Returns
        -------
        ndarray
            (len(idx), d, d).
        """
        idx = np.asarray(idx)
        if self.form == "common":
            return np.broadcast_to(self.common, (idx.size,) + self.common.shape).copy()
        if self.form == "rank_one":
            Z = self.factors[idx]
            return self.weights[idx][:, None, None] * Z[:, :, None] * Z[:, None, :]
        return self.precisions[idx]

    def gradient_matrices(self, idx) -> np.ndarray:
        """The per-datum gradient matrices G_i = [-P_i, r_i] for i in idx.

        Parameters
        ----------
        idx : array_like of int
            Data indices.

        Returns
        -------
        ndarray
            (len(idx), d, d + 1).
        """
        idx = np.asarray(idx)
        return np.concatenate([-self.datum_precisions(idx), self.shifts[idx][:, :, None]], axis=2)

    def gradient_matrices_mean(self, idx) -> np.ndarray:
        """The mean gradient matrix of a set of data, (1/n) sum_{i in idx} G_i, n = len(idx).

        Parameters
        ----------
        idx : array_like of int
            Data indices.

        Returns
        -------
        ndarray
            (d, d + 1).
        """
        idx = np.asarray(idx)
        return self.gradient_matrix_sum(idx) * self.scalar(Fraction(1, idx.size))

    def gradient_matrix_sum(self, idx=None) -> np.ndarray:
        """The sum of the gradient matrices, sum_{i in idx} G_i: the likelihood part of the full gradient.

        Parameters
        ----------
        idx : array_like of int, optional
            Data indices; None: all N (that sum is kept in :attr:`memo`).

        Returns
        -------
        ndarray
            (d, d + 1).
        """
        whole = idx is None or np.size(idx) == self.n_data
        if whole and "gradient_sum" in self.memo:
            return self.memo["gradient_sum"].copy()
        idx = np.arange(self.n_data) if idx is None else np.asarray(idx)
        take = (lambda a: a) if whole else (lambda a: a[idx])
        if self.form == "common":
            Psum = self.common * idx.size
        elif self.form == "rank_one":
            Z = take(self.factors)
            Psum = (Z * take(self.weights)[:, None]).T @ Z
        else:
            Psum = take(self.precisions).sum(axis=0)
        out = np.concatenate([-Psum, take(self.shifts).sum(axis=0)[:, None]], axis=1)
        if whole:
            self.memo["gradient_sum"] = out.copy()
        return out

    def prior_matrix(self) -> np.ndarray:
        """The prior's gradient matrix G_0 = [-P_0, r_0].

        Returns
        -------
        ndarray
            (d, d + 1).
        """
        return np.concatenate([-self.prior_precision, self.prior_shift[:, None]], axis=1)

    def precisions_equal(self, idx) -> bool:
        """Whether P_i is the same matrix for every i in idx (checked exactly on the float64 source).

        Parameters
        ----------
        idx : array_like of int
            Data indices.

        Returns
        -------
        bool
        """
        s = self.source
        if s.form == "common" or np.size(idx) <= 1:
            return True
        if s.form == "rank_one":
            Pi = s.datum_precisions(np.asarray(idx))
        else:
            Pi = s.precisions[np.asarray(idx)]
        return bool(np.all(Pi == Pi[0]))


def _shifts_along_factors(source: AffineParts) -> np.ndarray | None:
    """rho with r_i = rho_i z_i for every datum (to rounding: the relation is exact up to 2 ulp), else None."""
    if source.form != "rank_one":
        return None
    Z, R = source.factors, source.shifts
    zz = np.einsum("ij,ij->i", Z, Z)
    rho = np.where(zz > 0, np.einsum("ij,ij->i", R, Z) / np.where(zz > 0, zz, 1.0), 0.0)
    scale = np.abs(R).max(axis=1, initial=0.0)
    ok = np.abs(R - rho[:, None] * Z).max(axis=1, initial=0.0) <= 4 * np.finfo(float).eps * scale
    return rho if bool(np.all(ok)) else None


def posterior(source: AffineParts) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of the Gaussian posterior N(P^{-1} r, P^{-1}); ParameterError naming prior_precision
    when P = P_0 + sum_i P_i is not positive definite (improper posterior)."""
    P = source.prior_precision + source.precision_sum()
    P = 0.5 * (P + P.T)
    lam = np.linalg.eigvalsh(P)
    if lam[0] <= 1e-14 * max(1.0, abs(lam[-1])):
        raise ParameterError(
            f"prior_precision: the posterior precision P_0 + sum_i P_i is singular (smallest eigenvalue {lam[0]:.3g}): "
            "the posterior is improper; give the prior a precision that is positive definite on the directions the "
            "data leave undetermined")
    r = source.prior_shift + source.shifts.sum(axis=0)
    cov = np.linalg.inv(P)
    return np.linalg.solve(P, r), 0.5 * (cov + cov.T)


__all__ = ["NUMBER_KINDS", "Parts", "converter", "eye", "number", "posterior", "read_parts", "zeros"]
