"""Planted bugs in the Sec. 3 toy machinery of Baker et al. (simulate.analysis.divide_conquer, simulate.analysis.kl) and
in the samplers as run on the Gaussian toy; each names the baker.sec3 claims that must turn to "fails" under it."""

from __future__ import annotations

from unittest import mock

import numpy as np

import simulate.analysis.divide_conquer as divide_conquer
import simulate.analysis.kl as kl
import simulate.integrators as integrators

from . import Mutant, register_mutant


def _rho_includes_self(x, y, k, tree_y=None):
    """k-NN distances with the off-by-one of querying k (not k + 1) neighbours of x_i among the x's, so that
    rho is the (k-1)-th neighbour distance (and 0 for k = 1)."""
    rho = kl.cKDTree(x).query(x, k=k)[0]
    rho = rho[:, k - 1] if k > 1 else rho
    ty = kl.cKDTree(y) if tree_y is None else tree_y
    nu = ty.query(x, k=k)[0]
    return rho, (nu[:, k - 1] if k > 1 else nu)


register_mutant(Mutant(
    id="baker_toys.consensus_covariance_weighted",
    description="consensus weights W_s = Sigma_s (the inverse forgotten) instead of Sigma_s^{-1}",
    patch=lambda: mock.patch.object(divide_conquer, "precision_weights", lambda covs: np.array(covs)),
    claims=("baker.sec3.consensus_exact_gaussian",),
))

register_mutant(Mutant(
    id="baker_toys.subposterior_prior_untempered",
    description="each subposterior carries the full prior p(theta) instead of p(theta)^(1/S)",
    patch=lambda: mock.patch.object(divide_conquer, "prior_power", lambda S: 1.0),
    claims=("baker.sec3.consensus_exact_gaussian",),
))

register_mutant(Mutant(
    id="baker_toys.knn_rho_includes_self",
    description="k-NN KL: the k-th neighbour of x_i among the x's is searched with x_i itself counted",
    patch=lambda: mock.patch.object(kl, "knn_distances", _rho_includes_self),
    claims=("baker.sec3.knn_kl_consistent",),
))

register_mutant(Mutant(
    id="baker_toys.sgld_noise_sqrt2h",
    description="SGLD injected noise sqrt(2h) (Chen et al.'s convention mixed into the workbench's h)",
    patch=lambda: mock.patch.object(integrators.Langevin, "noise_scale", lambda self, h: float(np.sqrt(2 * h))),
    claims=("baker.sec3.sgld_exact_gaussian",),
))


def _sghmc_patch():
    from simulate.integrators.sghmc import SGHMC

    return mock.patch.object(SGHMC, "noise_scale", lambda self, h: float(np.sqrt(self.alpha * h)))


register_mutant(Mutant(
    id="baker_toys.sghmc_noise_missing_2",
    description="SGHMC momentum noise sqrt(alpha eta) instead of sqrt(2 alpha eta)",
    patch=_sghmc_patch,
    claims=("baker.sec3.sghmc_exact_gaussian",),
))


def _sorted_starts_patch():
    from simulate.models.scalar_mixture import ScalarMixtureLocation

    original = ScalarMixtureLocation.init_draws
    return mock.patch.object(ScalarMixtureLocation, "init_draws",
                             lambda self, rng, shape, xb: np.sort(original(self, rng, shape, xb), axis=-1))


register_mutant(Mutant(
    id="baker_toys.mixture_starts_one_label",
    description="the mixture's chains start with theta_1 < theta_2 (label-symmetric starts broken): every chain "
                "falls into one label mode",
    patch=_sorted_starts_patch,
    claims=("baker.sec3.mixture_consensus_between_modes",),
))
