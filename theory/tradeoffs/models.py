"""The models the trade-off explorer answers exactly: every one has an affine gradient, so the exact engine
(:func:`theory.exact_law`) gives every number.

* :func:`toy`: the 1-D Gaussian toy of Vollmer et al. (2016) eq. (11) and Chen et al.'s synthetic model,
  x_i ~ N(theta, 1), theta ~ N(0, 1), data drawn with theta = 1;
* :func:`gaussian_mean`: the same in d dimensions;
* :func:`linear_regression`: a user's Bayesian linear regression (design Z, responses y), or a simulated one;
* :func:`logistic_laplace`: logistic regression through its Laplace (Gaussian) approximation at the mode: every
  per-datum gradient linearised at the MAP beta_hat, which is exactly a linear regression on the IRLS working data
  (new, derived here): with s_i = z_i^T beta_hat, w_i = sigma(s_i) sigma(-s_i) and z_i = y_i x_i,

      grad log p(y_i | beta) ~ z_i sigma(-s_i) - w_i z_i z_i^T (beta - beta_hat) = z'_i (y'_i - z'_i^T beta),
      z'_i = sqrt(w_i) z_i,   y'_i = (sigma(-s_i) + w_i s_i) / sqrt(w_i),

  with the same prior N(0, sigma0^2 I); its posterior is N(beta_hat, H(beta_hat)^{-1}), the Laplace approximation.
  Numbers for it are exact for the linearised model, not for logistic regression, and are labelled so.

Each :class:`ModelSpec` can rebuild itself at another N (:meth:`ModelSpec.at`), which the explorer page's N slider
uses: simulated models redraw their data from the same seed, a user's data keep their first N rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from simulate.models.gaussian import GaussianMeanModel
from simulate.models.linear_regression import LinearRegressionModel
from simulate.models.logistic import LogisticRegressionModel, sigmoid_neg
from simulate.validation import ParameterError, check_int

#: Seed of the toy data (the README's tour uses the same).
TOY_SEED = 2016


@dataclass(frozen=True)
class ModelSpec:
    """A model with an affine gradient, its name for tables and pages, and what it approximates (if anything).

    Parameters
    ----------
    key : str
        Short name ("toy", "gaussian", "linreg", "logistic").
    label : str
        Its name in tables and pages.
    model : simulate.Model
        The workbench model (its gradient is affine, so the exact engine answers).
    approximation : str, optional
        What the numbers approximate, when they are exact for a stand-in (the Laplace linearisation).
    rebuild : callable, optional
        ``rebuild(N) -> ModelSpec``: the same kind of model with N data (None: N cannot change).
    """

    key: str
    label: str
    model: object
    approximation: str | None = None
    rebuild: Callable[[int], ModelSpec] | None = field(default=None, repr=False, compare=False)

    @property
    def n_data(self) -> int:
        """N, the number of data."""
        return int(self.model.n_data)

    @property
    def dim(self) -> int:
        """d, the dimension of theta."""
        return int(self.model.dim)

    def at(self, N: int) -> ModelSpec:
        """This model with N data (the explorer's N slider).

        Parameters
        ----------
        N : int
            The number of data, >= 2.

        Returns
        -------
        ModelSpec
            Simulated models redraw their data from the same seed; a user's data keep their first N rows.

        Raises
        ------
        simulate.validation.ParameterError
            When the model cannot be rebuilt, or N exceeds the rows of a user's data.
        """
        N = check_int("N", N, 2)
        if N == self.n_data:
            return self
        if self.rebuild is None:
            raise ParameterError(f"N: the model {self.label!r} cannot be rebuilt at another N; keep N = {self.n_data}")
        return self.rebuild(N)

    def describe(self) -> str:
        """The model in one line.

        Returns
        -------
        str
            The label, N, d and the approximation when there is one.
        """
        text = f"{self.label} (N = {self.n_data}, d = {self.dim})"
        return text + (f"; {self.approximation}" if self.approximation else "")


def toy(N: int = 1000, seed: int = TOY_SEED) -> ModelSpec:
    """The 1-D Gaussian toy: x_i ~ N(theta, 1), i = 1..N, prior N(0, 1), data drawn with theta = 1.

    Parameters
    ----------
    N : int
        The number of data, >= 2.
    seed : int
        Seed of the data.

    Returns
    -------
    ModelSpec
        The model.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (11); the synthetic model of Chen, Wang, Zhang, Su & Carin (2019),
    Figure 1.
    """
    N = check_int("N", N, 2)
    model = GaussianMeanModel.simulate_data(N, theta_true=1.0, seed=seed)
    return ModelSpec("toy", "Gaussian toy x_i ~ N(theta, 1), theta ~ N(0, 1)", model,
                     rebuild=lambda n: toy(n, seed))


def gaussian_mean(N: int = 1000, dim: int = 2, seed: int = TOY_SEED, sigma_x: float = 1.0,
                  sigma0: float = 1.0) -> ModelSpec:
    """The Gaussian mean model x_i ~ N(theta, sigma_x^2 I_d), theta ~ N(0, sigma0^2 I_d), data drawn with
    theta = (1, ..., 1).

    Parameters
    ----------
    N : int
        The number of data, >= 2.
    dim : int
        d, 1 <= d <= 16.
    seed : int
        Seed of the data.
    sigma_x : float
        The data's standard deviation.
    sigma0 : float
        The prior's standard deviation.

    Returns
    -------
    ModelSpec
        The model.
    """
    N = check_int("N", N, 2)
    dim = check_int("dim", dim, 1, 16)
    model = GaussianMeanModel.simulate_data(N, theta_true=np.ones(dim), sigma_x=sigma_x, sigma0=sigma0,
                                            dim=dim, seed=seed)
    return ModelSpec("gaussian", f"Gaussian mean model, d = {dim}", model,
                     rebuild=lambda n: gaussian_mean(n, dim, seed, sigma_x, sigma0))


def linear_regression(Z=None, y=None, *, sigma: float = 1.0, sigma0: float = 10.0, N: int = 1000, dim: int = 2,
                      seed: int = 0) -> ModelSpec:
    """Bayesian linear regression y_i ~ N(z_i^T theta, sigma^2), theta ~ N(0, sigma0^2 I): yours or a simulated one.

    Parameters
    ----------
    Z : array_like, shape (N, d), optional
        Your design (give ``y`` with it; the N slider keeps the first N rows).
    y : array_like, shape (N,), optional
        Your responses.
    sigma : float
        The noise standard deviation.
    sigma0 : float
        The prior standard deviation.
    N : int
        Rows of the simulated data set (without ``Z``).
    dim : int
        Features of the simulated data set.
    seed : int
        Seed of the simulated data set (``simulate.LinearRegressionModel.simulate_data``).

    Returns
    -------
    ModelSpec
        The model.

    Raises
    ------
    simulate.validation.ParameterError
        When only one of ``Z`` and ``y`` is given.
    """
    if (Z is None) != (y is None):
        raise ParameterError("give both Z (N, d) and y (N,) for your own data, or neither for simulated data")
    if Z is None:
        N = check_int("N", N, 2)
        model = LinearRegressionModel.simulate_data(N, dim=dim, sigma=sigma, sigma0=sigma0, seed=seed)
        return ModelSpec("linreg", f"linear regression (simulated, d = {model.dim})", model,
                         rebuild=lambda n: linear_regression(sigma=sigma, sigma0=sigma0, N=n, dim=dim, seed=seed))
    model = LinearRegressionModel(np.asarray(Z, dtype=float), np.asarray(y, dtype=float), sigma=sigma, sigma0=sigma0)
    Zf, yf = model.Z, model.y

    def rebuild(n: int) -> ModelSpec:
        if n > Zf.shape[0]:
            raise ParameterError(f"N must satisfy 2 <= N <= {Zf.shape[0]} (the rows of your data), got {n}")
        return linear_regression(Zf[:n], yf[:n], sigma=sigma, sigma0=sigma0)

    return ModelSpec("linreg", f"linear regression (your data, d = {model.dim})", model, rebuild=rebuild)


def laplace_linearised(model: LogisticRegressionModel) -> LinearRegressionModel:
    """The linear regression whose per-datum gradients are those of a logistic regression linearised at its mode.

    Parameters
    ----------
    model : simulate.LogisticRegressionModel
        The logistic regression.

    Returns
    -------
    simulate.LinearRegressionModel
        Design sqrt(w_i) z_i, responses (sigma(-s_i) + w_i s_i) / sqrt(w_i), noise sigma = 1, the same prior, with
        s_i = z_i^T beta_hat, w_i = sigma(s_i) sigma(-s_i), z_i = y_i x_i (the IRLS working data); its posterior is
        the Laplace approximation N(beta_hat, H(beta_hat)^{-1}).

    Raises
    ------
    simulate.validation.ParameterError
        For another model, or one separable at its mode (a weight is 0).

    References
    ----------
    New (derived in the module docstring); the Laplace approximation of the posterior.
    """
    if not isinstance(model, LogisticRegressionModel):
        raise ParameterError(f"model must be a LogisticRegressionModel, got {type(model).__name__}")
    beta = model.posterior_mode()
    Z = model.y[:, None] * model.X
    s = Z @ beta
    neg = sigmoid_neg(s.copy())
    w = neg * (1.0 - neg)
    if np.any(w <= 0.0):
        raise ParameterError("the logistic model is separable at its mode (a weight sigma(s)(1 - sigma(s)) is 0): "
                             "the Laplace approximation is degenerate")
    root = np.sqrt(w)
    return LinearRegressionModel(Z * root[:, None], (neg + w * s) / root, sigma=1.0, sigma0=model.sigma0)


def logistic_laplace(model: LogisticRegressionModel | None = None, *, N: int = 1000, seed: int | None = None
                     ) -> ModelSpec:
    """Logistic regression through its Laplace approximation (:func:`laplace_linearised`), labelled as such.

    Parameters
    ----------
    model : simulate.LogisticRegressionModel, optional
        Your logistic regression (default: the synthetic design of Vollmer et al., Section 7, with N rows).
    N : int
        Rows of the synthetic design (without ``model``).
    seed : int, optional
        Seed of the synthetic design.

    Returns
    -------
    ModelSpec
        The linearised model, whose ``approximation`` says that its numbers are exact for the linearised model, not
        for logistic regression.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 7 (the synthetic design).
    """
    if model is None:
        N = check_int("N", N, 2)
        kw = {} if seed is None else {"seed": seed}
        model = LogisticRegressionModel.paper_synthetic(N, **kw)
        rebuild = lambda n: logistic_laplace(N=n, seed=seed)  # noqa: E731
    else:
        X, y, s0 = model.X, model.y, model.sigma0

        def rebuild(n: int) -> ModelSpec:
            if n > X.shape[0]:
                raise ParameterError(f"N must satisfy 2 <= N <= {X.shape[0]} (the rows of your data), got {n}")
            return logistic_laplace(LogisticRegressionModel(X[:n], y[:n], sigma0=s0))
    lin = laplace_linearised(model)
    return ModelSpec("logistic", f"logistic regression (d = {model.dim}), Laplace approximation", lin,
                     approximation="Laplace/Gaussian approximation: per-datum gradients linearised at the mode; exact "
                                   "for the linearised model, not for logistic regression",
                     rebuild=rebuild)


def logistic_exact(model: LogisticRegressionModel | None = None) -> ModelSpec:
    """Logistic regression itself, answered exactly by the grid law, not through its Laplace approximation.

    Parameters
    ----------
    model : simulate.LogisticRegressionModel, optional
        Of dimension 1 or 2 (the grid route); default: the breast-cancer data with an intercept and "mean radius"
        (``simulate.models.low_dim_logistic.breast_cancer_2d``, d = 2).

    Returns
    -------
    ModelSpec
        The model.

    Raises
    ------
    ParameterError
        When the model is not a logistic regression of dimension 1 or 2.
    """
    if model is None:
        from simulate.models.low_dim_logistic import breast_cancer_2d

        model = breast_cancer_2d()
    if not isinstance(model, LogisticRegressionModel) or model.dim > 2:
        raise ParameterError("model must be a LogisticRegressionModel of dimension 1 or 2 (the grid route)")
    return ModelSpec("logistic_exact", f"logistic regression (d = {model.dim}), exact (grid law)", model)


#: The presets of ``python -m verify.explore --model``.
PRESETS: dict[str, Callable[..., ModelSpec]] = {
    "toy": toy, "gaussian": gaussian_mean, "linreg": linear_regression, "logistic": logistic_laplace,
}


def preset(name: str, N: int) -> ModelSpec:
    """A preset model (:data:`PRESETS`) with N data.

    Parameters
    ----------
    name : str
        "toy", "gaussian", "linreg" or "logistic".
    N : int
        The number of data.

    Returns
    -------
    ModelSpec
        The model.

    Raises
    ------
    simulate.validation.ParameterError
        For another name.
    """
    if name not in PRESETS:
        raise ParameterError(f"model must be one of {sorted(PRESETS)}, got {name!r}")
    return PRESETS[name](N=N)


__all__ = ["PRESETS", "TOY_SEED", "ModelSpec", "gaussian_mean", "laplace_linearised", "linear_regression",
           "logistic_exact", "logistic_laplace", "preset", "toy"]
