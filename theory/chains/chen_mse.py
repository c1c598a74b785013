"""The exact finite-L MSE of time averages of SGLD and vrSGLD (Chen, Wang, Zhang, Su & Carin, vrSG-MCMC) on the
Gaussian mean model, in closed form (docs/papers/chen.md secs. 5-6); the gradient-noise quantities are
:mod:`theory.noise.vr`'s.

**Workbench convention.**  theta' = theta + (h/2) g + sqrt(h) xi (the paper writes theta - h grad U + sqrt(2h) zeta,
so the paper's h is eps = h_wb/2).  On the Gaussian mean model (posterior N(mu, 1/P)) both SGLD and vrSGLD are
e' = rho e + (h/2) xi_l + sqrt(h) zeta_l with e = theta - mu, rho = 1 - h P / 2, and xi_l the gradient error:
for SGLD a fresh (N/sigma^2)(x_bar - x_bar_batch) each step; for vrSGLD the correction term is exactly
N (theta_tilde - theta)/sigma^2 whatever the n2-batch, so xi is the anchor batch's error, FROZEN for the m steps of
an epoch (docs/papers/chen.md sec. 5).  Time averages are over theta_0 .. theta_{L-1} (README; theta_0 deterministic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError, check_int, check_positive
from theory.noise.vr import GaussianData, noise_cumulants, sgld_noise_variance, vr_noise_variance


def _chain(gd: GaussianData, h: float) -> float:
    """rho = 1 - h P/2 (workbench h), with 0 < h < 4/P."""
    h = check_positive("h", h)
    if h >= 4 / gd.P:
        raise ParameterError(f"h must satisfy 0 < h < 4/P = {4 / gd.P:.6g} (stability), got {h}")
    return 1 - h * gd.P / 2


def _check_1d(gd: GaussianData) -> None:
    """The MSE formulas are 1-D."""
    if gd.x.shape[1] != 1:
        raise ParameterError(f"the MSE formulas are for d = 1, got d = {gd.x.shape[1]}")


def mse_theta(gd: GaussianData, h: float, L: int, V: float, epoch: int = 1, theta0: float = 0.0) -> float:
    """Exact MSE of (1/L) sum_{k<L} theta_k for phi = theta (docs/papers/chen.md sec. 5, workbench convention; new in
    this form):

    [e0 (1 - rho^L)/((1 - rho) L)]^2 + (1/L^2) [h sum_j w_j^2 + (h^2/4) V sum_epochs (sum_{j in epoch} w_j)^2],
    w_j = (1 - rho^(L-1-j))/(1 - rho), j = 0..L-2, epochs of length ``epoch`` (1: SGLD, m: vrSGLD with frozen
    anchor noise), V the per-step gradient-noise variance.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    L : int
        The number of states averaged, theta_0 .. theta_{L-1}.
    V : float
        The per-step gradient-noise variance, >= 0.
    epoch : int, default 1
        Steps that share one gradient error.
    theta0 : float, default 0.0
        The deterministic start.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When d != 1, h is not in (0, 4/P), or L, V or epoch is out of range.
    """
    _check_1d(gd)
    _chain(gd, h)
    L = check_int("L", L, 1)
    epoch = check_int("epoch", epoch, 1)
    if V < 0 or not np.isfinite(V):
        raise ParameterError(f"V must be finite and >= 0, got {V}")
    x = h * gd.P / 2  # 1 - rho, without the rounding of 1 - (1 - x)
    e0 = float(theta0) - float(gd.mu[0])
    bias = e0 * float(_one_minus_rho_pow(x, L)) / (x * L)
    j = np.arange(L - 1)
    w = _one_minus_rho_pow(x, L - 1 - j) / x
    s_ep = np.bincount(j // epoch, weights=w) if L > 1 else np.zeros(1)
    return float(bias**2 + (h * np.sum(w * w) + h * h / 4 * V * np.sum(s_ep**2)) / L**2)


def _one_minus_rho_pow(x: float, m) -> np.ndarray:
    """1 - rho^m with rho = 1 - x, via -expm1(m log1p(-x)) (no cancellation for x ~ 0 or m ~ 1e9; 0 < x < 2)."""
    m = np.asarray(m, dtype=np.float64)
    if x == 1.0:
        return np.where(m == 0, 0.0, 1.0)
    if x < 1.0:
        return -np.expm1(m * np.log1p(-x))
    return 1.0 - np.where(np.mod(m, 2) == 1, -1.0, 1.0) * np.exp(m * np.log1p(x - 2.0))


def _sum_w2(x: float, q: int) -> float:
    """sum_{j=1}^q ((1 - rho^j)/x)^2, rho = 1 - x: the closed form [q - 2 rho (1 - rho^q)/x + rho^2 (1 - rho^(2q))/
    (1 - rho^2)]/x^2 cancels badly when q x << 1, so it is evaluated in mpmath with the digits it loses, or, for
    q x < 1e-8, by its expansion sum j^2 - x sum j^2 (j - 1) (relative error (q x)^2 < 1e-16)."""
    import mpmath

    if q == 0:
        return 0.0
    s2 = q * (q + 1) * (2 * q + 1) / 6
    if q * x < 1e-8:
        s3 = (q * (q + 1) / 2) ** 2
        return float(s2 - x * (s3 - s2))
    lost = max(0, math.ceil(-2 * math.log10(min(1.0, q * x))))
    with mpmath.workdps(30 + lost):
        xm = mpmath.mpf(x)
        rho = 1 - xm
        if x < 1.0:
            e1, e2 = -mpmath.expm1(q * mpmath.log1p(-xm)), -mpmath.expm1(2 * q * mpmath.log1p(-xm))
        else:
            e1, e2 = 1 - rho**q, 1 - rho ** (2 * q)
        val = (q - 2 * rho * e1 / xm + rho**2 * e2 / (xm * (2 - xm))) / xm**2
        return float(val)


def mse_theta_sgld(gd: GaussianData, h: float, L: int, n: int, replace: bool = False, theta0: float = 0.0) -> float:
    """The exact MSE for phi = theta of SGLD(n), in closed form (O(1) in L).

    sum_j w_j^2 = [(L-1) - 2 rho (1 - rho^(L-1))/(1 - rho) + rho^2 (1 - rho^(2(L-1)))/(1 - rho^2)]/(1 - rho)^2,
    evaluated without cancellation (1 - rho = h P/2 and 1 - rho^L by expm1, the sum in mpmath where it cancels), for
    L up to 1e9.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    L : int
        The number of states averaged, theta_0 .. theta_{L-1}.
    n : int
        The minibatch size.
    replace : bool, default False
        With replacement or without.
    theta0 : float, default 0.0
        The deterministic start.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When d != 1, or h, L or n is out of range.

    References
    ----------
    :doc:`/papers/chen`, sec. 5.
    """
    _check_1d(gd)
    _chain(gd, h)
    x = h * gd.P / 2
    L = check_int("L", L, 1)
    V = sgld_noise_variance(gd, n, replace)
    e0 = float(theta0) - float(gd.mu[0])
    bias = e0 * float(_one_minus_rho_pow(x, L)) / (x * L)
    sw2 = _sum_w2(x, L - 1)
    return float(bias**2 + (h + h * h / 4 * V) * sw2 / L**2)


def mse_theta2(gd: GaussianData, h: float, L: int, cumulants: tuple[float, float, float], epoch: int = 1,
               theta0: float = 0.0, gaussian_noise: bool = False) -> float:
    """Exact MSE of (1/L) sum_{k<L} theta_k^2 against mu^2 + 1/P (new; extends docs/papers/chen.md sec. 5 beyond the
    Gaussian-noise approximation).  theta_k = m_k + X_k, m_k = mu + rho^k e0, X_k = G_k + sum_ep c_{k,ep} xi_ep (G
    Gaussian from the injected noise; xi_ep iid gradient errors with cumulants kappa_2..4, frozen within epochs),
    c_{k,ep} = (h/2) sum_{j in ep, j < k} rho^(k-1-j).  Cov(theta_k^2, theta_l^2) = 2 C_kl^2 + 4 m_k m_l C_kl
    + 2 m_k cum(X_k, X_l, X_l) + 2 m_l cum(X_k, X_k, X_l) + cum(X_k, X_k, X_l, X_l).
    ``gaussian_noise=True`` drops kappa_3, kappa_4 (the Gaussian-noise approximation of docs/papers/chen.md sec. 5).
    O(L^2) memory: L <= 6000.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    L : int
        The number of states averaged, 1 <= L <= 6000.
    cumulants : tuple of float
        (kappa_2, kappa_3, kappa_4) of the gradient error.
    epoch : int, default 1
        Steps that share one gradient error.
    theta0 : float, default 0.0
        The deterministic start.
    gaussian_noise : bool, default False
        Drop kappa_3 and kappa_4.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When d != 1, or h, L or epoch is out of range.
    """
    _check_1d(gd)
    rho = _chain(gd, h)
    L = check_int("L", L, 1, 6000)
    epoch = check_int("epoch", epoch, 1)
    k2, k3, k4 = (float(c) for c in cumulants)
    if gaussian_noise:
        k3 = k4 = 0.0
    mu = float(gd.mu[0])
    e0 = float(theta0) - mu
    k = np.arange(L)
    mk = mu + rho**k * e0
    # injected-noise covariance h D, D_kl = rho^|k-l| (1 - rho^(2 min))/(1 - rho^2)
    kmin = np.minimum.outer(k, k)
    x = h * gd.P / 2
    Cm = h * rho ** np.abs(np.subtract.outer(k, k)) * _one_minus_rho_pow(x, 2 * kmin) / (x * (2 - x))
    n_ep = max(1, -(-(L - 1) // epoch))
    c = np.zeros((L, n_ep))
    for t in range(1, L):
        c[t] = rho * c[t - 1]
        c[t, (t - 1) // epoch] += h / 2
    Cm += k2 * (c @ c.T)
    es2 = float(np.mean(mk**2 + np.diag(Cm)))
    bias = es2 - (mu**2 + 1 / gd.P)
    u = mk @ c
    v = np.sum(c * c, axis=0)
    var = (2 * np.sum(Cm * Cm) + 4 * mk @ Cm @ mk + 4 * k3 * float(u @ v) + k4 * float(v @ v)) / L**2
    return float(bias**2 + var)


@dataclass(frozen=True)
class VRConfig:
    """The settings (n1, n2, m) of Chen et al.'s Algorithm 1.

    Parameters
    ----------
    n1 : int
        The anchor minibatch size.
    n2 : int
        The minibatch size of each step.
    m : int
        The epoch length, >= 1.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 (:doc:`/papers/chen`, sec. 4).
    """

    n1: int
    n2: int
    m: int

    def check(self, N_: int) -> VRConfig:
        """Validate against N: 1 <= n2 < n1 <= N (n1 >= 2), m >= 1.

        Parameters
        ----------
        N_ : int
            The number of data.

        Returns
        -------
        VRConfig
            self.

        Raises
        ------
        ParameterError
            When a setting is out of range.
        """
        check_int("n1", self.n1, 2, N_)
        check_int("n2", self.n2, 1, self.n1 - 1)
        check_int("m", self.m, 1)
        return self


def vr_mse(gd: GaussianData, h: float, L: int, cfg: VRConfig, phi: str = "theta", theta0: float = 0.0,
           paper_implied: bool = False, gaussian_noise: bool = False) -> float:
    """The exact MSE of vrSGLD's time average: SGLD whose gradient error is the n1-anchor error, frozen for m steps.

    Algorithm 1 with SGLD, in the workbench convention.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    L : int
        The number of states averaged, theta_0 .. theta_{L-1}.
    cfg : VRConfig
        (n1, n2, m).
    phi : {"theta", "theta2"}, default "theta"
        The test function.
    theta0 : float, default 0.0
        The deterministic start.
    paper_implied : bool, default False
        Treat the errors as independent across steps (epoch 1), the assumption implicit in Theorem 6/2's use of
        Lemma 1.
    gaussian_noise : bool, default False
        For theta2, drop the noise's third and fourth cumulants.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When phi is unknown or a setting is out of range.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1, Theorem 6 (V1) / Theorem 2 (V2) (:doc:`/papers/chen`, secs. 3-5).
    """
    cfg.check(gd.N)
    ep = 1 if paper_implied else cfg.m
    if phi == "theta":
        return mse_theta(gd, h, L, vr_noise_variance(gd, cfg.n1, cfg.n2), ep, theta0)
    if phi == "theta2":
        return mse_theta2(gd, h, L, noise_cumulants(gd, cfg.n1), ep, theta0, gaussian_noise)
    raise ParameterError(f"phi must be 'theta' or 'theta2', got {phi!r}")


def sgld_mse(gd: GaussianData, h: float, L: int, n: int, phi: str = "theta", theta0: float = 0.0,
             replace: bool = False) -> float:
    """The exact MSE of SGLD(n)'s time average, in the workbench convention.

    phi = theta: closed form (:func:`mse_theta_sgld`); theta^2: :mod:`theory.toy.finite_time` (exact, closed form
    in L; Vollmer et al. Appendix 10).

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data, d = 1.
    h : float
        The workbench step size, 0 < h < 4/P.
    L : int
        The number of states averaged, theta_0 .. theta_{L-1}.
    n : int
        The minibatch size.
    phi : {"theta", "theta2"}, default "theta"
        The test function.
    theta0 : float, default 0.0
        The deterministic start.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When phi is unknown or a setting is out of range.
    """
    if phi == "theta":
        return mse_theta_sgld(gd, h, L, n, replace, theta0)
    if phi == "theta2":
        _check_1d(gd)
        from theory.toy.finite_time import toy_finite_time

        ch = toy_finite_time("sgld", gd.x[:, 0], n, replace=replace, h=h, sigma_x=gd.sigma, sigma0=gd.sigma0,
                             theta0=theta0)
        return float(ch.mse2(L))
    raise ParameterError(f"phi must be 'theta' or 'theta2', got {phi!r}")


__all__ = ["VRConfig", "mse_theta", "mse_theta2", "mse_theta_sgld", "sgld_mse", "vr_mse"]
