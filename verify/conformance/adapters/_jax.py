"""M chains of a one-chain JAX step, run as ``jit(vmap(step))``: the shared part of the JAX adapters."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ..declared import Declared


class Unavailable(ImportError):
    """A peer library is not installed (or does not import): its cases are reported as skipped."""


def jax_x64():
    """Import jax with float64 enabled (the workbench's precision); raises Unavailable without jax."""
    try:
        import jax
    except ImportError as e:
        raise Unavailable(f"jax is not installed ({e}); pip install -e '.[bench]'") from None
    jax.config.update("jax_enable_x64", True)
    return jax


def import_sgmcmcjax():
    """Import SGMCMCJax. Its 0.2.13 release imports ``jax.experimental.host_callback`` (for progress bars only),
    which jax >= 0.4.35 removed: an empty stand-in module is put in its place first (the kernels never use it)."""
    jax = jax_x64()
    try:
        import jax.experimental.host_callback  # noqa: F401
    except ImportError:
        import jax.experimental

        stub = types.ModuleType("jax.experimental.host_callback")
        sys.modules["jax.experimental.host_callback"] = stub
        jax.experimental.host_callback = stub
    try:
        import sgmcmcjax.kernels as kernels
    except ImportError as e:
        raise Unavailable(f"sgmcmcjax is not importable ({e}); pip install -e '.[bench]'") from None
    return kernels


class JaxChains:
    """A :class:`verify.conformance.ChainStep` from one-chain functions ``init_one(key, theta) -> state``,
    ``step_one(i, key, state) -> state`` (i: the call number, shared by all chains) and ``position_one(state) ->
    theta``, vectorised over chains with ``vmap`` and compiled with ``jit``."""

    def __init__(self, name: str, declared: Declared, init_one: Callable, step_one: Callable,
                 position_one: Callable = lambda s: s) -> None:
        jax = jax_x64()
        self.name, self.declared = name, declared
        vstep = jax.vmap(step_one, in_axes=(None, 0, 0))
        vpos, vinit = jax.vmap(position_one), jax.vmap(init_one)

        def advance(key, i, states):
            key, sub = jax.random.split(key)
            return key, i + 1, vstep(i, jax.random.split(sub, jax.tree.leaves(states)[0].shape[0]), states)

        def start(key, theta0):
            key, sub = jax.random.split(key)
            return key, jax.numpy.zeros((), jax.numpy.int64), vinit(jax.random.split(sub, theta0.shape[0]), theta0)

        self._advance, self._pos, self._start = jax.jit(advance), jax.jit(vpos), jax.jit(start)
        self._jax = jax

    def init(self, theta0: np.ndarray, seed: int) -> Any:
        jnp = self._jax.numpy
        return self._start(self._jax.random.key(seed), jnp.asarray(theta0, dtype=jnp.float64))

    def step(self, state: Any) -> Any:
        return self._advance(*state)

    def position(self, state: Any) -> np.ndarray:
        return np.asarray(self._pos(state[2]))
