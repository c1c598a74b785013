"""Random numbers of the JAX backend: one key per chain, so a chain's numbers do not depend on how chains are split.

Keys (threefry2x32, counter-based):

* the run's key is the seed's 64 bits as key data; chain c's key is ``fold_in(run key, c)`` (c its index in the
  whole run, not in a chunk);
* chain c's initial draws (an estimator's or integrator's initial state) use ``fold_in(chain key, 0)``; step k's
  draws use ``fold_in(fold_in(chain key, 1), k)``; a ``theta0(rng, m)`` callable draws from ``fold_in(chain key, 2)``;
* the i-th draw of a stream (in the order the step's code asks for them) uses ``fold_in(stream key, i)``.

So every number of chain c is a function of (seed, c, k, i) alone. Minibatch indices are handed back as
:class:`DeferredIndices` (the key and what to draw): they are drawn where a model's gradient reads them, so an
epoch's anchor or a reused minibatch's refresh, taken inside a ``lax.cond`` branch, costs nothing on the steps that
do not use it.

Without replacement, a chain's minibatch is Floyd's algorithm (Bentley & Floyd 1987): for j = N - n, ..., N - 1 draw t
uniform on {0, ..., j} and add t, or j if t is already taken; every n-subset has probability 1 / C(N, n). For
n > N / 2 the complement of an (N - n)-subset is taken. Uniform integers come from 64 random bits
(:func:`uniform_below`: a relative error below span / 2^64 on each probability).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

#: Largest minibatch drawn by Floyd's algorithm with its loop unrolled (larger n: a fori_loop).
UNROLL_MAX = 64


def key_data(seed: int) -> np.ndarray:
    """The 64 bits of ``seed`` as two 32-bit words (the run key's data; the same whatever JAX's x64 setting)."""
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=np.uint32)


def run_key(seed_key) -> jax.Array:
    """The run's threefry key from :func:`key_data` (a seed is converted)."""
    data = key_data(seed_key) if isinstance(seed_key, int) else seed_key
    return jax.random.wrap_key_data(jnp.asarray(data, dtype=jnp.uint32), impl="threefry2x32")


def _fold(keys: jax.Array, data) -> jax.Array:
    """``fold_in(key, data)`` for each key of ``keys`` (M,), one ``data`` for all."""
    return jax.vmap(jax.random.fold_in, (0, None))(keys, data)


def _chains(key: jax.Array, start, m: int) -> jax.Array:
    """The keys of chains start..start+m-1 of the run with key ``key`` (start may be traced, m not)."""
    return jax.vmap(jax.random.fold_in, (None, 0))(key, start + jnp.arange(m, dtype=jnp.uint32))


def chain_keys(seed_key, start, m: int) -> tuple[jax.Array, jax.Array]:
    """(initial keys, step keys) of chains start..start+m-1, each (m,); ``seed_key``: :func:`key_data`."""
    keys = _chains(run_key(seed_key), start, m)
    return _fold(keys, 0), _fold(keys, 1)


def theta0_keys(key: jax.Array, start: int, m: int) -> jax.Array:
    """The keys of a ``theta0(rng, m)`` callable's draws for chains start..start+m-1 (``fold_in(chain key, 2)``)."""
    return _fold(_chains(key, start, m), 2)


def uniform_below(key: jax.Array, shape: tuple[int, ...], span) -> jax.Array:
    """Integers uniform on {0, ..., span - 1} (span < 2^31, a number or an array of ``shape``), int32.

    With 64-bit types (the float64 backend) floor(u span / 2^64) for 64 random bits u, one threefry call, computed
    exactly in 64-bit integers as floor((hi span + floor(lo span / 2^32)) / 2^32); otherwise
    ``jax.random.randint``. Either way each value has probability 1/span up to a relative error below span / 2^64.
    """
    if not jax.config.jax_enable_x64:
        return jax.random.randint(key, shape, 0, span, dtype=jnp.int32)
    u = jax.random.bits(key, shape, dtype=jnp.uint64)
    span = jnp.asarray(span, dtype=jnp.uint64)
    lo32 = jnp.uint64(0xFFFFFFFF)
    hi = (u >> jnp.uint64(32)) * span + (((u & lo32) * span) >> jnp.uint64(32))
    return (hi >> jnp.uint64(32)).astype(jnp.int32)


def floyd(key: jax.Array, n_data: int, n: int) -> jax.Array:
    """A uniformly random n-subset of range(n_data) (Floyd's algorithm, module docstring), shape (n,), int32."""
    top = n_data - n + jnp.arange(n, dtype=jnp.int32)  # j = N - n, ..., N - 1
    t = uniform_below(key, (n,), top + 1)
    if n <= UNROLL_MAX:
        taken: list[jax.Array] = []
        for j in range(n):
            tj = t[j] if not taken else jnp.where(jnp.any(jnp.stack(taken) == t[j]), top[j], t[j])
            taken.append(tj)
        return jnp.stack(taken)
    slots = jnp.arange(n)

    def add(j, S):
        seen = jnp.any((S == t[j]) & (slots < j))
        return S.at[j].set(jnp.where(seen, top[j], t[j]))

    return jax.lax.fori_loop(0, n, add, jnp.zeros(n, dtype=jnp.int32))


