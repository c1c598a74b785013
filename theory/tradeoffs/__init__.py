"""The step-size / minibatch trade-off explorer's API: for a model, a budget and an objective, the exact optimal
(h, n) of each sampler, with its whole MSE surface, stability edge, a one-line explanation and a simulation
spot-check.

    >>> from theory import tradeoffs as tr
    >>> answer = tr.tradeoffs(tr.toy(1000), tr.Budget(1e5), tr.Objective.quadratic(), samplers=["sgld", "msgld"])
    >>> print(answer.table())                                      # doctest: +SKIP

Every number comes from an exact law: the exact engine (:func:`theory.exact_law`) for models with an affine gradient,
the grid law (:func:`theory.grid_law`, ``grid_route``) for logistic regression of dimension 1 or 2 itself
(:func:`logistic_exact`, with :func:`laplace_versus_exact` for the Laplace answer's loss). The affine models are in
``models`` (the Gaussian toy, the Gaussian mean model, your linear regression, logistic regression through its
Laplace approximation, labelled as such), the samplers one line each (``samplers``), the objective and budget
in ``objective``, the surface and single points (:func:`time_average_at`) in ``surface``, the optimum in
``optimise``, the law's accuracy in ``accuracy``, the explanation in ``explain``, the spot-check in ``spotcheck``
(modules of this package).
``python -m verify.explore`` prints the table and writes the interactive page.
"""

from .accuracy import INFLATION_WARN, LawAccuracy, law_accuracy
from .api import SamplerResult, Tradeoff, answer, stopped, tradeoffs
from .explanation import explain
from .grid_route import LaplaceGap, laplace_versus_exact
from .matched import MatchedStep, matched_discretisation
from .models import (
    PRESETS,
    ModelSpec,
    gaussian_mean,
    laplace_linearised,
    linear_regression,
    logistic_exact,
    logistic_laplace,
    preset,
    toy,
)
from .objective import Budget, Objective
from .optimise import Optimum, optimum
from .samplers import SAMPLERS, SamplerOptions, SamplerSpec, langevin_equivalent_step, sampler_spec
from .spotcheck import SpotCheck, spot_check
from .surface import FRACTIONS, Point, Surface, default_n_values, stability_edge, surfaces, time_average_at

__all__ = [
    "FRACTIONS", "INFLATION_WARN", "PRESETS", "SAMPLERS", "Budget", "LaplaceGap", "LawAccuracy", "MatchedStep",
    "ModelSpec", "Objective", "Optimum", "Point", "SamplerOptions", "SamplerResult", "SamplerSpec", "SpotCheck",
    "Surface", "Tradeoff", "answer", "default_n_values", "explain", "gaussian_mean", "langevin_equivalent_step",
    "laplace_linearised", "laplace_versus_exact", "law_accuracy", "linear_regression", "logistic_exact",
    "logistic_laplace", "matched_discretisation", "optimum", "preset", "sampler_spec", "spot_check",
    "stability_edge", "stopped", "surfaces", "time_average_at", "toy", "tradeoffs",
]
