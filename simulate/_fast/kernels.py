"""Door 2 of the private fast package: a model's gradient kernels and fixed-order arithmetic.

* logistic regression (:mod:`._logistic`, vector code of :mod:`._simd`): minibatch sums, the control-variate
  difference, per-datum terms, SAGA's table; ``call`` runs a parallel kernel or shares it with a helper thread
  (:mod:`._team`, used while drawing ahead);
* Gaussian models: minibatch data sums; the Langevin update (:mod:`._elementwise`);
* fixed-order linear algebra and libm's exp (:mod:`._fixed`): the same bits on every CPU, unlike BLAS/LAPACK.
"""

from __future__ import annotations

import os

from ._elementwise import langevin_step, take_sum_flat, take_sum_rows
from ._fixed import cholesky, eigvalsh, exp, gram, matmul, solve_spd
from ._logistic import (
    call,
    concurrent_calls_safe,
    diff_sum,
    diff_sum_shared,
    grad_sum,
    grad_sum_shared,
    n_items,
    per_datum,
    saga_gather_diff,
    saga_scatter_total,
    saga_table,
)
from ._simd import ALIGN, LANES, blocks, padded, sigmoid_neg
from ._team import Team, current


def prefer_passive_wait() -> None:
    """Set OMP_WAIT_POLICY=PASSIVE unless the user chose a policy, before numba's OpenMP threads start.

    Spinning OpenMP workers made each kernel call wait for a descheduled thread whenever the cores were busy with
    other processes (README, "Performance"). Called by :func:`simulate.run` before its first step, not at import.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


__all__ = ["ALIGN", "LANES", "Team", "blocks", "call", "cholesky", "concurrent_calls_safe", "current", "diff_sum",
           "diff_sum_shared", "eigvalsh", "exp", "gram", "grad_sum", "grad_sum_shared", "langevin_step", "matmul",
           "n_items", "padded", "per_datum", "prefer_passive_wait", "saga_gather_diff", "saga_scatter_total",
           "saga_table", "sigmoid_neg", "solve_spd", "take_sum_flat", "take_sum_rows"]
