"""Brute-force referee for exact laws: enumerate every sequence of an estimator's draws and integrate the Gaussian
noise exactly, using only the SIMULATOR's code (never theory.linear_gaussian).

It knows no sampler by name. An estimator lists its draws (``draw_support``, :class:`simulate.contracts.
SupportsDrawEnumeration`); the chain's state (theta, the estimator's state, the integrator's state) is read as a tree
whose float arrays with a leading chain axis are the continuous state and whose other leaves (step counters, stored
minibatch indices, None) are discrete; the integrator may draw standard normals from its generator (a momentum
refresh), which the referee supplies as probes. Given the draws and the discrete state, one step is an affine map of
(continuous state, injected normals xi, the integrator's normals); the referee identifies it by running the
simulator's own ``estimator.apply`` and ``integrator.update`` on probe inputs (zero and unit vectors, one probe per
chain), propagates the Gaussian law (mean, covariance) of the state along every draw sequence, and mixes the
sequences with their probabilities. Sequences that share their discrete state share their maps, so they are
propagated together. Exponential in k; meant for N = 5, n = 2, k <= 5.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from simulate.contracts import SupportsDrawEnumeration

#: Standard normals an integrator may draw per chain in one call of init_state or update, in units of d.
NORMALS_PER_DIM = 4


class RefereeError(Exception):
    """The referee cannot enumerate this sampler (its estimator lists no draws, or the integrator draws other than
    standard normals)."""


class _Normals:
    """Stands in for the generator inside ``init_state`` / ``update``: hands out columns of a probe matrix."""

    def __init__(self, values: np.ndarray) -> None:
        self.values, self.used = values, 0

    def standard_normal(self, size=None, dtype=np.float64, out=None) -> np.ndarray:
        shape = (size,) if isinstance(size, int) else tuple(size)
        k = int(np.prod(shape[1:], dtype=np.int64))
        if shape[0] != self.values.shape[0] or self.used + k > self.values.shape[1]:
            raise RefereeError(f"the integrator draws normals of shape {shape}: the referee supplies up to "
                               f"{self.values.shape[1]} per chain and step, with the chains first")
        block = self.values[:, self.used:self.used + k].reshape(shape).copy()
        self.used += k
        return block

    def __getattr__(self, name: str):
        raise RefereeError(f"the integrator calls rng.{name}: the referee supplies standard normals only")


class _NoDraws:
    """The generator handed to an estimator's ``init``: enumeration needs a deterministic initial state."""

    def __getattr__(self, name: str):
        raise RefereeError(f"the estimator's init calls rng.{name}: the referee needs a deterministic initial state")


# ----------------------------------------------------------------------------------------------- state as a tree
def _split(obj, M: int, parts: list) -> Any:
    """The tree ``obj`` with its continuous leaves (float arrays (M, ...)) moved to ``parts`` as (M, k) blocks and
    replaced by their position and shape."""
    if isinstance(obj, np.ndarray) and obj.dtype.kind == "f" and obj.ndim >= 1 and obj.shape[0] == M:
        parts.append(np.asarray(obj, dtype=np.float64).reshape(M, -1))
        return _Slot(len(parts) - 1, obj.shape[1:])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_split(v, M, parts) for v in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_split(v, M, parts) for v in obj)
    if isinstance(obj, dict):
        return {k: _split(v, M, parts) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: _split(getattr(obj, f.name), M, parts)
                                           for f in dataclasses.fields(obj) if f.init})
    return obj


@dataclasses.dataclass(frozen=True)
class _Slot:
    index: int
    shape: tuple


def _join(tree, blocks: list[np.ndarray]):
    """Inverse of :func:`_split`: fresh contiguous copies of the blocks in place of their slots."""
    if isinstance(tree, _Slot):
        b = blocks[tree.index]
        return np.ascontiguousarray(b.reshape((b.shape[0],) + tree.shape)).copy()
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(_join(v, blocks) for v in tree))
    if isinstance(tree, (tuple, list)):
        return type(tree)(_join(v, blocks) for v in tree)
    if isinstance(tree, dict):
        return {k: _join(v, blocks) for k, v in tree.items()}
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        return dataclasses.replace(tree, **{f.name: _join(getattr(tree, f.name), blocks)
                                            for f in dataclasses.fields(tree) if f.init})
    return tree


def _key(tree) -> Any:
    """A hashable summary of the discrete part of a split tree."""
    if isinstance(tree, _Slot):
        return ("slot", tree.index, tree.shape)
    if isinstance(tree, np.ndarray):
        return ("array", tree.dtype.str, tree.shape, tree.tobytes())
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__,) + tuple(_key(v) for v in tree)
    if isinstance(tree, dict):
        return ("dict",) + tuple((k, _key(v)) for k, v in sorted(tree.items()))
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        return (type(tree).__name__,) + tuple(_key(getattr(tree, f.name)) for f in dataclasses.fields(tree))
    if isinstance(tree, (int, float, str, bool, type(None), np.integer, np.floating)):
        return tree
    return ("object", id(tree))


