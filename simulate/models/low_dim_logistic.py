"""Logistic regressions with a posterior of dimension 1 or 2 (new), for the exact grid law (theory.grid_law):

* :func:`breast_cancer_2d`: an intercept and one standardised covariate of the Wisconsin diagnostic breast-cancer data
  shipped with scikit-learn (569 tumours; default covariate "mean radius"), y = +1 benign, -1 malignant, prior
  N(0, sigma0^2 I): a real-data, non-Gaussian 2-D posterior;
* :func:`small_logistic_1d`: one covariate, no intercept, a few data (default N = 12) drawn from a seed: a 1-D
  posterior whose minibatch laws are finite mixtures small enough to enumerate.

Both are :class:`simulate.models.logistic.LogisticRegressionModel` instances (Vollmer et al. 2016, eq. 73).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..validation import ParameterError, check_int, check_positive
from .datasets import standardise_with_intercept
from .logistic import LogisticRegressionModel

#: The default covariate of :func:`breast_cancer_2d`.
BREAST_CANCER_COVARIATE = "mean radius"


def breast_cancer_2d(covariate: str = BREAST_CANCER_COVARIATE, sigma0: float = 10.0) -> LogisticRegressionModel:
    """Logistic regression of the breast-cancer diagnosis on an intercept and one standardised covariate.

    Parameters
    ----------
    covariate : str
        One of scikit-learn's ``load_breast_cancer().feature_names``.
    sigma0 : float
        Prior standard deviation of both coefficients.

    Returns
    -------
    LogisticRegressionModel
        d = 2 (coefficient of the covariate, intercept), N = 569.

    Raises
    ------
    ParameterError
        For an unknown covariate or sigma0 <= 0.
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    names = list(data.feature_names)
    if covariate not in names:
        raise ParameterError(f"covariate must be one of the breast-cancer features {names}, got {covariate!r}")
    X = standardise_with_intercept(data.data[:, [names.index(covariate)]])
    y = np.where(data.target == 1, 1.0, -1.0)
    return LogisticRegressionModel(X, y, sigma0=check_positive("sigma0", sigma0))


def small_logistic_1d(n_data: int = 12, beta_true: float = 1.0, sigma0: float = 2.0,
                      seed: int = 24) -> LogisticRegressionModel:
    """One-covariate logistic regression without intercept: x_i ~ N(0, 1), y_i = +1 with probability
    sigma(beta_true x_i), prior N(0, sigma0^2).

    Parameters
    ----------
    n_data : int
        N >= 1 (small: every minibatch can be enumerated).
    beta_true : float
        The coefficient the labels are drawn with.
    sigma0 : float
        Prior standard deviation.
    seed : int
        Seed of the data.

    Returns
    -------
    LogisticRegressionModel
        d = 1.
    """
    n_data = check_int("n_data", n_data, 1)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n_data)
    y = np.where(rng.random(n_data) < expit(float(beta_true) * x), 1.0, -1.0)
    return LogisticRegressionModel(x[:, None], y, sigma0=check_positive("sigma0", sigma0))


__all__ = ["BREAST_CANCER_COVARIATE", "breast_cancer_2d", "small_logistic_1d"]
