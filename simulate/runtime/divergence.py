"""Divergence of a run's chains: a non-finite state, or chains whose second moment grows without bound.

The simulator's own step-size check (:meth:`simulate.contracts.Integrator.step_bound`, h < 4/L for a Langevin step)
is the limit of the chain's *mean*: E theta' = (I - (h/2) P) E theta contracts for h < 4/L. The second moments can
diverge at a smaller h, where the gradient noise grows with theta (minibatch noise on a regression): the
mean-square limit, which the exact engine computes where it applies (``theory.exact_law(sampler).stability_limit()``
and ``theory.check_stable(sampler)``; the simulator cannot import theory). So the runner watches the chains: every
:data:`CHECK_EVERY` steps it takes the mean of |theta|^2 over the block's chains and raises
:class:`simulate.validation.ChainDivergedError` when it is not finite, or when, in the second half of the run, it
exceeds :data:`GROWTH` times its largest value over the first half (a factor 1000 in scale: a chain that converges
or travels towards its target does not grow like that between half time and the end; a chain past its stability
limit grows geometrically). Reading the chains changes no number of the run.
"""

from __future__ import annotations

import numpy as np

from ..validation import ChainDivergedError

#: Steps between two looks at the chains (and the last step is always looked at).
CHECK_EVERY = 64
#: Growth of the chains' mean |theta|^2 from the first half of the run to a later step that counts as divergence.
GROWTH = 1e6


class DivergenceWatch:
    """Looks at one block's chains during a run of ``total`` steps of ``sampler`` and raises on divergence.

    Parameters
    ----------
    sampler : simulate.Sampler
        The sampler being run (named in the message, with its step size).
    total : int
        The last step of the run.
    chains : str
        Which chains the block holds, for the message (e.g. ``"chains 0-999"``).
    """

    def __init__(self, sampler, total: int, chains: str) -> None:
        self.sampler, self.total, self.chains = sampler, total, chains
        self.first_half = 0.0

    def due(self, k: int) -> bool:
        """Whether step ``k`` is one the watch looks at."""
        return k % CHECK_EVERY == 0 or k == self.total

    def look(self, k: int, theta: np.ndarray) -> None:
        """Look at the chains' states ``theta`` (M, d) at step ``k``.

        Raises
        ------
        simulate.validation.ChainDivergedError
            When a state is not finite, or the mean |theta|^2 has grown by more than :data:`GROWTH` since the
            first half of the run.
        """
        ms = float(np.mean(np.einsum("md,md->m", theta, theta)))
        bad = 0 if np.isfinite(ms) else int(np.sum(~np.all(np.isfinite(theta), axis=1)))
        self.look_summary(k, ms, bad, theta.shape[0])

    def look_summary(self, k: int, ms: float, bad: int, m: int) -> None:
        """:meth:`look` from a summary computed where the chains are (another backend's device): the mean |theta|^2
        ``ms`` of the ``m`` chains and the number ``bad`` of chains with a non-finite coordinate."""
        if not np.isfinite(ms):
            self._raise(f"{bad} of {m} chains ({self.chains}) reached a non-finite state by step {k}"
                        if bad else f"the chains ({self.chains}) grew past 1e154 by step {k} (|theta|^2 overflows)")
        if 2 * k <= self.total:
            self.first_half = max(self.first_half, ms)
        elif self.first_half > 0 and ms > GROWTH * self.first_half:
            self._raise(f"the chains ({self.chains}) grow without bound: their mean |theta|^2 went from at most "
                        f"{self.first_half:.3g} in the first half of the run to {ms:.3g} at step {k}")

    def _raise(self, what: str) -> None:
        s = self.sampler
        L = s.model.grad_lipschitz
        bound = ""
        if L is not None:
            h_max, why = s.integrator.step_bound(L)
            bound = f" The simulator's step-size check, h < {h_max:.6g} ({why}), does not rule this out."
        raise ChainDivergedError(
            f"{s.name} diverged at h = {s.h:.6g}: {what}.{bound} Reduce h. For a model with an affine gradient, "
            "theory.check_stable(sampler) gives the exact engine's mean-square stability limit before a run.")


__all__ = ["CHECK_EVERY", "GROWTH", "DivergenceWatch"]