class _State:
    """A sampler state (theta, estimator state, integrator state) split into a (M, D) matrix and a template."""

    def __init__(self, theta, est_state, int_state, M: int) -> None:
        parts: list[np.ndarray] = []
        self.template = _split((theta, est_state, int_state), M, parts)
        self.sizes = [p.shape[1] for p in parts]
        self.X = np.concatenate(parts, axis=1)
        self.key = _key(self.template)

    def rebuild(self, X: np.ndarray):
        cuts = np.cumsum([0] + self.sizes)
        return _join(self.template, [X[:, a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)])


# ----------------------------------------------------------------------------------------------- one step
class _Prober:
    """Runs init and steps of ``sampler`` on M probe chains and reads off affine maps."""

    def __init__(self, sampler, d_max: int) -> None:
        self.s, self.d = sampler, sampler.model.dim
        self.Z = NORMALS_PER_DIM * self.d
        self.D = d_max
        self.M = max(1 + d_max + self.d + self.Z, sampler.model.n_data + 1)

    def _noise_matrix(self, est_state, theta):
        """What Sampler uses: the constant noise matrix, else the one from the estimator's covariance at theta."""
        s = self.s
        if not s.integrator.needs_noise_cov:
            return s.integrator.noise_matrix(s.h, None)
        cov = s.estimator.step_noise_cov(est_state)
        if cov is None:
            cov = s.estimator.noise_cov(s.model, None if s.model.grad_cov_is_constant else theta)
        return s.integrator.noise_matrix(s.h, cov)

    def initial(self, theta0: np.ndarray, cov0: np.ndarray | None) -> tuple[_State, np.ndarray, np.ndarray]:
        """(state template, mean, covariance) of the initial state, theta_0 ~ N(theta0, cov0)."""
        d, M = self.d, self.M
        theta = np.repeat(theta0[None, :], M, 0)
        theta[1:1 + d] += np.eye(d)
        normals = np.zeros((M, self.Z))
        normals[1 + d:1 + d + self.Z] = np.eye(self.Z)
        est_state = self.s.estimator.init(self.s.model, M, _NoDraws())
        int_state = self.s.integrator.init_state(theta.copy(), self.s.h, _Normals(normals))
        st = _State(theta, est_state, int_state, M)
        m = st.X[0]
        J = st.X[1:1 + d] - m
        C = st.X[1 + d:1 + d + self.Z] - m
        cov = C.T @ C + (0 if cov0 is None else J.T @ cov0 @ J)
        return st, m, cov

    def step(self, st: _State, k: int, draws) -> tuple[_State, np.ndarray, np.ndarray, np.ndarray]:
        """(new template, A, a, W) of x' = A x + a + W eta, eta the step's standard normals (xi, then the
        integrator's)."""
        s, d, M, D = self.s, self.d, self.M, st.X.shape[1]
        if D > self.D:
            raise RefereeError(f"the state grew to {D} coordinates, beyond the {self.D} the referee was sized for")
        X = np.zeros((M, D))
        X[1:1 + D] = np.eye(D)
        xi = np.zeros((M, d))
        xi[1 + self.D:1 + self.D + d] = np.eye(d)
        normals = np.zeros((M, self.Z))
        normals[1 + self.D + d:1 + self.D + d + self.Z] = np.eye(self.Z)
        theta, est_state, int_state = st.rebuild(X)
        g, est_state = s.estimator.apply(s.model, theta, est_state, draws)
        noise = self._noise_matrix(est_state, theta)
        theta, int_state = s.integrator.update(theta, g, xi, s.h, noise, int_state, _Normals(normals))
        new = _State(theta, est_state, int_state, M)
        out = new.X
        a = out[0]
        A = (out[1:1 + D] - a).T
        W = (out[1 + self.D:1 + self.D + d + self.Z] - a).T
        return new, A, a, W


def _options(sampler, k: int, M: int) -> list[tuple[Any, float]]:
    est = sampler.estimator
    if not isinstance(est, SupportsDrawEnumeration):
        raise RefereeError(f"{type(est).__name__} does not list its draws (no draw_support): not enumerable")
    return est.draw_support(sampler.model, M, k)


def _state_size(sampler, theta0: np.ndarray, k_max: int) -> int:
    """The largest number of continuous state coordinates over k_max steps (one dry run of the simulator)."""
    M = max(sampler.model.n_data, sampler.model.dim) + 3  # no other axis has this length
    rng = np.random.default_rng(0)
    st = sampler.init(np.repeat(theta0[None, :], M, 0), rng)
    size = _State(st.theta, st.estimator_state, st.integrator_state, M).X.shape[1]
    for _ in range(k_max):
        st = sampler.step(st, rng)
        size = max(size, _State(st.theta, st.estimator_state, st.integrator_state, M).X.shape[1])
    return size


