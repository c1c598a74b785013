"""The runtime: :func:`simulate.run` advances M chains of a sampler at once (``runner``), in chain blocks that own
their random streams (``blocks``), optionally drawing ahead in a background thread (``pipeline``) or on Dask workers
(``distributed``, reached through ``dispatch``)."""

from .blocks import DEFAULT_BLOCK_SIZE, RunResult, block_rng
from .runner import StepHook, run

__all__ = ["DEFAULT_BLOCK_SIZE", "RunResult", "StepHook", "block_rng", "run"]
