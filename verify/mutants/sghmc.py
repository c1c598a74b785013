"""Planted bugs in SGHMC (simulate.integrators.sghmc)."""

from __future__ import annotations

from unittest import mock

from simulate.integrators.sghmc import SGHMC

from . import Mutant, register_mutant


def _friction_without_step(cls, eps, friction, resample_every=None):
    """The friction term missing its step size: alpha = C instead of eps C (eta = eps^2 kept)."""
    return cls(friction, resample_every), eps * eps


def _noise_without_friction(self, h):
    """Injected momentum noise N(0, 2 eta) instead of N(0, 2 alpha eta)."""
    return float((2.0 * h) ** 0.5)


register_mutant(Mutant(
    id="sghmc.friction_missing_step",
    description="SGHMC friction missing the step size: alpha = C instead of eps C (Chen et al. eq. 13 -> 15)",
    patch=lambda: mock.patch.object(SGHMC, "from_friction", classmethod(_friction_without_step)),
    claims=("baker.sghmc.stationary_variance",),
))
register_mutant(Mutant(
    id="sghmc.noise_missing_alpha",
    description="SGHMC momentum noise N(0, 2 eta) instead of N(0, 2 alpha eta)",
    patch=lambda: mock.patch.object(SGHMC, "noise_scale", _noise_without_friction),
    claims=("baker.sghmc.stationary_variance",),
))
