"""Run chain blocks (or whole claims) on Dask distributed, bit-identical to a single-process run.

Block ``b`` of a run draws every random number from ``PCG64(SeedSequence(seed, spawn_key=(b,)))`` -- the
stream ``SeedSequence(seed).spawn(...)[b]`` would give -- so a run depends only on ``(seed, n_chains,
block_size)``, never on which worker ran a block or how blocks were grouped into tasks.

    from simulate.runtime.distributed import client, run_distributed, using
    with client(workers=4) as c:                        # a LocalCluster; client(address="tcp://host:8786") to go wider
        res = run_distributed(sampler, 10**6, 1000, seed=1, client=c)
        with using(c):                                  # or: every simulate.run of this process dispatches its blocks
            res2 = run(sampler, 10**6, 1000, seed=1)    # identical to res and to run(...) without Dask

:func:`run_many` submits the blocks of several runs (a sweep over (h, n, N) grids) as one pool of tasks.
``run`` dispatches to the default executor only when it runs all blocks of a run (``blocks=None``) and there is
more than one block; the tasks call ``run(..., blocks=[...])`` and the parts are joined with
:meth:`simulate.RunResult.concatenate`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..validation import ParameterError, check_int
from . import dispatch
from .blocks import DEFAULT_BLOCK_SIZE, RunResult
from .runner import run


def _distributed():
    try:
        import distributed
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise ImportError("simulate.runtime.distributed needs dask[distributed] "
                          "(pip install 'dask[distributed]')") from e
    return distributed


@contextmanager
def client(workers: int | None = None, address: str | None = None, threads_per_worker: int = 1,
           processes: bool = True, **cluster_kwargs) -> Iterator[Any]:
    """A Dask ``distributed.Client`` for a ``with`` block: on a new ``LocalCluster``, or connected to a scheduler.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the new ``LocalCluster``, >= 1 (default 2); ignored with ``address``.
    address : str, optional
        A running scheduler's address (e.g. "tcp://host:8786"): connect to it instead of starting a cluster.
    threads_per_worker : int, default 1
        Threads per worker of the new cluster, >= 1.
    processes : bool, default True
        Workers as processes (True) or threads of this process.
    **cluster_kwargs
        Passed to ``distributed.LocalCluster`` (``dashboard_address`` defaults to None: no dashboard).

    Yields
    ------
    distributed.Client
        Closed, and the cluster shut down, on exit.

    Raises
    ------
    ParameterError
        When workers or threads_per_worker is not a positive integer.
    ImportError
        When dask[distributed] is not installed.
    """
    dist = _distributed()
    if address is not None:
        c = dist.Client(address)
        try:
            yield c
        finally:
            c.close()
        return
    workers = check_int("workers", workers if workers is not None else 2, 1)
    threads_per_worker = check_int("threads_per_worker", threads_per_worker, 1)
    cluster_kwargs.setdefault("dashboard_address", None)
    with dist.LocalCluster(n_workers=workers, threads_per_worker=threads_per_worker, processes=processes,
                           **cluster_kwargs) as cluster, dist.Client(cluster) as c:
        yield c


class DaskExecutor:
    """The block executor of a Dask client (``simulate.runtime.dispatch.BlockExecutor``): ``run`` sends a run's
    blocks to it."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def run(self, sampler: Any, n_chains: int, n_steps: int, kwargs: dict) -> RunResult:
        return run_distributed(sampler, n_chains, n_steps, client=self.client, **kwargs)


def set_default_client(c: Any) -> Any:
    """Make ``c`` the client :func:`simulate.run` dispatches the blocks of multi-block runs to.

    Parameters
    ----------
    c : distributed.Client or None
        The client; None: run blocks in this process again.

    Returns
    -------
    distributed.Client or None
        The previous default client.
    """
    prev = dispatch.set_current(None if c is None else DaskExecutor(c))
    return prev.client if isinstance(prev, DaskExecutor) else None


def get_default_client() -> Any:
    """The client set by :func:`set_default_client` or :func:`using`.

    Returns
    -------
    distributed.Client or None
        None: runs stay in this process.
    """
    cur = dispatch.current()
    return cur.client if isinstance(cur, DaskExecutor) else None


@contextmanager
def using(c: Any) -> Iterator[Any]:
    """Within a ``with`` block, :func:`simulate.run` dispatches the blocks of multi-block runs to ``c``.

    The previous default client is restored on exit.

    Parameters
    ----------
    c : distributed.Client
        The client.

    Yields
    ------
    distributed.Client
        ``c``.
    """
    prev = set_default_client(c)
    try:
        yield c
    finally:
        set_default_client(prev)


