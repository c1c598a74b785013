"""Chen, Wang, Zhang, Su & Carin (vrSG-MCMC): the quantities of Lemma 2, Proposition 10 and Theorem 6 for given
per-datum gradients, exact enumeration of the estimators' moments, and the exact finite-L MSE of SGLD and vrSGLD on
the Gaussian mean model (docs/papers/chen.md secs. 3-6).

Numbering: V1 = arXiv version, V2 = SCIS 2019 (docs/papers/chen.md sec. 1).  alpha_i = grad log p(d_i | theta_l)
(current state), beta_i = grad log p(d_i | theta_tilde) (anchor); arrays of shape (N, d).  s^2(v) =
sum_i ||v_i - v_bar||^2 / (N - 1) and X_k = N (N - n_k)/(n_k (N - 1)).

**Workbench convention.**  theta' = theta + (h/2) g + sqrt(h) xi (the paper writes theta - h grad U + sqrt(2h) zeta,
so the paper's h is eps = h_wb/2).  On the Gaussian mean model (posterior N(mu, 1/P)) both SGLD and vrSGLD are
e' = rho e + (h/2) xi_l + sqrt(h) zeta_l with e = theta - mu, rho = 1 - h P / 2, and xi_l the gradient error:
for SGLD a fresh (N/sigma^2)(x_bar - x_bar_batch) each step; for vrSGLD the correction term is exactly
N (theta_tilde - theta)/sigma^2 whatever the n2-batch, so xi is the anchor batch's error, FROZEN for the m steps of
an epoch (docs/papers/chen.md sec. 5).  Time averages are over theta_0 .. theta_{L-1} (README; theta_0 deterministic).
"""

from __future__ import annotations

import numpy as np

from theory.noise.vr import _X, GaussianData, _grads, _sizes, _sums


def lambda_printed(beta, n1: int, n2: int, literal: bool = False) -> float:
    """lambda_l as printed in Theorem 6 (V1) / Theorem 2 (V2): (N/n1 - N/n2) sum_{ij} b_i.b_j - 2 (X2 - X1)
    sum_{i<j} b_i.b_j (first sum read with b_j); ``literal=True`` reads sum_{ij} b_i.b_i = N sum_i ||b_i||^2."""
    b = _grads("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    first = N_ * float(np.einsum("id,id->", b, b)) if literal else s_all
    return (N_ / n1 - N_ / n2) * first - 2 * (_X(N_, n2) - _X(N_, n1)) * s_lt


def gaussian_lambda_printed_stationary(gd: GaussianData, n1: int, n2: int) -> float:
    """E over theta_tilde ~ posterior of the printed lambda_l (first sum with beta_j; docs/papers/chen.md sec. 5):
    -N^2 (n1 - n2)(2 N (N-1) E||x_bar - theta_tilde||^2 - S_xx)/(n1 n2 (N-1) sigma^4),
    E||x_bar - theta_tilde||^2 = d/P + ||x_bar - mu||^2."""
    _sizes(gd.N, n1=n1, n2=n2)
    N_ = gd.N
    d = gd.x.shape[1]
    e2 = d / gd.P + float(np.sum((gd.x.mean(0) - gd.mu) ** 2))
    return -(N_**2) * (n1 - n2) * (2 * N_ * (N_ - 1) * e2 - gd.Sxx) / (n1 * n2 * (N_ - 1) * gd.sigma**4)


__all__ = ["gaussian_lambda_printed_stationary", "lambda_printed"]
