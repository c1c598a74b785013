"""The JAX backend's array namespace (:class:`simulate.arrays.ArrayNamespace`): the same primitives as numpy's, on
immutable arrays (each returns a new array) and with ``lax.cond`` where a step-number test is traced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..arrays import register_namespace
from .streams import materialise

HIGHEST = jax.lax.Precision.HIGHEST


def _known(pred: Any) -> bool | None:
    """pred as a Python bool when it is known while tracing (a Python or numpy value), else None."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    return None


class JaxNamespace:
    """jax.numpy and lax behind the primitives of :class:`simulate.arrays.NumpyNamespace`."""

    name = "jax"

    def owns(self, x: Any) -> bool:
        return isinstance(x, jax.Array)

    def cond(self, pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
        known = _known(pred)
        if known is not None:
            return true_fn() if known else false_fn()
        return jax.lax.cond(pred, true_fn, false_fn)

    def select(self, pred: Any, a: Any, b: Any) -> Any:
        known = _known(pred)
        if known is not None:
            return a if known else b
        return jnp.where(pred, a, b)

    def copy(self, x: Any) -> jax.Array:
        return jnp.asarray(x)

    def assign(self, dst: jax.Array, src: Any) -> jax.Array:
        return jnp.asarray(src, dtype=dst.dtype)

    def langevin_step(self, theta, grad, half_h: float, xi, noise) -> jax.Array:
        return (theta + grad * half_h) + xi * noise

    def matmul(self, a, b) -> jax.Array:
        return jnp.matmul(a, b, precision=HIGHEST)

    def einsum(self, spec: str, *operands: Any) -> jax.Array:
        return jnp.einsum(spec, *operands, precision=HIGHEST)

    def ascontiguousarray(self, x: Any) -> jax.Array:
        return jnp.asarray(x)

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> jax.Array:
        return jnp.broadcast_to(x, shape)

    def stack(self, arrays: list, axis: int = 0) -> jax.Array:
        return jnp.stack(arrays, axis=axis)

    def all_indices(self, n_data: int, n_chains: int) -> jax.Array:
        return jnp.broadcast_to(jnp.arange(n_data, dtype=jnp.int32)[:, None], (n_data, n_chains))

    def indices(self, idx: Any) -> jax.Array:
        return materialise(idx)

    def swapaxes(self, x, a: int, b: int) -> jax.Array:
        return jnp.swapaxes(x, a, b)

    def saga_gather_diff(self, table, idx, g_new) -> tuple[jax.Array, jax.Array]:
        chains = jnp.arange(table.shape[0])[None, :]
        g_old = table[chains, idx]  # (n, M, d)
        return g_old, jnp.sum(g_new - g_old, axis=0)

    def saga_scatter_total(self, table, idx, g_new, g_old, total) -> tuple[jax.Array, jax.Array]:
        chains = jnp.arange(table.shape[0])[None, :]
        return table.at[chains, idx].set(g_new), total + jnp.sum(g_new - g_old, axis=0)


JAX = JaxNamespace()
register_namespace(JAX)
