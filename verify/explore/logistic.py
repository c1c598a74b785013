"""The explorer on logistic regression: answered exactly by the grid law (``--route exact``, the default) or through
the Laplace approximation (``--route laplace``), and, on the exact route, how far the Laplace answer's optimum
(h, n) and MSE are from the exact one (:func:`theory.tradeoffs.laplace_versus_exact`).

The exact route (:func:`theory.tradeoffs.logistic_exact`) takes a logistic regression of dimension 1 or 2: by default
the breast-cancer diagnosis on an intercept and "mean radius" (scikit-learn's data, N = 569), or your CSV. Each
(h, n) point is a grid law (seconds to minutes in 2-D), so the route has its own coarser default grid
(:data:`EXACT_FRACTIONS`, :data:`EXACT_N`) and its chains start at the posterior mode (the Laplace mean), where a
practitioner starts them; the time allowance per sampler (``--seconds``) cuts the rows from the smallest n up, and
the table names them.
"""

from __future__ import annotations

import numpy as np

from simulate.models.logistic import LogisticRegressionModel
from simulate.validation import ParameterError
from theory.tradeoffs import ModelSpec, laplace_versus_exact, logistic_exact, logistic_laplace

#: The h grid of the exact route, as fractions of each n's stability edge (of the Laplace linearisation).
EXACT_FRACTIONS = (0.1, 0.3, 0.6)
#: The minibatch sizes of the exact route by dimension (N is added): in 2-D, n = 1 and 3 spread the law over more nodes
#: than the grid law allows at its 2-D tolerance (a row that fails would cost the sampler its answer).
EXACT_N = {1: (1, 3, 10), 2: (10, 30)}
ROUTES = ("exact", "laplace")
#: The table's default time limit per sampler on the exact route in 2-D: a full surface (3 h x n = 10, 30, N) took
#: 437 s for SGLD and 709 s for mSGLD on the shared 2-core VM (docs/explorer.md).
EXACT_SECONDS_2D = 900.0


def logistic_spec(X=None, y=None, *, route: str = "exact", sigma0: float = 10.0, N=None) -> ModelSpec:
    """The explorer's logistic regression on the chosen route.

    Parameters
    ----------
    X, y : numpy.ndarray, optional
        Your features (N, d) and labels (+1 / -1); default: the breast-cancer 2-D model on the exact route, the
        synthetic design of Vollmer et al. (Sec. 7) with ``N`` rows on the Laplace route.
    route : str
        "exact" (grid law, d <= 2) or "laplace".
    sigma0 : float
        Prior standard deviation of your data's coefficients.
    N : int, optional
        Rows of the synthetic design on the Laplace route.

    Returns
    -------
    ModelSpec
        The model, labelled with its route.

    Raises
    ------
    ParameterError
        For an unknown route, or data of dimension above 2 on the exact route.

    References
    ----------
    New (the explorer's choice of route); Vollmer, Zygalakis & Teh (2016), Sec. 7 (the synthetic design).
    """
    if route not in ROUTES:
        raise ParameterError(f"--route must be one of {list(ROUTES)}, got {route!r}")
    model = None if X is None else LogisticRegressionModel(X, y, sigma0=sigma0)
    if route == "laplace":
        return logistic_laplace(model) if model is not None else logistic_laplace(N=N)
    if model is not None and model.dim > 2:
        raise ParameterError(f"--route exact answers logistic regression of dimension 1 or 2 (the grid law); your "
                             f"data have d = {model.dim}: use --route laplace")
    return logistic_exact(model)


def laplace_lines(question, keys, *, n_values, fractions, theta0, options) -> list[str]:
    """The Laplace answer against the exact one, one line per sampler with an exact optimum in the table.

    Parameters
    ----------
    question : Tradeoff
        The answered question (its ``results`` hold the exact optima).
    keys : list of str
        The samplers.
    n_values, fractions : sequence
        The grid the table searched (the Laplace optimum is searched over the same grid).
    theta0 : numpy.ndarray
        The chains' start.
    options : SamplerOptions
        The settings held fixed.

    Returns
    -------
    list of str
        The lines.
    """
    lines = ["", "Laplace route against the exact one (same grid, same start; the Laplace optimum's exact MSE is one "
                 "more grid law):"]
    for key in keys:
        res = question.results.get(key)
        if res is None or res.optimum is None:
            continue
        try:
            gap = laplace_versus_exact(question.model.model, question.budget, question.objective, key,
                                       n_values=n_values, fractions=fractions, theta0=theta0, exact=res.optimum,
                                       options=options)
        except ParameterError as e:
            lines.append(f"  {res.spec.label}: exact optimum n = {res.optimum.n}, h = {res.optimum.h:.4g}, MSE "
                         f"{res.optimum.mse:.4g}; the Laplace optimum has no exact MSE: {e}")
            continue
        lines.append(f"  {res.spec.label}: {gap.describe()}")
    return lines


def exact_defaults(spec: ModelSpec) -> tuple[tuple[int, ...], np.ndarray]:
    """The exact route's minibatch sizes and start: :data:`EXACT_N` (for the model's dimension) below N, N itself,
    and the posterior mode.

    Parameters
    ----------
    spec : ModelSpec
        The exact logistic model.

    Returns
    -------
    tuple
        The minibatch sizes and theta0.
    """
    N = spec.n_data
    return tuple(sorted({n for n in EXACT_N[spec.dim] if n < N} | {N})), np.asarray(spec.model.posterior_mode(), float)


__all__ = ["EXACT_FRACTIONS", "EXACT_N", "EXACT_SECONDS_2D", "ROUTES", "exact_defaults", "laplace_lines",
           "logistic_spec"]
