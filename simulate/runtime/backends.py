"""Where :func:`simulate.run` computes: numpy (the default, bit for bit on every CPU) or JAX (``backend="jax"``: on
whatever device JAX sees, a GPU when there is one, in float64 unless asked otherwise).

Both run the same sampler objects: each estimator's and integrator's step is written once against the array
namespace of :mod:`simulate.arrays`; the JAX backend (the private package ``simulate._jax``) supplies its
primitives, random streams and views of the models, and runs the steps in ``lax`` loops (docs/architecture.md).

* ``run(sampler, ..., backend="jax")`` (or a :class:`JaxBackend` with options) runs on JAX; without JAX installed,
  or for a sampler it does not cover, it raises :class:`BackendNotCovered` (a ``ParameterError``) naming the extra
  to install or the part (estimator, integrator, model, option) that is missing.
* :func:`using_backend` sets the backend of every ``run(...)`` without a ``backend`` argument inside a ``with``
  block (``python -m verify --backend jax`` runs every claim inside one); with ``fallback=True`` a run the backend
  does not cover runs on numpy instead and is recorded (what ran where is reported, never hidden).

What the JAX backend promises: the same statistics and :class:`~simulate.runtime.blocks.RunResult` as numpy's;
numbers reproducible for a given seed, device and JAX version; each chain's random numbers a function of (seed,
chain index, step) alone, so the numbers do not depend on ``block_size``, ``blocks`` or how the backend splits
chains into device calls (on the CPU build the results are the same bits, tested; on a GPU the arithmetic of a
chain may be compiled differently for arrays of different sizes). It does not reproduce numpy's numbers: another
random stream, another order of floating-point operations.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..validation import ParameterError, check_int

#: The backends :func:`simulate.run` knows by name.
BACKENDS = ("numpy", "jax")
#: The extra that installs the JAX backend's dependency.
JAX_EXTRA = "pip install 'sgmcmc-workbench[jax]'"


class BackendNotCovered(ParameterError):
    """A backend does not run this sampler or option (the message names the part), or is not installed."""


@dataclass(frozen=True)
class JaxBackend:
    """``run(..., backend=JaxBackend(...))``: the JAX backend with options (``backend="jax"`` is ``JaxBackend()``).

    Parameters
    ----------
    dtype : {"float64", "float32"}
        Floating-point type of the chains and statistics. float64 is enabled for the run only
        (``jax.enable_x64`` as a context manager): JAX's global setting is left as the user set it.
    chunk : int or None
        Chains per device call (the numbers do not depend on it); None: as many as fit a working set of
        ``chunk_bytes``.
    chunk_bytes : int
        The working-set budget per device call that chooses ``chunk`` when it is None.
    keep_compiled : bool
        Keep the compiled program of each run in this object and reuse it for a later run of the same sampler object
        with the same test function objects and steps (another seed or initial state; a benchmark's repeats). Off by
        default: a program is traced from the code as it is at the run (a patched method is seen).

    Raises
    ------
    ParameterError
        For a dtype other than float64 / float32 or a chunk below 1.
    """

    dtype: str = "float64"
    chunk: int | None = None
    chunk_bytes: int = 2**31
    keep_compiled: bool = False
    name: str = field(default="jax", init=False)
    programs: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.dtype not in ("float64", "float32"):
            raise ParameterError(f"JaxBackend dtype must be 'float64' or 'float32', got {self.dtype!r}")
        if self.chunk is not None:
            check_int("chunk", self.chunk, 1)
        check_int("chunk_bytes", self.chunk_bytes, 1)


@dataclass
class BackendRecord:
    """What the runs inside :func:`using_backend` did.

    Parameters
    ----------
    fell_back : list of (str, str)
        The runs that fell back to numpy, as (sampler name, why).
    compile_seconds : float
        The seconds the backend spent compiling (not part of its rate: they do not grow with the chains).
    """

    fell_back: list[tuple[str, str]] = field(default_factory=list)
    compile_seconds: float = 0.0


_DEFAULT: contextvars.ContextVar[tuple[Any, BackendRecord | None, bool]] = contextvars.ContextVar(
    "simulate_backend", default=("numpy", None, False))


def resolve(backend: Any) -> JaxBackend | None:
    """The backend a ``backend=`` argument names: None for numpy, a :class:`JaxBackend` for JAX.

    Parameters
    ----------
    backend : str or JaxBackend
        "numpy", "jax" or a :class:`JaxBackend`.

    Returns
    -------
    JaxBackend or None
        None for numpy; ``backend`` itself, or ``JaxBackend()`` for "jax".

    Raises
    ------
    ParameterError
        For an unknown name or object.
    """
    if isinstance(backend, JaxBackend):
        return backend
    if backend == "numpy":
        return None
    if backend == "jax":
        return JaxBackend()
    raise ParameterError(f"backend must be one of {BACKENDS} or a simulate.runtime.backends.JaxBackend, got "
                         f"{backend!r}")


@contextlib.contextmanager
def using_backend(backend: Any, *, fallback: bool = False) -> Iterator[BackendRecord]:
    """Run every ``simulate.run(...)`` without a ``backend`` argument in this block on ``backend``.

    Parameters
    ----------
    backend : str or JaxBackend
        "numpy", "jax" or a :class:`JaxBackend`.
    fallback : bool
        True: a run the backend does not cover (:class:`BackendNotCovered`) runs on numpy instead.

    Yields
    ------
    BackendRecord
        Filled while the block runs: the runs that fell back to numpy and the seconds spent compiling.

    Raises
    ------
    ParameterError
        For an unknown backend (at entry).
    """
    resolve(backend)
    record = BackendRecord()
    token = _DEFAULT.set((backend, record, fallback))
    try:
        yield record
    finally:
        _DEFAULT.reset(token)


def default_backend() -> Any:
    """The backend of a ``run`` without a ``backend`` argument here ("numpy" outside :func:`using_backend`).

    Returns
    -------
    str or JaxBackend
        What the innermost :func:`using_backend` block named, else "numpy".
    """
    return _DEFAULT.get()[0]


def jax_module():
    """The JAX backend's package, imported on first use.

    Returns
    -------
    module
        The private package ``simulate._jax``.

    Raises
    ------
    BackendNotCovered
        Where JAX is not installed or older than 0.8 (the message names the extra to install).
    """
    try:
        import jax
    except ImportError:
        raise BackendNotCovered(f"backend='jax' needs JAX, which is not installed: {JAX_EXTRA} (the CPU build; "
                                "see JAX's installation guide for a GPU build)") from None
    if not callable(getattr(jax, "enable_x64", None)):
        raise BackendNotCovered(f"backend='jax' needs JAX >= 0.8 (found {jax.__version__}): {JAX_EXTRA}")
    return importlib.import_module("simulate._jax")


def run_elsewhere(backend: Any, sampler, n_chains: int, n_steps: int, **kwargs):
    """The run on the backend ``backend`` names, or None where that is numpy (the caller runs it).

    Parameters
    ----------
    backend : str, JaxBackend or None
        The ``backend=`` argument of :func:`simulate.run`; None: the default of :func:`using_backend` (whose
        ``fallback`` then applies; an explicit backend never falls back).
    sampler : simulate.Sampler
        The sampler.
    n_chains, n_steps : int
        The numbers of chains and steps.
    **kwargs
        The other arguments of :func:`simulate.run`, already checked.

    Returns
    -------
    RunResult or None
        The backend's result, or None where the run is numpy's (or fell back to it).

    Raises
    ------
    BackendNotCovered
        Where the backend does not run this sampler and no fallback applies.
    """
    default, record, fallback = _DEFAULT.get()
    if backend is None:
        backend = default
    else:
        fallback = False  # an explicit backend is never replaced
    spec = resolve(backend)
    if spec is None:
        return None
    try:
        res = jax_module().run(spec, sampler, n_chains, n_steps, **kwargs)
    except BackendNotCovered as e:
        if not fallback:
            raise
        record.fell_back.append((sampler.name, str(e)))
        return None
    if record is not None:
        record.compile_seconds += res.seconds.get("compile", 0.0)
    return res


__all__ = ["BACKENDS", "JAX_EXTRA", "BackendNotCovered", "BackendRecord", "JaxBackend", "default_backend",
           "jax_module", "resolve", "run_elsewhere", "using_backend"]
