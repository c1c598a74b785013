"""Brosse, Durmus & Moulines (2018), "The promises and pitfalls of stochastic gradient Langevin dynamics",
NeurIPS 31: the invariant laws of LMC, SGLD, SGLD with the fixed-point control variate (SGLDFP) and SGD on Bayesian
linear regression, and what happens as N grows with the step scaled as 1/N.

The paper's algorithms (its step gamma; U = -log posterior, U_i the i-th datum's share with the prior split
evenly; S a minibatch of p indices drawn uniformly *with* replacement):

    LMC     theta' = theta - gamma grad U(theta) + sqrt(2 gamma) Z
    SGLD    theta' = theta - gamma (N/p) sum_{i in S} grad U_i(theta) + sqrt(2 gamma) Z
    SGLDFP  theta' = theta - gamma [grad U(theta*) + (N/p) sum_{i in S} (grad U_i(theta) - grad U_i(theta*))]
                     + sqrt(2 gamma) Z,            theta* the minimiser of U (the posterior mode)
    SGD     theta' = theta - gamma (N/p) sum_{i in S} grad U_i(theta)

are the workbench's ``euler``, ``sgld`` (``replace=True``), ``sgld_cv`` (control variate at theta*) and SGLD without
injected noise (:class:`simulate.integrators.NoiselessLangevin`) at h = 2 gamma (the prior's gradient, a constant
share of every U_i, enters each minibatch estimate exactly once: the same chain).

Closed forms (derived here from the update; the paper's printed expressions could not be read, see
docs/papers/brosse.md): with H the posterior precision, u = theta - theta*, H_S = P_0 + (N/p) sum_{i in S} A_i,
B_i = A_i - Abar, e_S = (N/p) sum_{i in S} G_i(theta*) - sum_i G_i(theta*) (G_i the i-th datum's gradient),
every chain is u' = (I - gamma H_S) u + (noise), so all four invariant means are theta* and every invariant
covariance solves

    C = (I - gamma H) C (I - gamma H) + gamma^2 (N/p) sum_i B_i C B_i + Q,                     (*)

with Q = 2 gamma I (SGLDFP), Q = 2 gamma I + gamma^2 Cov e_S (SGLD), Q = gamma^2 Cov e_S (SGD), and for LMC
(no multiplicative term) C_LMC = H^{-1} (I - gamma H / 2)^{-1}. (*) is the fixed point of
:mod:`theory.chains.linear_regression` at h = 2 gamma with minibatches drawn with replacement (whose solution there is
the exact engine's); here it is solved directly, an independent route. (*) is linear in Q, hence the identity
C_SGLD = C_SGLDFP + C_SGD. Synchronous couplings bound the W2 distances between the invariant laws (new here):
SGLD and SGD on the same minibatches differ by D' = (I - gamma H_S) D + sqrt(2 gamma) Z, so
W2(pi_SGLD, pi_SGD)^2 <= tr C_SGLDFP; SGLD and SGLDFP differ by D' = (I - gamma H_S) D - gamma e_S, so
W2(pi_SGLD, pi_SGLDFP)^2 <= tr C_SGD; SGLDFP and LMC with the same Z have E u_FP u_LMC^T = C_LMC at stationarity,
so W2(pi_SGLDFP, pi_LMC)^2 <= tr (C_SGLDFP - C_LMC).
"""

from __future__ import annotations

import numpy as np

from simulate import LinearRegressionModel, Sampler, euler, sgld, sgld_cv
from simulate.estimators.minibatch import Minibatch
from simulate.integrators.langevin import NoiselessLangevin
from simulate.validation import ParameterError, check_int, check_positive

from .linear_regression import noise_parts, ula_stationary_cov

#: The four algorithms, in the paper's order.
BROSSE_ALGORITHMS = ("lmc", "sgld", "sgldfp", "sgd")


