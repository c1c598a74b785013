"""The test models a conformance run puts another library's sampler on: linear-Gaussian posteriors.

Both are Bayesian linear regression y_i ~ N(z_i^T theta, sigma^2), theta ~ N(0, sigma0^2 I) (Baker et al. 2019,
docs/papers/baker.md sec. 2; ``simulate.LinearRegressionModel``): per-datum gradients g_i(theta) = r_i - A_i theta with
A_i = z_i z_i^T / sigma^2, r_i = z_i y_i / sigma^2, posterior N(mu, P^{-1}), P = sum_i A_i + I / sigma0^2.

* :func:`toy_problem`: the 1-D Gaussian toy of Vollmer et al. (2016), x_i ~ N(theta, sigma_x^2), prior
  N(0, sigma0^2): the case z_i = 1, y_i = x_i, sigma = sigma_x (the same sigma0). Its gradient noise is
  additive (A_i does not depend on i).
* :func:`linreg_problem`: a d-dimensional regression with a varied design (A_i varies with i, so control-variate
  and SVRG noise does not vanish; ``LinearRegressionModel.simulate_data``).

An adapter writes the model in its own library from :attr:`Problem.Z`, :attr:`Problem.y`, ``sigma`` and ``sigma0``:
the log prior -|theta|^2 / (2 sigma0^2) and the per-datum log-likelihood -(y_i - z_i^T theta)^2 / (2 sigma^2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulate.models.gaussian import GaussianMeanModel
from simulate.models.linear_regression import LinearRegressionModel
from simulate.validation import ParameterError, check_int


@dataclass(frozen=True, eq=False)
class Problem:
    """A linear-Gaussian test model: Bayesian linear regression y_i ~ N(z_i^T theta, sigma^2), theta ~ N(0, sigma0^2 I).

    Parameters
    ----------
    name : str
        Its name in the report.
    Z : array_like, shape (N, d)
        The design.
    y : array_like, shape (N,)
        The responses.
    sigma : float
        The noise standard deviation.
    sigma0 : float
        The prior standard deviation.

    Attributes
    ----------
    model : simulate.LinearRegressionModel
        The same model in the workbench (for the exact law).
    kind : str
        "toy" (d = 1, z_i = 1: Vollmer et al.'s Gaussian toy) or "linreg".
    """

    name: str
    Z: np.ndarray
    y: np.ndarray
    sigma: float
    sigma0: float
    model: LinearRegressionModel = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", LinearRegressionModel(self.Z, self.y, self.sigma, self.sigma0))
        object.__setattr__(self, "Z", self.model.Z)

    @property
    def kind(self) -> str:
        return "toy" if self.dim == 1 and np.all(self.Z == 1.0) else "linreg"

    @property
    def n_data(self) -> int:
        return self.model.n_data

    @property
    def dim(self) -> int:
        return self.model.dim

    @property
    def precision(self) -> np.ndarray:
        """P = sum_i A_i + I / sigma0^2, shape (d, d)."""
        return self.model.precision

    @property
    def posterior_mean(self) -> np.ndarray:
        return self.model.posterior_mean

    @property
    def posterior_cov(self) -> np.ndarray:
        return self.model.posterior_cov

    def toy_model(self) -> GaussianMeanModel:
        """The same posterior as the 1-D Gaussian mean model of the toy theory (``theory.toy.chain``).

        Returns
        -------
        simulate.GaussianMeanModel
            The toy model with data y, sigma_x = sigma and prior scale sigma0.

        Raises
        ------
        simulate.validation.ParameterError
            When the problem is not the toy.
        """
        if self.kind != "toy":
            raise ParameterError(f"problem {self.name!r} is not the 1-D Gaussian toy (z_i = 1, d = 1)")
        return GaussianMeanModel(self.y, sigma_x=self.sigma, sigma0=self.sigma0)

    def log_density_numpy(self):
        """The model's log density as numpy functions, for an adapter to write in its own library.

        Returns
        -------
        log_prior : callable
            theta (d,) -> ``-|theta|^2 / (2 sigma0^2)``.
        log_likelihood : callable
            (theta, z, y) -> -(y - z^T theta)^2 / (2 sigma^2), one datum.
        """
        s2, s02 = self.sigma**2, self.sigma0**2
        return (lambda th: -0.5 * float(th @ th) / s02,
                lambda th, z, y: -0.5 * (y - float(z @ th)) ** 2 / s2)


def toy_problem(n_data: int = 100, theta_true: float = 1.0, sigma_x: float = 1.0, sigma0: float = 1.0,
                seed: int = 2016) -> Problem:
    """The 1-D Gaussian toy of Vollmer et al. as a test problem.

    Parameters
    ----------
    n_data : int
        N >= 2 data x_i ~ N(theta_true, sigma_x^2).
    theta_true : float
        The data's mean.
    sigma_x : float
        The data's standard deviation.
    sigma0 : float
        The prior's standard deviation.
    seed : int
        Seed of the data (``simulate.GaussianMeanModel.simulate_data``).

    Returns
    -------
    Problem
        z_i = 1, y_i = x_i, sigma = sigma_x and the same sigma0.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (11).
    """
    n_data = check_int("n_data", n_data, 2)
    m = GaussianMeanModel.simulate_data(n_data, theta_true=theta_true, sigma_x=sigma_x, sigma0=sigma0,
                                        seed=seed)
    x = m.data[:, 0]
    return Problem("toy", np.ones((n_data, 1)), x, m.sigma_x, m.sigma0)


def linreg_problem(n_data: int = 200, dim: int = 2, sigma: float = 1.0, sigma0: float = 10.0,
                   seed: int = 0) -> Problem:
    """A d-dimensional linear regression with a varied design as a test problem (control-variate and SVRG noise
    does not vanish on it).

    Parameters
    ----------
    n_data : int
        N, the number of data.
    dim : int
        d, the number of coefficients.
    sigma : float
        The noise standard deviation.
    sigma0 : float
        The prior standard deviation.
    seed : int
        Seed of the data (``simulate.LinearRegressionModel.simulate_data``).

    Returns
    -------
    Problem
        The regression, named ``"linreg<d>"``.
    """
    m = LinearRegressionModel.simulate_data(n_data, dim=dim, sigma=sigma, sigma0=sigma0, seed=seed)
    return Problem(f"linreg{dim}", m.Z, m.y, m.sigma, m.sigma0)


__all__ = ["Problem", "linreg_problem", "toy_problem"]
