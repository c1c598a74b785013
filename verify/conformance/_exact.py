"""The exact answer for a declared algorithm: the one narrow function the conformance layer asks.

``_exact_moments`` is the single place that would switch wholly to the exact engine ``theory.exact_law(sampler)``
(mean(k), cov(k), stationary_mean(), stationary_cov()) once the engine has the peers' integrators (explicit-Euler
SGHMC, BAOAB, temperature, momentum refresh). Until then it uses the workbench's theory where it applies and the
stop-gap recursion of :mod:`verify.conformance._recursion` elsewhere:

* 1-D toy, SGLD: ``theory.toy.chain.ToyChain`` (Vollmer et al. 2016 eqs. 14-18: mean and variance at step k and
  stationary);
* SGLD / SGLD-CV on linear regression: stationary law ``theory.chains.linear_regression.stationary_cov_linreg`` (Baker
et al.
  2019, exact on linear regression);
* SGHMC in Chen et al.'s order without momentum refresh:
``theory.chains.linear_regression.sghmc_cv_stationary_cov_linreg``
  (its ``method="sgld"`` minibatch estimator; on the toy this is ``theory.chains.sghmc``'s law);
* everything else (finite-k covariances on linear regression, SVRG-LD, explicit-Euler SGHMC, momentum refreshes, one
  minibatch per call, BAOAB, a temperature or ``noise_scale`` != 1): the stop-gap recursion. Tests check the
  recursion against each of the theory routes above to 1e-12. Minibatches in reshuffled epochs (``DataLoader``):
  ``verify.conformance._epochs`` (the 1-D toy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._recursion import MomentChain
from .declared import Declared
from .problems import Problem


@dataclass(frozen=True)
class ExactMoments:
    """Mean and covariance of theta after each call in ``steps``, and of the stationary law."""

    steps: np.ndarray
    mean: np.ndarray  # (K, d)
    cov: np.ndarray  # (K, d, d)
    stationary_mean: np.ndarray  # (d,)
    stationary_cov: np.ndarray  # (d, d)
    source: str


def _exact_moments(declared: Declared, problem: Problem, theta0, steps, noise_scale: float = 1.0) -> ExactMoments:
    """Exact moments of theta_k (all chains started at ``theta0``) for ``steps`` and the stationary law, with the
    injected noise scaled by ``noise_scale`` (1: the declared algorithm)."""
    steps = np.asarray(steps, dtype=np.int64).reshape(-1)
    if declared.epochs:
        from ._epochs import EpochToyChain

        ep = EpochToyChain(declared, problem, noise_scale)
        mean, cov = ep.moments(theta0, steps)
        s_mean, s_cov = ep.stationary()
        return ExactMoments(steps, mean, cov, s_mean, s_cov, "stop-gap: reshuffled epochs on the toy "
                                                             "(verify.conformance._epochs)")
    chain = MomentChain(declared, problem, noise_scale)
    mean, cov = chain.moments(theta0, steps)
    s_mean, s_cov = chain.stationary()
    source = "stop-gap moment recursion (verify.conformance._recursion)"
    if noise_scale != 1.0 or declared.temperature != 1.0:
        return ExactMoments(steps, mean, cov, s_mean, s_cov, source)
    alg = declared.algorithm
    if problem.kind == "toy" and alg == "sgld":
        from theory.toy.chain import ToyChain
        from theory.toy.constants import toy_constants

        c = toy_constants(problem.y, declared.n, declared.replace, problem.sigma, problem.sigma0)
        tc = ToyChain("sgld", c, declared.h)
        th0 = float(np.asarray(theta0, dtype=float).reshape(-1)[0])
        mean = tc.mean(steps, th0)[:, None]
        cov = tc.variance(steps, 0.0)[:, None, None]
        s_mean, s_cov = np.array([tc.stationary_mean()]), np.array([[tc.stationary_variance()]])
        source = "theory.toy.chain.ToyChain (Vollmer et al. 2016, eqs. 14-18)"
    elif alg in ("sgld", "sgld_cv"):
        from theory.chains.linear_regression import stationary_cov_linreg

        method = "sgld" if alg == "sgld" else "cv"
        s_mean, s_cov = stationary_cov_linreg(problem.Z, problem.y, problem.sigma, problem.sigma0, declared.h,
                                              declared.n, method, declared.theta_hat, declared.replace)
        source = "stationary: theory.chains.linear_regression.stationary_cov_linreg; finite k: stop-gap recursion"
    elif (alg == "sghmc" and declared.order == "momentum_first" and not declared.momentum_refresh
          and not declared.minibatch_per_call):
        from theory.chains.linear_regression import sghmc_cv_stationary_cov_linreg

        s_mean, s_cov = sghmc_cv_stationary_cov_linreg(problem.Z, problem.y, problem.sigma, problem.sigma0,
                                                       declared.h, declared.alpha, declared.n, None, "sgld",
                                                       declared.replace)
        source = ("stationary: theory.chains.linear_regression.sghmc_cv_stationary_cov_linreg; finite k: stop-gap "
                  "recursion")
    return ExactMoments(steps, mean, cov, s_mean, s_cov, source)


__all__ = ["ExactMoments"]
