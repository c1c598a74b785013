"""Baker, Fearnhead, Fox & Nemeth (2019), printed forms that differ from what the paper means, made exact on a
Gaussian target (docs/papers/baker.md secs. 1.2 and 6).

* :func:`sghmc_map` / :func:`sghmc_stationary` -- Sec. 2.4 prints SGHMC as
  theta_{t+1} = nu_t, nu_{t+1} = -eta grad log p^(theta_{t+1} | x) - alpha nu_t + zeta_t, zeta_t ~ N(0, 2 alpha eta):
  the increments of Chen, Fox & Guestrin's (2014) eq. (15) written as assignments, and the gradient's sign flipped
  (eq. 15 has -eta grad U = +eta grad log p). On the target N(mu, 1/P) with a gradient estimate of variance s2 every
  variant is a linear recursion X' = A X + c + w of X = (theta, nu); its stationary law (when the spectral radius of
  A is below 1) is m = (I - A)^{-1} c and S = A S A^T + Cov w (new).
* :func:`a21_one_step` -- App. A.2.1 writes the SGLD step in phi-space as phi_t = phi_{t-1} + (eps/2) beta_N + zeta +
  eps delta_hat, so that E|phi_t - phi_bar_t|^2 >= eps^2 E|delta_hat|^2; the step (5) puts the noise in as
  (eps/2) delta_hat, and the bound that follows is (eps^2/4) E|delta_hat|^2 (new: the two bounds beside the exact
  strong error of theory.bounds.baker).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

from simulate.validation import ParameterError, check_positive

#: The variants of Sec. 2.4's map: (increments, gradient sign) -> name.
SGHMC_VARIANTS = {(False, -1): "as printed (assignments, -eta grad log p)",
                  (False, +1): "assignments, +eta grad log p",
                  (True, -1): "increments, -eta grad log p",
                  (True, +1): "Chen et al. (2014) eq. (15) (increments, +eta grad log p)"}


@dataclass(frozen=True)
class LinearStationary:
    """The stationary law of theta under a linear recursion X' = A X + c + w, with the spectral radius of A.

    Parameters
    ----------
    mean, var : float
        The stationary mean and variance of theta.
    radius : float
        The spectral radius of A (below 1: :func:`sghmc_stationary` raises otherwise).
    """

    mean: float
    var: float
    radius: float


def sghmc_map(P: float, mu: float, alpha: float, eta: float, s2: float, increments: bool,
              sign: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, c, Cov w) of one step of the SGHMC map on X = (theta, nu).

    Target N(mu, 1/P), gradient estimate g = -P (theta - mu) + noise of variance ``s2``, zeta ~ N(0, 2 alpha eta)
    (beta_hat = 0):

        theta' = i theta + nu,    nu' = i nu - alpha nu + sign eta g(theta') + zeta,    i = 1 if ``increments``.

    ``increments=False, sign=-1`` is Baker et al. Sec. 2.4 as printed; ``True, +1`` is Chen et al. (2014) eq. (15).

    Parameters
    ----------
    P : float
        The target's precision, > 0 (target N(mu, 1/P)).
    mu : float
        The target's mean.
    alpha : float
        The friction, 0 < alpha < 2.
    eta : float
        The step (learning rate), > 0.
    s2 : float
        The variance of the gradient estimate's noise, >= 0.
    increments : bool
        True: the updates as increments (Chen et al.); False: as assignments (as printed).
    sign : int
        +1 or -1, the sign of eta grad log p in the momentum update.

    Returns
    -------
    A : numpy.ndarray
        The (2, 2) matrix of the recursion.
    c : numpy.ndarray
        Its constant, shape (2,).
    W : numpy.ndarray
        Cov w, (2, 2).

    Raises
    ------
    simulate.validation.ParameterError
        For P, eta <= 0, alpha outside (0, 2), s2 < 0 or a sign other than +-1.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Sec. 2.4 (as printed); Chen, Fox & Guestrin (2014), eq. (15); the
    stationary law of each variant is new (module docstring).
    """
    check_positive("P", P)
    check_positive("eta", eta)
    if not 0 < alpha < 2:
        raise ParameterError(f"alpha must satisfy 0 < alpha < 2, got {alpha!r}")
    if not (np.isfinite(s2) and s2 >= 0):
        raise ParameterError(f"s2 must be finite and >= 0, got {s2!r}")
    if sign not in (-1, 1):
        raise ParameterError(f"sign must be +1 or -1, got {sign!r}")
    i = 1.0 if increments else 0.0
    # nu' = (i - alpha) nu + sign eta (-P (i theta + nu - mu) + noise) + zeta
    A = np.array([[i, 1.0], [-sign * eta * P * i, i - alpha - sign * eta * P]])
    c = np.array([0.0, sign * eta * P * mu])
    W = np.array([[0.0, 0.0], [0.0, eta * eta * s2 + 2.0 * alpha * eta]])
    return A, c, W


