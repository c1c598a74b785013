"""``run(..., backend="jax")``: the sampler's own step (:meth:`simulate.sampler.Sampler.step`) on a view of its model,
in one compiled program per chunk of chains, with the statistics of :func:`simulate.run` streamed on the device.

The program of a chunk (as many chains as fit the backend's working-set budget):

1. the initial state from the chains' initial keys (:mod:`.streams`);
2. only where step 0 changes the state's structure (SAGA's table and a reused minibatch's stored draws are created
   by it): the observation of theta_0 and step 0, traced with the state's integer counters as Python numbers;
3. a ``lax.scan`` over the other steps that observes theta_k and advances the chains; what step k observes comes
   as scanned flags computed on the host: whether it adds phi(theta_k) to the time-average sums
   (burn_in <= k < burn_in + n_steps), the snapshot and trace slots it fills, the divergence check it records
   (the mean of |theta|^2 and the count of non-finite chains every CHECK_EVERY steps, read by the host's
   :class:`simulate.runtime.divergence.DivergenceWatch` afterwards, in step order);
4. the observation of theta_total.

A chunk compiles once; chunks of one size share the program.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..estimators.saga import SAGA
from ..runtime.backends import BackendNotCovered, JaxBackend
from ..runtime.blocks import RunResult, check_memory
from ..runtime.divergence import CHECK_EVERY, DivergenceWatch
from ..validation import ParameterError, check_finite_array, check_int
from .coverage import missing
from .models import view_of
from .streams import KeyStream, chain_keys, key_data, run_key, step_stream, theta0_keys


def _refuse_numpy_options(threads, draw_ahead, hook) -> None:
    for name, given in (("hook", hook is not None), ("threads", threads is not None), ("draw_ahead", bool(draw_ahead))):
        if given:
            raise BackendNotCovered(f"{name}= is an option of the numpy backend (a step hook runs Python at every "
                                    "step; threads and draw_ahead schedule numpy's blocks): run without it, or with "
                                    "backend='numpy'")


def _chain_range(blocks, n_chains: int, block_size: int) -> tuple[int, int]:
    """The chains of ``blocks`` (consecutive block indices, as :func:`simulate.run` checks them)."""
    n_blocks = -(-n_chains // block_size)
    if blocks is None:
        return 0, n_chains
    blocks = sorted(set(blocks))
    for b in blocks:
        check_int("blocks[i]", b, 0, n_blocks - 1)
    if blocks != list(range(blocks[0], blocks[-1] + 1)):
        raise ParameterError("blocks must be a consecutive range of block indices")
    return blocks[0] * block_size, min(n_chains, (blocks[-1] + 1) * block_size)


def _on_view(sampler, view):
    """The same sampler (estimator, integrator, h, noise matrix) reading its model through ``view``."""
    out = copy.copy(sampler)
    object.__setattr__(out, "model", view)
    return out


def _to_device(x, dtype):
    """A state leaf as a device array of the run's dtype (floats) or int32 (integer arrays); Python ints stay (the
    counters step 0 branches on)."""
    if x is None or isinstance(x, int):
        return x
    a = jnp.asarray(x)
    if jnp.issubdtype(a.dtype, jnp.floating):
        return jnp.asarray(a, dtype=dtype)
    if jnp.issubdtype(a.dtype, jnp.integer) and a.dtype != jnp.uint32:
        return jnp.asarray(a, dtype=jnp.int32)
    return a


def _strong(x):
    """A leaf with a fixed (not weak) type, so that the loop's carry keeps its types (keys as they are)."""
    if isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
        return x
    return jnp.asarray(x, dtype=jnp.asarray(x).dtype)


def _put(slots, slot, value):
    """``slots[slot] = value`` where slot >= 0 (slot < 0: unchanged), as one masked update."""
    at = jnp.maximum(slot, 0)
    return jax.lax.dynamic_update_index_in_dim(slots, jnp.where(slot >= 0, value, slots[at]), at, 0)


