"""Planted bugs in the K-step minibatch reuse estimator (simulate.estimators.reuse), caught by the exact engine's
claims."""

from __future__ import annotations

from unittest import mock

from simulate.estimators.reuse import Reused, ReuseState

from . import Mutant, register_mutant

CLAIMS = ("engine.toy.langevin",)


def _draw_once(self, model, n_chains, step, rng):
    """The minibatch is drawn at step 0 only and reused forever."""
    return self.inner.draw(model, n_chains, 0, rng) if step == 0 else None


def _draw_every_step(self, model, n_chains, step, rng):
    """K ignored: a fresh minibatch at every step."""
    return self.inner.draw(model, n_chains, 0, rng)


def _apply_any(self, model, theta, state, draws):
    stored, step = state
    use = stored if draws is None else draws
    return self.inner.apply(model, theta, None, use)[0], ReuseState(use, step + 1)


register_mutant(Mutant(
    id="reuse.drawn_once",
    description="Reused: the minibatch drawn once and reused for every step (the refresh every K steps missing)",
    patch=lambda: _both(_draw_once),
    claims=CLAIMS,
))
register_mutant(Mutant(
    id="reuse.K_ignored",
    description="Reused: a fresh minibatch at every step (K ignored: plain SGLD where reuse is claimed)",
    patch=lambda: _both(_draw_every_step),
    claims=CLAIMS,
))


def _both(draw):
    """Patch draw and apply together (the step check of apply would otherwise refuse the planted draws)."""
    from contextlib import ExitStack

    stack = ExitStack()
    stack.enter_context(mock.patch.object(Reused, "draw", draw))
    stack.enter_context(mock.patch.object(Reused, "apply", _apply_any))
    return stack
