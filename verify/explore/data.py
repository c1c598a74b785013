"""A user's data for the explorer: the CSV read and checked (each problem a one-line ParameterError naming the option
and the valid range), and the explorer's defaults adapted to it (the N grid within the data size)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulate.validation import ParameterError


def read_csv(path: str) -> np.ndarray:
    """The numbers of a CSV file (a header line is skipped), shape (rows, columns).

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    numpy.ndarray
        The table.

    Raises
    ------
    simulate.validation.ParameterError
        Naming ``--data``: an unreadable file, a cell that is not a number, fewer than 2 rows or 2 columns, a
        non-finite value.
    """
    try:
        text = Path(path).read_text().splitlines()
    except OSError as e:
        raise ParameterError(f"--data: cannot read {path!r}: {e}") from None
    rows = [r for r in text if r.strip()]
    try:
        float(rows[0].split(",")[0])
    except (ValueError, IndexError):
        rows = rows[1:]
    try:
        a = np.array([[float(v) for v in r.split(",")] for r in rows])
    except ValueError as e:
        raise ParameterError(f"--data must be numbers separated by commas, the same count on every row: {e}") from None
    if a.ndim != 2 or a.shape[1] < 2 or a.shape[0] < 2:
        raise ParameterError(f"--data needs >= 2 rows and >= 2 columns (features, then y), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ParameterError("--data: every value must be finite (no nan or inf)")
    return a


def check_design(X: np.ndarray, sigma0: float) -> None:
    """Reject a design the explorer cannot answer for.

    Parameters
    ----------
    X : numpy.ndarray, shape (N, d)
        The features.
    sigma0 : float
        The prior's standard deviation (inf: a flat prior).

    Raises
    ------
    simulate.validation.ParameterError
        A constant column (name it; with a proper prior it is allowed only when it is an intercept column of ones),
        or a singular design under a flat prior.
    """
    sd = X.std(axis=0)
    for j in np.flatnonzero(sd == 0.0):
        if not np.all(X[:, j] == 1.0):
            raise ParameterError(f"--data: column {j + 1} is constant ({X[0, j]:g}); drop it or make it an intercept "
                                 "column of ones (every feature column must vary, standard deviation > 0)")
    if not np.isfinite(sigma0) and np.linalg.matrix_rank(X) < X.shape[1]:
        raise ParameterError(f"--sigma0: the design has rank {np.linalg.matrix_rank(X)} < d = {X.shape[1]} (collinear "
                             "columns), so a flat prior (--sigma0 inf) leaves the posterior improper; give "
                             "0 < --sigma0 < inf")


def default_n_grid(N: int) -> tuple[int, ...]:
    """The page's data sizes for a user's data set of N rows: N/4, N/2 and N (those >= 10).

    Parameters
    ----------
    N : int
        The rows of the data.

    Returns
    -------
    tuple of int
        Increasing sizes within [10, N].
    """
    return tuple(sorted({n for n in (N // 4, N // 2, N) if n >= 10} | {N}))


def check_n_grid(values, rows: int) -> tuple[int, ...]:
    """The ``--N`` grid checked against the data's rows.

    Parameters
    ----------
    values : iterable of int
        The sizes asked for.
    rows : int
        The rows of the data.

    Returns
    -------
    tuple of int
        The sorted sizes.

    Raises
    ------
    simulate.validation.ParameterError
        Naming ``--N`` when a size is outside [2, rows].
    """
    out = tuple(sorted(set(int(v) for v in values)))
    if out[0] < 2 or out[-1] > rows:
        raise ParameterError(f"--N must satisfy 2 <= N <= {rows} (the rows of --data), got {list(out)}")
    return out


__all__ = ["check_design", "check_n_grid", "default_n_grid", "read_csv"]