@dataclass
class _Spec:
    """A run's settings (all but the seed, the chains and their initial state) and its compiled program."""

    backend: JaxBackend
    sampler: Any
    n_steps: int
    burn_in: int
    total: int
    phis: dict
    record_at: list
    trace_steps: np.ndarray | None

    def __post_init__(self) -> None:
        self.dtype = jnp.float64 if self.backend.dtype == "float64" else jnp.float32
        view = view_of(self.sampler.model, self.dtype)
        gap = missing(self.sampler, view)
        if gap:
            raise BackendNotCovered(f"backend='jax' does not run {gap}; sampler {self.sampler.name!r} runs with "
                                    "backend='numpy'")
        self.view_sampler = _on_view(self.sampler, view)
        self.dim = view.dim
        self._check_test_functions()
        self.checks = [k for k in range(self.total + 1) if k % CHECK_EVERY == 0 or k == self.total]
        self.trace_at = {} if self.trace_steps is None else {int(k): i for i, k in enumerate(self.trace_steps)}
        self.flags = self._flags()
        self.program = jax.jit(self._program)
        self.compiled: dict[int, Any] = {}  # by chunk size
        self.seconds = {"compile": 0.0, "run": 0.0}

    def _check_test_functions(self) -> None:
        probe = jax.ShapeDtypeStruct((2, self.dim), self.dtype)
        for name, phi in self.phis.items():
            try:
                jax.eval_shape(lambda th, phi=phi: jnp.asarray(phi(th)), probe)
            except Exception as e:  # noqa: BLE001 - any failure to trace: said, with the remedy
                raise BackendNotCovered(
                    f"test function {name!r} cannot be traced by JAX ({type(e).__name__}: {str(e)[:200]}): write it "
                    "with operators and the argument's own namespace (th.__array_namespace__()), or run with "
                    "backend='numpy'") from None

    def _slots(self, k: int) -> tuple[bool, int, int, int]:
        """What state k's observation does: (accumulate, snapshot slot, trace slot, check slot), -1 for none."""
        rec = self.record_at.index(k) if k in self.record_at else -1
        check = self.checks.index(k) if k % CHECK_EVERY == 0 or k == self.total else -1
        return self.burn_in <= k < self.burn_in + self.n_steps, rec, self.trace_at.get(k, -1), check

    def _flags(self) -> dict[str, np.ndarray]:
        """The scanned flags of states 0..total-1 (module docstring)."""
        slots = np.array([self._slots(k) for k in range(self.total)], dtype=np.int32).reshape(-1, 4)
        return dict(k=np.arange(self.total, dtype=np.int32), acc=slots[:, 0].astype(bool), rec=slots[:, 1],
                    trace=slots[:, 2], check=slots[:, 3])

    # ------------------------------------------------------------------ the compiled program
    def _step(self, state, k, step_keys):
        return self.view_sampler.step(state, step_stream(step_keys, k, self.dtype), inplace=True)

    def _observe(self, out, theta, acc, rec, trace, check):
        sums, snaps, tr, ms, bad = out
        sums = {name: jnp.where(acc, s + jnp.asarray(self.phis[name](theta), dtype=s.dtype), s)
                for name, s in sums.items()}
        if snaps is not None:
            snaps = _put(snaps, rec, theta)
        if tr is not None:
            tr = _put(tr, trace, theta)
        ms = _put(ms, check, jnp.mean(jnp.sum(theta * theta, axis=1)))
        bad = _put(bad, check, jnp.sum(~jnp.all(jnp.isfinite(theta), axis=1)).astype(jnp.int32))
        return sums, snaps, tr, ms, bad

    def _outputs(self, theta):
        m = theta.shape[0]
        probe = jax.ShapeDtypeStruct(theta.shape, theta.dtype)
        sums = {} if not self.n_steps else {
            name: jnp.zeros(jax.eval_shape(lambda th, f=f: jnp.asarray(f(th)), probe).shape, dtype=self.dtype)
            for name, f in self.phis.items()}
        snaps = jnp.zeros((len(self.record_at), m, self.dim), self.dtype) if self.record_at else None
        tr = None if self.trace_steps is None else jnp.zeros((len(self.trace_steps), m, self.dim), self.dtype)
        return sums, snaps, tr, jnp.zeros(len(self.checks), self.dtype), jnp.zeros(len(self.checks), jnp.int32)

    def _loops_from_zero(self, state, step_keys) -> bool:
        """Whether step 0 can run in the loop: with its counters as arrays it traces and keeps the state's
        structure and types (not so for a table or stored draws created by step 0)."""
        try:
            out = jax.eval_shape(lambda st: self._step(st, jnp.int32(0), step_keys), state)
        except (TypeError, ValueError, jax.errors.JAXTypeError, jax.errors.ConcretizationTypeError):
            return False
        same = jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(state)
        return same and all(a.shape == b.shape and a.dtype == b.dtype and getattr(a, "weak_type", False) ==
                            getattr(b, "weak_type", False)
                            for a, b in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(state),
                                            strict=True))

    def _program(self, theta0, seed_key, start, flags):
        init_keys, step_keys = chain_keys(seed_key, start, theta0.shape[0])
        stream = KeyStream(init_keys, self.dtype)
        state = self.view_sampler.init(theta0, stream)
        state = jax.tree_util.tree_map(lambda x: _to_device(x, self.dtype), state)
        out = self._outputs(state.theta)
        if self.total == 0:
            return state.theta, self._observe(out, state.theta, *self._slots(0))
        arrays = jax.tree_util.tree_map(_strong, state)
        if not self._loops_from_zero(arrays, step_keys):  # observe theta_0, step 0 with Python counters
            out = self._observe(out, state.theta, *self._slots(0))
            arrays = jax.tree_util.tree_map(_strong, self._step(state, 0, step_keys))
            flags = {name: f[1:] for name, f in flags.items()}

        def body(carry, f):
            st, o = carry
            o = self._observe(o, st.theta, f["acc"], f["rec"], f["trace"], f["check"])
            return (self._step(st, f["k"], step_keys), o), None

        (state, out), _ = jax.lax.scan(body, (arrays, out), flags)
        return state.theta, self._observe(out, state.theta, *self._slots(self.total))

    # ------------------------------------------------------------------ one chunk of chains
    def initial_theta(self, theta0, seed: int, start: int, stop: int) -> np.ndarray:
        """theta_0 of chains start..stop-1 on the host (``theta0`` as :func:`simulate.run` takes it)."""
        m, d = stop - start, self.dim
        if theta0 is None:
            return np.zeros((m, d))
        if callable(theta0):
            try:
                th = theta0(KeyStream(theta0_keys(run_key(seed), start, m), self.dtype), m)
            except AttributeError as e:
                raise BackendNotCovered(f"theta0(rng, m) asked the JAX backend's stream for something it does not "
                                        f"draw ({e}); it offers standard_normal, normal and uniform") from None
            th = check_finite_array("theta0(rng, m)", np.asarray(th))
            if th.size != m * d or (th.ndim == 2 and th.shape != (m, d)) or th.ndim > 2:
                raise ParameterError(f"theta0(rng, m) must return shape ({m}, {d}) for a block of m = {m} chains, "
                                     f"got {th.shape}")
            return th.reshape(m, d)
        arr = np.asarray(theta0, dtype=np.float64)
        if arr.ndim <= 1:
            return np.broadcast_to(arr.reshape(1, -1), (m, d))
        out = np.zeros((m, d))  # chains past the run's last (padding of a last chunk) start at 0
        got = arr[start:stop]
        out[:got.shape[0]] = got
        return out

    def run_chunk(self, theta0, seed: int, start: int, stop: int, size: int) -> RunResult:
        """The chains start..stop-1 as one call of the compiled program for ``size`` >= stop - start chains (the
        chains past stop are computed and dropped: one program for every chunk of a run), then the divergence
        checks in step order."""
        th0 = np.ascontiguousarray(self.initial_theta(theta0, seed, start, start + size), dtype=np.dtype(self.dtype))
        args = (th0, key_data(seed), np.uint32(start), self.flags)
        t0 = time.perf_counter()
        if size not in self.compiled:
            self.compiled[size] = self.program.lower(*args).compile()
        t1 = time.perf_counter()
        final, (sums, snaps, tr, ms, bad) = jax.device_get(self.compiled[size](*args))
        self.seconds["compile"] += t1 - t0
        self.seconds["run"] += time.perf_counter() - t1
        m = stop - start  # the padding's chains (a last chunk's) are dropped; the checks saw them too
        final, sums = final[:m], {name: v[:m] for name, v in sums.items()}
        snaps, tr = (None if snaps is None else snaps[:, :m]), (None if tr is None else tr[:, :m])
        watch = DivergenceWatch(self.sampler, self.total, f"chains {start}-{stop - 1}")
        for k, v, b in zip(self.checks, np.asarray(ms, dtype=np.float64), np.asarray(bad), strict=True):
            watch.look_summary(k, float(v), int(b), m)
        host = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
        return RunResult(
            seed=0, n_chains=m, chain_offset=start, burn_in=self.burn_in, n_steps=self.n_steps,
            total_steps=self.total, block_size=0, grads_per_chain=0.0,
            time_averages={name: host(v) / self.n_steps for name, v in sums.items()},
            snapshots={} if snaps is None else {k: host(snaps[i]) for i, k in enumerate(self.record_at)},
            trace_steps=self.trace_steps, trace=None if tr is None else host(tr), final=host(final), hooks=[])


