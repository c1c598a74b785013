"""Planted bugs in the stratified (CP) gradient estimator of Fu & Zhang, each with the claims that must kill it."""

from __future__ import annotations

from unittest import mock

import numpy as np

import simulate.estimators.stratified as stratified
from simulate.estimators.subsample import with_replacement

from . import Mutant, register_mutant

_ORIG_COMBINE = stratified.Stratified.combine


def swapped_weights(self) -> np.ndarray:
    """Bug: the eq. (10) multiplier written b_i/n_i instead of n_i/b_i."""
    return np.asarray(self.sizes, dtype=np.float64) / self.strata.sizes


def draws_with_replacement(rng, n_data, n, n_chains, replace):
    """Bug: within-cluster draws ignore ``replace`` and are always with replacement."""
    return with_replacement(rng, n_data, n, n_chains)


def combine_dropping_last_cluster(self, model, theta, draws, rng=None):
    """Bug: an off-by-one loop over clusters (range(k - 1)) drops the last cluster's term."""
    return _ORIG_COMBINE(self, model, theta, list(draws)[:-1], rng)


register_mutant(Mutant(
    "fu_zhang.weights_swapped", "stratified weights n_i/b_i swapped to b_i/n_i",
    lambda: mock.patch.object(stratified.Stratified, "weights", swapped_weights),
    ("fu_zhang.lemma33.unbiased", "fu_zhang.lemma34.with_replacement", "fu_zhang.cp_sgld.stationary_variance",
     "fu_zhang.thm31.bound"),
))
register_mutant(Mutant(
    "fu_zhang.within_cluster_with_replacement", "with-replacement draws inside clusters where without is claimed",
    lambda: mock.patch.object(stratified, "sample_indices", draws_with_replacement),
    ("fu_zhang.lemma34.without_replacement_corrected", "fu_zhang.cp_sgld.stationary_variance"),
))
register_mutant(Mutant(
    "fu_zhang.cluster_dropped", "the last cluster's term dropped from eq. (10)",
    lambda: mock.patch.object(stratified.Stratified, "combine", combine_dropping_last_cluster),
    ("fu_zhang.lemma33.unbiased", "fu_zhang.cp_sgld.stationary_variance", "fu_zhang.cp_sghmc.stationary_variance",
     "fu_zhang.thm33.bias_bound"),
))