def branch_counts(sampler, k_max: int) -> list[int]:
    """Draw sequences after 1..k_max steps (products of the support sizes); RefereeError if not enumerable."""
    out, total = [], 1
    for k in range(k_max):
        total *= len(_options(sampler, k, 1))
        out.append(total)
    return out


def _walk(sampler, theta0, cov0, k_max: int, visit, accumulate=None) -> None:
    """Propagate every branch's Gaussian law for k_max steps; ``visit(k, groups)`` sees the branches at every k.

    ``groups``: discrete key -> (state template, probabilities (B,), means (B, D'), covariances (B, D', D')).
    With ``accumulate(k) -> c (d,) or None`` the branches carry one more Gaussian coordinate s (last, D' = D + 1),
    s += c^T theta_k before step k and s carried unchanged by the steps.
    """
    theta0 = np.asarray(theta0, dtype=np.float64).reshape(-1)
    d = sampler.model.dim
    extra = accumulate is not None
    pr = _Prober(sampler, _state_size(sampler, theta0, k_max))
    st, m, cov = pr.initial(theta0, cov0)
    if extra:
        m, cov = np.append(m, 0.0), np.pad(cov, ((0, 1), (0, 1)))
    groups = {st.key: (st, np.ones(1), m[None, :], cov[None])}
    for k in range(k_max + 1):
        c = accumulate(k) if extra else None
        if c is not None:
            def add(mus, Ss, c=c):
                T = np.eye(mus.shape[1])
                T[-1, :d] += c
                return mus @ T.T, T @ Ss @ T.T
            groups = {key: (g[0], g[1]) + add(g[2], g[3]) for key, g in groups.items()}
        visit(k, groups)
        if k == k_max:
            return
        new: dict = {}
        for st, w, mus, Ss in groups.values():
            for draws, p in _options(sampler, k, pr.M):
                nst, A, a, W = pr.step(st, k, draws)
                if extra:
                    A = np.block([[A, np.zeros((A.shape[0], 1))], [np.zeros((1, A.shape[1])), np.ones((1, 1))]])
                    a, W = np.append(a, 0.0), np.vstack([W, np.zeros((1, W.shape[1]))])
                part = (w * p, mus @ A.T + a, A @ Ss @ A.T + W @ W.T)
                if nst.key in new:
                    o = new[nst.key]
                    part = tuple(np.concatenate([x, y]) for x, y in zip(o[1:], part, strict=True))
                new[nst.key] = (nst,) + part
        groups = new


def _psum(rows: np.ndarray) -> np.ndarray:
    """Sum along the last axis of a C-contiguous copy (numpy's pairwise summation)."""
    return np.ascontiguousarray(rows).sum(axis=-1)


def _mixture(groups, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probabilities, means (B, d), covariances (B, d, d)) of theta over all branches."""
    w = np.concatenate([g[1] for g in groups.values()])
    means = np.concatenate([g[2][:, :d] for g in groups.values()])
    covs = np.concatenate([g[3][:, :d, :d] for g in groups.values()])
    return w, means, covs


def enumerate_moments(sampler, theta0, k_max: int, cov0=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(E theta_k, Cov theta_k) for k = 0..k_max] by enumerating every draw sequence (module docstring)."""
    d = sampler.model.dim
    out = []

    def visit(k, groups):
        w, means, covs = _mixture(groups, d)
        E = _psum(w * means.T)  # pairwise summation over the branches (their number reaches 10^5)
        second = _psum(w * covs.reshape(len(w), -1).T).reshape(d, d) + \
            _psum(w * (means[:, :, None] * means[:, None, :]).reshape(len(w), -1).T).reshape(d, d)
        out.append((E, second - np.outer(E, E)))

    _walk(sampler, theta0, cov0, k_max, visit)
    return out


def enumerate_time_average(sampler, theta0, a, burn_in: int, n_steps: int, target: float,
                           cov0=None) -> tuple[float, float]:
    """(E avg, E (avg - target)^2) of avg = (1/L) sum_{k=b}^{b+L-1} a^T theta_k (Vollmer et al. eq. 7) by enumerating
    every draw sequence: per sequence the running sum is one more Gaussian coordinate of the state."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    e, L = burn_in + n_steps - 1, n_steps
    out = []

    def visit(k, groups):
        if k == e:
            w = np.concatenate([g[1] for g in groups.values()])
            mu = np.concatenate([g[2][:, -1] for g in groups.values()]) / L
            var = np.concatenate([g[3][:, -1, -1] for g in groups.values()]) / L**2
            out.append((float(_psum(w * mu)), float(_psum(w * (var + (mu - target) ** 2)))))

    _walk(sampler, theta0, cov0, e, visit, accumulate=lambda k: a if burn_in <= k <= e else None)
    return out[0]
