"""Input checks shared by the public API: each error names the parameter and its valid range."""

from __future__ import annotations

import numbers

import numpy as np


class ParameterError(ValueError):
    """A parameter is outside its valid range; the message names it and the range.

    Every public function of the workbench raises it on bad input, instead of casting, clamping, truncating or
    returning NaN. A subclass of ``ValueError``.
    """


class ChainDivergedError(ParameterError):
    """The chains diverged: a state became non-finite or the chains grew without bound (the step size ``h`` is past
    the sampler's stability limit on this model, or the drift is superlinear where the chains went). The message
    names ``h`` and what to do; :func:`simulate.run` raises it, as do models that see a non-finite state."""


def check_real(name: str, value) -> float:
    """``value`` as a float if it is a real number; strings, booleans, complex numbers and other objects are refused.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        An int or float (Python or numpy) or a 0-d numeric array.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When ``value`` is not a real number (nothing is cast).
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    return float(value)


def check_positive(name: str, value: float) -> float:
    """``value`` as a float if it is a real number with 0 < value < inf.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : float
        The number.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When ``value`` is not a real number, or not finite and positive.
    """
    try:
        v = check_real(name, value)
    except ParameterError:
        raise ParameterError(f"{name} must be a positive real number, got {type(value).__name__} {value!r}") from None
    if not np.isfinite(v) or v <= 0.0:
        raise ParameterError(f"{name} must satisfy 0 < {name} < inf, got {value!r}")
    return v


def check_int(name: str, value: int, lo: int, hi: int | None = None) -> int:
    """``value`` as an int if it is an integer with lo <= value <= hi.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : int
        A Python or numpy integer (a bool is refused).
    lo : int
        The smallest valid value.
    hi : int, optional
        The largest valid value; None: no upper bound.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        When ``value`` is not an integer or is outside [lo, hi]; the message names the range.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f"{lo} <= {name}" + (f" <= {hi}" if hi is not None else "")
        raise ParameterError(f"{name} must satisfy {rng}, got {v}")
    return v


def check_finite_array(name: str, value, ndim: tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a float64 array if it holds finite real numbers (float or integer dtype).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : array_like
        The numbers; strings, booleans, complex numbers and object arrays are refused, never cast.
    ndim : tuple of int, optional
        The accepted numbers of dimensions; None: any.

    Returns
    -------
    numpy.ndarray
        float64.

    Raises
    ------
    ParameterError
        When the dtype is not real, the array is empty, holds NaN or inf, or has another number of dimensions.
    """
    raw = value if isinstance(value, np.ndarray) else np.asarray(value)
    if raw.dtype.kind not in "fiu":
        kinds = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes", "O": "Python objects"}
        what = kinds.get(raw.dtype.kind, f"dtype {raw.dtype}")
        raise ParameterError(f"{name} must hold real numbers (float or integer dtype), got {what}")
    arr = np.asarray(raw, dtype=np.float64)
    if ndim is not None and arr.ndim not in ndim:
        raise ParameterError(f"{name} must have ndim in {ndim}, got shape {arr.shape}")
    if arr.size == 0:
        raise ParameterError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinite values")
    return arr


def check_covariance(name: str, S, dim: int) -> np.ndarray:
    """``S`` as a float64 (dim, dim) array if it is a finite, symmetric, positive definite matrix.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    S : array_like, shape (dim, dim)
        The matrix; symmetric to a relative and absolute tolerance of 1e-12, positive definite by Cholesky.
    dim : int
        The expected dimension.

    Returns
    -------
    numpy.ndarray, shape (dim, dim)

    Raises
    ------
    ParameterError
        When ``S`` is not finite, has another shape, is not symmetric or not positive definite.
    """
    S = check_finite_array(name, S, ndim=(2,))
    if S.shape != (dim, dim):
        raise ParameterError(f"{name} must have shape ({dim}, {dim}), got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-12, atol=1e-12):
        raise ParameterError(f"{name} must be symmetric")
    try:
        np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise ParameterError(f"{name} must be positive definite") from None
    return S


def check_step_size(h: float, h_max: float, why: str) -> float:
    """``h`` as a float if 0 < h < h_max.

    Parameters
    ----------
    h : float
        The step size.
    h_max : float
        The exclusive upper bound (inf: none).
    why : str
        Where the bound comes from, quoted in the message.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When h is not a positive real number below h_max.
    """
    v = check_positive("h", h)
    if v >= h_max:
        raise ParameterError(f"h must satisfy 0 < h < {h_max:.6g} ({why}), got {v:.6g}")
    return v
