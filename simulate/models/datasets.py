"""Real data sets for the logistic-regression model, loaded offline from installed packages (new).

Vollmer et al. (2016, Section 7) use synthetic data only (d = 3, N = 1000; see
:meth:`simulate.models.logistic.LogisticRegressionModel.paper_synthetic`). As a real-data counterpart we use the
Wisconsin diagnostic breast-cancer data (569 tumours, 30 features; Street, Wolberg & Mangasarian 1993) shipped
with scikit-learn (``sklearn.datasets.load_breast_cancer``, no download), standardised, with an intercept column.
"""

from __future__ import annotations

import numpy as np

from ..validation import ParameterError
from .logistic import LogisticRegressionModel


def standardise_with_intercept(features: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to unit standard deviation (divisor N), then a column of ones appended (new).

    Parameters
    ----------
    features : array_like, shape (N, p)
        N >= 2 rows, no constant column.

    Returns
    -------
    numpy.ndarray, shape (N, p + 1)

    Raises
    ------
    ParameterError
        When features is not 2-D with at least 2 rows, or has a constant column.
    """
    F = np.asarray(features, dtype=np.float64)
    if F.ndim != 2 or F.shape[0] < 2:
        raise ParameterError(f"features must be a 2-D array with at least 2 rows, got shape {F.shape}")
    sd = F.std(axis=0)
    if np.any(sd == 0):
        raise ParameterError("features must not contain a constant column (it cannot be standardised)")
    return np.hstack([(F - F.mean(axis=0)) / sd, np.ones((F.shape[0], 1))])


def breast_cancer_design() -> tuple[np.ndarray, np.ndarray]:
    """The Wisconsin diagnostic breast-cancer design, standardised, with an intercept column.

    Returns
    -------
    X : numpy.ndarray, shape (569, 31)
        The 30 features standardised (:func:`standardise_with_intercept`), then ones.
    y : numpy.ndarray, shape (569,)
        +1 benign, -1 malignant.

    Raises
    ------
    ImportError
        When scikit-learn is not installed.

    References
    ----------
    Street, Wolberg & Mangasarian (1993); loaded offline with ``sklearn.datasets.load_breast_cancer``.
    """
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError as e:  # pragma: no cover - scikit-learn is a declared dependency
        raise ImportError("the breast-cancer data set needs scikit-learn (pip install scikit-learn)") from e
    data = load_breast_cancer()
    X = standardise_with_intercept(data.data)
    y = np.where(data.target == 1, 1.0, -1.0)
    return X, y


def breast_cancer_model(sigma0: float = 1.0) -> LogisticRegressionModel:
    """Bayesian logistic regression on the breast-cancer data (a real-data counterpart of Vollmer et al.'s Sec. 7).

    Parameters
    ----------
    sigma0 : float, default 1.0
        The prior's scale: theta ~ N(0, sigma0^2 I).

    Returns
    -------
    LogisticRegressionModel
        N = 569, d = 31 (:func:`simulate.models.datasets.breast_cancer_design`).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (73) (the model) (:doc:`/papers/vollmer`, sec. 8).
    """
    X, y = breast_cancer_design()
    return LogisticRegressionModel(X, y, sigma0=sigma0)


__all__ = ["breast_cancer_design", "breast_cancer_model", "standardise_with_intercept"]
