"""Exact stationary moments of fixed-step SGLD and SGHMC on the d-dimensional Gaussian location toy of Baker et al.
Sec. 3.4 (x_i ~ N(theta, Sigma), flat prior), computed from the data alone (new).

Posterior: N(xbar, Sigma/N). With P = N Sigma^{-1}, the minibatch gradient (n of N without replacement) is
-P (theta - xbar) + e, e = N Sigma^{-1}(xbar_S - xbar), independent of theta, with

    Cov(e) = Q = (N^2/n) ((N - n)/(N - 1)) Sigma^{-1} C_x Sigma^{-1},   C_x = (1/N) sum_i (x_i - xbar)(x_i - xbar)^T.

SGLD (workbench step theta' = theta + (h/2) g + sqrt(h) xi), u = theta - xbar:
    u' = A u + (h/2) e + sqrt(h) xi,  A = I - (h/2) P,   so the stationary law has mean xbar and covariance V
    solving the discrete Lyapunov equation V = A V A^T + (h^2/4) Q + h I.

SGHMC (Chen et al. 2014 eq. 15, M = I, beta_hat = 0; v' = (1 - alpha) v + h g + sqrt(2 alpha h) xi,
theta' = theta + v'), z = (u, v):
    z' = F z + (w, w),  F = [[I - h P, (1 - alpha) I], [-h P, (1 - alpha) I]],  Cov w = W = h^2 Q + 2 alpha h I.
With the momentum redrawn v ~ N(0, h I) after every L steps, theta at the cycle boundaries is a linear chain
u -> F^L_{uu} u + (noise), whose stationary covariance solves V = A_L V A_L^T + B_L with A_L = (F^L)_{uu} and
B_L = h (F^L)_{uv} (F^L)_{uv}^T + sum_{j<L} [F^j [[W, W], [W, W]] F^{jT}]_{uu}. Without resampling
(L = None) the joint stationary covariance solves the Lyapunov equation of (F, [[W, W], [W, W]]).
The mean is exact (xbar) in both cases. Both laws are the exact engine's (``theory.linear_gaussian.exact_law``) for
the simulator's ``sgld`` / ``sghmc`` on :class:`simulate.GaussianLocation` (flat prior), which solves these fixed
points; :func:`minibatch_noise_cov` is the closed form of Q.
"""

from __future__ import annotations

import numpy as np

from simulate.models.toy_targets import GaussianLocation
from simulate.samplers import sghmc, sgld
from theory.linear_gaussian import exact_law


def minibatch_noise_cov(data: np.ndarray, Sigma: np.ndarray, n: int, replace: bool = False) -> np.ndarray:
    """Q = (N^2/n) f Sigma^{-1} C_x Sigma^{-1}, f = (N - n)/(N - 1) without replacement, 1 with."""
    x = np.asarray(data, dtype=float)
    N = x.shape[0]
    xc = x - x.mean(axis=0)
    Cx = xc.T @ xc / N
    Pi = np.linalg.inv(Sigma)
    f = 1.0 if replace else (N - n) / (N - 1)
    return (N * N / n) * f * Pi @ Cx @ Pi


def _model(data: np.ndarray, Sigma: np.ndarray) -> GaussianLocation:
    """x_i ~ N(theta, Sigma), flat prior (Baker et al. Sec. 3.4)."""
    return GaussianLocation(np.asarray(data, dtype=float), Sigma=Sigma)


def sgld_stationary_cov(data: np.ndarray, Sigma: np.ndarray, h: float, n: int, replace: bool = False) -> np.ndarray:
    """Stationary covariance of fixed-step SGLD: V = A V A^T + (h^2/4) Q + h I, A = I - (h/2) N Sigma^{-1} (the exact
    engine's law of ``sgld``)."""
    return exact_law(sgld(_model(data, Sigma), h, n, replace)).stationary_cov()


def sghmc_stationary_cov(data: np.ndarray, Sigma: np.ndarray, h: float, alpha: float, n: int,
                         resample_every: int | None = None, replace: bool = False) -> np.ndarray:
    """Stationary covariance of theta for SGHMC (at the cycle boundaries when the momentum is redrawn every L: the
    steps k with k mod L = 0, the phase-0 law of the engine's L-periodic chain)."""
    law = exact_law(sghmc(_model(data, Sigma), h, alpha, n=n, replace=replace, resample_every=resample_every))
    return law.stationary_cov(phase=None if law.period == 1 else 0)
