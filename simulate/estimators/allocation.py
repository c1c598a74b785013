"""Per-cluster sample sizes b_i for Fu & Zhang's (AISTATS 2017) stratified gradient estimator.

:func:`allocate` gives integer b_i by a rule: ``"neyman"`` (Theorem 3.2, eq. 14: b_i proportional to n_i sqrt(v_i),
v_i the within-cluster data variance), ``"proportional"`` (b_i proportional to n_i), ``"uniform"``, or a user-given
integer vector. Rounding rule (stated here because the paper gives none): the continuous target is the capped
optimum b_i* = clip(lambda w_i, 1, n_i) with lambda such that sum_i b_i* = b (for Neyman weights this is the exact
minimiser of sum_i n_i^2 v_i / b_i under 1 <= b_i <= n_i, the KKT solution; a zero weight w_i = 0 gets b_i = 1, the
least that keeps eq. 10 unbiased; :func:`continuous_allocation`); then every b_i is floored and the
b - sum floor(b_i*) remaining units go to the largest fractional parts (ties: lower index; :func:`round_allocation`).
The result satisfies 1 <= b_i <= n_i and sum_i b_i = b; b < k or b > N raises ParameterError.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import brentq

from ..validation import ParameterError, check_finite_array, check_int
from .strata import Strata

#: The allocation rules :func:`simulate.allocate` knows by name.
ALLOCATIONS = ("neyman", "proportional", "uniform")


def continuous_allocation(weights, sizes, b: float) -> np.ndarray:
    """Capped proportional allocation b_i* = clip(lambda w_i, 1, n_i) with sum_i b_i* = b (KKT of eq. 14 with bounds).

    Zero weights get b_i* = 1. Requires k <= b <= N.

    Parameters
    ----------
    weights : array_like, shape (k,)
        The weights w_i >= 0.
    sizes : array_like, shape (k,)
        The cluster sizes n_i >= 1.
    b : float
        The total, k <= b <= N.

    Returns
    -------
    numpy.ndarray, shape (k,)
        b_i*, with 1 <= b_i* <= n_i and sum b_i* = b.

    Raises
    ------
    ParameterError
        For negative weights, sizes below 1 or of another shape, or b outside [k, N].

    References
    ----------
    Fu & Zhang (2017), Theorem 3.2, eq. (14) (for Neyman weights, the exact minimiser of the variance under the bounds;
    the capping is new).
    """
    w = check_finite_array("weights", weights, ndim=(1,))
    n = np.asarray(sizes, dtype=np.float64)
    if np.any(w < 0):
        raise ParameterError("weights must be >= 0")
    if n.shape != w.shape or np.any(n < 1):
        raise ParameterError(f"sizes must be >= 1 with the shape of weights {w.shape}, got {n.shape}")
    k, N = w.size, float(n.sum())
    if not k <= b <= N:
        raise ParameterError(f"b must satisfy k <= b <= N, i.e. {k} <= b <= {N:g} (every cluster needs b_i >= 1, "
                             f"and b_i <= n_i), got {b}")
    pos = w > 0
    cap = float(np.sum(n[pos]) + np.sum(~pos))
    if b > cap:  # all weighted clusters full: the rest goes to the zero-weight clusters in proportion to n_i
        out = np.where(pos, n, 1.0)
        zero = ~pos
        extra = b - out.sum()
        room = n[zero] - 1.0
        out[zero] += extra * room / room.sum()
        return out

    def total(lam: float) -> float:
        return float(np.where(pos, np.clip(lam * w, 1.0, n), 1.0).sum()) - b

    if total(0.0) >= 0:  # b == k
        return np.ones(k)
    hi = float(np.max(n[pos] / w[pos]))
    lam = brentq(total, 0.0, hi, xtol=1e-14 * hi, rtol=1e-15, maxiter=500)
    out = np.where(pos, np.clip(lam * w, 1.0, n), 1.0)
    return out * (b / out.sum()) if abs(out.sum() - b) > 1e-9 else out


def round_allocation(target, sizes, b: int) -> np.ndarray:
    """Largest-remainder rounding of a continuous allocation with 1 <= target_i <= n_i, sum target = b.

    Parameters
    ----------
    target : array_like, shape (k,)
        A continuous allocation, 1 <= target_i <= n_i.
    sizes : array_like, shape (k,)
        The cluster sizes n_i.
    b : int
        The total, sum target = b.

    Returns
    -------
    numpy.ndarray of int64, shape (k,)
        b_i, 1 <= b_i <= n_i, sum b_i = b: every target floored, the remaining units to the largest fractional parts
        (ties: lower index).

    Raises
    ------
    ParameterError
        When the target does not sum to b.

    References
    ----------
    New (the paper gives no rounding rule).
    """
    t = np.asarray(target, dtype=np.float64)
    n = np.asarray(sizes, dtype=np.int64)
    fl = np.floor(t + 1e-9).astype(np.int64)
    fl = np.clip(fl, 1, n)
    r = int(b - fl.sum())
    if r < 0:
        raise ParameterError("target must sum to b")  # pragma: no cover - guarded by continuous_allocation
    frac = np.where(fl < n, t - fl, -np.inf)
    order = np.lexsort((np.arange(t.size), -frac))
    fl[order[:r]] += 1
    if np.any(fl > n) or fl.sum() != b:
        raise ParameterError("rounding failed: no feasible integer allocation")  # pragma: no cover
    return fl


def allocation_weights(strata: Strata, rule: str) -> np.ndarray:
    """w_i of the continuous allocation: Theorem 3.2 (n_i sqrt(v_i)), proportional (n_i) or uniform (1).

    Parameters
    ----------
    strata : Strata
        The clusters.
    rule : str
        One of :data:`ALLOCATIONS`.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The weights w_i.

    Raises
    ------
    ParameterError
        For an unknown rule, or 'neyman' on strata without within-cluster variances.

    References
    ----------
    Fu & Zhang (2017), Theorem 3.2 (the Neyman weights).
    """
    n = strata.sizes.astype(np.float64)
    if rule == "neyman":
        if np.any(np.isnan(strata.within_var)):
            raise ParameterError("allocation='neyman' needs the within-cluster data variances (build the strata "
                                 "with features)")
        return n * np.sqrt(strata.within_var)
    if rule == "proportional":
        return n
    if rule == "uniform":
        return np.ones_like(n)
    raise ParameterError(f"allocation must be one of {ALLOCATIONS} or an integer vector, got {rule!r}")


def allocate(strata: Strata, b: int, rule: str | Sequence[int] = "neyman") -> np.ndarray:
    """Integer per-cluster sample sizes b_i (1 <= b_i <= n_i, sum = b) by ``rule`` (see the module docstring).

    Parameters
    ----------
    strata : Strata
        The clusters.
    b : int
        The total sample size, k <= b <= N.
    rule : str or sequence of int, default "neyman"
        "neyman", "proportional", "uniform", or the integer b_i themselves (checked).

    Returns
    -------
    numpy.ndarray of int64, shape (k,)
        b_i, 1 <= b_i <= n_i, sum b_i = b.

    Raises
    ------
    ParameterError
        For b outside [k, N], an unknown rule, or an integer vector that breaks the bounds.

    References
    ----------
    Fu & Zhang (2017), Theorem 3.2, eq. (14); the rounding is new (see the module docstring).
    """
    n = strata.sizes
    if not isinstance(rule, str):
        bi = np.asarray(rule)
        if bi.shape != (strata.k,) or not np.issubdtype(bi.dtype, np.integer):
            raise ParameterError(f"allocation vector must be {strata.k} integers, got {bi!r}")
        if np.any(bi < 1) or np.any(bi > n):
            raise ParameterError(f"allocation must satisfy 1 <= b_i <= n_i = {n.tolist()}, got {bi.tolist()}")
        if b is not None and int(bi.sum()) != b:
            raise ParameterError(f"allocation must sum to b = {b}, got {int(bi.sum())}")
        return bi.astype(np.int64)
    b = check_int("b", b, 1)
    if not strata.k <= b <= strata.n_data:
        raise ParameterError(f"b must satisfy k <= b <= N, i.e. {strata.k} <= b <= {strata.n_data} (every cluster "
                             f"needs b_i >= 1, and b_i <= n_i), got {b}")
    return round_allocation(continuous_allocation(allocation_weights(strata, rule), n, b), n, b)


__all__ = ["ALLOCATIONS", "allocate", "allocation_weights", "continuous_allocation", "round_allocation"]
