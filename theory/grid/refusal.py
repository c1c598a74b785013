"""The grid law's refusals: the settings at which the grid route has no answer, as one exception class."""

from __future__ import annotations

from simulate.validation import ParameterError


class GridRefusal(ParameterError):
    """The grid law refuses a sampler at these settings; the message says why and what to change.

    A subclass of :class:`simulate.validation.ParameterError` raised in four cases, each a property of the sampler at
    this (h, n) rather than a mistake in the call:

    * the chain escapes the grid's region (explicit steps on a superlinear drift are transient at this h);
    * the tolerance is not reached on the largest grid tried;
    * the grid law would need more nodes than it allows (``theory.grid.law.MAX_NODES``);
    * the chain on the grid has not forgotten its start after :data:`theory.grid.chain.J_MAX` steps (it mixes too
      slowly for a time average).

    Callers that scan many settings (the trade-off explorer) leave such a point out and count it; every other
    ``ParameterError`` of the grid law is bad input and propagates.
    """


__all__ = ["GridRefusal"]
