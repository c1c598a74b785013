"""A user's own claim: a stationary-variance bound for SGLD on their regression (docs/test_your_own_bound.md).

The bound (the user's, not a paper's): with h = 0.02 / L and n = 10 of N = 500 data drawn without replacement, SGLD's
stationary variance of each coordinate is at most 1.5 times the posterior variance. It is checked as a one-sided test:
the claim holds unless the simulation shows the variance significantly above the bound.
"""

from __future__ import annotations

import numpy as np

from simulate import LinearRegressionModel, run, sgld
from verify.api import ClaimResult, OneSidedCheck, claim, stationary_variance_and_se


def my_regression() -> LinearRegressionModel:
    """The user's data: 500 rows, 2 features with varied scales (here simulated from a seed)."""
    return LinearRegressionModel.simulate_data(500, dim=2, seed=7)


@claim("mypkg.sgld.variance_at_most_1p5_posterior", paper="mypkg", source="my note, bound (1)",
       statement="SGLD (h = 0.02/L, n = 10 without replacement) has stationary variance at most 1.5 times the "
                 "posterior variance in every coordinate of my regression.")
def variance_bound(settings):
    model = my_regression()
    sampler = sgld(model, 0.02 / model.grad_lipschitz, 10)
    res = run(sampler, settings.chains, 1000, burn_in=1000, seed=settings.seed_for("mypkg.sgld.variance"),
              theta0=model.posterior_mean)
    post_var = np.diag(model.posterior_cov)
    out = ClaimResult()
    for j in range(model.dim):
        est, se = stationary_variance_and_se(res.time_averages["theta2"][:, j], res.time_averages["theta"][:, j])
        out.checks.append(OneSidedCheck(f"Var theta_{j} <= 1.5 x posterior variance", 1.5 * post_var[j], est, se,
                                        {"coordinate": j}, direction="less"))
    out.notes.append("posterior variances " + ", ".join(f"{v:.4g}" for v in post_var))
    return out