def _run_part(sampler, n_chains: int, n_steps: int, blocks: list[int], kwargs: dict):
    return run(sampler, n_chains, n_steps, blocks=blocks, **kwargs)


def run_distributed(sampler, n_chains: int, n_steps: int, *, client: Any = None, blocks_per_task: int = 1,
                    **kwargs):
    """:func:`simulate.run` with its chain blocks spread over a Dask client, bit-identical to a run in one process.

    Parameters
    ----------
    sampler : Sampler
        The sampler.
    n_chains : int
        M, the number of chains.
    n_steps : int
        L, the number of states averaged.
    client : distributed.Client, optional
        The client; default: the one set by
        :func:`~simulate.runtime.distributed.using` or :func:`~simulate.runtime.distributed.set_default_client`.
    blocks_per_task : int, default 1
        Consecutive blocks per Dask task, >= 1.
    **kwargs
        The other arguments of :func:`simulate.run` (not ``blocks``).

    Returns
    -------
    RunResult
        Bit-identical to ``run(sampler, n_chains, n_steps, **kwargs)`` whatever the number of workers or tasks.

    Raises
    ------
    ParameterError
        When there is no client, or ``blocks`` is given.
    """
    c = client if client is not None else get_default_client()
    if c is None:
        raise ParameterError("run_distributed needs a client (client=..., or "
                             "simulate.runtime.distributed.using(client))")
    if kwargs.get("blocks") is not None:
        raise ParameterError("run_distributed runs every block of the run; use simulate.run(blocks=...) for a subset")
    return run_many([(sampler, n_chains, n_steps, kwargs)], client=c, blocks_per_task=blocks_per_task)[0]


def run_many(runs, *, client: Any = None, blocks_per_task: int = 1) -> list:
    """Several runs (a sweep over (h, n, N) grids, say) as one pool of block tasks on a Dask client.

    All blocks of all runs are submitted at once, so small runs fill the workers left idle by large ones.

    Parameters
    ----------
    runs : sequence of tuple
        ``(sampler, n_chains, n_steps, kwargs)`` per run, kwargs the other arguments of :func:`simulate.run` (not
        ``blocks``; ``progress`` is dropped).
    client : distributed.Client, optional
        The client; default: the one set by
        :func:`~simulate.runtime.distributed.using` or :func:`~simulate.runtime.distributed.set_default_client`.
    blocks_per_task : int, default 1
        Consecutive blocks per Dask task, >= 1.

    Returns
    -------
    list of RunResult
        In the order of ``runs``, each bit-identical to ``run(sampler, n_chains, n_steps, **kwargs)``.

    Raises
    ------
    ParameterError
        When there is no client, a run is not a 4-tuple, gives ``blocks``, or n_chains, block_size or
        blocks_per_task is not a positive integer.
    """
    c = client if client is not None else get_default_client()
    if c is None:
        raise ParameterError("run_many needs a client (client=..., or simulate.runtime.distributed.using(client))")
    blocks_per_task = check_int("blocks_per_task", blocks_per_task, 1)
    submitted = []
    for i, spec in enumerate(runs):
        if len(spec) != 4:
            raise ParameterError(f"runs[{i}] must be (sampler, n_chains, n_steps, kwargs), got {len(spec)} items")
        sampler, n_chains, n_steps, kwargs = spec
        kwargs = dict(kwargs)
        if kwargs.get("blocks") is not None:
            raise ParameterError(f"runs[{i}]: run_many runs every block; drop blocks=")
        kwargs.pop("blocks", None)
        kwargs.pop("progress", None)
        n_chains = check_int(f"runs[{i}] n_chains", n_chains, 1)
        block_size = check_int("block_size", kwargs.get("block_size", DEFAULT_BLOCK_SIZE), 1)
        n_blocks = -(-n_chains // block_size)
        groups = [list(range(b, min(n_blocks, b + blocks_per_task))) for b in range(0, n_blocks, blocks_per_task)]
        sampler_f = c.scatter(sampler, broadcast=True, hash=False) if len(groups) > 1 else sampler
        submitted.append([c.submit(_run_part, sampler_f, n_chains, n_steps, g, kwargs, pure=False) for g in groups])
    out = []
    for futures in submitted:
        parts = c.gather(futures)
        res = RunResult.concatenate(parts)
        res.seed, res.block_size, res.grads_per_chain = parts[0].seed, parts[0].block_size, parts[0].grads_per_chain
        out.append(res)
    return out


__all__ = ["client", "get_default_client", "run_distributed", "run_many", "set_default_client", "using"]
