"""Shared test helper: two RunResults are the same run, to the last bit (the reproducibility contract of
simulate.runtime: blocks, threads, workers and drawing ahead must not change a number)."""

from __future__ import annotations

import numpy as np

from simulate import RunResult


def assert_runs_identical(a: RunResult, b: RunResult) -> None:
    assert (a.n_chains, a.chain_offset, a.seed, a.block_size, a.total_steps, a.grads_per_chain) == (
        b.n_chains, b.chain_offset, b.seed, b.block_size, b.total_steps, b.grads_per_chain)
    assert a.time_averages.keys() == b.time_averages.keys() and a.snapshots.keys() == b.snapshots.keys()
    for k in a.time_averages:
        np.testing.assert_array_equal(a.time_averages[k], b.time_averages[k])
    for k in a.snapshots:
        np.testing.assert_array_equal(a.snapshots[k], b.snapshots[k])
    np.testing.assert_array_equal(a.trace_steps, b.trace_steps)
    np.testing.assert_array_equal(a.trace, b.trace)
    np.testing.assert_array_equal(a.final, b.final)
