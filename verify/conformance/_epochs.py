"""Exact mean and variance of SGLD on the 1-D toy when minibatches come in reshuffled epochs (new).

``DataLoader(shuffle=True)`` (the batching of posteriors' docs) permutes the data at the start of every epoch and
cuts it into m = N/n disjoint batches. On the toy the gradient error e_k of step k does not depend on theta (additive
noise), and one batch is a uniform n-subset, so Var e_k = V = K sum_i c_i^2 (K the without-replacement factor of
``theory.noise.minibatch.k_factor``, c_i = g_i(mu) - g_bar(mu)); the m errors of an epoch sum to zero exactly (the epoch
sees every datum once), so by exchangeability Cov(e_j, e_l) = -V / (m - 1) for j != l in one epoch, 0 across epochs.
With u = theta - mu, a = 1 - h P / 2 and the step u' = a u + (h/2) e_k + sqrt(h T) s xi_k,

    E u_k = a^k u_0,
    Var u_k = s^2 T h sum_{j<k} a^{2(k-1-j)} + (h^2/4) V sum_epochs [S2 + rho (S1^2 - S2)],

with S1 = sum_j w_j, S2 = sum_j w_j^2 over the epoch's steps j < k, w_j = a^{k-1-j}, rho = -1/(m - 1). The chain is
periodic with period m; its stationary law (averaged over the phases) is the average of Var u_k over k = q m + p,
p = 0..m-1, at q large enough that a^{qm} is below rounding.
"""

from __future__ import annotations

import numpy as np

from simulate.validation import ParameterError
from theory.noise.minibatch import k_factor, linreg_parts

from .declared import Declared
from .problems import Problem


class EpochToyChain:
    """Exact moments of toy SGLD under reshuffled epochs (module docstring)."""

    def __init__(self, declared: Declared, problem: Problem, noise_scale: float = 1.0) -> None:
        if problem.kind != "toy" or declared.algorithm != "sgld":
            raise ParameterError(f"reshuffled epochs have an exact law for SGLD on the 1-D toy only (additive gradient "
                                 f"noise); got {declared.algorithm!r} on problem {problem.name!r}")
        N, n = problem.n_data, declared.n
        if N % n or N // n < 2:
            raise ParameterError(f"epochs need n to divide N with at least 2 batches per epoch, got N = {N}, n = {n}")
        A, r = linreg_parts(problem.Z, problem.y, problem.sigma)
        self.mu = float(problem.posterior_mean[0])
        g = r[:, 0] - A[:, 0, 0] * self.mu
        c = g - g.mean()
        self.V = k_factor(N, n, False) * float(c @ c)
        self.m = N // n
        self.a = 1.0 - 0.5 * declared.h * float(problem.precision[0, 0])
        if not abs(self.a) < 1:
            raise ParameterError(f"the declared chain {declared.describe()} is unstable: |1 - h P / 2| >= 1")
        self.h, self.inj = declared.h, declared.h * declared.temperature * noise_scale**2

    def variance(self, k: int) -> float:
        if k == 0:
            return 0.0
        a, m, h = self.a, self.m, self.h
        j = np.arange(k)
        w = a ** (k - 1 - j)
        inj = self.inj * float(np.sum(w * w))
        pad = (-k) % m
        W = np.concatenate([w, np.zeros(pad)]).reshape(-1, m)
        S1, S2 = W.sum(axis=1), (W * W).sum(axis=1)
        rho = -1.0 / (m - 1)
        return inj + 0.25 * h * h * self.V * float(np.sum(S2 + rho * (S1 * S1 - S2)))

    def moments(self, theta0, steps) -> tuple[np.ndarray, np.ndarray]:
        u0 = float(np.asarray(theta0, dtype=float).reshape(-1)[0]) - self.mu
        steps = np.asarray(steps, dtype=np.int64).reshape(-1)
        mean = self.mu + self.a ** steps.astype(float) * u0
        var = np.array([self.variance(int(k)) for k in steps])
        return mean[:, None], var[:, None, None]

    def stationary(self) -> tuple[np.ndarray, np.ndarray]:
        q = int(np.ceil(40.0 / max(-np.log(abs(self.a)) * self.m, 1e-300))) + 1  # a^(q m) < e^-40
        v = np.mean([self.variance(q * self.m + p) for p in range(self.m)])
        return np.array([self.mu]), np.array([[v]])


__all__ = ["EpochToyChain"]
