"""The array namespace a sampler's step is written against: one definition of each estimator and integrator, run by
numpy (bit for bit, in place) and by any other array backend that registers a namespace (the JAX backend,
``run(..., backend="jax")``).

A step's mathematics uses three kinds of operations:

* arithmetic written with Python operators, including augmented assignment (``g *= s``, ``theta += v``): numpy
  updates the array in place, an immutable array (JAX) rebinds the name to a new array; either way the code
  *returns* what it computed (an integrator returns the new theta, an estimator its estimate and state);
* the model's gradients, called on the ``model`` the step is handed (a backend hands its own view of the model,
  with the same methods);
* the primitives below, taken from ``xp = namespace_of(theta)``: control flow that depends on the step number
  (:meth:`NumpyNamespace.cond`, :meth:`NumpyNamespace.select`), fixed-order products, SAGA's table, copies. numpy's
  primitives are the existing fixed-order kernels of the private fast package, so every number of the numpy path is
  the one it was; another backend implements the same list.

Random numbers come from the ``rng`` a step is handed: a ``numpy.random.Generator`` (numpy) or a backend's stream
with the same methods (``standard_normal``; minibatch indices through
:func:`simulate.estimators.subsample.sample_indices`). :func:`draw_when` draws only where a step needs fresh
numbers (an epoch's anchor, a reused minibatch's refresh): numpy draws nothing otherwise (so the stream is consumed as
before), a backend with counter-based keys may hand back numbers it computes only where they are used.

A sampler's definition never names a backend; a backend's module registers its namespace with
:func:`register_namespace`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ._fast import kernels


class ArrayNamespace(Protocol):
    """What a backend provides beside its arrays' operators (:class:`NumpyNamespace` documents each member)."""

    name: str

    def owns(self, x: Any) -> bool: ...

    def cond(self, pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any: ...

    def select(self, pred: Any, a: Any, b: Any) -> Any: ...

    def copy(self, x: Any) -> Any: ...

    def assign(self, dst: Any, src: Any) -> Any: ...

    def langevin_step(self, theta: Any, grad: Any, half_h: float, xi: Any, noise: Any) -> Any: ...

    def matmul(self, a: Any, b: Any) -> Any: ...

    def einsum(self, spec: str, *operands: Any) -> Any: ...

    def ascontiguousarray(self, x: Any) -> Any: ...

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any: ...

    def stack(self, arrays: list, axis: int = 0) -> Any: ...

    def all_indices(self, n_data: int, n_chains: int) -> Any: ...

    def indices(self, idx: Any) -> Any: ...

    def swapaxes(self, x: Any, a: int, b: int) -> Any: ...

    def saga_gather_diff(self, table: Any, idx: Any, g_new: Any) -> tuple[Any, Any]: ...

    def saga_scatter_total(self, table: Any, idx: Any, g_new: Any, g_old: Any, total: Any) -> tuple[Any, Any]: ...


class NumpyNamespace:
    """numpy's primitives: the in-place sequences and fixed-order kernels the simulator has always run."""

    name = "numpy"

    def owns(self, x: Any) -> bool:
        """Whether ``x`` is numpy's: a numpy array (anything else is left to the registered backends).

        Parameters
        ----------
        x : object
            An array or scalar a step holds.

        Returns
        -------
        bool
            True for a ``numpy.ndarray``.
        """
        return isinstance(x, np.ndarray)

    def cond(self, pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
        """``true_fn()`` if ``pred`` else ``false_fn()``: only the branch taken is computed.

        Parameters
        ----------
        pred : bool
            A step-number test, e.g. ``step % m == 0`` (an epoch's start).
        true_fn, false_fn : callable
            Functions of no argument computing each branch.

        Returns
        -------
        object
            The value of the branch taken.
        """
        return true_fn() if pred else false_fn()

    def select(self, pred: Any, a: Any, b: Any) -> Any:
        """``a`` if ``pred`` else ``b``, both already computed.

        Parameters
        ----------
        pred : bool
            A step-number test.
        a, b : object
            The two values.

        Returns
        -------
        object
            ``a`` or ``b`` (not a copy).
        """
        return a if pred else b

    def copy(self, x: np.ndarray) -> np.ndarray:
        """A float64 copy that shares no memory with ``x``.

        Parameters
        ----------
        x : array_like
            The values to copy.

        Returns
        -------
        numpy.ndarray
            A new float64 array equal to ``x``.
        """
        return np.array(x, dtype=np.float64, copy=True)

    def assign(self, dst: np.ndarray, src: np.ndarray) -> np.ndarray:
        """``dst[...] = src`` in place.

        Parameters
        ----------
        dst : numpy.ndarray
            The array overwritten.
        src : array_like
            The values written (broadcast to ``dst``'s shape).

        Returns
        -------
        numpy.ndarray
            ``dst`` itself.
        """
        dst[...] = src
        return dst

    def langevin_step(self, theta: np.ndarray, grad: np.ndarray, half_h: float, xi: np.ndarray,
                      noise: Any) -> np.ndarray:
        """The Langevin update theta <- (theta + grad half_h) + xi noise elementwise, in place.

        One numba pass for C-contiguous float64 arrays and a scalar noise, else the numpy in-place sequence (the same
        bits); the order of operations is fixed, so the result is bit for bit the same on every CPU.

        Parameters
        ----------
        theta : numpy.ndarray
            The chains' positions, (M, d); updated in place.
        grad : numpy.ndarray
            The gradient estimate, same shape; may be overwritten.
        half_h : float
            The gradient's coefficient (``h / 2`` for SGLD).
        xi : numpy.ndarray
            Standard normal draws, same shape; may be overwritten.
        noise : float or numpy.ndarray
            The noise scale (``sqrt(h)`` for SGLD), a scalar or broadcastable to ``theta``.

        Returns
        -------
        numpy.ndarray
            ``theta``, updated.

        References
        ----------
        Welling & Teh (2011), eq. (4) (the SGLD step; this is its arithmetic).
        """
        if (grad.shape == theta.shape == xi.shape and theta.dtype == grad.dtype == xi.dtype == np.float64
                and theta.flags.c_contiguous and np.ndim(noise) == 0):
            kernels.langevin_step(theta.reshape(-1), grad.reshape(-1), xi.reshape(-1), half_h, float(noise))
            return theta
        grad *= half_h
        theta += grad
        xi *= noise
        theta += xi
        return theta

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a @ b`` in a fixed order of operations (no BLAS): the same bits on every CPU.

        Parameters
        ----------
        a, b : numpy.ndarray
            Matrices (or stacks of them) with matching inner dimensions.

        Returns
        -------
        numpy.ndarray
            The product.
        """
        return kernels.matmul(a, b)

    def einsum(self, spec: str, *operands: Any) -> np.ndarray:
        """``numpy.einsum``.

        Parameters
        ----------
        spec : str
            The subscripts, e.g. ``"ij,mj->mi"``.
        *operands : numpy.ndarray
            The arrays.

        Returns
        -------
        numpy.ndarray
            The contraction.
        """
        return np.einsum(spec, *operands)

    def ascontiguousarray(self, x: Any) -> np.ndarray:
        """``numpy.ascontiguousarray(x, dtype=float64)``: C order for the kernels.

        Parameters
        ----------
        x : array_like
            The values.

        Returns
        -------
        numpy.ndarray
            A C-contiguous float64 array (``x`` itself where it already is one).
        """
        return np.ascontiguousarray(x, dtype=np.float64)

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> np.ndarray:
        """``numpy.broadcast_to`` (a read-only view).

        Parameters
        ----------
        x : array_like
            The values.
        shape : tuple of int
            The target shape.

        Returns
        -------
        numpy.ndarray
            A read-only view of ``x`` with that shape.
        """
        return np.broadcast_to(x, shape)

    def stack(self, arrays: list, axis: int = 0) -> np.ndarray:
        """``numpy.stack`` (e.g. a test function's columns).

        Parameters
        ----------
        arrays : list of numpy.ndarray
            Arrays of one shape.
        axis : int, default 0
            The new axis.

        Returns
        -------
        numpy.ndarray
            The stacked array.
        """
        return np.stack(arrays, axis=axis)

    def all_indices(self, n_data: int, n_chains: int) -> np.ndarray:
        """Every datum for every chain: the index array of a full-data "minibatch".

        Parameters
        ----------
        n_data : int
            The number of data N.
        n_chains : int
            The number of chains M.

        Returns
        -------
        numpy.ndarray
            An (N, M) broadcast view whose column m is 0..N-1.
        """
        return np.broadcast_to(np.arange(n_data)[:, None], (n_data, n_chains))

    def indices(self, idx: np.ndarray) -> np.ndarray:
        """Minibatch indices as the platform's index type.

        Parameters
        ----------
        idx : numpy.ndarray
            Integer indices, (n, M).

        Returns
        -------
        numpy.ndarray
            The same indices as ``numpy.intp``.
        """
        return idx.astype(np.intp)

    def swapaxes(self, x: np.ndarray, a: int, b: int) -> np.ndarray:
        """``numpy.swapaxes`` (a view).

        Parameters
        ----------
        x : numpy.ndarray
            The array.
        a, b : int
            The axes exchanged.

        Returns
        -------
        numpy.ndarray
            A view of ``x`` with axes ``a`` and ``b`` swapped.
        """
        return np.swapaxes(x, a, b)

    def saga_gather_diff(self, table: np.ndarray, idx: np.ndarray, g_new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """SAGA's gather: the stored gradients of a minibatch and the sum of their corrections.

        Parameters
        ----------
        table : numpy.ndarray
            The per-datum gradient table, (M, N, d).
        idx : numpy.ndarray
            The minibatch indices, (n, M).
        g_new : numpy.ndarray
            The minibatch's fresh per-datum gradients, (n, M, d).

        Returns
        -------
        g_old : numpy.ndarray
            ``g_old[j, m] = table[m, idx[j, m]]``, (n, M, d).
        g : numpy.ndarray
            ``g[m] = sum_j (g_new - g_old)[j, m]``, (M, d).

        References
        ----------
        Dubey et al. (2016), Sec. 3 (the SAGA-LD estimator's table).
        """
        g_old, g = np.empty_like(g_new), np.empty((g_new.shape[1], g_new.shape[2]))
        kernels.saga_gather_diff(table, idx, g_new, g_old, g)
        return g_old, g

    def saga_scatter_total(self, table: np.ndarray, idx: np.ndarray, g_new: np.ndarray, g_old: np.ndarray,
                           total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """SAGA's scatter: the table's rows of the minibatch and the running total, updated in place.

        Parameters
        ----------
        table : numpy.ndarray
            The per-datum gradient table, (M, N, d); ``table[m, idx[j, m]] <- g_new[j, m]``.
        idx : numpy.ndarray
            The minibatch indices, (n, M).
        g_new, g_old : numpy.ndarray
            The fresh and the stored gradients of the minibatch, (n, M, d).
        total : numpy.ndarray
            The table's row sums, (M, d); ``total[m] += sum_j (g_new - g_old)[j, m]``.

        Returns
        -------
        table, total : numpy.ndarray
            The two arrays, updated.

        References
        ----------
        Dubey et al. (2016), Sec. 3 (the SAGA-LD estimator's table).
        """
        kernels.saga_scatter_total(table, idx, g_new, g_old, total)
        return table, total


#: numpy's namespace (the default).
NUMPY = NumpyNamespace()
_OTHERS: list[ArrayNamespace] = []


def register_namespace(ns: ArrayNamespace) -> None:
    """Let :func:`namespace_of` recognise another backend's arrays (called by the backend's module on import).

    Parameters
    ----------
    ns : ArrayNamespace
        The backend's namespace; a second namespace with the same ``name`` is ignored.
    """
    if all(o.name != ns.name for o in _OTHERS):
        _OTHERS.append(ns)


def namespace_of(*arrays: Any) -> ArrayNamespace:
    """The namespace of the first argument that belongs to a registered backend; numpy's otherwise.

    Parameters
    ----------
    *arrays : object
        The arrays a step holds (theta first).

    Returns
    -------
    ArrayNamespace
        The owning backend's namespace, or :data:`NUMPY`.
    """
    if _OTHERS:
        for x in arrays:
            if isinstance(x, np.ndarray):
                continue
            for ns in _OTHERS:
                if ns.owns(x):
                    return ns
    return NUMPY


@runtime_checkable
class BackendStream(Protocol):
    """Another backend's random numbers for one step (a numpy ``Generator`` is numpy's): the methods a step calls
    where it would call numpy's generator, and where :func:`draw_when` and
    :func:`simulate.estimators.subsample.sample_indices` hand over."""

    def standard_normal(self, shape: tuple[int, ...]) -> Any: ...

    def minibatch_indices(self, n_data: int, n: int, n_chains: int, replace: bool) -> Any: ...

    def draw_when(self, pred: Any, draw: Callable[[], Any]) -> Any: ...


def draw_when(rng: Any, pred: Any, draw: Callable[[], Any]) -> Any:
    """Draws that a step needs only where ``pred`` (a step-number test) holds.

    From a numpy generator: ``draw()`` where ``pred`` holds, else None (the stream is consumed only then); a
    :class:`BackendStream` decides itself (counter-based streams hand back draws that are computed only where a step
    uses them).

    Parameters
    ----------
    rng : numpy.random.Generator or BackendStream
        The step's random numbers.
    pred : bool
        A step-number test (an epoch's anchor, a reused minibatch's refresh).
    draw : callable
        A function of no argument drawing from ``rng``.

    Returns
    -------
    object or None
        The draws, or None where ``pred`` fails (numpy).
    """
    if is_backend_stream(rng):
        return rng.draw_when(pred, draw)
    return draw() if pred else None


def is_backend_stream(rng: Any) -> bool:
    """Whether ``rng`` is another backend's :class:`BackendStream` (a numpy generator is answered first, cheaply).

    Parameters
    ----------
    rng : object
        The random numbers a step is handed.

    Returns
    -------
    bool
        False for a ``numpy.random.Generator``; True for an object with a BackendStream's methods.
    """
    return type(rng) is not np.random.Generator and isinstance(rng, BackendStream)


__all__ = ["NUMPY", "ArrayNamespace", "BackendStream", "NumpyNamespace", "draw_when", "is_backend_stream",
           "namespace_of", "register_namespace"]
