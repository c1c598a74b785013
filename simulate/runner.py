"""Advance M chains at once and stream statistics.

Reproducibility contract: chains are split into blocks of ``block_size`` consecutive chains; block b draws
every random number (initial state, minibatches, noise) from its own generator
``PCG64(SeedSequence(seed, spawn_key=(b,)))``. So a run is a function of (seed, n_chains, block_size) only:
running all blocks at once, a subset of blocks (``blocks=``), or blocks on different workers and joining
them with :meth:`RunResult.concatenate` gives bit-identical numbers.

Time averages follow Vollmer et al. eq. (7)/(22): phi_hat = (1/L) sum_{k=b}^{b+L-1} phi(theta_k), where b is
``burn_in`` and L is ``n_steps`` (with b = 0 the sum includes the initial state theta_0).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .sampler import Sampler
from .validation import ParameterError, check_finite_array, check_int

DEFAULT_BLOCK_SIZE = 32768

TestFunction = Callable[[np.ndarray], np.ndarray]

BUILTIN_TEST_FUNCTIONS: dict[str, TestFunction] = {
    "theta": lambda th: th,
    "theta2": lambda th: th * th,
}


_ALLOCATOR_TUNED = False


def tune_allocator() -> None:
    """Keep large temporaries on the heap (glibc ``mallopt``) instead of fresh ``mmap`` pages every step.

    A step allocates arrays of about 1 MB per block; by default glibc maps fresh zeroed pages for each, and the
    page faults double the cost of a step. Raising M_MMAP_THRESHOLD (and M_TRIM_THRESHOLD) to 64/256 MiB avoids
    that. Called once by :func:`run`; a no-op off glibc or when SIMULATE_NO_MALLOPT is set.
    """
    global _ALLOCATOR_TUNED
    if _ALLOCATOR_TUNED:
        return
    _ALLOCATOR_TUNED = True
    if os.environ.get("SIMULATE_NO_MALLOPT") or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 26)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 28)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass


#: Smallest work per step of a block, chains x (per-datum gradients + d), for which :func:`run` draws ahead by
#: default. Below it the hand-over between the threads (each waits for the GIL) costs more than the overlap gains
#: (measured on the 2-core development machine: toy model, 1000 chains, n = 10: 2x slower drawing ahead; 30000
#: chains: 0.74x the time; W3, 1000 chains, n = 100, d = 20: 0.55x).
DRAW_AHEAD_MIN_WORK = 50_000

#: Working arrays of shape (block, d) a step may hold at once (state, gradient, noise, temporaries), for the
#: memory estimate of :func:`check_memory`; the minibatch indices add n per chain.
WORKING_ARRAYS = 16


def available_memory() -> int:
    """Bytes of memory available to this process now (psutil's ``available``; 2**62 if unknown)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or unsupported platform: no check
        return 1 << 62


def check_memory(sampler: Sampler, n_chains: int, n_test_functions: int, n_snapshots: int, n_trace: int,
                 block: int) -> None:
    """Raise ParameterError if a run's memory, O(M d) outputs plus one block's O(block (d + n)) working set,
    exceeds the available memory.

    Per-chain outputs: time averages (one (M, d) array per test function), snapshots, the final state and the
    opt-in trace, 8 bytes per number; independent of the number of steps (statistics are streamed). The
    estimator's own per-chain state (e.g. SAGA's gradient table) is checked by the estimator.
    """
    d = int(sampler.model.dim)
    n = int(getattr(sampler.estimator, "n", 0) or 0)
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
    """The generator of chain block ``block`` for run seed ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))))


@dataclass
class RunResult:
    """Per-chain outputs of :func:`run` (chains on axis 0, or axis 1 for snapshots/traces)."""

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

    @staticmethod
    def concatenate(parts: Sequence[RunResult]) -> RunResult:
        """Join results of consecutive chain ranges (e.g. blocks run on different workers)."""
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
        )


def _resolve_test_functions(test_functions) -> dict[str, TestFunction]:
    if isinstance(test_functions, Mapping):
        return dict(test_functions)
    out = {}
    for name in test_functions:
        if name not in BUILTIN_TEST_FUNCTIONS:
            raise ParameterError(
                f"test_functions: unknown name {name!r}; valid names are {sorted(BUILTIN_TEST_FUNCTIONS)} "
                "(or pass a mapping name -> callable)")
        out[name] = BUILTIN_TEST_FUNCTIONS[name]
    return out


def _initial_state(theta0, rng: np.random.Generator, start: int, stop: int, dim: int) -> np.ndarray:
    m = stop - start
    if theta0 is None:
        return np.zeros((m, dim))
    if callable(theta0):
        th = check_finite_array("theta0(rng, m)", theta0(rng, m))
        if th.size != m * dim or (th.ndim == 2 and th.shape != (m, dim)) or th.ndim > 2:
            raise ParameterError(f"theta0(rng, m) must return shape ({m}, {dim}) for a block of m = {m} chains, "
                                 f"got {th.shape}")
        return th.reshape(m, dim)
    arr = np.asarray(theta0, dtype=np.float64)
    if arr.ndim <= 1:
        return np.broadcast_to(arr.reshape(1, -1) if arr.ndim else arr.reshape(1, 1), (m, dim)).copy()
    return arr[start:stop].copy()


def run(
    sampler: Sampler,
    n_chains: int,
    n_steps: int,
    *,
    seed: int = 0,
    theta0=None,
    burn_in: int = 0,
    test_functions: Iterable[str] | Mapping[str, TestFunction] = ("theta", "theta2"),
    record_at: Iterable[int] = (),
    trace_stride: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    blocks: Iterable[int] | None = None,
    progress: bool = False,
    threads: int | None = None,
    draw_ahead: bool | None = None,
) -> RunResult:
    """Run ``n_chains`` chains of ``sampler`` and return per-chain statistics.

    theta0: None (zeros), a (d,) point, an (M, d) array, or ``f(rng, m) -> (m, d)`` drawn per block.
    burn_in, n_steps: time averages use states theta_k, k = burn_in .. burn_in + n_steps - 1.
    record_at: steps k whose states theta_k are kept for every chain (``snapshots``).
    trace_stride: keep theta_k for k = 0, s, 2s, ... (opt-in; memory grows with the number of steps).
    blocks: run only these chain blocks (for chunked or distributed runs; join with ``concatenate``).
    threads: run up to this many blocks at once in threads of this process (default: the number of CPUs, when
    there are several blocks and numba's threading layer allows concurrent kernel calls). Blocks have their own
    random streams, so the numbers do not depend on it; numpy releases the GIL while it draws, which is most of a
    toy-model step (W1/W2 of benchmarks/compare.py: 1.4x on 2 cores).
    draw_ahead: draw each block's random numbers one or two steps ahead in a background thread
    (:mod:`simulate.pipeline`; the same stream order, so the same numbers). Default: when the sampler allows it
    (``sampler.draws_ahead``), fewer blocks run at once than there are CPUs, and a block's step is large enough
    (``DRAW_AHEAD_MIN_WORK``; W3 of benchmarks/compare.py).

    With a default Dask client set (:func:`simulate.distributed.using`), a run of several blocks is dispatched
    block by block to its workers (bit-identical). Memory is O(n_chains d) (streamed statistics; traces are
    opt-in); a run that would not fit in the available memory raises ParameterError before it starts.
    """
    n_chains = check_int("n_chains", n_chains, 1)
    n_steps = check_int("n_steps", n_steps, 0)
    burn_in = check_int("burn_in", burn_in, 0)
    block_size = check_int("block_size", block_size, 1)
    seed = check_int("seed", seed, 0)
    if threads is not None:
        threads = check_int("threads", threads, 1)
    record_at = sorted({check_int("record_at", int(k), 0) for k in record_at})
    if trace_stride is not None:
        trace_stride = check_int("trace_stride", trace_stride, 1)
    if n_steps == 0 and not record_at and trace_stride is None:
        raise ParameterError("n_steps must be >= 1 unless record_at or trace_stride asks for states")
    if theta0 is not None and not callable(theta0):
        arr = check_finite_array("theta0", theta0)
        if arr.ndim == 2:
            sampler.model.check_theta(arr, "theta0")
            if arr.shape[0] != n_chains:
                raise ParameterError(f"theta0 must have shape ({n_chains}, d) or (d,), got {arr.shape}")
        elif arr.ndim > 2 or (arr.ndim == 1 and arr.shape[0] != sampler.model.dim):
            raise ParameterError(f"theta0 must have shape (n_chains, d) or (d,), got {arr.shape}")
    phis = _resolve_test_functions(test_functions)
    n_blocks = -(-n_chains // block_size)
    total = max(burn_in + n_steps - 1, record_at[-1] if record_at else 0)
    trace_steps = None if trace_stride is None else np.arange(0, total + 1, trace_stride)
    n_run = n_chains if blocks is None else None
    if blocks is None and n_blocks > 1:
        from .distributed import get_default_client, run_distributed

        if get_default_client() is not None:
            check_memory(sampler, n_chains, len(phis), len(record_at),
                         0 if trace_steps is None else len(trace_steps), min(block_size, n_chains))
            return run_distributed(sampler, n_chains, n_steps, seed=seed, theta0=theta0, burn_in=burn_in,
                                   test_functions=test_functions, record_at=record_at, trace_stride=trace_stride,
                                   block_size=block_size)
    tune_allocator()
    if blocks is None:
        blocks = range(n_blocks)  # a range, not a list: n_chains may be absurdly large until check_memory says so
    else:
        blocks = sorted(set(blocks))
        for b in blocks:
            check_int("blocks[i]", b, 0, n_blocks - 1)
        if blocks != list(range(blocks[0], blocks[-1] + 1)):
            raise ParameterError("blocks must be a consecutive range of block indices")
    if n_run is None:
        n_run = min(n_chains, (blocks[-1] + 1) * block_size) - blocks[0] * block_size
    if threads is None:  # default: one thread per CPU, unless numba's threading layer cannot take nested calls
        from ._kernels import concurrent_calls_safe

        threads = (os.cpu_count() or 1) if concurrent_calls_safe() else 1
    n_threads = max(1, min(len(blocks), threads))
    if draw_ahead is None:
        work = min(block_size, n_chains) * (sampler.grads_per_step() + sampler.model.dim)
        draw_ahead = n_threads < (os.cpu_count() or 1) and work >= DRAW_AHEAD_MIN_WORK
    draw_ahead = bool(draw_ahead) and sampler.draws_ahead
    check_memory(sampler, n_run, len(phis), len(record_at), 0 if trace_steps is None else len(trace_steps),
                 min(block_size, n_chains) * n_threads)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(blocks) * total, unit="step", leave=False)

    def one_block(b: int) -> RunResult:
        start, stop = b * block_size, min(n_chains, (b + 1) * block_size)
        rng = block_rng(seed, b)
        th0 = _initial_state(theta0, rng, start, stop, sampler.model.dim)
        state = sampler.init(th0, rng)
        return _run_block(sampler, state, rng, start, stop, burn_in, n_steps, total, phis, record_at, trace_steps,
                          bar, draw_ahead)

    if n_threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_threads) as pool:
            parts = list(pool.map(one_block, blocks))  # in block order
    else:
        parts = [one_block(b) for b in blocks]
    if bar is not None:
        bar.close()
    res = RunResult.concatenate(parts)
    res.seed, res.block_size = seed, block_size
    res.grads_per_chain = total * sampler.grads_per_step()
    return res


def _run_block(sampler, state, rng, start, stop, burn_in, n_steps, total, phis, record_at, trace_steps, bar,
               draw_ahead=False):
    """States 0..total of one block (``total`` steps); with ``draw_ahead`` the steps' random numbers are drawn
    from rng by a background thread (:class:`simulate.pipeline.DrawAhead`), in the same order."""
    if draw_ahead and total >= 2:
        from .pipeline import DrawAhead

        with DrawAhead(lambda k: sampler.draw(stop - start, k, rng), total) as ahead:
            return _steps(sampler, state, lambda st: sampler.apply(st, ahead.next()), start, stop, burn_in, n_steps,
                          total, phis, record_at, trace_steps, bar)
    return _steps(sampler, state, lambda st: sampler.step(st, rng), start, stop, burn_in, n_steps, total, phis,
                  record_at, trace_steps, bar)


def _steps(sampler, state, step, start, stop, burn_in, n_steps, total, phis, record_at, trace_steps, bar):
    m = stop - start
    sums: dict[str, np.ndarray] = {}
    snaps: dict[int, np.ndarray] = {}
    trace = None if trace_steps is None else np.empty((len(trace_steps), m, sampler.model.dim))
    ti = 0
    rec = set(record_at)
    fast = set(phis) <= set(BUILTIN_TEST_FUNCTIONS) and all(
        phis[k] is BUILTIN_TEST_FUNCTIONS[k] for k in phis)
    tmp = np.empty_like(state.theta)
    for k in range(total + 1):
        th = state.theta
        if burn_in <= k < burn_in + n_steps:
            if fast:
                for name in phis:
                    if name == "theta":
                        val = th
                    else:
                        np.multiply(th, th, out=tmp)
                        val = tmp
                    if name in sums:
                        sums[name] += val
                    else:
                        sums[name] = val.copy()
            else:
                for name, phi in phis.items():
                    val = np.asarray(phi(th), dtype=np.float64)
                    if name in sums:
                        sums[name] += val
                    else:
                        sums[name] = np.array(val, copy=True)
        if k in rec:
            snaps[k] = th.copy()
        if trace is not None and ti < len(trace_steps) and trace_steps[ti] == k:
            trace[ti] = th
            ti += 1
        if k < total:
            state = step(state)
            if bar is not None:
                bar.update(1)
    if n_steps:
        for name in sums:
            sums[name] /= n_steps
    return RunResult(
        seed=0, n_chains=m, chain_offset=start, burn_in=burn_in, n_steps=n_steps, total_steps=total,
        block_size=0, grads_per_chain=0.0, time_averages=sums, snapshots=snaps,
        trace_steps=trace_steps, trace=trace, final=state.theta,
    )