def _chunk_size(backend: JaxBackend, sampler, n_run: int, n_kept: int) -> int:
    """Chains per device call: ``backend.chunk``, else what fits ``backend.chunk_bytes``: the step's working arrays
    (about 16 (M, d) arrays, the minibatch indices and rows), SAGA's table and ``n_kept`` (M, d) outputs (time
    averages, snapshots, trace points)."""
    if backend.chunk is not None:
        return min(backend.chunk, n_run)
    d = sampler.model.dim
    n = int(min(sampler.grads_per_step(), sampler.model.n_data))
    per_chain = 8 * (16 * d + 3 * n + n * d + n_kept * d)
    if isinstance(sampler.estimator, SAGA):
        per_chain += 16 * sampler.model.n_data * d  # the table and its update
    return max(1, min(n_run, backend.chunk_bytes // per_chain))


def run(backend: JaxBackend, sampler, n_chains: int, n_steps: int, *, seed: int, theta0, burn_in: int, phis: dict,
        record_at: list, trace_stride: int | None, block_size: int, blocks, progress: bool, threads, draw_ahead,
        hook) -> RunResult:
    """:func:`simulate.run` on JAX (arguments checked by it; module docstring)."""
    _refuse_numpy_options(threads, draw_ahead, hook)
    start, stop = _chain_range(blocks, n_chains, block_size)
    total = max(burn_in + n_steps - 1, record_at[-1] if record_at else 0)
    trace_steps = None if trace_stride is None else np.arange(0, total + 1, trace_stride)
    n_trace = 0 if trace_steps is None else len(trace_steps)
    check_memory(sampler, stop - start, len(phis), len(record_at), n_trace, min(block_size, n_chains))
    with jax.enable_x64(backend.dtype == "float64"), jax.threefry_partitionable(True):
        key = (id(sampler), tuple((k, id(f)) for k, f in phis.items()), n_steps, burn_in, tuple(record_at),
               trace_stride)
        spec = backend.programs.get(key) if backend.keep_compiled else None
        if spec is None:
            spec = _Spec(backend, sampler, n_steps, burn_in, total, phis, record_at, trace_steps)
            if backend.keep_compiled:
                backend.programs[key] = spec  # holds the sampler and test functions: their ids stay theirs
        spec.seconds = {"compile": 0.0, "run": 0.0}
        chunk = _chunk_size(backend, sampler, stop - start, len(phis) + len(record_at) + n_trace)
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=stop - start, unit="chain", leave=False)
        parts = []
        for a in range(start, stop, chunk):
            parts.append(spec.run_chunk(theta0, seed, a, min(stop, a + chunk), chunk))
            if bar is not None:
                bar.update(parts[-1].n_chains)
        if bar is not None:
            bar.close()
    res = RunResult.concatenate(parts)
    res.seed, res.block_size = seed, block_size
    res.grads_per_chain = total * sampler.grads_per_step()
    res.backend = f"jax ({jax.default_backend()}, {backend.dtype})"
    res.seconds = dict(spec.seconds)
    return res
