"""Door 2 of the private fast package: a model's gradient kernels and fixed-order arithmetic.

* logistic regression (:mod:`._logistic`, vector code of :mod:`._simd`): minibatch sums, the control-variate
  difference, per-datum terms, SAGA's table; ``call`` runs a parallel kernel or shares it with a helper thread
  (:mod:`._team`, used while drawing ahead);
* Gaussian models: minibatch data sums; the Langevin update (:mod:`._elementwise`);
* the grid law's power-sum recursion for minibatch sums without replacement (:mod:`._newton`);
* fixed-order linear algebra and libm's exp (:mod:`._fixed`): the same bits on every CPU, unlike BLAS/LAPACK;
* SGLD's whole step on a chain block, several steps per call, for the isotropic Gaussian mean model and logistic
  regression (:mod:`._fused_sgld`: draws, gradient, update and time-average sums, no GIL, nothing allocated);
* :func:`kernel_threads`: how many of numba's threads the parallel kernels of the calling thread use.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import numba

from . import _logistic
from ._elementwise import langevin_step, take_sum_flat, take_sum_rows
from ._fixed import cholesky, eigvalsh, exp, gram, matmul, solve_spd
from ._fused_sgld import gaussian as sgld_steps_gaussian
from ._fused_sgld import gaussian_parallel as sgld_steps_gaussian_parallel
from ._fused_sgld import logistic as sgld_steps_logistic
from ._fused_sgld import logistic_parallel as sgld_steps_logistic_parallel
from ._logistic import concurrent_calls_safe, diff_sum, diff_sum_shared, grad_sum, grad_sum_shared, n_items
from ._newton import newton_elementary
from ._simd import ALIGN, LANES, blocks, padded
from ._team import Team, current


def prefer_passive_wait() -> None:
    """Set OMP_WAIT_POLICY=PASSIVE unless the user chose a policy, before numba's OpenMP threads start.

    Spinning OpenMP workers made each kernel call wait for a descheduled thread whenever the cores were busy with
    other processes (README, "Performance"). Called before every parallel kernel of this door (and by
    :func:`simulate.run`), not at import: only a process that runs a parallel kernel is affected.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@contextlib.contextmanager
def kernel_threads(n: int) -> Iterator[int]:
    """Within the block, the parallel kernels called from this thread use at most ``n`` of numba's threads (at least
    1, at most ``NUMBA_NUM_THREADS``); yields that count. numba keeps the setting per calling thread, so block threads
    of one run each get their share and one thread = one core: no nested parallelism. Restored on exit."""
    old = numba.get_num_threads()
    use = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(use)
    try:
        yield use
    finally:
        numba.set_num_threads(old)


def call(kernel, shared, args: tuple) -> None:
    """A parallel logistic kernel, or its shared version with a helper thread (:func:`._logistic.call`)."""
    prefer_passive_wait()
    _logistic.call(kernel, shared, args)


def per_datum(Zp, theta, idx, out, nb) -> None:
    """out[j, m] = z_j sigma(-z_j^T theta[m]) (parallel over chains)."""
    prefer_passive_wait()
    _logistic.per_datum(Zp, theta, idx, out, nb)


def saga_table(Zp, theta, table, total, nb) -> None:
    """SAGA's table at theta and its total (parallel over chains)."""
    prefer_passive_wait()
    _logistic.saga_table(Zp, theta, table, total, nb)


def saga_gather_diff(table, idx, g_new, g_old, out) -> None:
    """g_old = the table entries of the minibatch, out = sum (g_new - g_old) (parallel over chains)."""
    prefer_passive_wait()
    _logistic.saga_gather_diff(table, idx, g_new, g_old, out)


def saga_scatter_total(table, idx, g_new, g_old, total) -> None:
    """The table entries of the minibatch <- g_new, total += sum (g_new - g_old) (parallel over chains)."""
    prefer_passive_wait()
    _logistic.saga_scatter_total(table, idx, g_new, g_old, total)


__all__ = ["ALIGN", "LANES", "Team", "blocks", "call", "cholesky", "concurrent_calls_safe", "current", "diff_sum",
           "diff_sum_shared", "eigvalsh", "exp", "gram", "grad_sum", "grad_sum_shared", "kernel_threads",
           "langevin_step", "matmul", "n_items", "newton_elementary", "padded", "per_datum", "prefer_passive_wait",
           "saga_gather_diff", "saga_scatter_total", "saga_table", "sgld_steps_gaussian",
           "sgld_steps_gaussian_parallel", "sgld_steps_logistic", "sgld_steps_logistic_parallel", "solve_spd",
           "take_sum_flat", "take_sum_rows"]
