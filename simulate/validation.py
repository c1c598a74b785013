"""Input checks shared by the public API: each error names the parameter and its valid range."""

from __future__ import annotations

import numbers

import numpy as np


class ParameterError(ValueError):
    """A parameter is outside its valid range; the message names it and the range."""


class ChainDivergedError(ParameterError):
    """The chains diverged: a state became non-finite or the chains grew without bound (the step size ``h`` is past
    the sampler's stability limit on this model, or the drift is superlinear where the chains went). The message
    names ``h`` and what to do; :func:`simulate.run` raises it, as do models that see a non-finite state."""


def check_real(name: str, value) -> float:
    """Return ``value`` as a float if it is a real number (int or float, Python or numpy, or a 0-d numeric array);
    strings, booleans, complex numbers and other objects are refused, never cast."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    return float(value)


def check_positive(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a real number with 0 < value < inf."""
    try:
        v = check_real(name, value)
    except ParameterError:
        raise ParameterError(f"{name} must be a positive real number, got {type(value).__name__} {value!r}") from None
    if not np.isfinite(v) or v <= 0.0:
        raise ParameterError(f"{name} must satisfy 0 < {name} < inf, got {value!r}")
    return v


def check_int(name: str, value: int, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer with lo <= value <= hi (hi=None: no upper bound)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f"{lo} <= {name}" + (f" <= {hi}" if hi is not None else "")
        raise ParameterError(f"{name} must satisfy {rng}, got {v}")
    return v


def check_finite_array(name: str, value, ndim: tuple[int, ...] | None = None) -> np.ndarray:
    """Return ``value`` as a float64 array; only real numbers are accepted (float or integer dtypes: strings,
    booleans, complex numbers and object arrays are refused, never cast); reject NaN/inf and unexpected numbers of
    dimensions."""
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
    """Return ``S`` as a float64 (dim, dim) array if it is a finite, symmetric, positive definite matrix."""
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
    """Return ``h`` if 0 < h < h_max; ``why`` says where the bound comes from."""
    v = check_positive("h", h)
    if v >= h_max:
        raise ParameterError(f"h must satisfy 0 < h < {h_max:.6g} ({why}), got {v:.6g}")
    return v
