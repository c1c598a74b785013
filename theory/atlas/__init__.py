"""The atlas of published non-asymptotic bounds against exact laws (issue 25).

For every bound (:mod:`theory.bounds.literature`, or a user's: ``verify.bounds``) and every point of its grid
(test problems, step sizes across its admissible range, K from 1 to 10^4, minibatch sizes), the exact distance
between the chain's law and the target from the exact engine, the bound, their ratio, whether the point is inside
the bound's assumptions, vacuous or a violation, and the bound's order in h against the exact order.

    problems   the test problems (Gaussian targets, the Gaussian mean model, regression on real data)
    samplers   the samplers, built from a problem, h and n
    laws       the exact moments of one chain at every K, of its stationary law and of its averaged law
    exact      the exact distance at a point, as an interval where only moments are known
    constants  the constants a bound reads (m, M, p, sigma^2, the start's distances, ...)
    grid       where each bound is evaluated
    evaluate   the points, their status, the order fits
"""

from .evaluate import AtlasPoint, BoundResult, Order, evaluate_bound, evaluate_bounds
from .problems import PROBLEMS, AtlasProblem, problem

__all__ = ["PROBLEMS", "AtlasPoint", "AtlasProblem", "BoundResult", "Order", "evaluate_bound", "evaluate_bounds",
           "problem"]
