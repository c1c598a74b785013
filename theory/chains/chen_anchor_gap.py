"""Chen et al. Lemma 5 (V1) / Lemma 3 (V2), "E alpha_li = E beta_li + O(m h)", made exact on the Gaussian mean model
(new; docs/papers/chen.md sec. 5).

alpha_li = grad log p(d_i | theta_l) and beta_li = grad log p(d_i | theta_tilde_l), theta_tilde_l the anchor of
Algorithm 1 (theta at the start of the epoch holding step l).  On x_i ~ N(theta, sigma^2) both are (x_i - .)/sigma^2,
so alpha_li - beta_li = -(theta_l - theta_tilde_l)/sigma^2 = -D_l/sigma^2 for every datum i.

Workbench convention (README): vrSGLD on this model is e' = rho e + (h/2) xi + sqrt(h) zeta with e = theta - mu,
rho = 1 - h P/2 and xi the anchor batch's gradient error, frozen for the m steps of an epoch, Var xi = V(n1)
(theory.noise.vr.vr_noise_variance; n2 plays no role).  With s = m floor(l/m) the epoch start and j = l - s the
lag (0 <= j <= m - 1), w_j = (1 - rho^j)/(1 - rho) and S_q = E e_{qm}^2:

    D_l      = (rho^j - 1) e_s + (h/2) xi w_j + sqrt(h) sum_{k<j} rho^(j-1-k) zeta_k,
    E D_l    = (rho^j - 1) rho^s e_0,
    E D_l^2  = (1 - rho^j)^2 S_q + (h^2 V/4) w_j^2 + h (1 - rho^(2j))/(1 - rho^2),
    S_{q+1}  = rho^(2m) S_q + (h^2 V/4) w_m^2 + h (1 - rho^(2m))/(1 - rho^2),  S_0 = e_0^2,

so |E alpha_li - E beta_li| = (1 - rho^j) rho^s |e_0|/sigma^2 <= (m - 1)(h P/2)|e_0|/sigma^2: O(m h) with constant
P|e_0|/(2 sigma^2), exactly 0 from a start at the posterior mean (e_0 = 0) whatever m.  The second moment is of
order j h (diffusive), not (m h)^2. The exact engine (theory.exact_law of the same vrSGLD sampler, whole state
theta and anchor) gives the same moments; verify/claims/chen/lemma5.py checks the two equal and both against
simulate.samplers.vrsgld.
"""

from __future__ import annotations

import numpy as np

from simulate.validation import ParameterError, check_int, check_positive
from theory.noise.vr import GaussianData, vr_noise_variance


def _rho(gd: GaussianData, h: float) -> float:
    h = check_positive("h", h)
    if h >= 4 / gd.P:
        raise ParameterError(f"h must satisfy 0 < h < 4/P = {4 / gd.P:.6g} (stability), got {h}")
    return 1 - h * gd.P / 2


def _epoch_start_second_moments(rho: float, h: float, V: float, m: int, e0: float, q_max: int) -> np.ndarray:
    """S_q = E e_{qm}^2 for q = 0..q_max (the recursion in the module docstring)."""
    w_m = (1 - rho**m) / (1 - rho)
    add = h * h * V / 4 * w_m**2 + h * (1 - rho ** (2 * m)) / (1 - rho**2)
    S = np.empty(q_max + 1)
    S[0] = e0 * e0
    for q in range(q_max):
        S[q + 1] = rho ** (2 * m) * S[q] + add
    return S


def anchor_gap_moments(gd: GaussianData, h: float, n1: int, n2: int, m: int, L: int,
                       theta0: float) -> tuple[np.ndarray, np.ndarray]:
    """E D_l and E D_l^2 for l = 0..L-1, D_l = theta_l - theta_tilde_l the anchor gap of vrSGLD (module docstring).

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    n1 : int
        The anchor minibatch size.
    n2 : int
        The minibatch size of each step.
    m : int
        The epoch length, >= 1.
    L : int
        The number of steps, >= 1.
    theta0 : float
        The deterministic start theta_0.

    Returns
    -------
    mean : numpy.ndarray, shape (L,)
    second : numpy.ndarray, shape (L,)

    Raises
    ------
    ParameterError
        When d != 1, h is not in (0, 4/P), or a size is out of range.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 5 (V1) / Lemma 3 (V2), made exact (new; :doc:`/papers/chen`, sec. 5).
    """
    if gd.x.shape[1] != 1:
        raise ParameterError(f"the anchor-gap formulas are for d = 1, got d = {gd.x.shape[1]}")
    m = check_int("m", m, 1)
    L = check_int("L", L, 1)
    rho = _rho(gd, h)
    V = vr_noise_variance(gd, n1, n2)
    e0 = float(theta0) - float(gd.mu[0])
    S = _epoch_start_second_moments(rho, h, V, m, e0, (L - 1) // m)
    steps = np.arange(L)
    s, j = m * (steps // m), steps % m
    one_minus = 1 - rho**j
    w = one_minus / (1 - rho)
    mean = -one_minus * rho**s * e0
    second = one_minus**2 * S[steps // m] + h * h * V / 4 * w**2 + h * (1 - rho ** (2 * j)) / (1 - rho**2)
    return mean, second


def alpha_beta_gap(gd: GaussianData, h: float, n1: int, n2: int, m: int, L: int, theta0: float) -> np.ndarray:
    """E alpha_li - E beta_li = -E D_l / sigma^2 for l = 0..L-1, the same for every datum i.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    n1 : int
        The anchor minibatch size.
    n2 : int
        The minibatch size of each step.
    m : int
        The epoch length, >= 1.
    L : int
        The number of steps, >= 1.
    theta0 : float
        The deterministic start theta_0.

    Returns
    -------
    numpy.ndarray, shape (L,)

    Raises
    ------
    ParameterError
        As :func:`anchor_gap_moments`.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 5 (V1) / Lemma 3 (V2) (:doc:`/papers/chen`, sec. 5).
    """
    return -anchor_gap_moments(gd, h, n1, n2, m, L, theta0)[0] / gd.sigma**2


def lemma5_constant(gd: GaussianData, theta0: float) -> float:
    """The constant C = P ``|e_0|`` / (2 sigma^2) with sup_l ``|E alpha_li - E beta_li|`` <= C (m - 1) h.

    For every m and h < 2/P; e_0 = theta_0 - mu, so C = 0 from a start at the posterior mean.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data.
    theta0 : float
        The deterministic start.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 5 (V1) / Lemma 3 (V2): the O(m h) of the lemma with its constant
    (new; :doc:`/papers/chen`, sec. 5).
    """
    return gd.P * abs(float(theta0) - float(gd.mu[0])) / (2 * gd.sigma**2)


__all__ = ["alpha_beta_gap", "anchor_gap_moments", "lemma5_constant"]
