"""Chain blocks: the unit of reproducibility, threading and distribution.

Chains are split into blocks of ``block_size`` consecutive chains; block b draws every random number (initial
state, minibatches, noise) from its own generator ``PCG64(SeedSequence(seed, spawn_key=(b,)))`` (:func:`block_rng`).
So a run is a function of (seed, n_chains, block_size) only: blocks run together, apart, in threads or on other
workers join (:meth:`simulate.RunResult.concatenate`) into the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..memory import available_memory
from ..sampler import Sampler
from ..validation import ParameterError

#: Chains per block of :func:`simulate.run` by default (part of what fixes a run's numbers).
DEFAULT_BLOCK_SIZE = 32768


#: Working arrays of shape (block, d) a step may hold at once (state, gradient, noise, temporaries), for the
#: memory estimate of :func:`check_memory`; the minibatch indices add n per chain.
WORKING_ARRAYS = 16


def check_memory(sampler: Sampler, n_chains: int, n_test_functions: int, n_snapshots: int, n_trace: int,
                 block: int) -> None:
    """Refuse a run whose memory, O(M d) outputs plus the blocks' O(block (d + n)) working set, exceeds what is free.

    Per-chain outputs: time averages (one (M, d) array per test function), snapshots, the final state and the
    opt-in trace, 8 bytes per number; independent of the number of steps (statistics are streamed). The
    estimator's own per-chain state (e.g. SAGA's gradient table) is checked by the estimator; the per-step work is
    estimated from the gradient evaluations per chain-step (capped at 1024) and ``WORKING_ARRAYS``.

    Parameters
    ----------
    sampler : Sampler
        The sampler to run.
    n_chains : int
        M, the chains whose outputs are kept.
    n_test_functions : int
        The number of time averages.
    n_snapshots : int
        The number of recorded steps.
    n_trace : int
        The number of traced steps.
    block : int
        Chains worked on at once (block size times the threads).

    Raises
    ------
    ParameterError
        When the estimate exceeds :func:`simulate.memory.available_memory`; the message gives the largest n_chains
        that fits.
    """
    d = int(sampler.model.dim)
    n = int(min(sampler.grads_per_step(), 1024))  # minibatch indices and per-datum work per chain, roughly
    per_chain = 8 * d * (n_test_functions + n_snapshots + n_trace + 1)
    work = 8 * block * (WORKING_ARRAYS * d + 2 * n)
    need = per_chain * n_chains + work
    avail = available_memory()
    if need > avail:
        limit = max(0, (avail - work) // max(per_chain, 1))
        raise ParameterError(
            f"n_chains = {n_chains} needs about {need / 2**30:.3g} GiB ({per_chain} bytes of outputs per chain: "
            f"d = {d}, {n_test_functions} time averages, {n_snapshots} snapshots, {n_trace} trace points, final "
            f"state; plus {work / 2**30:.3g} GiB per block), more than the {avail / 2**30:.3g} GiB available: "
            f"n_chains must be <= {limit} at these settings (or run parts with blocks=..., fewer snapshots, or a "
            "larger trace_stride)")


def block_rng(seed: int, block: int) -> np.random.Generator:
    """The generator of chain block ``block`` for run seed ``seed``: PCG64(SeedSequence(seed, spawn_key=(block,))).

    Block b draws every random number of its chains from it (initial state, minibatches, noise), so a run is a
    function of (seed, n_chains, block_size) only.

    Parameters
    ----------
    seed : int
        The run's seed.
    block : int
        The block's index (chains block * block_size .. (block + 1) * block_size - 1).

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))))


@dataclass
class RunResult:
    """The per-chain outputs of :func:`simulate.run` (chains on axis 0; axis 1 of the trace).

    Parameters
    ----------
    seed : int
        The run's seed.
    n_chains : int
        M, the chains held.
    chain_offset : int
        The index of the first chain held (0 for a whole run; a part from ``blocks=`` starts later).
    burn_in : int
        b, the first state averaged.
    n_steps : int
        L, the number of states averaged.
    total_steps : int
        K, the last state computed (states 0..K).
    block_size : int
        Chains per block.
    grads_per_chain : float
        Per-datum gradient evaluations per chain over the run, K times the sampler's ``grads_per_step()``.
    time_averages : dict of str to numpy.ndarray
        Test function name -> (M, ...) per-chain time averages (1/L) sum_{k=b}^{b+L-1} phi(theta_k).
    snapshots : dict of int to numpy.ndarray
        Step k -> the states theta_k, (M, d), for every k of ``record_at``.
    trace_steps : numpy.ndarray or None
        The traced steps 0, s, 2s, ... (None without ``trace_stride``).
    trace : numpy.ndarray or None
        (len(trace_steps), M, d): the traced states.
    final : numpy.ndarray or None
        (M, d): the states theta_K.
    hooks : list
        The step hooks' results, one per block, in block order.
    backend : str
        Where the chains ran: "numpy", or "jax (<platform>, <dtype>)".
    seconds : dict of str to float
        JAX only: ``{"compile": s, "run": s}``, the seconds spent compiling apart from those spent running (empty
        for numpy).
    """

    seed: int
    n_chains: int
    chain_offset: int
    burn_in: int
    n_steps: int
    total_steps: int
    block_size: int
    grads_per_chain: float
    time_averages: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (M, ...)
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)  # step k -> (M, d)
    trace_steps: np.ndarray | None = None
    trace: np.ndarray | None = None  # (len(trace_steps), M, d)
    final: np.ndarray | None = None  # (M, d)
    hooks: list[Any] = field(default_factory=list)  # per block, in order: the step hook's result()
    backend: str = "numpy"  # where the chains ran: "numpy", or "jax (<platform>, <dtype>)"
    seconds: dict[str, float] = field(default_factory=dict)  # JAX: {"compile": s, "run": s} (compilation apart)

    @staticmethod
    def concatenate(parts: Sequence[RunResult]) -> RunResult:
        """Join the results of consecutive chain ranges (e.g. blocks run apart or on different workers).

        Parameters
        ----------
        parts : sequence of RunResult
            Results of the same run settings whose chain ranges, sorted by ``chain_offset``, follow each other.

        Returns
        -------
        RunResult
            The chains of all parts, in chain order; the settings are the first part's.

        Raises
        ------
        ParameterError
            When the ranges leave a gap or overlap.
        """
        parts = sorted(parts, key=lambda p: p.chain_offset)
        first = parts[0]
        pos = first.chain_offset
        for p in parts:
            if p.chain_offset != pos:
                raise ParameterError("parts must cover consecutive chain ranges without gaps or overlap")
            pos += p.n_chains
        cat = lambda xs, axis=0: np.concatenate(xs, axis=axis)  # noqa: E731
        return RunResult(
            seed=first.seed, n_chains=pos - first.chain_offset, chain_offset=first.chain_offset,
            burn_in=first.burn_in, n_steps=first.n_steps, total_steps=first.total_steps,
            block_size=first.block_size, grads_per_chain=first.grads_per_chain,
            time_averages={k: cat([p.time_averages[k] for p in parts]) for k in first.time_averages},
            snapshots={k: cat([p.snapshots[k] for p in parts]) for k in first.snapshots},
            trace_steps=first.trace_steps,
            trace=None if first.trace is None else cat([p.trace for p in parts], axis=1),
            final=cat([p.final for p in parts]),
            hooks=[h for p in parts for h in p.hooks], backend=first.backend,
        )


__all__ = ["DEFAULT_BLOCK_SIZE", "RunResult", "block_rng", "check_memory"]
