"""Brute-force referee for the exact engine: enumerate every sequence of minibatch draws and integrate the Gaussian
noise exactly, using only the SIMULATOR's code (never theory.linear_gaussian).

Given the draws of a step, one step of any workbench sampler on an affine model is an affine map of (continuous
state, injected normals xi, refresh normals zeta). The referee identifies that map by running the simulator's own
``estimator.apply`` / ``Stratified.combine`` and integrator update on probe inputs (zero and unit vectors, one probe per
chain), propagates the Gaussian law (mean, covariance) of the state along every draw sequence, and mixes the
sequences with their probabilities. Exponential in k; meant for N = 5, n = 2, k <= 5.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from simulate.estimators.reuse import Reused, ReuseState
from simulate.estimators.saga import SAGA, SAGAState
from simulate.estimators.stratified import Stratified, StratifiedDraws
from simulate.estimators.vr import VRDraws, VRMinibatch, VRState
from simulate.integrators.sghmc import SGHMCState


class _FixedNormals:
    """Stands in for the generator where the integrator draws its own normals (SGHMC's v_0 and refresh)."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def standard_normal(self, shape) -> np.ndarray:
        assert tuple(shape) == self.values.shape
        return self.values.copy()


def _subsets(members, b: int, replace: bool) -> list[tuple[tuple[int, ...], float]]:
    """(indices, probability) of every draw of b of ``members``: subsets (without replacement, uniform) or multisets
    (with replacement, multinomial probability b! / prod_j m_j! / N^b; an estimate depends on the multiset only)."""
    members = list(members)
    if not replace:
        tup = list(itertools.combinations(members, b))
        return [(t, 1.0 / len(tup)) for t in tup]
    out = []
    for t in itertools.combinations_with_replacement(members, b):
        mult = np.unique(t, return_counts=True)[1]
        out.append((t, math.factorial(b) / float(np.prod([math.factorial(int(c)) for c in mult])) / len(members) ** b))
    return out


def _inner_options(est, N: int):
    """Possible draws of a stateless estimator: (draw id, draw builder for M chains, probability)."""
    col = lambda t, M: np.repeat(np.array(t)[:, None], M, 1)  # noqa: E731
    if isinstance(est, Stratified):
        per = [_subsets(m, b, est.replace) for m, b in zip(est.strata.members, est.sizes, strict=True)]
        out = []
        for combo in itertools.product(*per):
            p = float(np.prod([c[1] for c in combo]))
            ids = tuple(c[0] for c in combo)
            out.append((ids, (lambda M, ids=ids: StratifiedDraws([col(t, M) for t in ids], None)), p))
        return out
    if not hasattr(est, "n"):  # FullGradient
        return [(None, (lambda M: None), 1.0)]
    return [(t, (lambda M, t=t: col(t, M)), p) for t, p in _subsets(range(N), est.n, est.replace)]


def _options(est, N: int, step: int, stored):
    """(draw id, draw builder, probability, new stored key) of step ``step``'s draws; builder None: reuse."""
    col = lambda t, M: np.repeat(np.array(t)[:, None], M, 1)  # noqa: E731
    if isinstance(est, Reused):
        if step % est.K == 0:
            return [(i, f, p, (i, f)) for i, f, p in _inner_options(est.inner, N)]
        return [(("stored", stored[0]), None, 1.0, stored)]
    if isinstance(est, VRMinibatch):
        n1 = est.anchor_size(_N(N))
        mb = _subsets(range(N), est.n2, est.replace)
        if step % est.m != 0:
            return [(t, (lambda M, t=t: VRDraws(None, col(t, M))), p, None) for t, p in mb]
        anchors = [((), 1.0)] if (n1 == N and not est.replace) else _subsets(range(N), n1, est.replace)
        return [((a, t), (lambda M, a=a, t=t: VRDraws(a if a == () else col(a, M), col(t, M))), pa * pt, None)
                for a, pa in anchors for t, pt in mb]
    if isinstance(est, SAGA):
        return [(t, (lambda M, t=t: col(t, M)), p, None) for t, p in _subsets(range(N), est.n, False)]
    return [(i, f, p, None) for i, f, p in _inner_options(est, N)]


@dataclass(frozen=True)
class _N:
    n_data: int


def _flatten(theta, est_state, int_state) -> np.ndarray:
    parts = [theta]
    if isinstance(int_state, SGHMCState):
        parts.append(int_state.v)
    if isinstance(est_state, VRState):
        parts += [est_state.theta_tilde, est_state.g_tilde]
    if isinstance(est_state, SAGAState) and est_state.table is not None:
        parts += [est_state.table.reshape(theta.shape[0], -1), est_state.total]
    return np.concatenate(parts, axis=1)


def _unflatten(x, d, sampler, k: int, stored_draws, saga_ready: bool):
    M = x.shape[0]
    theta = np.ascontiguousarray(x[:, :d])
    pos = d
    int_state = ()  # the empty state of a first-order integrator
    if sampler.integrator.name == "sghmc":
        int_state = SGHMCState(np.ascontiguousarray(x[:, pos:pos + d]), k)
        pos += d
    est = sampler.estimator
    if isinstance(est, VRMinibatch):
        est_state = VRState(x[:, pos:pos + d].copy(), x[:, pos + d:pos + 2 * d].copy(), k)
    elif isinstance(est, SAGA):
        N = sampler.model.n_data
        est_state = SAGAState(None, None) if not saga_ready else SAGAState(
            np.ascontiguousarray(x[:, pos:pos + N * d].reshape(M, N, d)), x[:, pos + N * d:pos + N * d + d].copy())
    elif isinstance(est, Reused):
        est_state = ReuseState(stored_draws, k)
    else:
        est_state = None
    return theta, est_state, int_state


def _step(sampler, x, xi, zeta, k, draws, stored_draws, saga_ready):
    """One simulator step on the probes x (M, Ds): returns the flattened new states (M, Ds')."""
    d = sampler.model.dim
    theta, est_state, int_state = _unflatten(x, d, sampler, k, stored_draws, saga_ready)
    est = sampler.estimator
    g, est_state = est.apply(sampler.model, theta, est_state, draws)
    noise = sampler._noise  # as Sampler.step: the constant noise matrix, else the one at theta
    if noise is None:
        noise = sampler.integrator.noise_matrix(sampler.h, est.noise_cov(sampler.model, theta))
    int_state = sampler.integrator.update(theta, g, xi.copy(), sampler.h, noise, int_state, _FixedNormals(zeta))
    return _flatten(theta, est_state, int_state), est_state


def _affine_map(run, Ds: int, d: int):
    """(A, a, B, C) of x' = A x + a + B xi + C zeta, identified by probing ``run(x, xi, zeta)``."""
    M = 1 + Ds + 2 * d
    X, Xi, Ze = np.zeros((M, Ds)), np.zeros((M, d)), np.zeros((M, d))
    X[1:1 + Ds] = np.eye(Ds)
    Xi[1 + Ds:1 + Ds + d] = np.eye(d)
    Ze[1 + Ds + d:] = np.eye(d)
    out = run(X, Xi, Ze)
    a = out[0]
    A = (out[1:1 + Ds] - a).T
    B = (out[1 + Ds:1 + Ds + d] - a).T
    C = (out[1 + Ds + d:] - a).T
    return A, a, B, C


def enumerate_moments(sampler, theta0, k_max: int, cov0=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(E theta_k, Cov theta_k) for k = 0..k_max] by enumerating every draw sequence (module docstring)."""
    model = sampler.model
    d, N = model.dim, model.n_data
    theta0 = np.asarray(theta0, dtype=np.float64).reshape(1, d)
    # initial state through the simulator's init (SGHMC draws v_0 from the generator: probe it)
    init_est = sampler.estimator.init(model, 1, np.random.default_rng(0))
    rows = []
    for j in range(d + 1):
        z = np.zeros((1, d)) if j == 0 else np.eye(d)[j - 1:j]
        ist = sampler.integrator.init_state(theta0.copy(), sampler.h, _FixedNormals(z))
        rows.append(_flatten(theta0.copy(), init_est, ist)[0])
    m = rows[0]
    Cv = np.array(rows[1:]) - m if len(rows) > 1 else np.zeros((0, m.size))
    cov = Cv.T @ Cv
    if cov0 is not None:
        cov[:d, :d] += cov0
    # branches grouped by the stored draw of Reused, (draw id, builder), or None: key -> (probs, means, covariances)
    groups = {None: (np.ones(1), m[None, :], cov[None])}
    out = [(m[:d], cov[:d, :d])]
    saga_ready = False
    for k in range(k_max):
        new: dict = {}
        for stored, (w, mus, Ss) in groups.items():
            for _, f, p, newkey in _options(sampler.estimator, N, k, stored):
                def run(X, Xi, Ze, f=f, stored=stored, k=k, saga_ready=saga_ready):
                    M = X.shape[0]
                    if f is None:
                        return _step(sampler, X, Xi, Ze, k, None, stored[1](M), saga_ready)[0]
                    return _step(sampler, X, Xi, Ze, k, f(M), None, saga_ready)[0]
                A, a, B, C = _affine_map(run, mus.shape[1], d)
                part = (w * p, mus @ A.T + a, A @ Ss @ A.T + (B @ B.T + C @ C.T))
                if newkey in new:
                    part = tuple(np.concatenate([o, q]) for o, q in zip(new[newkey], part, strict=True))
                new[newkey] = part
        groups = new
        saga_ready = True
        w = np.concatenate([g[0] for g in groups.values()])
        means = np.concatenate([g[1][:, :d] for g in groups.values()])
        covs = np.concatenate([g[2][:, :d, :d] for g in groups.values()])
        E = _psum(w * means.T)  # pairwise summation over the branches (their number reaches 10^6)
        second = _psum(w * covs.reshape(len(w), -1).T).reshape(d, d) + \
            _psum(w * (means[:, :, None] * means[:, None, :]).reshape(len(w), -1).T).reshape(d, d)
        out.append((E, second - np.outer(E, E)))
    return out


def _psum(rows: np.ndarray) -> np.ndarray:
    """Sum along the last axis of a C-contiguous copy (numpy's pairwise summation)."""
    return np.ascontiguousarray(rows).sum(axis=-1)


def enumerate_time_average(sampler, theta0, burn_in: int, n_steps: int, target: float, a=None, B=None,
                           cov0=None) -> tuple[float, float]:
    """(E avg, E (avg - target)^2) of avg = (1/L) sum_{k=b}^{b+L-1} phi(theta_k), phi = a^T theta or theta^T B theta,
    by enumerating every draw sequence: per sequence the window's thetas are jointly Gaussian (tracked through their
    covariance with the current state), and Gaussian moments of linear / quadratic forms are exact."""
    model = sampler.model
    d, N = model.dim, model.n_data
    e = burn_in + n_steps - 1
    ref0 = _initial(sampler, theta0, cov0)
    # per branch: prob, state mean, state cov, window mean (W d), window cov (W d, W d), cross (W d, Ds), stored key
    br = [(1.0, ref0[0], ref0[1], np.zeros(0), np.zeros((0, 0)), np.zeros((0, ref0[0].size)), None)]
    saga_ready = False
    for k in range(e + 1):
        if k >= burn_in:  # theta_k joins the window
            br = [(p, mu, S, np.concatenate([wm, mu[:d]]),
                   np.block([[wc, cr[:, :d]], [cr[:, :d].T, S[:d, :d]]]), np.vstack([cr, S[:d]]), key)
                  for p, mu, S, wm, wc, cr, key in br]
        if k == e:
            break
        new = []
        for p, mu, S, wm, wc, cr, stored in br:
            for _, f, q, newkey in _options(sampler.estimator, N, k, stored):
                def run(X, Xi, Ze, f=f, stored=stored, k=k, saga_ready=saga_ready):
                    M = X.shape[0]
                    if f is None:
                        return _step(sampler, X, Xi, Ze, k, None, stored[1](M), saga_ready)[0]
                    return _step(sampler, X, Xi, Ze, k, f(M), None, saga_ready)[0]
                A, c, Bn, Cn = _affine_map(run, mu.size, d)
                new.append((p * q, A @ mu + c, A @ S @ A.T + Bn @ Bn.T + Cn @ Cn.T, wm, wc, cr @ A.T, newkey))
        br = new
        saga_ready = True
    L = n_steps
    mean, mse = 0.0, 0.0
    for p, _, _, wm, wc, _, _ in br:
        if a is not None:
            w = np.tile(a, L)
            m_b, v_b = w @ wm, w @ wc @ w
        else:
            Bt = np.kron(np.eye(L), B)
            m_b = np.trace(Bt @ wc) + wm @ Bt @ wm
            v_b = 2 * np.trace(Bt @ wc @ Bt @ wc) + 4 * wm @ Bt @ wc @ Bt @ wm
        mean += p * m_b / L
        mse += p * (v_b / L**2 + (m_b / L - target) ** 2)
    return mean, mse


def _initial(sampler, theta0, cov0):
    d = sampler.model.dim
    theta0 = np.asarray(theta0, dtype=np.float64).reshape(1, d)
    init_est = sampler.estimator.init(sampler.model, 1, np.random.default_rng(0))
    rows = []
    for j in range(d + 1):
        z = np.zeros((1, d)) if j == 0 else np.eye(d)[j - 1:j]
        ist = sampler.integrator.init_state(theta0.copy(), sampler.h, _FixedNormals(z))
        rows.append(_flatten(theta0.copy(), init_est, ist)[0])
    m = rows[0]
    Cv = np.array(rows[1:]) - m
    cov = Cv.T @ Cv
    if cov0 is not None:
        cov[:d, :d] += cov0
    return m, cov