def samplers(model: LinearRegressionModel, gamma: float, p: int) -> dict[str, Sampler]:
    """The four algorithms at the paper's step ``gamma`` (h = 2 gamma) with minibatches of ``p`` drawn with replacement.

    Parameters
    ----------
    model : LinearRegressionModel
        The Bayesian linear regression.
    gamma : float
        The paper's step, > 0 (h = 2 gamma).
    p : int
        The minibatch size, >= 1 (drawn with replacement).

    Returns
    -------
    dict of str to Sampler
        The samplers "lmc", "sgld", "sgldfp" and "sgd" (module docstring).

    Raises
    ------
    ParameterError
        When ``gamma`` <= 0 or ``p`` < 1.

    References
    ----------
    Brosse, Durmus & Moulines (2018), NeurIPS 31, the algorithms LMC, SGLD, SGLDFP and SGD (module docstring).
    """
    gamma = check_positive("gamma", gamma)
    p = check_int("p", p, 1)
    h = 2.0 * gamma
    mode = model.posterior_mean  # the mode of a Gaussian posterior
    return {"lmc": euler(model, h), "sgld": sgld(model, h, p, replace=True),
            "sgldfp": sgld_cv(model, h, p, theta_hat=mode, replace=True),
            "sgd": Sampler(model, Minibatch(p, True), NoiselessLangevin(), h, name="sgd")}


def invariant_covariances(model: LinearRegressionModel, gamma: float, p: int) -> dict[str, np.ndarray]:
    """The invariant covariances of the four algorithms by the closed forms of the module docstring.

    (*) is solved as a linear system in vec C (d^2 unknowns; its pieces H, K = N/p, B_i and Cov e_S = K C from
    :func:`theory.chains.linear_regression.noise_parts`), and C_LMC by
    :func:`theory.chains.linear_regression.ula_stationary_cov` at h = 2 gamma.

    Parameters
    ----------
    model : LinearRegressionModel
        The Bayesian linear regression.
    gamma : float
        The paper's step, > 0 (h = 2 gamma).
    p : int
        The minibatch size, >= 1 (drawn with replacement).

    Returns
    -------
    dict of str to numpy.ndarray
        The invariant covariance (d, d) of "lmc", "sgldfp", "sgld" and "sgd".

    Raises
    ------
    ParameterError
        When ``gamma`` <= 0, ``p`` < 1, or LMC is unstable at ``gamma`` (gamma >= 2/lambda_max(H)).

    References
    ----------
    New: derived here from the update (module docstring), for the chains of Brosse, Durmus & Moulines (2018), NeurIPS
    31.
    """
    gamma = check_positive("gamma", gamma)
    p = check_int("p", p, 1)
    H, _, K, B, C = noise_parts(model, p, "sgld", None, replace=True)
    d = H.shape[0]
    eye = np.eye(d)
    A = eye - gamma * H
    if np.max(np.abs(np.linalg.eigvalsh(A))) >= 1.0:
        raise ParameterError(f"gamma = {gamma:.6g}: LMC is unstable here (gamma must be < 2/lambda_max(H) = "
                             f"{2.0 / np.linalg.eigvalsh(H)[-1]:.6g})")
    L = np.eye(d * d) - np.kron(A, A) - gamma**2 * K * np.einsum("nij,nkl->ikjl", B, B).reshape(d * d, d * d)
    solve = lambda Q: np.linalg.solve(L, Q.reshape(-1)).reshape(d, d)  # noqa: E731
    out = {"lmc": ula_stationary_cov(H, 2.0 * gamma), "sgldfp": solve(2.0 * gamma * eye),
           "sgld": solve(2.0 * gamma * eye + gamma**2 * K * C), "sgd": solve(gamma**2 * K * C)}
    return {k: 0.5 * (S + S.T) for k, S in out.items()}


def coupling_bounds(C: dict[str, np.ndarray]) -> dict[str, float]:
    """Upper bounds on W2 between invariant laws from the synchronous couplings of the module docstring.

    "sgld-sgd" (tr C_SGLDFP)^(1/2), "sgld-sgldfp" (tr C_SGD)^(1/2), "sgldfp-lmc" (tr (C_SGLDFP - C_LMC))^(1/2).

    Parameters
    ----------
    C : dict of str to numpy.ndarray
        The invariant covariances (:func:`invariant_covariances`).

    Returns
    -------
    dict of str to float
        The three bounds.

    References
    ----------
    New (module docstring), for the chains of Brosse, Durmus & Moulines (2018), NeurIPS 31.
    """
    return {"sgld-sgd": float(np.sqrt(np.trace(C["sgldfp"]))), "sgld-sgldfp": float(np.sqrt(np.trace(C["sgd"]))),
            "sgldfp-lmc": float(np.sqrt(max(np.trace(C["sgldfp"] - C["lmc"]), 0.0)))}


__all__ = ["BROSSE_ALGORITHMS", "coupling_bounds", "invariant_covariances", "samplers"]
