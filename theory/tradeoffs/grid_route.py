"""The trade-off explorer beyond affine models: the exact law of a sampler on a 1-D or 2-D posterior from
:func:`theory.grid_law`, behind the interface the explorer reads from the exact engine (``time_average``,
``stationary_moments``, ``posterior_mean``, ``period``), and the comparison of the Laplace answer with the exact one.

``law_for_sampler(sampler, theta0)`` is the one place the explorer chooses its route: the exact engine where the
model has an affine gradient, the grid law otherwise (logistic regression itself, not its Laplace approximation).
Objectives on the grid route: the mean of a^T theta and quadratic observables theta^T B theta (the "variance"
objective's centre is the exact posterior mean there too). The stability edge of a non-affine model is the
mean-square stability limit of the same sampler on its Laplace linearisation (labelled so); the grid law itself
refuses a step at which the chain escapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.models.logistic import LogisticRegressionModel
from simulate.validation import ParameterError

from ..grid import GridLaw, grid_law
from ..linear_gaussian import exact_law

#: Accuracy of the grid laws the explorer uses: 1-D posteriors, and 2-D ones (where 1e-6 needs grids of more nodes
#: than the grid law allows once the window's start widens them, and minutes per point). At 1e-3 a point of the
#: breast-cancer model (SGLD, n = 30, h = 0.3 x the edge, L = 3333) has the same time-average MSE as at 1e-4 to a
#: relative 2.4e-5, within its error estimate (2.5e-5 relative), in half the time (docs/explorer.md).
GRID_TOL = 1e-6
GRID_TOL_2D = 1e-3


@dataclass(frozen=True)
class _Average:
    mean: float
    variance: float
    mse: float
    target: float
    mse_error: float


class GridRouteLaw:
    """A :class:`theory.GridLaw` seen through the exact engine's interface (module docstring).

    Parameters
    ----------
    law : GridLaw
        The grid law of the sampler.
    """

    period = 1

    def __init__(self, law: GridLaw) -> None:
        self.law = law
        self.d = law.d
        self.posterior_mean = np.atleast_1d(np.asarray(law.posterior_expectation(lambda x: x).value, float))

    def time_average(self, a=None, *, quadratic=None, n_steps: int, burn_in: int = 0, target=None, centre=None):
        """Mean, variance and MSE of the time average of a^T theta or (theta - centre)^T B (theta - centre).

        Parameters
        ----------
        a : array_like, shape (d,), optional
            A linear observable (give ``a`` or ``quadratic``, not both).
        quadratic : array_like, shape (d, d), optional
            The matrix B of a quadratic observable.
        n_steps : int
            The window length.
        burn_in : int
            The first step of the window.
        target : float, optional
            What the MSE is about (default the observable's posterior expectation).
        centre : array_like, shape (d,), optional
            The quadratic observable's centre (default 0).

        Returns
        -------
        object
            With attributes ``mean``, ``variance``, ``mse`` and ``target`` (floats), as the exact engine's, and
            ``mse_error``, the grid law's error estimate of the MSE.

        Raises
        ------
        ParameterError
            When both or neither of ``a`` and ``quadratic`` are given, or the grid law refuses the window.
        """
        if (a is None) == (quadratic is None):
            raise ParameterError("give a (a linear observable) or quadratic (a matrix B), not both")
        c = np.zeros(self.d) if centre is None else np.asarray(centre, float)
        av = None if a is None else np.asarray(a, float)
        B = None if quadratic is None else np.asarray(quadratic, float)

        def f(x: np.ndarray) -> np.ndarray:
            return x @ av if av is not None else np.einsum("mi,ij,mj->m", x - c, B, x - c)

        ta = self.law.time_average(f, n_steps=n_steps, burn_in=burn_in, target=target)
        return _Average(float(ta.mean), float(ta.variance), float(ta.mse), float(ta.target), float(ta.error[2]))

    def stationary_moments(self, phase=None) -> tuple[np.ndarray, np.ndarray]:
        """(E theta, Cov theta) under the stationary law.

        Parameters
        ----------
        phase : None
            Unused (the grid route's chains have period 1; the exact engine's interface takes a phase).

        Returns
        -------
        tuple of numpy.ndarray
            The stationary mean (d,) and covariance (d, d).
        """
        m = np.atleast_1d(np.asarray(self.law.stationary_expectation(lambda x: x).value, float))
        second = np.asarray(self.law.stationary_expectation(
            lambda x: np.einsum("mi,mj->mij", x, x).reshape(x.shape[0], -1)).value, float).reshape(self.d, self.d)
        return m, second - np.outer(m, m)


def law_for_sampler(sampler, theta0=None):
    """The exact law the explorer uses: :func:`theory.exact_law` on affine models, the grid law otherwise (to
    :data:`GRID_TOL` in 1-D, :data:`GRID_TOL_2D` in 2-D).

    Parameters
    ----------
    sampler : Sampler
        The sampler.
    theta0 : array_like, optional
        The start (default 0).

    Returns
    -------
    ExactLaw or GridRouteLaw
        The law.

    Raises
    ------
    ParameterError
        When the engine or the grid law refuses the sampler (e.g. a model of dimension above 2 without an affine
        gradient).
    """
    if hasattr(sampler.model, "affine_parts"):
        return exact_law(sampler, theta0)
    return GridRouteLaw(grid_law(sampler, theta0, tol=GRID_TOL if sampler.model.dim == 1 else GRID_TOL_2D))


def linearised(model):
    """The affine model whose stability edge stands for ``model``'s.

    The model itself when affine, the Laplace linearisation of a logistic regression.

    Parameters
    ----------
    model : Model
        An affine model or a logistic regression.

    Returns
    -------
    Model
        The affine model.

    Raises
    ------
    ParameterError
        For a model that is neither.
    """
    if hasattr(model, "affine_parts"):
        return model
    if isinstance(model, LogisticRegressionModel):
        from .models import laplace_linearised

        return laplace_linearised(model)
    raise ParameterError(f"model {type(model).__name__}: the explorer needs a stability edge; give an affine model or "
                         "a logistic regression (its Laplace linearisation gives the edge)")


__all__ = ["GRID_TOL", "GRID_TOL_2D", "GridRouteLaw", "law_for_sampler", "linearised"]


@dataclass(frozen=True)
class LaplaceGap:
    """The exact optimum of one sampler on a logistic regression beside the optimum of its Laplace approximation.

    Parameters
    ----------
    exact : Optimum
        The exact optimum (h, n) and MSE.
    laplace : Optimum
        The Laplace approximation's optimum, by its own (Gaussian) law.
    laplace_exact_mse : float
        The exact MSE the Laplace optimum (h, n) actually gets.
    """

    exact: object
    laplace: object
    laplace_exact_mse: float

    @property
    def regret(self) -> float:
        """laplace_exact_mse / exact.mse (1: the Laplace answer loses nothing)."""
        return self.laplace_exact_mse / self.exact.mse

    def describe(self) -> str:
        e, lp = self.exact, self.laplace
        return (f"exact optimum n = {e.n}, h = {e.h:.4g}, MSE {e.mse:.4g}; Laplace optimum n = {lp.n}, h = {lp.h:.4g}, "
                f"MSE {lp.mse:.4g} by its own (Gaussian) law but {self.laplace_exact_mse:.4g} exactly "
                f"({self.regret:.3g} x the exact optimum's)")


def laplace_versus_exact(model: LogisticRegressionModel, budget, objective, sampler: str = "sgld", *, n_values,
                         fractions, theta0=None, exact=None, options=None) -> LaplaceGap:
    """How far the Laplace answer's optimum (h, n) and MSE are from the exact one (module docstring).

    For one sampler of :data:`theory.tradeoffs.SAMPLERS` on a logistic regression.

    Parameters
    ----------
    model : LogisticRegressionModel
        The logistic regression (dimension 1 or 2 for the grid route).
    budget : Budget
        The budget.
    objective : Objective
        The objective.
    sampler : str
        A key of :data:`theory.tradeoffs.SAMPLERS`.
    n_values : sequence of int
        The minibatch sizes searched.
    fractions : sequence of float
        The step sizes searched, as fractions of the stability edge.
    theta0 : array_like, optional
        The start (default 0).
    exact : Optimum, optional
        The exact optimum when it is already known (e.g. the explorer's table, over the same grid): it is not
        computed again, and only the Laplace surface (exact engine) and one grid law at its optimum are.
    options : SamplerOptions, optional
        The settings held fixed (default ``SamplerOptions()``).

    Returns
    -------
    LaplaceGap
        The two optima and the exact MSE of the Laplace one.

    Raises
    ------
    ParameterError
        When no (h, n) of the grid fits in the budget.
    """
    from .models import laplace_linearised
    from .optimise import optimum
    from .samplers import SamplerOptions, sampler_spec
    from .surface import surfaces, time_average_at

    spec, opts = sampler_spec(sampler), options or SamplerOptions()
    lin = laplace_linearised(model)
    out = []
    for m in (lin,) if exact is not None else (model, lin):
        (surf,) = surfaces(spec, m, objective, [budget], n_values, fractions=fractions, options=opts, theta0=theta0)
        out.append(optimum(surf, spec, m, objective, budget, options=opts, theta0=theta0, refine=False))
    exact, lap = (exact, out[0]) if exact is not None else out
    if exact is None or lap is None:
        raise ParameterError("budget: no (h, n) of the grid fits in the budget")
    point = time_average_at(spec, model, objective, budget, lap.n, lap.h, options=opts, theta0=theta0)
    return LaplaceGap(exact, lap, float(point.mse))


__all__ += ["LaplaceGap", "laplace_versus_exact"]
