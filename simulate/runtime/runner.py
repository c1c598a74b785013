"""Advance M chains at once and stream statistics (:func:`run`).

Reproducibility contract (``simulate.runtime.blocks``): chains are split into blocks of ``block_size`` consecutive
chains, block b drawing every random number from its own generator, so a run is a function of (seed, n_chains,
block_size) only, whatever runs the blocks (threads, ``blocks=`` subsets, Dask workers).

Time averages follow Vollmer et al. eq. (7)/(22): phi_hat = (1/L) sum_{k=b}^{b+L-1} phi(theta_k), where b is
``burn_in`` and L is ``n_steps`` (with b = 0 the sum includes the initial state theta_0). Anything else a study needs
at each step (a coupled chain, gradients, the estimator's state) goes into a step hook (:class:`StepHook`), so no
module writes its own step loop.
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from .._fast import kernels
from ..sampler import Sampler, SamplerState
from ..validation import ParameterError, check_finite_array, check_int
from . import backends, dispatch, fused
from .blocks import DEFAULT_BLOCK_SIZE, RunResult, block_rng, check_memory
from .divergence import CHECK_EVERY, DivergenceWatch

TestFunction = Callable[[np.ndarray], np.ndarray]

#: The test functions :func:`simulate.run` knows by name: "theta" (phi = theta) and "theta2" (phi = theta * theta,
#: elementwise), each mapping the (m, d) states of a block to an (m, d) array.
BUILTIN_TEST_FUNCTIONS: dict[str, TestFunction] = {
    "theta": lambda th: th,
    "theta2": lambda th: th * th,
}


class StepHook(Protocol):
    """A per-block observer of a run, for what a study needs at each step (a coupled chain, gradients, a state).

    :func:`run` builds one per chain block with its ``hook(start, stop)`` factory
    (:data:`~simulate.runtime.runner.HookFactory`) and calls :meth:`before` and :meth:`after` around every step, then
    keeps :meth:`result` in ``RunResult.hooks`` (one entry per block, in block order). A hook must not draw from rng;
    it may copy its state (``rng.bit_generator.state``) to replay the step's draws.
    """

    def before(self, k: int, state: SamplerState, rng: np.random.Generator) -> None:
        """Called just before step k.

        Parameters
        ----------
        k : int
            The step, 0 .. total - 1.
        state : SamplerState
            The block's state theta_k (not to be modified).
        rng : numpy.random.Generator
            The block's generator, about to draw step k's numbers (not to be drawn from).
        """
        ...

    def after(self, k: int, state: SamplerState) -> None:
        """Called just after step k.

        Parameters
        ----------
        k : int
            The step just taken.
        state : SamplerState
            The block's state theta_{k+1}.
        """
        ...

    def result(self) -> Any:
        """What the hook collected, called once at the end of the block.

        Returns
        -------
        object
            Kept in ``RunResult.hooks``.
        """
        ...


#: The type of :func:`simulate.run`'s ``hook``: ``hook(start, stop) -> StepHook`` for the block of chains start..stop-1.
HookFactory = Callable[[int, int], StepHook]


_ALLOCATOR_TUNED = False


def tune_allocator() -> None:
    """Keep large temporaries on the heap (glibc ``mallopt``) instead of fresh ``mmap`` pages every step.

    A step allocates arrays of about 1 MB per block; by default glibc maps fresh zeroed pages for each, and the
    page faults add to the cost of every step. Raising M_MMAP_THRESHOLD (and M_TRIM_THRESHOLD) to 64/256 MiB avoids
    that. Called by :func:`simulate.run` (acts once per process); a no-op off Linux, where libc cannot be loaded, or
    when the environment variable SIMULATE_NO_MALLOPT is set. Changes no number of a run.
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
    draw_ahead: bool = False,
    hook: HookFactory | None = None,
    backend=None,
) -> RunResult:
    """Run ``n_chains`` chains of ``sampler`` at once and return per-chain statistics, streamed.

    The chains are split into blocks of ``block_size`` consecutive chains, block b drawing every random number from
    its own generator (:func:`simulate.block_rng`), so the numbers depend on (seed, n_chains, block_size) only,
    whatever runs the blocks: threads, ``blocks=`` subsets joined by :meth:`RunResult.concatenate`, or the workers
    of a default Dask client (:func:`simulate.runtime.distributed.using`), bit for bit. States 0..K are computed,
    K = max(burn_in + n_steps - 1, max(record_at)).

    Parameters
    ----------
    sampler : Sampler
        The sampler (:class:`simulate.Sampler`).
    n_chains : int
        M >= 1, the number of chains.
    n_steps : int
        L >= 0, the number of states time-averaged: theta_k for k = burn_in .. burn_in + L - 1 (L = 0 only with
        ``record_at`` or ``trace_stride``).
    seed : int, default 0
        The run's seed, >= 0.
    theta0 : array_like or callable, optional
        The start: None (every chain at 0), a (d,) point, an (M, d) array, or ``f(rng, m) -> (m, d)`` called per
        block with the block's generator (a random start, drawn before the block's first step).
    burn_in : int, default 0
        b >= 0, the first state averaged (b = 0 includes theta_0).
    test_functions : iterable of str or mapping of str to callable, default ("theta", "theta2")
        The observables averaged: names of :data:`~simulate.runtime.runner.BUILTIN_TEST_FUNCTIONS`, or a mapping
        name -> phi with phi taking the (m, d) states of a block to an array with m rows.
    record_at : iterable of int, default ()
        Steps k >= 0 whose states theta_k are kept for every chain (``RunResult.snapshots``).
    trace_stride : int, optional
        s >= 1: keep theta_k for k = 0, s, 2s, ... <= K (``RunResult.trace``; memory grows with K / s).
    block_size : int, default DEFAULT_BLOCK_SIZE
        Chains per block, >= 1 (part of what fixes the numbers).
    blocks : iterable of int, optional
        Run only these chain blocks (a consecutive range of indices), for chunked or distributed runs.
    progress : bool, default False
        Show a tqdm progress bar.
    threads : int, optional
        The CPU threads the run uses (default: the CPUs this process may run on; where numba's threading layer
        cannot take concurrent kernel calls, one block at a time with its kernels on all of them): min(threads,
        blocks) blocks run at once, each in a thread of this process, and a block's parallel kernels use threads //
        (blocks at once) of numba's threads, so threads=1 runs on one core (no nested parallelism). More threads
        than CPUs warns (once). SGLD on the isotropic Gaussian mean model or on logistic regression runs each
        block's steps in fused kernels without the GIL (:mod:`simulate.runtime.fused`). The numbers do not depend
        on it.
    draw_ahead : bool, default False
        Draw each block's random numbers one or two steps ahead in a background thread (the same stream order, so
        the same numbers), where the sampler allows it (:attr:`Sampler.draws_ahead`) and no hook is given. Whether it
        pays depends on the machine (docs/performance.md).
    hook : callable, optional
        ``hook(start, stop) -> StepHook`` for the block of chains start..stop-1 (:class:`StepHook`); turns
        draw_ahead off (a hook may replay rng).
    backend : str or JaxBackend, optional
        Where the chains run: "numpy" (bit for bit, the blocks above), "jax" or a
        :class:`simulate.runtime.backends.JaxBackend` (the same sampler objects on the device JAX sees,
        :mod:`simulate.runtime.backends`); None: numpy, or the backend of an enclosing
        :func:`simulate.runtime.backends.using_backend`.

    Returns
    -------
    RunResult
        Time averages (one (M, d) array per test function), snapshots, the optional trace, the final states and the
        hooks' results, with the run's settings and its cost in per-datum gradients per chain.

    Raises
    ------
    ParameterError
        On an argument out of its range (naming it), an unknown test function, a theta0 of the wrong shape, or a
        run whose outputs would not fit in the available memory (before it starts; the message gives the largest
        n_chains that fits).
    ChainDivergedError
        When the chains diverge: a non-finite state, or a mean ``|theta|^2`` that grows a millionfold from the first
        half of the run (the step size is past the sampler's stability limit on this model; the message names h).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (7): the time average (1/L) sum_{k=b}^{b+L-1} phi(theta_k)
    (:doc:`/papers/vollmer`, sec. 2).

    Examples
    --------
    >>> from simulate import GaussianMeanModel, run, sgld
    >>> model = GaussianMeanModel.simulate_data(1000, theta_true=1.0, seed=2016)
    >>> res = run(sgld(model, h=0.1 / model.A, n=10), n_chains=1000, n_steps=100, burn_in=300, seed=1)
    >>> res.time_averages["theta"].shape
    (1000, 1)
    """
    n_chains, n_steps, burn_in, block_size, seed, threads, record_at, trace_stride = _check_run_arguments(
        sampler, n_chains, n_steps, burn_in, block_size, seed, threads, record_at, trace_stride, theta0)
    phis = _resolve_test_functions(test_functions)
    if backend is not None or backends.default_backend() != "numpy":
        res = backends.run_elsewhere(backend, sampler, n_chains, n_steps, seed=seed, theta0=theta0, burn_in=burn_in,
                                     phis=phis, record_at=record_at, trace_stride=trace_stride,
                                     block_size=block_size, blocks=blocks, progress=progress, threads=threads,
                                     draw_ahead=draw_ahead, hook=hook)
        if res is not None:
            return res
    n_blocks = -(-n_chains // block_size)
    total = max(burn_in + n_steps - 1, record_at[-1] if record_at else 0)
    trace_steps = None if trace_stride is None else np.arange(0, total + 1, trace_stride)
    n_trace = 0 if trace_steps is None else len(trace_steps)
    executor = dispatch.current()
    if blocks is None and n_blocks > 1 and executor is not None:
        check_memory(sampler, n_chains, len(phis), len(record_at), n_trace, min(block_size, n_chains))
        return executor.run(sampler, n_chains, n_steps, dict(
            seed=seed, theta0=theta0, burn_in=burn_in, test_functions=test_functions, record_at=record_at,
            trace_stride=trace_stride, block_size=block_size, hook=hook))
    tune_allocator()
    kernels.prefer_passive_wait()
    blocks = _check_blocks(blocks, n_blocks)
    n_run = min(n_chains, (blocks[-1] + 1) * block_size) - blocks[0] * block_size
    n_threads, inner = _thread_split(threads, len(blocks))
    draw_ahead = bool(draw_ahead) and sampler.draws_ahead and hook is None
    check_memory(sampler, n_run, len(phis), len(record_at), n_trace, min(block_size, n_chains) * n_threads)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(blocks) * total, unit="step", leave=False)
    program = None if draw_ahead or hook is not None else fused.program_for(sampler, phis)
    spec = _BlockSpec(sampler, n_chains, block_size, seed, theta0, burn_in, n_steps, total, phis, record_at,
                      trace_steps, bar, draw_ahead, hook, program, inner)
    if n_threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_threads) as pool:
            parts = list(pool.map(spec.run_block, blocks))  # in block order
    else:
        parts = [spec.run_block(b) for b in blocks]
    if bar is not None:
        bar.close()
    res = RunResult.concatenate(parts)
    res.seed, res.block_size = seed, block_size
    res.grads_per_chain = total * sampler.grads_per_step()
    return res


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one, else ``os.cpu_count()``).

    Returns
    -------
    int
        The number of CPUs, at least 1.
    """
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_WARNED_THREADS = False


def _thread_split(threads: int | None, n_blocks: int) -> tuple[int, int]:
    """(block threads, numba threads per block) for a run of ``n_blocks`` blocks on ``threads`` threads."""
    global _WARNED_THREADS
    cpus = cpu_count()
    if threads is None:  # one thread per CPU; one block at a time where numba's layer cannot take concurrent calls
        threads = cpus
        if not kernels.concurrent_calls_safe():
            return 1, cpus
    elif threads > cpus and not _WARNED_THREADS:
        _WARNED_THREADS = True
        warnings.warn(f"threads={threads} is more than the {cpus} CPUs this process may run on: the threads share "
                      "them and the run is no faster (the numbers are the same); warned once per process",
                      RuntimeWarning, stacklevel=3)
    n_threads = max(1, min(n_blocks, threads))
    inner = max(1, threads // n_threads) if n_threads == 1 or kernels.concurrent_calls_safe() else 1
    return n_threads, inner


def _check_run_arguments(sampler, n_chains, n_steps, burn_in, block_size, seed, threads, record_at, trace_stride,
                         theta0):
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
    return n_chains, n_steps, burn_in, block_size, seed, threads, record_at, trace_stride


def _check_blocks(blocks, n_blocks: int):
    if blocks is None:
        return range(n_blocks)  # a range, not a list: n_chains may be absurdly large until check_memory says so
    blocks = sorted(set(blocks))
    for b in blocks:
        check_int("blocks[i]", b, 0, n_blocks - 1)
    if blocks != list(range(blocks[0], blocks[-1] + 1)):
        raise ParameterError("blocks must be a consecutive range of block indices")
    return blocks


class _BlockSpec:
    """Everything one block of a run needs: :meth:`run_block` gives the block's :class:`RunResult`."""

    def __init__(self, sampler, n_chains, block_size, seed, theta0, burn_in, n_steps, total, phis, record_at,
                 trace_steps, bar, draw_ahead, hook, program, inner) -> None:
        self.sampler, self.n_chains, self.block_size, self.seed, self.theta0 = (sampler, n_chains, block_size, seed,
                                                                               theta0)
        self.burn_in, self.n_steps, self.total, self.phis = burn_in, n_steps, total, phis
        self.record_at, self.trace_steps, self.bar, self.draw_ahead, self.hook = (record_at, trace_steps, bar,
                                                                                  draw_ahead, hook)
        self.program, self.inner = program, inner

    def run_block(self, b: int) -> RunResult:
        """States 0..total of block ``b``, its kernels on ``inner`` of numba's threads: by the fused program where
        there is one; else step by step, with draw_ahead the steps' random numbers drawn from the block's generator
        by a background thread (:class:`simulate.runtime.pipeline.DrawAhead`), in the same order."""
        s = self.sampler
        start, stop = b * self.block_size, min(self.n_chains, (b + 1) * self.block_size)
        rng = block_rng(self.seed, b)
        state = s.init(_initial_state(self.theta0, rng, start, stop, s.model.dim), rng)
        with kernels.kernel_threads(self.inner) as inner:
            if self.program is not None:
                loop = self.program.block(state.theta, rng, self.burn_in, self.n_steps, self.total, inner)
                return self._steps(state, loop, start, stop, None)
            hook = None if self.hook is None else self.hook(start, stop)
            if self.draw_ahead and self.total >= 2:
                from .pipeline import DrawAhead

                with DrawAhead(lambda k: s.draw(stop - start, k, rng), self.total) as ahead:
                    step = lambda st: s.apply(st, ahead.next(), inplace=True)  # noqa: E731
                    return self._steps(state, _StepLoop(self, step, None), start, stop, None)
            loop = _StepLoop(self, lambda st: s.step(st, rng, inplace=True), hook, rng)
            return self._steps(state, loop, start, stop, hook)

    def _next_event(self, k: int, rec: list[int]) -> int:
        """The first step after k at which the chains are looked at, recorded or traced (at most ``total``)."""
        nxt = min(self.total, (k // CHECK_EVERY + 1) * CHECK_EVERY)
        i = np.searchsorted(rec, k, side="right")
        if i < len(rec):
            nxt = min(nxt, rec[i])
        if self.trace_steps is not None:
            i = np.searchsorted(self.trace_steps, k, side="right")
            if i < len(self.trace_steps):
                nxt = min(nxt, int(self.trace_steps[i]))
        return nxt

    def _steps(self, state, loop, start, stop, hook):
        """States 0..total: at each step where the chains are looked at (divergence), recorded or traced, that is
        done; between them ``loop.advance`` runs the steps and adds the states to the time-average sums."""
        trace_steps, total, m = self.trace_steps, self.total, stop - start
        snaps: dict[int, np.ndarray] = {}
        trace = None if trace_steps is None else np.empty((len(trace_steps), m, self.sampler.model.dim))
        ti, k, rec, recorded = 0, 0, list(self.record_at), set(self.record_at)
        watch = DivergenceWatch(self.sampler, total, f"chains {start}-{stop - 1}")
        while True:
            th = state.theta
            if watch.due(k):
                watch.look(k, th)
            if k in recorded:
                snaps[k] = th.copy()
            if trace is not None and ti < len(trace_steps) and trace_steps[ti] == k:
                trace[ti] = th
                ti += 1
            nxt = k + 1 if k == total else self._next_event(k, rec)
            state = loop.advance(state, k, nxt)
            if self.bar is not None and k < total:
                self.bar.update(nxt - k)
            if k == total:
                break
            k = nxt
        sums = loop.sums()
        sums = {name: sums[name] for name in self.phis if name in sums}
        if self.n_steps:
            for name in sums:
                sums[name] /= self.n_steps
        return RunResult(
            seed=0, n_chains=m, chain_offset=start, burn_in=self.burn_in, n_steps=self.n_steps, total_steps=total,
            block_size=0, grads_per_chain=0.0, time_averages=sums, snapshots=snaps,
            trace_steps=trace_steps, trace=trace, final=state.theta,
            hooks=[] if hook is None else [hook.result()],
        )


class _StepLoop:
    """The generic loop: the sampler's step, one at a time (with the hook around it), and the test functions' sums
    in numpy."""

    def __init__(self, spec: _BlockSpec, step, hook, rng=None) -> None:
        self.step, self.hook, self.rng = step, hook, rng
        self.phis, self.lo, self.hi, self.total = spec.phis, spec.burn_in, spec.burn_in + spec.n_steps, spec.total
        self.fast = set(self.phis) <= set(BUILTIN_TEST_FUNCTIONS) and all(
            self.phis[k] is BUILTIN_TEST_FUNCTIONS[k] for k in self.phis)
        self._sums: dict[str, np.ndarray] = {}
        self.tmp = None

    def _add(self, th: np.ndarray) -> None:
        sums = self._sums
        for name, phi in self.phis.items():
            if self.fast and name == "theta":
                val = th
            elif self.fast:
                if self.tmp is None:
                    self.tmp = np.empty_like(th)
                val = np.multiply(th, th, out=self.tmp)
            else:
                val = np.asarray(phi(th), dtype=np.float64)
            if name in sums:
                sums[name] += val
            else:
                sums[name] = np.array(val, copy=True)

    def advance(self, state: SamplerState, k0: int, k1: int) -> SamplerState:
        """States k0..k1-1 into the sums, and steps k0..min(k1, total)-1 taken."""
        hook = self.hook
        for k in range(k0, k1):
            if self.lo <= k < self.hi:
                self._add(state.theta)
            if k < self.total:
                if hook is not None:
                    hook.before(k, state, self.rng)
                state = self.step(state)
                if hook is not None:
                    hook.after(k, state)
        return state

    def sums(self) -> dict[str, np.ndarray]:
        return self._sums


__all__ = ["BUILTIN_TEST_FUNCTIONS", "HookFactory", "StepHook", "cpu_count", "run", "tune_allocator"]
