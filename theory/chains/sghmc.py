"""Exact stationary moments of fixed-step SGHMC on a Gaussian target (new; the recursion is Chen, Fox & Guestrin
2014 eq. 15 with M = I, beta_hat = 0, as implemented in simulate.integrators.sghmc).

On a Gaussian posterior with precision P (gradient g(theta) = -P (theta - mu) + e, e the gradient-estimator noise,
independent of the state, with covariance Sigma_g) one step is linear in X = (theta - mu, v):

    v' = (1 - alpha) v - eta P (theta - mu) + eta e + sqrt(2 alpha eta) xi,     theta' - mu = (theta - mu) + v',

i.e. X' = F X + (1, 1)^T (x) w with F = [[I - eta P, (1 - alpha) I], [-eta P, (1 - alpha) I]] and
Cov w = eta^2 Sigma_g + 2 alpha eta I.  The stationary mean is exactly mu (no bias in the mean) and the stationary
covariance solves the discrete Lyapunov equation Sigma = F Sigma F^T + Q (for any d: the exact engine,
``theory.exact_law(additive_noise_sampler(P, eta, Sigma_g, SGHMC(alpha))).stationary_cov(whole_state=True)``,
:mod:`theory.chains.additive_noise`).  In 1-D (symbols below, the closed form solved by sympy) it is

    Var theta = (2 - alpha)(2 alpha + eta s2) / (P alpha (4 - 2 alpha - eta P)),
    Cov(theta, v) = eta (2 alpha + eta s2) / (alpha (4 - 2 alpha - eta P)) ,  Var v = 2 Cov(theta, v),

with s2 = Var e.  As eta -> 0 with s2 fixed, Var theta -> 1/P with leading excess
eta (s2 / (2 alpha P) + 1 / (2 (2 - alpha))) (:func:`excess_variance_series`): the first term is the gradient-noise
bias that Chen et al.'s beta_hat correction would remove, the second the discretisation bias.
The exact mean-square stability region is 0 < alpha < 2, 0 < eta P < 4 - 2 alpha (Jury criterion).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_positive

#: The symbols of the closed forms: the posterior precision, the friction, the learning rate, Var e.
P, alpha, eta, s2 = sp.symbols("P alpha eta s2", positive=True)


@cache
def stationary_moments_1d() -> dict[str, sp.Expr]:
    """Var theta, Cov(theta, v) and Var v of SGHMC's stationary law in 1-D, solved from the Lyapunov equation (sympy).

    Returns
    -------
    dict of str to sympy.Expr
        "var_theta", "cov_theta_v", "var_v": factored expressions in P, alpha, eta, s2 (cached).

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) with M = I, beta_hat = 0 (new; module docstring).
    """
    tt, tv, vv = sp.symbols("tt tv vv")
    F = sp.Matrix([[1 - eta * P, 1 - alpha], [-eta * P, 1 - alpha]])
    S = sp.Matrix([[tt, tv], [tv, vv]])
    E = F * S * F.T + (eta**2 * s2 + 2 * alpha * eta) * sp.ones(2, 2) - S
    sol = sp.solve([E[0, 0], E[0, 1], E[1, 1]], [tt, tv, vv], dict=True)[0]
    return {"var_theta": sp.factor(sol[tt]), "cov_theta_v": sp.factor(sol[tv]), "var_v": sp.factor(sol[vv])}


@cache
def excess_variance_series(order: int = 2) -> sp.Expr:
    """The series in eta of Var theta - 1/P (the discretisation and gradient-noise excess), below eta^order.

    Parameters
    ----------
    order : int, default 2
        The series is truncated before eta^order.

    Returns
    -------
    sympy.Expr
        Leading term eta (s2/(2 alpha P) + 1/(2 (2 - alpha))) (cached).

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) with M = I, beta_hat = 0 (new; module docstring).
    """
    return sp.series(stationary_moments_1d()["var_theta"] - 1 / P, eta, 0, order).removeO()


@cache
def _var_theta_numeric():
    return sp.lambdify((P, alpha, eta, s2), stationary_moments_1d()["var_theta"], "numpy")


def _check(precision: float, a: float, h: float, noise_var: float) -> None:
    check_positive("precision", precision)
    check_positive("alpha", a)
    check_positive("eta", h)
    if not np.isfinite(noise_var) or noise_var < 0:
        raise ParameterError(f"noise_var must satisfy 0 <= noise_var < inf, got {noise_var!r}")
    if a >= 2 or h * precision >= 4 - 2 * a:
        raise ParameterError(f"SGHMC is unstable unless 0 < alpha < 2 and 0 < eta P < 4 - 2 alpha; got alpha = {a}, "
                             f"eta P = {h * precision}")


def stationary_var_theta(precision: float, a: float, h: float, noise_var: float) -> float:
    """Var theta of SGHMC's stationary law in 1-D, from the closed form of :func:`stationary_moments_1d`.

    Parameters
    ----------
    precision : float
        P, the posterior precision, > 0.
    a : float
        The friction alpha, 0 < alpha < 2.
    h : float
        The learning rate eta, 0 < eta P < 4 - 2 alpha.
    noise_var : float
        s2, the variance of the gradient estimate's noise, >= 0.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a parameter is out of range or the chain is not mean-square stable.

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) with M = I, beta_hat = 0 (new; module docstring).
    """
    _check(precision, a, h, noise_var)
    return float(_var_theta_numeric()(precision, a, h, noise_var))


def transition(precision: np.ndarray, a: float, h: float, noise_cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One SGHMC step on the Gaussian target as X' = F X + w, X = (theta - mu, v) (module docstring).

    F = [[I - eta P, (1 - alpha) I], [-eta P, (1 - alpha) I]] and Cov w = [[W, W], [W, W]],
    W = eta^2 Sigma_g + 2 alpha eta I.

    Parameters
    ----------
    precision : numpy.ndarray, shape (d, d)
        P.
    a : float
        The friction alpha.
    h : float
        The learning rate eta.
    noise_cov : numpy.ndarray, shape (d, d)
        Sigma_g, the gradient noise's covariance.

    Returns
    -------
    F : numpy.ndarray, shape (2d, 2d)
    cov_w : numpy.ndarray, shape (2d, 2d)

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) with M = I, beta_hat = 0 (new; module docstring).
    """
    d = precision.shape[0]
    eye = np.eye(d)
    F = np.block([[eye - h * precision, (1 - a) * eye], [-h * precision, (1 - a) * eye]])
    W = h * h * noise_cov + 2 * a * h * eye
    return F, np.block([[W, W], [W, W]])


def spectral_radius(precision: float, a: float, h: float) -> float:
    """The mean's contraction per step: the largest root modulus of lambda^2 - (2 - alpha - eta P) lambda + 1 - alpha.

    Parameters
    ----------
    precision : float
        P.
    a : float
        The friction alpha.
    h : float
        The learning rate eta.

    Returns
    -------
    float
        Below 1 iff 0 < alpha < 2 and 0 < eta P < 4 - 2 alpha (Jury criterion).
    """
    return float(np.max(np.abs(np.roots([1.0, -(2.0 - a - h * precision), 1.0 - a]))))