def sghmc_stationary(P: float, mu: float, alpha: float, eta: float, s2: float, increments: bool,
                     sign: int) -> LinearStationary:
    """Stationary mean and variance of theta under :func:`sghmc_map`, with the spectral radius of A.

    Exact: (I - A) m = c and the discrete Lyapunov equation S = A S A^T + Cov w.

    Parameters
    ----------
    P : float
        The target's precision, > 0 (target N(mu, 1/P)).
    mu : float
        The target's mean.
    alpha : float
        The friction, 0 < alpha < 2.
    eta : float
        The step (learning rate), > 0.
    s2 : float
        The variance of the gradient estimate's noise, >= 0.
    increments : bool
        True: the updates as increments (Chen et al.); False: as assignments (as printed).
    sign : int
        +1 or -1, the sign of eta grad log p in the momentum update.

    Returns
    -------
    LinearStationary
        The stationary mean, variance and spectral radius.

    Raises
    ------
    simulate.validation.ParameterError
        When the map has no stationary law (spectral radius >= 1), naming the variant and the radius, or a parameter
        is out of range (:func:`sghmc_map`).

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Sec. 2.4 (as printed); Chen, Fox & Guestrin (2014), eq. (15); the
    stationary law of each variant is new (module docstring).
    """
    A, c, W = sghmc_map(P, mu, alpha, eta, s2, increments, sign)
    radius = float(np.max(np.abs(np.linalg.eigvals(A))))
    if radius >= 1:
        raise ParameterError(f"the SGHMC map {SGHMC_VARIANTS[(increments, sign)]!r} has no stationary law at alpha = "
                             f"{alpha}, eta P = {eta * P}: spectral radius {radius:.4g} >= 1")
    m = np.linalg.solve(np.eye(2) - A, c)
    S = solve_discrete_lyapunov(A, W)
    return LinearStationary(float(m[0]), float(S[0, 0]), radius)


def sghmc_radius(P: float, alpha: float, eta: float, increments: bool, sign: int) -> float:
    """The spectral radius of :func:`sghmc_map`'s A (>= 1: the map diverges).

    Parameters
    ----------
    P : float
        The target's precision, > 0.
    alpha : float
        The friction, 0 < alpha < 2.
    eta : float
        The step (learning rate), > 0.
    increments : bool
        True: the updates as increments (Chen et al.); False: as assignments (as printed).
    sign : int
        +1 or -1, the sign of eta grad log p in the momentum update.

    Returns
    -------
    float
        The spectral radius.

    Raises
    ------
    simulate.validation.ParameterError
        For a parameter out of range (:func:`sghmc_map`).

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Sec. 2.4 (as printed); Chen, Fox & Guestrin (2014), eq. (15); the
    stationary law of each variant is new (module docstring).
    """
    A, _, _ = sghmc_map(P, 0.0, alpha, eta, 0.0, increments, sign)
    return float(np.max(np.abs(np.linalg.eigvals(A))))


def a21_one_step(eps: float, noise_var_phi: float) -> tuple[float, float]:
    """The lower bounds on E|phi_1 - phi_bar_1|^2 after one step from a common start, printed and corrected.

    Parameters
    ----------
    eps : float
        The step size, > 0.
    noise_var_phi : float
        E|delta_hat|^2, the gradient noise in phi-space (Var of the theta-gradient estimate over N), >= 0.

    Returns
    -------
    tuple of float
        (printed eps^2 E|delta_hat|^2, corrected (eps^2/4) E|delta_hat|^2).

    Raises
    ------
    simulate.validation.ParameterError
        When ``eps`` <= 0 or ``noise_var_phi`` is negative or not finite.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), App. A.2.1 (printed) and the step (5) (corrected; new, module docstring).
    """
    eps = check_positive("eps", eps)
    if not (np.isfinite(noise_var_phi) and noise_var_phi >= 0):
        raise ParameterError(f"noise_var_phi must be finite and >= 0, got {noise_var_phi!r}")
    return eps * eps * noise_var_phi, 0.25 * eps * eps * noise_var_phi


__all__ = ["SGHMC_VARIANTS", "LinearStationary", "a21_one_step", "sghmc_map", "sghmc_radius", "sghmc_stationary"]
