"""Shared setting of the Fu & Zhang claims: "CPSG-MCMC: clustering-based preprocessing for SG-MCMC" (AISTATS 2017);
digest: docs/papers/fu_zhang.md.

Exact checks enumerate every minibatch of the simulator's own stratified estimator
(simulate.estimators.stratified.Stratified.combine) on small data, so a bug in the estimator is judged, not re-derived;
closed forms come from theory.noise.stratified, theory.bounds.fu_zhang and theory.chains.stratified (typed from the
paper). Statistical checks (z-tests, s.e. across independent chains) compare one-step gradient draws with Lemma 3.4
and the stationary variance of CP-SGLD and CP-SGHMC with the exact discrete Lyapunov solution on the Gaussian mean
model (theta-free gradient noise).
Data: a 2-D Gaussian mean model on four Gaussian blobs (N = 500, sigma_x = 1, prior N(0, 10^2 I)), k-means with
k = 4 stopped after 10 Lloyd iterations, b = 20; scikit-learn's breast-cancer data for logistic regression.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate.estimators.strata import Strata, kmeans_strata
from simulate.models.gaussian import GaussianMeanModel

PAPER = "fu_zhang"
DATA_SEED, KMEANS_SEED, K, B, KMEANS_ITER = 2017, 3, 4, 20, 10
BLOBS = (((0.0, 0.0), 0.5, 150), ((6.0, 0.0), 1.0, 100), ((0.0, 6.0), 2.0, 200), ((6.0, 6.0), 0.3, 50))
SIGMA_X, SIGMA0 = 1.0, 10.0


@cache
def blob_data() -> np.ndarray:
    """Four 2-D Gaussian blobs (centres, spreads, sizes in BLOBS), drawn from DATA_SEED."""
    rng = np.random.default_rng(DATA_SEED)
    return np.concatenate([np.asarray(c) + s * rng.standard_normal((n, 2)) for c, s, n in BLOBS])


@cache
def gauss_model() -> GaussianMeanModel:
    """The 2-D Gaussian mean model on :func:`blob_data` (sigma_x = 1, prior N(0, 10^2 I))."""
    return GaussianMeanModel(blob_data(), sigma_x=SIGMA_X, sigma0=SIGMA0)


@cache
def gauss_strata() -> Strata:
    """k-means (k = 4, stopped after 10 Lloyd iterations) on :func:`blob_data`."""
    return kmeans_strata(blob_data(), K, max_iter=KMEANS_ITER, seed=KMEANS_SEED)


def posterior_precision() -> float:
    """Precision a of the Gaussian posterior of :func:`gauss_model`: grad log posterior = c - a theta."""
    return gauss_model().grad_lipschitz


def one_step_errors(model, strata: Strata, sizes: tuple[int, ...], draws: int, seed: int,
                    theta: np.ndarray | None = None, replace: bool = True) -> np.ndarray:
    """||g - grad log post(theta)||^2 of ``draws`` independent one-step draws of the simulator's eq. (10) estimator
    (``Stratified(strata, sizes, replace)``) at ``theta`` (default: zero), drawn in chunks of 10,000 from ``seed``."""
    from simulate.estimators.stratified import Stratified

    est = Stratified(strata, sizes, replace=replace)
    theta = np.zeros(model.dim) if theta is None else np.asarray(theta, dtype=np.float64)
    full = model.grad_log_post(theta[None, :])[0]
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, draws, 10_000):
        g, _ = est.estimate(model, np.repeat(theta[None, :], min(draws, start + 10_000) - start, axis=0), None, rng)
        out.append(np.sum((g - full) ** 2, axis=1))
    return np.concatenate(out)
