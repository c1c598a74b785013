"""The atlas's test problems: Gaussian targets (p in {1, 10, 100}, condition numbers 1, 10, 10^3), the Gaussian
mean model (Vollmer et al.'s toy) and Bayesian linear regression on scikit-learn's diabetes data, plus a small
problem on which SAGA-LD's gradient table fits the exact engine.

Every problem is a simulator model with an affine gradient, so the exact engine (:func:`theory.exact_law`) gives the law
of every sampler on it. The Gaussian targets N(0, diag(1/lambda)) (lambda log-spaced from 1 to kappa; for p > 10, ten
log-spaced values with multiplicity p/10, which keeps the condition number and lets the exact route treat equal
coordinates once) are :class:`simulate.GaussianMeanModel` models with a flat prior (sigma0=None): N data x_i ~ N(theta,
N diag(1/lambda)), so the posterior is N(xbar, diag(1/lambda)); the data are whitened so that their mean is 0 and their
empirical covariance is exactly N diag(1/lambda) (the minibatch noise covariance is then (N/n) f diag(lambda), f the
finite-population factor). They are written in the eigenbasis of the precision: W2, KL and TV are invariant under a
rotation applied to both laws, and rotating the data rotates every sampler's chain on a flat-prior GaussianMeanModel, so
no generality is lost; in this basis every coordinate's chain closes on itself (``separable``), which the atlas uses to
reach p = 100.
The regressions are not separable for stochastic gradients; their full-gradient chains (ULA, underdamped Langevin
MCMC) depend on the posterior alone, so the atlas computes those in the precision's eigenbasis
(:meth:`AtlasProblem.eigenbasis`: the same posterior as a separable Gaussian target; the distances are invariant).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from simulate import GaussianMeanModel, LinearRegressionModel
from simulate.validation import ParameterError

#: The suffix of a problem's eigenbasis form (:meth:`AtlasProblem.eigenbasis`).
EIGENBASIS = "@eigenbasis"
#: Samplers whose exact law the atlas computes on every problem; SVRG-LD and SAGA-LD only where listed (on the
#: problems with a common per-datum precision SVRG-LD's and the control variates' noise vanishes: they are ULA).
COMMON_SAMPLERS = ("ula", "sgld", "sgld_cv", "ulmc")


@dataclass(frozen=True, eq=False)
class AtlasProblem:
    """A test problem of the atlas.

    Parameters
    ----------
    name : str
        Its name (one of :data:`PROBLEMS`, possibly with the suffix "@eigenbasis").
    description : str
        One line for the atlas page.
    model : Model
        The simulator's model.
    mean, cov : numpy.ndarray
        Its posterior N(mean, cov).
    precision : numpy.ndarray
        The posterior precision (extreme eigenvalues m, M).
    separable : bool
        Whether its coordinates close on themselves (module docstring of :mod:`theory.atlas.laws`).
    samplers : tuple of str
        The samplers the atlas runs on it.
    M_datum : float
        The largest per-datum smoothness constant (with the prior's share 1/N).
    """

    name: str
    description: str
    model: object
    mean: np.ndarray
    cov: np.ndarray
    precision: np.ndarray
    separable: bool
    samplers: tuple[str, ...]
    M_datum: float

    @property
    def p(self) -> int:
        return int(self.mean.size)

    @property
    def N(self) -> int:
        return int(self.model.n_data)

    @cached_property
    def spectrum(self) -> np.ndarray:
        return np.linalg.eigvalsh(self.precision)

    @cached_property
    def m(self) -> float:
        return float(self.spectrum[0])

    @cached_property
    def M(self) -> float:
        return float(self.spectrum[-1])

    def eigenbasis(self) -> AtlasProblem:
        """The same posterior as a separable Gaussian target in the eigenbasis of its precision.

        A flat-prior GaussianMeanModel with the rotated data; the full-gradient chains commute with the rotation and
        every
        distance here is rotation invariant, so their laws may be computed there (module docstring).

        Returns
        -------
        AtlasProblem
            The rotated problem, named with the suffix :data:`EIGENBASIS`.
        """
        lam, U = np.linalg.eigh(self.precision)
        mean = U.T @ self.mean
        model = GaussianMeanModel(mean[None, :], Sigma=np.diag(1.0 / lam), sigma0=None)
        return AtlasProblem(f"{self.name}{EIGENBASIS}", f"{self.description}, in the eigenbasis of its precision",
                            model, mean, np.diag(1.0 / lam), np.diag(lam), True, ("ula", "ulmc"), self.M_datum)

    @cached_property
    def offset(self) -> np.ndarray:
        """Delta: 3 posterior standard deviations along every eigen-direction of the precision."""
        lam, U = np.linalg.eigh(self.precision)
        return U @ (3.0 / np.sqrt(lam))


def _whitened(N: int, p: int, seed: int) -> np.ndarray:
    """N x p data with mean exactly 0 and empirical covariance (divisor N) exactly I."""
    z = np.random.default_rng(seed).standard_normal((N, p))
    z -= z.mean(axis=0)
    lam, U = np.linalg.eigh(z.T @ z / N)
    return z @ (U / np.sqrt(lam)) @ U.T


def gaussian_problem(p: int, kappa: float, N: int = 200, seed: int = 0) -> AtlasProblem:
    """The Gaussian target N(0, diag(1/lambda)) as a flat-prior GaussianMeanModel with N whitened data.

    lambda = geomspace(1, kappa, p) (for p > 10: ten values, each p/10 times) (module docstring).

    Parameters
    ----------
    p : int
        The dimension, 1 <= p <= 500.
    kappa : float
        The condition number, 1 <= kappa < inf (1 when p = 1).
    N : int
        The number of data, N > p.
    seed : int
        The seed of the data.

    Returns
    -------
    AtlasProblem
        The problem "gauss_p1" or "gauss_p{p}_k{kappa}".

    Raises
    ------
    ParameterError
        When p, kappa or N is outside its range.
    """
    if not (isinstance(p, int) and 1 <= p <= 500):
        raise ParameterError(f"p must be an integer with 1 <= p <= 500 (the separable route's coordinates), got {p!r}")
    if not (kappa >= 1.0 and np.isfinite(kappa)) or (p == 1 and kappa != 1.0):
        raise ParameterError(f"kappa must satisfy 1 <= kappa < inf (and kappa = 1 when p = 1), got {kappa!r}")
    if N <= p:
        raise ParameterError(f"N must exceed p to whiten the data, got N = {N}, p = {p}")
    lam = np.geomspace(1.0, kappa, p) if p <= 10 else np.repeat(np.geomspace(1.0, kappa, 10), -(-p // 10))[:p]
    data = _whitened(N, p, seed) * np.sqrt(N / lam)
    model = GaussianMeanModel(data, Sigma=np.diag(N / lam), sigma0=None)
    name = "gauss_p1" if p == 1 else f"gauss_p{p}_k{kappa:g}"
    samplers = COMMON_SAMPLERS + (("cv_uld",) if p <= 10 else ())
    return AtlasProblem(name, f"Gaussian target, p = {p}, condition number {kappa:g} (N = {N} whitened data)", model,
                   np.zeros(p), np.diag(1.0 / lam), np.diag(lam), True, samplers, float(lam.max()) / N)


def gaussian_mean_problem(N: int, seed: int = 2016) -> AtlasProblem:
    """Vollmer et al.'s 1-D Gaussian toy: x_i ~ N(theta, 1), theta ~ N(0, 1), N data simulated with theta = 1.

    Parameters
    ----------
    N : int
        The number of data.
    seed : int
        The seed of the data.

    Returns
    -------
    AtlasProblem
        The problem "gaussian_mean" (N = 1000) or "gaussian_mean_N{N}".

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), "Exploration of the (non-)asymptotic bias and variance of stochastic gradient
    Langevin dynamics", JMLR 17(159): the Gaussian toy model.
    """
    model = GaussianMeanModel.simulate_data(N, theta_true=1.0, seed=seed)
    prec = np.array([[model.grad_lipschitz]])
    samplers = COMMON_SAMPLERS + ("cv_uld",)
    return AtlasProblem("gaussian_mean" if N == 1000 else f"gaussian_mean_N{N}",
                   f"Gaussian mean model (Vollmer et al.'s toy), N = {N}", model, np.asarray(model.posterior_mean),
                   1.0 / prec, prec, True, samplers, 1.0 + 1.0 / N)


def _regression(name: str, description: str, model: LinearRegressionModel, samplers) -> AtlasProblem:
    P = model.precision
    m_datum = float(np.max(np.sum(model.Z**2, axis=1)) / model.sigma**2) + 1.0 / (model.sigma0**2 * model.n_data)
    return AtlasProblem(name, description, model, model.posterior_mean, np.linalg.inv(P), P, False, tuple(samplers),
                   m_datum)


def diabetes_problem() -> AtlasProblem:
    """Bayesian linear regression on scikit-learn's diabetes data.

    442 patients, 10 standardised features and an intercept, the response standardised; noise sigma = 1, prior
    N(0, 10^2 I).

    Returns
    -------
    AtlasProblem
        The problem "diabetes".
    """
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X = np.hstack([(X - X.mean(axis=0)) / X.std(axis=0), np.ones((X.shape[0], 1))])
    model = LinearRegressionModel(X, (y - y.mean()) / y.std(), sigma=1.0, sigma0=10.0)
    return _regression("diabetes", "Bayesian linear regression, scikit-learn's diabetes data (N = 442, p = 11)", model,
                       COMMON_SAMPLERS + ("cv_uld",))


def small_regression_problem() -> AtlasProblem:
    """A small simulated regression (N = 6, p = 2, varied feature scales).

    SAGA-LD's gradient table makes its state p (N + 1) = 14-dimensional, which the engine's explicit route takes.

    Returns
    -------
    AtlasProblem
        The problem "regression_small".
    """
    model = LinearRegressionModel.simulate_data(6, dim=2, seed=3)
    return _regression("regression_small", "Bayesian linear regression, simulated (N = 6, p = 2)", model,
                       COMMON_SAMPLERS + ("svrgld", "saga_ld", "cv_uld"))


_FACTORIES = {
    "gauss_p1": lambda: gaussian_problem(1, 1.0),
    **{f"gauss_p{p}_k{k:g}": (lambda p=p, k=k: gaussian_problem(p, k)) for p in (10, 100) for k in (1.0, 10.0, 1e3)},
    "gaussian_mean": lambda: gaussian_mean_problem(1000),
    "diabetes": diabetes_problem,
    "regression_small": small_regression_problem,
}

#: The names of the atlas's problems.
PROBLEMS = tuple(_FACTORIES)


@cache
def problem(name: str) -> AtlasProblem:
    """The atlas problem ``name``; cached.

    Parameters
    ----------
    name : str
        One of :data:`PROBLEMS`, or one of them with the suffix "@eigenbasis".

    Returns
    -------
    AtlasProblem
        The problem.

    Raises
    ------
    ParameterError
        When ``name`` is not an atlas problem.
    """
    if name.endswith(EIGENBASIS) and name.removesuffix(EIGENBASIS) in _FACTORIES:
        return problem(name.removesuffix(EIGENBASIS)).eigenbasis()
    if name not in _FACTORIES:
        raise ParameterError(f"unknown atlas problem {name!r}; the problems are {', '.join(PROBLEMS)}")
    return _FACTORIES[name]()


__all__ = ["EIGENBASIS", "PROBLEMS", "AtlasProblem", "diabetes_problem", "gaussian_mean_problem", "gaussian_problem",
           "problem", "small_regression_problem"]