def subset(key: jax.Array, n_data: int, n: int) -> jax.Array:
    """A uniformly random n-subset of range(n_data), shape (n,): Floyd's algorithm, or for n > N/2 the complement of
    an (N - n)-subset (in increasing order)."""
    if n == n_data:
        return jnp.arange(n, dtype=jnp.int32)
    if 2 * n <= n_data:
        return floyd(key, n_data, n)
    keep = jnp.ones(n_data, dtype=bool).at[floyd(key, n_data, n_data - n)].set(False)
    return jnp.nonzero(keep, size=n)[0].astype(jnp.int32)


@jax.tree_util.register_pytree_node_class
class DeferredIndices:
    """Minibatch indices (n, M) not drawn yet: per-chain keys, the draw's position in its stream and what to draw
    (N, n, with or without replacement), optionally relabelled through ``labels`` (a stratum's members)."""

    def __init__(self, keys: jax.Array, counter: Any, n_data: int, n: int, replace: bool,
                 labels: jax.Array | None = None) -> None:
        self.keys, self.counter, self.labels = keys, counter, labels
        self.n_data, self.n, self.replace = n_data, n, replace

    def tree_flatten(self):
        return (self.keys, self.counter, self.labels), (self.n_data, self.n, self.replace)

    @classmethod
    def tree_unflatten(cls, aux, children):
        keys, counter, labels = children
        return cls(keys, counter, *aux, labels)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.keys.shape[0])

    def relabel(self, labels) -> DeferredIndices:
        """The same draw read through ``labels`` (indices into a subset become indices of the data set)."""
        labels = jnp.asarray(labels, dtype=jnp.int32)
        if self.labels is not None:
            labels = labels[self.labels]
        return DeferredIndices(self.keys, self.counter, self.n_data, self.n, self.replace, labels)

    def draw(self) -> jax.Array:
        """The indices (n, M), int32."""
        keys = _fold(self.keys, self.counter)
        if self.replace:
            idx = jax.vmap(lambda k: uniform_below(k, (self.n,), self.n_data))(keys)
        else:
            idx = jax.vmap(lambda k: subset(k, self.n_data, self.n))(keys)
        idx = idx.T
        return idx if self.labels is None else self.labels[idx]


def materialise(idx) -> jax.Array:
    """Indices (n, M) as an int32 array: drawn if deferred, converted otherwise."""
    if isinstance(idx, DeferredIndices):
        return idx.draw()
    return jnp.asarray(idx, dtype=jnp.int32)


class KeyStream:
    """The random numbers of one step (or of the initial state) of M chains, drawn in order from per-chain keys
    (:class:`simulate.arrays.BackendStream`; the methods a step, an initial state or a ``theta0(rng, m)`` callable
    asks of numpy's generator)."""

    def __init__(self, keys: jax.Array, dtype) -> None:
        self.keys, self.dtype, self.count = keys, dtype, 0

    def _next(self) -> int:
        self.count += 1
        return self.count - 1

    def _per_chain(self, shape, draw: Callable[[jax.Array, tuple[int, ...]], jax.Array]) -> jax.Array:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or shape[0] != self.keys.shape[0]:
            raise ValueError(f"draws of shape {shape}: the first axis must be the {self.keys.shape[0]} chains")
        return jax.vmap(lambda k: draw(k, shape[1:]))(_fold(self.keys, self._next()))

    def standard_normal(self, shape) -> jax.Array:
        """N(0, 1) draws of ``shape`` (chains first)."""
        return self._per_chain(shape, lambda k, s: jax.random.normal(k, s, self.dtype))

    def normal(self, loc=0.0, scale=1.0, size=None) -> jax.Array:
        """N(loc, scale^2) draws of ``size`` (chains first)."""
        return loc + scale * self.standard_normal(size)

    def uniform(self, low=0.0, high=1.0, size=None) -> jax.Array:
        """Uniform draws on [low, high) of ``size`` (chains first)."""
        return low + (high - low) * self._per_chain(size, lambda k, s: jax.random.uniform(k, s, self.dtype))

    def minibatch_indices(self, n_data: int, n: int, n_chains: int, replace: bool) -> DeferredIndices:
        """n indices per chain from range(n_data), drawn where they are read (:class:`DeferredIndices`)."""
        if n_chains != self.keys.shape[0]:
            raise ValueError(f"indices for {n_chains} chains from a stream of {self.keys.shape[0]}")
        return DeferredIndices(self.keys, jnp.uint32(self._next()), n_data, n, replace)

    def draw_when(self, pred, draw: Callable[[], Any]) -> Any:
        """``draw()`` whatever ``pred``: its indices are deferred, so a step that does not read them draws nothing."""
        return draw()


def step_stream(step_keys: jax.Array, k, dtype) -> KeyStream:
    """The stream of step ``k`` for chains with step keys ``step_keys``."""
    return KeyStream(_fold(step_keys, k), dtype)
