"""The solvers of theory.chains before they became calls to the exact engine (issue 17), kept as they were (renamed
``old_*``, imports adjusted) as independent references: scipy's discrete Lyapunov solver, vectorised fixed points and
SAGA's enumeration of all C(N, n) minibatches. tests/test_chains_engine.py checks the engine-based functions against
them to 1e-12 relative. Nothing here is shared with theory.linear_gaussian."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

from simulate.models.linear_regression import LinearRegressionModel
from simulate.validation import ParameterError, check_int, check_positive
from theory.chains.linear_regression import noise_parts
from theory.noise.minibatch import linreg_parts


# ------------------------------------------------------------------ theory.chains.linear_regression
# The noise parts (posterior, minibatch factor, per-datum Hessians) are the module's public noise_parts, not a second
# copy of it; what the references below keep independent of the engine are the solvers.
def old_noise_parts(Z, y, sigma: float, sigma0: float, n: int, method: str, theta_hat, replace: bool):
    return noise_parts(LinearRegressionModel(Z, y, sigma, sigma0), n, method, theta_hat, replace)


def old_posterior(A: np.ndarray, r: np.ndarray, sigma0: float) -> tuple[np.ndarray, np.ndarray]:
    """P = sum_i A_i + I / sigma0^2 and mu = P^-1 sum_i r_i, written out (a referee's own copy)."""
    P = A.sum(axis=0) + np.eye(A.shape[1]) / sigma0**2
    return P, np.linalg.solve(P, r.sum(axis=0))


def old_stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float, n: int, method: str = "sgld",
                              theta_hat=None, replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of the stationary law of SGLD or SGLD-CV on linear regression (exact; new).

    The mean is the posterior mean mu (linear drift, unbiased gradient); the covariance solves the vectorised
    fixed point in the module docstring. Raises ParameterError when no stationary law exists (spectral radius >= 1).
    """
    h = check_positive("h", h)
    P, mu, K, B, C = old_noise_parts(Z, y, sigma, sigma0, n, method, theta_hat, replace)
    d = mu.shape[0]
    F = np.eye(d) - 0.5 * h * P
    BB = np.einsum("nij,nkl->ikjl", B, B).reshape(d * d, d * d)  # vec(B S B) = BB vec(S), row-major
    Mop = np.eye(d * d) - np.kron(F, F) - 0.25 * h * h * K * BB
    rad = float(np.max(np.abs(np.linalg.eigvals(np.kron(F, F) + 0.25 * h * h * K * BB))))
    if rad >= 1.0:
        raise ParameterError(f"no stationary second moment: spectral radius {rad:.4g} >= 1 (reduce h or raise n)")
    rhs = 0.25 * h * h * K * C + h * np.eye(d)
    S = np.linalg.solve(Mop, rhs.reshape(-1)).reshape(d, d)
    return mu, 0.5 * (S + S.T)


def old_saga_stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float,
                                   n: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact stationary (mean, covariance) of theta under SAGA-LD on linear regression, small N (new).

    State x = (u, w_1..w_N), u = theta - mu, w_i = alpha_i - mu (table_i = g_i(alpha_i) = r_i - A_i alpha_i). Given the
    minibatch S (uniform n-subset, independent of x) the step is linear: with D_i = A_i (u - w_i),
        u' = (I - hP/2) u + (h/2) [sum_j D_j - (N/n) sum_{i in S} D_i] + sqrt(h) xi,   w_i' = u (i in S), w_i (else),
    i.e. x' = M_S x + sqrt(h) e_0 xi. So E x = 0 and Sigma = E x x^T solves Sigma = mean_S M_S Sigma M_S^T + h E_00,
    solved exactly by vectorisation over all C(N, n) minibatches. Returns (mu, Sigma_uu) and needs C(N, n) <= 5000.
    """
    h = check_positive("h", h)
    A, r = linreg_parts(Z, y, sigma)
    N, d = r.shape
    n = check_int("n", n, 1, N)
    if math.comb(N, n) > 5000 or d * (N + 1) > 60:
        raise ParameterError(f"saga_stationary_cov_linreg enumerates C(N, n) minibatches on a d(N+1)-dim state: "
                             f"needs C(N, n) <= 5000 and d (N + 1) <= 60, got N = {N}, n = {n}, d = {d}")
    P, mu = old_posterior(A, r, check_positive("sigma0", sigma0))
    D = d * (N + 1)
    Asum = A.sum(axis=0)
    KK = np.zeros((D * D, D * D))
    subsets = list(itertools.combinations(range(N), n))
    for S in subsets:
        Mx = np.zeros((D, D))
        inS = np.zeros(N, dtype=bool)
        inS[list(S)] = True
        Mx[:d, :d] = np.eye(d) - 0.5 * h * P + 0.5 * h * (Asum - (N / n) * A[inS].sum(axis=0))
        for j in range(N):
            blk = slice(d * (j + 1), d * (j + 2))
            Mx[:d, blk] = 0.5 * h * A[j] * (-1.0 + (N / n) * inS[j])
            if inS[j]:
                Mx[blk, :d] = np.eye(d)
            else:
                Mx[blk, blk] = np.eye(d)
        KK += np.kron(Mx, Mx)
    KK /= len(subsets)
    rad = float(np.max(np.abs(np.linalg.eigvals(KK))))
    if rad >= 1.0:
        raise ParameterError(f"no stationary second moment: spectral radius {rad:.4g} >= 1 (reduce h)")
    E00 = np.zeros((D, D))
    E00[:d, :d] = h * np.eye(d)
    Sig = np.linalg.solve(np.eye(D * D) - KK, E00.reshape(-1)).reshape(D, D)
    Suu = Sig[:d, :d]
    return mu, 0.5 * (Suu + Suu.T)


def old_sghmc_cv_stationary_cov_linreg(Z, y, sigma: float, sigma0: float, h: float, alpha: float, n: int, theta_hat,
                                       method: str = "cv", replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Exact stationary (mean, covariance of theta) of SGHMC with the CV (or minibatch) gradient on linear regression
    (new). Chen et al. (2014) eq. (15), M = I, beta_hat = 0, no momentum resampling:
        v' = (1 - alpha) v + h (-P u + eps) + sqrt(2 alpha h) xi,   u' = u + v'   (u = theta - mu),
    eps the gradient error with Cov(eps | u) as in :func:`stationary_cov_linreg`. With x = (u, v), x' = G x + c (h eps +
    sqrt(2 alpha h) xi), c = (I, I)^T, so E x = 0 and Sigma = G Sigma G^T + c [h^2 E Cov(eps | u) + 2 alpha h I] c^T,
    E Cov(eps | u) linear in Sigma_uu: solved by vectorisation."""
    h = check_positive("h", h)
    alpha = check_positive("alpha", alpha)
    P, mu, K, B, C = old_noise_parts(Z, y, sigma, sigma0, n, method, theta_hat, replace)
    d = mu.shape[0]
    eye = np.eye(d)
    G = np.block([[eye - h * P, (1 - alpha) * eye], [-h * P, (1 - alpha) * eye]])
    c = np.vstack([eye, eye])  # (2d, d)
    D = 2 * d
    BB = np.einsum("nij,nkl->ikjl", B, B).reshape(d * d, d * d)
    # map Sigma (D x D) -> c [h^2 K sum B Sigma_uu B] c^T, as a (D^2, D^2) matrix
    sel = np.zeros((d * d, D * D))
    for i in range(d):
        for j in range(d):
            sel[i * d + j, i * D + j] = 1.0
    cc = np.kron(c, c)  # vec(c X c^T) = (c (x) c) vec X
    L = np.kron(G, G) + h * h * K * cc @ BB @ sel
    rad = float(np.max(np.abs(np.linalg.eigvals(L))))
    if rad >= 1.0:
        raise ParameterError(f"no stationary second moment: spectral radius {rad:.4g} >= 1 (reduce h or raise n)")
    rhs = cc @ (h * h * K * C + 2 * alpha * h * eye).reshape(-1)
    Sig = np.linalg.solve(np.eye(D * D) - L, rhs).reshape(D, D)
    Suu = Sig[:d, :d]
    return mu, 0.5 * (Suu + Suu.T)


# ------------------------------------------------------------------ theory.chains.sghmc
def old_transition(precision: np.ndarray, a: float, h: float, noise_cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One SGHMC step on the Gaussian target as X' = F X + w (module docstring): returns (F, Cov w), both (2d, 2d),
    with F = [[I - eta P, (1 - alpha) I], [-eta P, (1 - alpha) I]] and Cov w = [[W, W], [W, W]],
    W = eta^2 Sigma_g + 2 alpha eta I."""
    d = precision.shape[0]
    eye = np.eye(d)
    F = np.block([[eye - h * precision, (1 - a) * eye], [-h * precision, (1 - a) * eye]])
    W = h * h * noise_cov + 2 * a * h * eye
    return F, np.block([[W, W], [W, W]])


def old_stationary_covariance(precision, a: float, h: float, noise_cov) -> np.ndarray:
    """Stationary covariance (2d x 2d) of X = (theta - mu, v) for any d: Lyapunov solve (scipy)."""
    Pm = np.atleast_2d(np.asarray(precision, dtype=float))
    Sg = np.atleast_2d(np.asarray(noise_cov, dtype=float))
    d = Pm.shape[0]
    if Pm.shape != (d, d) or Sg.shape != (d, d):
        raise ParameterError(f"precision and noise_cov must both have shape (d, d); got {Pm.shape}, {Sg.shape}")
    lam_max = float(np.max(np.linalg.eigvalsh((Pm + Pm.T) / 2)))
    if np.min(np.linalg.eigvalsh((Sg + Sg.T) / 2)) < -1e-12 * max(1.0, np.abs(Sg).max()):
        raise ParameterError("noise_cov must be positive semi-definite")
    assert 0 < a < 2 and h * lam_max < 4 - 2 * a  # the stability check of theory.chains.sghmc._check
    F, Q = old_transition(Pm, a, h, Sg)
    return solve_discrete_lyapunov(F, Q)


# ------------------------------------------------------------------ Baker et al. Sec. 3.4 (the Gaussian location model)
def old_minibatch_noise_cov(data: np.ndarray, Sigma: np.ndarray, n: int, replace: bool = False) -> np.ndarray:
    """Q = (N^2/n) f Sigma^{-1} C_x Sigma^{-1}, f = (N - n)/(N - 1) without replacement, 1 with."""
    x = np.asarray(data, dtype=float)
    N = x.shape[0]
    xc = x - x.mean(axis=0)
    Cx = xc.T @ xc / N
    Pi = np.linalg.inv(Sigma)
    f = 1.0 if replace else (N - n) / (N - 1)
    return (N * N / n) * f * Pi @ Cx @ Pi


def old_sgld_stationary_cov(data: np.ndarray, Sigma: np.ndarray, h: float, n: int, replace: bool = False) -> np.ndarray:
    """Stationary covariance of fixed-step SGLD: V = A V A^T + (h^2/4) Q + h I, A = I - (h/2) N Sigma^{-1}."""
    N, d = np.asarray(data).shape
    P = N * np.linalg.inv(Sigma)
    A = np.eye(d) - 0.5 * h * P
    Q = old_minibatch_noise_cov(data, Sigma, n, replace)
    V = solve_discrete_lyapunov(A, 0.25 * h * h * Q + h * np.eye(d))
    return 0.5 * (V + V.T)


def old_sghmc_stationary_cov(data: np.ndarray, Sigma: np.ndarray, h: float, alpha: float, n: int,
                             resample_every: int | None = None, replace: bool = False) -> np.ndarray:
    """Stationary covariance of theta for SGHMC (at the cycle boundaries when the momentum is redrawn every L)."""
    N, d = np.asarray(data).shape
    P = N * np.linalg.inv(Sigma)
    noise = old_minibatch_noise_cov(data, Sigma, n, replace)
    if resample_every is None:
        V = old_stationary_covariance(P, alpha, h, noise)[:d, :d]
        return 0.5 * (V + V.T)
    F, Nz = old_transition(P, alpha, h, noise)
    L = int(resample_every)
    FL = np.linalg.matrix_power(F, L)
    A_L = FL[:d, :d]
    B_L = h * FL[:d, d:] @ FL[:d, d:].T
    Fj = np.eye(2 * d)
    for _ in range(L):
        B_L = B_L + (Fj @ Nz @ Fj.T)[:d, :d]
        Fj = F @ Fj
    V = solve_discrete_lyapunov(A_L, B_L)
    return 0.5 * (V + V.T)


# ------------------------------------------------------------------ theory.chains.stratified
def old_strat_sgld_stationary_cov(a: float, h: float, Sigma: np.ndarray) -> np.ndarray:
    """Stationary Cov(theta) of fixed-step (CP-)SGLD on the Gaussian mean model (new, docs/papers/fu_zhang.md sec. 5).

    With grad log posterior c - a theta and additive noise e of covariance Sigma (theta-free),
    theta' = (1 - h a/2) theta + (h/2)(c + e) + sqrt(h) xi: Cov solves Cov = F Cov F^T + (h I + h^2 Sigma/4).
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    d = Sigma.shape[0]
    F = (1.0 - 0.5 * h * a) * np.eye(d)
    return solve_discrete_lyapunov(F, h * np.eye(d) + 0.25 * h * h * Sigma)


def old_strat_sghmc_stationary_cov(a: float, h: float, alpha: float, Sigma: np.ndarray) -> np.ndarray:
    """Stationary Cov of (theta, v) for SGHMC (Chen et al. 2014 eq. 15, M = I, beta_hat = 0; simulate.integrators.sghmc)
    with the noisy gradient c - a theta + e, Cov e = Sigma (new). v' = (1-alpha) v - h a theta + h(c + e) +
    sqrt(2 alpha h) xi, theta' = theta + v': z' = F z + w with F = [[1 - h a, 1 - alpha], [-h a, 1 - alpha]] (x I_d)
    and Cov w = [[Q, Q], [Q, Q]], Q = h^2 Sigma + 2 alpha h I. Returns the (2d, 2d) covariance (theta first)."""
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=np.float64))
    return old_stationary_covariance(a * np.eye(Sigma.shape[0]), alpha, h, Sigma)
