"""Kernel Stein discrepancy (KSD) with the inverse multiquadric kernel (Gorham & Mackey 2017; Liu, Lee & Jordan 2016;
Chwialkowski, Strathmann & Gretton 2016), for samples from a chain.

With the score s(x) = grad log pi(x) and the IMQ base kernel k(x, y) = (c^2 + |x - y|^2 / l^2)^beta (beta = -1/2),
the Stein kernel is

    k_p(x, y) = s(x) . s(y) k + s(x) . grad_y k + s(y) . grad_x k + div_x grad_y k,

so that KSD^2(q) = E_{x, y ~ q} k_p(x, y) >= 0 with equality iff q = pi. For samples x_1..x_n the U-statistic
(1/(n(n-1))) sum_{i != j} k_p(x_i, x_j) is unbiased for KSD^2 of their law. Consecutive states of a chain are
dependent, so the spread of the statistic comes from a wild bootstrap with a dependent multiplier process
(Chwialkowski et al. 2014): W_t = exp(-1/ell) W_{t-1} + sqrt(1 - exp(-2/ell)) e_t, B = (1/n^2) sum_ij W_i W_j k_p.
The KSD of a biased sampler does not vanish: it is a diagnostic with an exact value (theory.grid.ksd), not a test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ParameterError, check_finite_array, check_int, check_positive

BETA = -0.5


def stein_kernel(x: np.ndarray, y: np.ndarray, sx: np.ndarray, sy: np.ndarray, c: float = 1.0,
                 scale: float = 1.0) -> np.ndarray:
    """k_p(x_i, y_j) for points x (n, d), y (m, d) with scores sx (n, d), sy (m, d): shape (n, m).

    Parameters
    ----------
    x, y : ndarray
        Points.
    sx, sy : ndarray
        grad log pi at the points.
    c, scale : float
        The IMQ kernel ``(c^2 + |x - y|^2 / scale^2)^(-1/2)``.

    Returns
    -------
    ndarray, shape (n, m)
        The Stein kernel at every pair.

    References
    ----------
    Gorham & Mackey (2017), Theorem 8 (the IMQ kernel detects non-convergence); Liu, Lee & Jordan (2016), eq. (8).
    """
    d = x.shape[1]
    r = (x[:, None, :] - y[None, :, :]) / scale  # (n, m, d) in units of scale
    r2 = np.einsum("nmd,nmd->nm", r, r)
    u = c * c + r2
    k = u**BETA
    gk = 2 * BETA * u ** (BETA - 1) / scale  # grad_x k = gk r, grad_y k = -gk r
    term1 = (sx @ sy.T) * k
    term2 = -gk * np.einsum("nd,nmd->nm", sx, r) + gk * np.einsum("md,nmd->nm", sy, r)
    term3 = -2 * BETA * (d * u ** (BETA - 1) + 2 * (BETA - 1) * r2 * u ** (BETA - 2)) / scale**2
    return term1 + term2 + term3


def weighted_ksd2(points: np.ndarray, scores: np.ndarray, weights: np.ndarray, c: float = 1.0, scale: float = 1.0,
                  chunk: int = 1024) -> float:
    """sum_ij w_i w_j k_p(x_i, x_j): KSD^2 of the discrete law with masses w at the points (a V-statistic).

    Parameters
    ----------
    points : ndarray, shape (n, d)
        The points x_i.
    scores : ndarray, shape (n, d)
        grad log pi at the points.
    weights : ndarray, shape (n,)
        The masses w_i.
    c, scale : float
        The IMQ kernel's parameters (:func:`stein_kernel`).
    chunk : int
        Rows of the kernel matrix formed at once (memory only; the value does not depend on it beyond rounding).

    Returns
    -------
    float
        KSD^2 of the discrete law.

    References
    ----------
    Liu, Lee & Jordan (2016), eq. (8) (KSD^2 as the expectation of the Stein kernel).
    """
    w = np.asarray(weights, float)
    total = 0.0
    for a in range(0, points.shape[0], chunk):
        K = stein_kernel(points[a:a + chunk], points, scores[a:a + chunk], scores, c, scale)
        total += float(w[a:a + chunk] @ K @ w)
    return total


@dataclass(frozen=True)
class KSDEstimate:
    """The U-statistic of KSD^2 of a chain's samples and the wild bootstrap's draws of its null spread.

    Parameters
    ----------
    ksd2 : float
        The U-statistic.
    n : int
        The number of samples.
    bootstrap : ndarray
        The wild bootstrap statistics.
    """

    ksd2: float
    n: int
    bootstrap: np.ndarray

    def quantile(self, q: float) -> float:
        """The q-quantile of the bootstrap statistic (the spread of KSD^2 under pi for these dependent samples).

        Parameters
        ----------
        q : float
            The level, in [0, 1].

        Returns
        -------
        float
            The quantile.
        """
        return float(np.quantile(self.bootstrap, q))


def ksd_u_statistic(samples: np.ndarray, scores: np.ndarray, *, c: float = 1.0, scale: float = 1.0, ell: float = 20.0,
                    n_boot: int = 500, seed: int = 0) -> KSDEstimate:
    """The KSD^2 U-statistic of consecutive chain states (module docstring), with ``n_boot`` wild bootstrap draws
    whose multipliers have correlation time ``ell`` steps.

    Parameters
    ----------
    samples : ndarray, shape (n, d)
        Consecutive states of one chain (or independent draws with ell small).
    scores : ndarray, shape (n, d)
        grad log pi at the states.
    c, scale : float
        The IMQ kernel's parameters (:func:`stein_kernel`).
    ell : float
        Correlation length of the multiplier process (about the chain's integrated autocorrelation time).
    n_boot : int
        The number of bootstrap draws, at least 1.
    seed : int
        The seed of the multipliers.

    Returns
    -------
    KSDEstimate
        The statistic and its bootstrap draws.

    Raises
    ------
    ParameterError
        Non-finite or mismatched samples and scores, fewer than 2 samples, ell <= 0 or n_boot < 1.

    References
    ----------
    Chwialkowski, Strathmann & Gretton (2016), Sec. 2.2 and eq. (5) (the wild bootstrap for dependent samples).
    """
    x = check_finite_array("samples", samples, ndim=(2,))
    s = check_finite_array("scores", scores, ndim=(2,))
    if s.shape != x.shape:
        raise ParameterError(f"scores must have the shape of samples {x.shape}, got {s.shape}")
    n = check_int("samples (rows)", x.shape[0], 2)
    ell = check_positive("ell", ell)
    K = stein_kernel(x, x, s, s, c, scale)
    u = (K.sum() - np.trace(K)) / (n * (n - 1))
    rng = np.random.default_rng(seed)
    a = np.exp(-1.0 / ell)
    e = rng.standard_normal((check_int("n_boot", n_boot, 1), n))
    W = np.empty_like(e)
    W[:, 0] = e[:, 0]
    for t in range(1, n):
        W[:, t] = a * W[:, t - 1] + np.sqrt(1 - a * a) * e[:, t]
    boot = np.einsum("bi,ij,bj->b", W, K, W) / n**2
    return KSDEstimate(float(u), n, boot)


__all__ = ["BETA", "KSDEstimate", "ksd_u_statistic", "stein_kernel", "weighted_ksd2"]
