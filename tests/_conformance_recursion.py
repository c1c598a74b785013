"""Test reference: first and second moments of a declared SG-MCMC chain on a linear-Gaussian problem, written from
the declaration alone (no simulator sampler, no engine).

This was the conformance layer's stop-gap engine; the layer now asks ``theory.exact_law(sampler)``
(``verify.conformance._exact``), and this independent derivation stays in tests as the reference the engine's
answers are checked against (tests/test_conformance.py: every declared case of ``verify.conformance.cases``).

Mathematics. With u = theta - mu (posterior mean mu, precision P), per-datum gradients g_i = r_i - A_i theta, every
algorithm of :mod:`verify.conformance.declared` is linear in an augmented state X = (u, [v], [w], [e]) (momentum v,
SVRG anchor w = theta~ - mu, a minibatch error e reused for a whole call or, in BAOAB, across a step boundary):

    X' = F X + G eps + eta,      eta ~ N(0, Q) (injected noise, scaled by ``noise_scale``^2),

where the gradient error eps of the declared estimator has E[eps | X] = 0 and (Baker et al. 2019, proof of Thm 1;
``theory.noise.minibatch``)

        Cov(eps | X) = K sum_i (c_i - B_i L X)(c_i - B_i L X)^T,   K = N(N - n)/(n(N - 1)) (without), N/n (with),

B_i = A_i - A_bar and: SGLD c_i = g_i(mu) - g_bar(mu), L X = u; SGLD-CV c_i = B_i (theta_hat - mu), L X = u;
SVRG c_i = 0, L X = u - w. Hence m = E X and S = E X X^T obey the exact affine recursion

    m' = F m,
    S' = F S F^T + G K [C - sum_i (c_i (B_i L m)^T + B_i L m c_i^T) + sum_i B_i L S L^T B_i] G^T + Q,

C = sum_i c_i c_i^T. Resets (v redrawn ~ N(0, h T I), w := u, e redrawn with covariance K C) are affine too. One call
of a library is the composition of its resets and inner steps (BAOAB: B, A, O, A, e redrawn at the new theta, B);
the state z = (m, vec S) of size D + D^2 evolves by z' = T z + t. Stationary law: the fixed point z = (I - T)^{-1} t
of one call, or for SVRG (period ``update_rate``) the fixed point of the composed period and the average over its
phases. A minibatch reused for L steps is exact only when the gradient noise is additive (B_i = 0: the 1-D toy);
otherwise fourth moments enter and this raises.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError
from theory.noise.minibatch import k_factor, linreg_parts
from verify.conformance.declared import Declared
from verify.conformance.problems import Problem


@dataclass(frozen=True)
class _Blocks:
    """Index slices of the augmented state X = (u, [v], [w], [e]), each block of size d."""

    d: int
    names: tuple[str, ...]

    @property
    def D(self) -> int:
        return self.d * len(self.names)

    def __getitem__(self, name: str) -> slice:
        i = self.names.index(name)
        return slice(i * self.d, (i + 1) * self.d)

    def __contains__(self, name: str) -> bool:
        return name in self.names


@dataclass(frozen=True)
class _Affine:
    """z -> T z + t on z = (m, vec S)."""

    T: np.ndarray
    t: np.ndarray

    def then(self, other: _Affine) -> _Affine:
        """Apply self, then other."""
        return _Affine(other.T @ self.T, other.T @ self.t + other.t)


class MomentChain:
    """Exact first and second moments of theta after every call of a declared algorithm (module docstring)."""

    def __init__(self, declared: Declared, problem: Problem, noise_scale: float = 1.0) -> None:
        self.declared, self.problem = declared, problem
        if not (np.isfinite(noise_scale) and noise_scale >= 0):
            raise ParameterError(f"noise_scale must satisfy 0 <= noise_scale < inf, got {noise_scale!r}")
        self.s2 = float(noise_scale) ** 2 * declared.temperature
        d = problem.dim
        if declared.n > problem.n_data:
            raise ParameterError(f"n must satisfy 1 <= n <= N = {problem.n_data}, got {declared.n}")
        names = ["u"]
        if declared.algorithm in ("sghmc", "baoab"):
            names.append("v")
        if declared.algorithm == "svrg_ld":
            names.append("w")
        if declared.minibatch_per_call or declared.algorithm == "baoab":
            names.append("e")
        self.b = _Blocks(d, tuple(names))
        self.P, self.mu = problem.precision, problem.posterior_mean
        self._noise_law()
        self._maps: dict[tuple, _Affine] = {}

    # ------------------------------------------------------------------ gradient noise
    def _noise_law(self) -> None:
        dec, pr, b = self.declared, self.problem, self.b
        A, r = linreg_parts(pr.Z, pr.y, pr.sigma)
        B = A - A.mean(axis=0)
        if dec.algorithm in ("sgld", "sghmc", "baoab"):
            g = r - A @ self.mu
            c = g - g.mean(axis=0)
        elif dec.algorithm == "sgld_cv":
            th = np.asarray(dec.theta_hat, dtype=float)
            if th.shape != (pr.dim,):
                raise ParameterError(f"theta_hat must have shape ({pr.dim},) for problem {pr.name!r}, got {th.shape}")
            c = B @ (th - self.mu)
        else:  # svrg_ld
            c = np.zeros_like(r)
        L = np.zeros((b.d, b.D))
        L[:, b["u"]] = np.eye(b.d)
        if "w" in b:
            L[:, b["w"]] = -np.eye(b.d)
        if dec.minibatch_per_call and np.abs(B).max() > 1e-12 * max(1.0, np.abs(A).max()):
            raise ParameterError("minibatch_per_call (one minibatch for all inner steps of a call) has an exact "
                                 "second-moment law only for additive gradient noise (the 1-D toy); problem "
                                 f"{pr.name!r} has state-dependent noise")
        d = b.d
        self.K = k_factor(pr.n_data, dec.n, dec.replace)
        self.C = c.T @ c
        self.L = L
        self.CB = np.einsum("ni,njk->ijk", c, B).reshape(d * d, d) @ L  # sum_i kron(c_i[:, None], B_i) L
        self.BC = np.einsum("njk,ni->jik", B, c).reshape(d * d, d) @ L  # sum_i kron(B_i, c_i[:, None]) L
        BB = np.einsum("nij,nkl->ikjl", B, B).reshape(d * d, d * d)  # sum_i kron(B_i, B_i)
        self.BBL = BB @ np.kron(L, L)

    # ------------------------------------------------------------------ one-step and reset maps
    def _step(self, F: np.ndarray, G: np.ndarray, Q: np.ndarray, fresh_noise: bool) -> _Affine:
        D = self.b.D
        T = np.zeros((D + D * D, D + D * D))
        T[:D, :D] = F
        T[D:, D:] = np.kron(F, F)
        Qt = self.s2 * Q
        if fresh_noise:
            GG = np.kron(G, G)
            T[D:, :D] = -self.K * GG @ (self.CB + self.BC)
            T[D:, D:] += self.K * GG @ self.BBL
            Qt = Qt + self.K * G @ self.C @ G.T
        return _Affine(T, np.concatenate([np.zeros(D), Qt.reshape(-1)]))

    def _reset(self, R: np.ndarray, QR: np.ndarray) -> _Affine:
        D = self.b.D
        T = np.zeros((D + D * D, D + D * D))
        T[:D, :D] = R
        T[D:, D:] = np.kron(R, R)
        return _Affine(T, np.concatenate([np.zeros(D), QR.reshape(-1)]))

    def _redraw_e(self) -> _Affine:
        """e := a fresh gradient error at the current state (conditional covariance K sum (c_i - B_i L X)(.)^T)."""
        b = self.b
        R, Ge = np.eye(b.D), np.zeros((b.D, b.d))
        R[b["e"], b["e"]] = 0.0
        Ge[b["e"]] = np.eye(b.d)
        return self._step(R, Ge, np.zeros((b.D, b.D)), fresh_noise=True)

    def _baoab_step(self) -> _Affine:
        """B, A, O, A, e redrawn at the new theta, B (declared.py); the gradient error e is part of the state."""
        dec, b, P = self.declared, self.b, self.P
        D, d, h = b.D, b.d, dec.h
        u, v, e = b["u"], b["v"], b["e"]
        eye, zero = np.eye(d), np.zeros((D, D))
        kick = np.eye(D)
        kick[v, u], kick[v, e] = -0.5 * h * P, 0.5 * h * eye
        drift = np.eye(D)
        drift[u, v] = 0.5 * eye
        c = np.exp(-dec.alpha)
        ou, Q = np.eye(D), np.zeros((D, D))
        ou[v, v] = c * eye
        Q[v, v] = h * (1.0 - c * c) * eye
        none = np.zeros((D, d))
        B_map = self._step(kick, none, zero, fresh_noise=False)
        A_map = self._step(drift, none, zero, fresh_noise=False)
        return (B_map.then(A_map).then(self._step(ou, none, Q, fresh_noise=False)).then(A_map)
                .then(self._redraw_e()).then(B_map))

    def _inner_step(self) -> _Affine:
        dec, b, P = self.declared, self.b, self.P
        if dec.algorithm == "baoab":
            return self._baoab_step()
        D, eye = b.D, np.eye(b.d)
        F, G, Q = np.eye(D), np.zeros((D, b.d)), np.zeros((D, D))
        u = b["u"]
        h = dec.h
        if dec.algorithm != "sghmc":
            F[u, u] = eye - 0.5 * h * P
            G[u] = 0.5 * h * eye
            Q[u, u] = h * eye
        else:
            v, a = b["v"], dec.alpha
            F[v, u], F[v, v] = -h * P, (1.0 - a) * eye
            G[v] = h * eye
            Q[v, v] = 2.0 * a * h * eye
            if dec.order == "momentum_first":  # theta' = theta + v'
                F[u, u], F[u, v] = eye - h * P, (1.0 - a) * eye
                G[u] = h * eye
                Q[u, u] = Q[u, v] = Q[v, u] = 2.0 * a * h * eye
            else:  # explicit Euler: theta' = theta + v
                F[u, v] = eye
        if dec.minibatch_per_call:  # the call's minibatch error is part of the state
            F[:, b["e"]] += G
            return self._step(F, G, Q, fresh_noise=False)
        return self._step(F, G, Q, fresh_noise=True)

    def call_map(self, k: int) -> _Affine:
        """The affine map of call k (0-based) on z = (m, vec S)."""
        dec, b = self.declared, self.b
        key = ("anchor",) if dec.refreshes_anchor(k) else ("plain",)
        if key in self._maps:
            return self._maps[key]
        D = b.D
        out = _Affine(np.eye(D + D * D), np.zeros(D + D * D))
        R, QR = np.eye(D), np.zeros((D, D))
        if key == ("anchor",):  # w := u
            w, u = b["w"], b["u"]
            R[w, w], R[w, u] = 0.0, np.eye(b.d)
        if dec.momentum_refresh:
            v = b["v"]
            R[v, v], QR[v, v] = 0.0, dec.momentum_var * np.eye(b.d)
        if dec.minibatch_per_call:
            e = b["e"]
            R[e, e], QR[e, e] = 0.0, self.K * self.C
        if not np.array_equal(R, np.eye(D)):
            out = out.then(self._reset(R, QR))
        inner = self._inner_step()
        for _ in range(dec.inner_steps):
            out = out.then(inner)
        self._maps[key] = out
        return out

    # ------------------------------------------------------------------ moments
    def initial(self, theta0) -> np.ndarray:
        """z_0 for every chain started at the same theta0 (momentum ~ N(0, v0_var I), anchor = theta0; BAOAB: the
        gradient error of the first minibatch at theta0)."""
        b, D = self.b, self.b.D
        th = np.asarray(theta0, dtype=float).reshape(-1)
        if th.shape != (b.d,):
            raise ParameterError(f"theta0 must have {b.d} entries for problem {self.problem.name!r}, got {th.shape}")
        m = np.zeros(D)
        m[b["u"]] = th - self.mu
        if "w" in b:
            m[b["w"]] = th - self.mu
        S = np.outer(m, m)
        if "v" in b:
            S[b["v"], b["v"]] = self.declared.initial_momentum_var() * np.eye(b.d)
        z = np.concatenate([m, S.reshape(-1)])
        if self.declared.algorithm == "baoab":
            first = self._redraw_e()
            z = first.T @ z + first.t
        return z

    def theta_moments(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(E theta, Cov theta) from z."""
        D, u = self.b.D, self.b["u"]
        m, S = z[:D], z[D:].reshape(D, D)
        mu_u = m[u]
        cov = S[u, u] - np.outer(mu_u, mu_u)
        return self.mu + mu_u, 0.5 * (cov + cov.T)

    def moments(self, theta0, steps) -> tuple[np.ndarray, np.ndarray]:
        """(mean (K, d), cov (K, d, d)) of theta after each number of calls in ``steps``."""
        steps = np.asarray(steps, dtype=np.int64).reshape(-1)
        if steps.size and steps.min() < 0:
            raise ParameterError(f"steps must be >= 0, got {steps.min()}")
        kmax = int(steps.max()) if steps.size else 0
        d = self.b.d
        mean, cov = np.empty((steps.size, d)), np.empty((steps.size, d, d))
        z = self.initial(theta0)
        order = np.argsort(steps)
        j = 0
        for k in range(kmax + 1):
            while j < steps.size and steps[order[j]] == k:
                mean[order[j]], cov[order[j]] = self.theta_moments(z)
                j += 1
            if k < kmax:
                mp = self.call_map(k)
                z = mp.T @ z + mp.t
        return mean, cov

    def stationary(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, cov) of theta under the stationary law (for SVRG: averaged over the phases of one period)."""
        dec = self.declared
        if dec.algorithm == "svrg_ld":
            k0, period = dec.anchor_offset, dec.update_rate
        else:
            k0, period = 0, 1
        maps = [self.call_map(k0 + j) for j in range(period)]
        total = maps[0]
        for mp in maps[1:]:
            total = total.then(mp)
        rad = float(np.max(np.abs(np.linalg.eigvals(total.T))))
        if rad >= 1.0:
            raise ParameterError(f"the declared chain {dec.describe()} has no stationary second moment on problem "
                                 f"{self.problem.name!r}: spectral radius {rad:.6g} >= 1 (reduce h)")
        z = np.linalg.solve(np.eye(total.T.shape[0]) - total.T, total.t)
        means, covs = [], []
        for mp in maps:  # phases k0, k0 + 1, ..., k0 + period - 1
            mu, cv = self.theta_moments(z)
            means.append(mu)
            covs.append(cv + np.outer(mu, mu))
            z = mp.T @ z + mp.t
        mean = np.mean(means, axis=0)
        second = np.mean(covs, axis=0)
        cov = second - np.outer(mean, mean)
        return mean, 0.5 * (cov + cov.T)


__all__ = ["MomentChain"]
