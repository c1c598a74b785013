"""Divide-and-conquer MCMC baselines of Baker et al. Sec. 2.1 / Sec. 3, vectorized over replicate experiments.

The data are split into S disjoint blocks B_s; subposterior s is p(theta)^(1/S) prod_{i in B_s} p(x_i | theta)
(Baker et al. eq. 1). Subposterior draws have shape (S, R, M, d): S subsets, R independent replicate experiments,
M draws each. They come from exact samplers where the subposterior allows it (the Gaussian mean model; warped Gaussian,
see :class:`simulate.WarpedGaussian`) and otherwise from MALA run on all S x R x C chains at once
(C chains per replicate, thinned traces pooled into M = C * n_keep draws).

Combination rules (each returns (R, M_out, d)):

* :func:`consensus`: Scott et al. (2016), Baker et al. eq. (2): theta_i = (sum_s W_s)^{-1} sum_s W_s theta_si,
  W_s = Sigma_s^{-1} (sample covariance of subposterior s unless given).
* :func:`kdemc`: Neiswanger, Wang & Xing (2014), nonparametric product of Gaussian KDEs sampled by independent
  Metropolis-within-Gibbs over the component indices (their Algorithm 1). The mixture has M^S components (the
  paper's "O(SM)" is a slip, docs/papers/baker.md sec. 6). Workbench choices (documented, not in the sources):
  draws are whitened by the mean subposterior covariance of each replicate and the isotropic bandwidth is
  bw_mult * (4/(d+2))^{1/(d+4)} M^{-1/(d+4)} in whitened units (Silverman's rule), fixed rather than annealed;
  K parallel Gibbs chains per replicate.
* :func:`weierstrass`: the rejection variant of Wang & Dunson (2013) as in their R package
  (docs/papers/baker.md sec. 1.6): subsets are combined pairwise in a binary tree; for two sets, draws are randomly
  paired, the pair is combined by the precision-weighted average and accepted when its Mahalanobis discrepancy
  (a - b)^T (Sigma_a + Sigma_b)^{-1} (a - b) is below the ``accept`` quantile (uniform kernel); ceil(1/accept)
  random pairings give back about M draws.

:func:`sg_draws` runs an SG-MCMC :class:`simulate.Sampler` on R x C chains and pools thinned traces the same
way, so every method returns draws of the same shape for the KL comparison.
"""

from __future__ import annotations

import math

import numpy as np

from ..models.gaussian import GaussianMeanModel
from ..models.log_density import LogDensityModel
from ..models.warped_gaussian import WarpedGaussian
from ..runtime.runner import run
from ..validation import ChainDivergedError, ParameterError, check_int, check_positive


def prior_power(S: int) -> float:
    """The power of the prior in each of S subposteriors, 1/S.

    Parameters
    ----------
    S : int
        The number of subsets.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), eq. (1) (:doc:`/papers/baker`, sec. 1.6).
    """
    return 1.0 / S


def split(n_data: int, S: int, sizes=None) -> list[np.ndarray]:
    """Consecutive disjoint index blocks of the data: S equal blocks of N/S, or blocks of the given sizes.

    Parameters
    ----------
    n_data : int
        N >= 1.
    S : int
        The number of blocks, 1 <= S <= N (S must divide N without ``sizes``).
    sizes : sequence of int, optional
        The blocks' sizes, S positive integers summing to N.

    Returns
    -------
    list of numpy.ndarray
        S arrays of data indices.

    Raises
    ------
    ParameterError
        When S does not divide N (without sizes), or the sizes are not S positive integers summing to N.
    """
    n_data = check_int("n_data", n_data, 1)
    S = check_int("S", S, 1, n_data)
    if sizes is None:
        if n_data % S:
            raise ParameterError(f"S must divide n_data = {n_data} for equal blocks, got S = {S} (or pass sizes)")
        sizes = [n_data // S] * S
    sizes = [check_int("sizes[i]", int(k), 1) for k in sizes]
    if len(sizes) != S or sum(sizes) != n_data:
        raise ParameterError(f"sizes must have S = {S} entries summing to n_data = {n_data}, got {sizes}")
    edges = np.concatenate([[0], np.cumsum(sizes)])
    return [np.arange(edges[s], edges[s + 1]) for s in range(S)]


def _padded_blocks(data: np.ndarray, blocks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
    m = max(len(b) for b in blocks)
    xb = np.zeros((len(blocks), m, data.shape[1]))
    w = np.zeros((len(blocks), m))
    for s, b in enumerate(blocks):
        xb[s, : len(b)] = data[b]
        w[s, : len(b)] = 1.0
    return xb, (None if np.all(w == 1.0) else w)


# ------------------------------------------------------------------------------------------------ MALA
def mala_blocks(model: LogDensityModel, xb: np.ndarray, weights: np.ndarray | None, power: float, theta0: np.ndarray,
                cov: np.ndarray, rng: np.random.Generator, n_burn: int, n_keep: int, thin: int = 1,
                target_accept: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """Preconditioned MALA on B tempered block posteriors at once.

    Proposal theta* = theta + (h/2) C grad + sqrt(h) C^{1/2} xi, Metropolis-Hastings accepted. The scalar h of each
    block is adapted during burn-in only (every 10 steps, towards ``target_accept``), then frozen, so the kept draws
    are from a fixed-kernel chain.

    Parameters
    ----------
    model : LogDensityModel
        The model (its ``block_log_post_and_grad``).
    xb : numpy.ndarray, shape (B, m, dx)
        The blocks' data, padded to a common m.
    weights : numpy.ndarray, shape (B, m), or None
        1 for data, 0 for padding; None: no padding.
    power : float
        The prior's power in every block posterior.
    theta0 : numpy.ndarray, shape (B, M, d)
        M starting points per block.
    cov : numpy.ndarray, shape (B, d, d)
        The preconditioner C of each block (positive definite).
    rng : numpy.random.Generator
        The stream (advanced).
    n_burn : int
        Burn-in steps (adapting h), >= 0.
    n_keep : int
        Draws kept per chain, >= 1.
    thin : int, default 1
        Steps between kept draws.
    target_accept : float, default 0.6
        The acceptance rate the burn-in steers h to.

    Returns
    -------
    trace : numpy.ndarray, shape (n_keep, B, M, d)
    accept : numpy.ndarray, shape (B,)
        The mean acceptance rate after burn-in.

    Raises
    ------
    ParameterError
        When n_burn, n_keep or thin is out of range.

    References
    ----------
    Roberts & Tweedie (1996), MALA.
    """
    n_burn = check_int("n_burn", n_burn, 0)
    n_keep = check_int("n_keep", n_keep, 1)
    thin = check_int("thin", thin, 1)
    theta = np.array(theta0, dtype=float)
    B, M, d = theta.shape
    R = np.linalg.cholesky(cov)  # (B, d, d)
    Pinv = np.linalg.inv(cov)
    logh = np.full(B, math.log(1.0 / d ** (1 / 3)))
    lp, g = model.block_log_post_and_grad(theta, xb, power, weights)
    out = np.empty((n_keep, B, M, d))
    acc_sum = np.zeros(B)
    win = np.zeros(B)
    total = n_burn + n_keep * thin
    kept = 0
    for k in range(total):
        h = np.exp(logh)[:, None, None]
        Cg = np.einsum("bij,bmj->bmi", cov, g)
        mean_f = theta + 0.5 * h * Cg
        prop = mean_f + np.sqrt(h) * np.einsum("bij,bmj->bmi", R, rng.standard_normal((B, M, d)))
        lp_p, g_p = model.block_log_post_and_grad(prop, xb, power, weights)
        mean_b = prop + 0.5 * h * np.einsum("bij,bmj->bmi", cov, g_p)
        df, db = prop - mean_f, theta - mean_b
        lq_f = -0.5 / h[..., 0] * np.einsum("bmi,bij,bmj->bm", df, Pinv, df)
        lq_b = -0.5 / h[..., 0] * np.einsum("bmi,bij,bmj->bm", db, Pinv, db)
        la = lp_p - lp + lq_b - lq_f
        acc = np.log(rng.random((B, M))) < la
        theta[acc] = prop[acc]
        lp[acc] = lp_p[acc]
        g[acc] = g_p[acc]
        rate = acc.mean(axis=1)
        if k < n_burn:
            win += rate
            if (k + 1) % 10 == 0:
                logh += 1.5 * (win / 10 - target_accept)
                win[:] = 0.0
        else:
            acc_sum += rate
            j = k - n_burn
            if (j + 1) % thin == 0:
                out[kept] = theta
                kept += 1
    return out, acc_sum / max(total - n_burn, 1)


# ------------------------------------------------------------------------------------------------ subposteriors
def subposterior_draws(model: LogDensityModel, S: int, n_rep: int, n_draws: int, rng: np.random.Generator, *,
                       sizes=None, chains_per_rep: int = 1, n_burn: int = 300, thin: int = 2,
                       method: str = "auto") -> np.ndarray:
    """Draws from each subposterior p(theta)^(1/S) prod_{i in B_s} p(x_i | theta), for R replicate experiments.

    Parameters
    ----------
    model : LogDensityModel
        The model (a Gaussian mean, warped Gaussian, t location or mixture model).
    S : int
        The number of subsets, >= 1.
    n_rep : int
        R, the replicates, >= 1.
    n_draws : int
        M, the draws per subposterior and replicate, >= 2 (with MALA a multiple of chains_per_rep).
    rng : numpy.random.Generator
        The stream (advanced).
    sizes : sequence of int, optional
        The subsets' sizes (default S equal blocks; :func:`~simulate.analysis.divide_conquer.split`).
    chains_per_rep : int, default 1
        C, MALA chains per replicate (M = C n_keep draws pooled).
    n_burn : int, default 300
        MALA burn-in steps.
    thin : int, default 2
        MALA steps between kept draws.
    method : {"auto", "exact", "mala"}, default "auto"
        "exact": the Gaussian mean and warped Gaussian models' exact samplers; "mala": MALA for any model; "auto":
        exact where available.

    Returns
    -------
    numpy.ndarray, shape (S, R, M, d)

    Raises
    ------
    ParameterError
        For an argument out of its range, "exact" on a model without an exact sampler, or an n_draws that is not a
        multiple of chains_per_rep.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), eq. (1) and Section 3 (:doc:`/papers/baker`, sec. 1.6).
    """
    S = check_int("S", S, 1)
    n_rep = check_int("n_rep", n_rep, 1)
    n_draws = check_int("n_draws", n_draws, 2)
    if method not in ("auto", "exact", "mala"):
        raise ParameterError(f"method must be 'auto', 'exact' or 'mala', got {method!r}")
    blocks = split(model.n_data, S, sizes)
    lam = prior_power(S)
    d = model.dim
    exact_ok = isinstance(model, (GaussianMeanModel, WarpedGaussian))
    if method == "exact" and not exact_ok:
        raise ParameterError(f"method='exact' is available for GaussianMeanModel and WarpedGaussian, not "
                             f"{type(model).__name__}")
    if method != "mala" and exact_ok:
        out = np.empty((S, n_rep, n_draws, d))
        for s, b in enumerate(blocks):
            xs = model.data[b]
            if isinstance(model, GaussianMeanModel):
                mean, cov = model.tempered_posterior(len(b), xs.sum(0), lam)
                out[s] = mean + rng.standard_normal((n_rep, n_draws, d)) @ np.linalg.cholesky(cov).T
            else:
                out[s] = model.exact_draws(rng, (n_rep, n_draws), float(xs.mean()), len(b), lam)
        return out
    C = check_int("chains_per_rep", chains_per_rep, 1)
    if n_draws % C:
        raise ParameterError(f"n_draws must be a multiple of chains_per_rep = {C}, got {n_draws}")
    n_keep = n_draws // C
    xb, w = _padded_blocks(model.data, blocks)
    theta0 = np.stack([model.init_draws(rng, (n_rep * C,), model.data[b]) for b in blocks])
    cov = np.stack([model.approx_cov(len(b), lam) for b in blocks])
    trace, _ = mala_blocks(model, xb, w, lam, theta0, cov, rng, n_burn, n_keep, thin)
    # (n_keep, S, R*C, d) -> (S, R, C*n_keep, d)
    tr = trace.reshape(n_keep, S, n_rep, C, d).transpose(1, 2, 3, 0, 4)
    return tr.reshape(S, n_rep, C * n_keep, d)


def reference_draws(model: LogDensityModel, n_draws: int, seed: int, *, chains: int = 50, n_burn: int = 200,
                    thin: int = 3) -> np.ndarray:
    """A long reference sample of the full posterior: exact where possible, else MALA pooled over chains.

    The paper used Stan's HMC. For the mixture, the label-swapped copy of every other chain is used, so the
    reference carries both label modes with equal mass (the exact posterior is swap-symmetric).

    Parameters
    ----------
    model : LogDensityModel
        The model.
    n_draws : int
        The draws, >= 2.
    seed : int
        The seed of the sample's generator.
    chains : int, default 50
        MALA chains, >= 2.
    n_burn : int, default 200
        MALA burn-in steps.
    thin : int, default 3
        MALA steps between kept draws.

    Returns
    -------
    numpy.ndarray, shape (n_draws, d)

    Raises
    ------
    ParameterError
        When n_draws or chains is below 2.
    """
    n_draws = check_int("n_draws", n_draws, 2)
    rng = np.random.default_rng(seed)
    if isinstance(model, GaussianMeanModel):
        mean, cov = model.posterior_mean, model.posterior_cov
        return mean + rng.standard_normal((n_draws, model.dim)) @ np.linalg.cholesky(cov).T
    if isinstance(model, WarpedGaussian):
        return model.exact_draws(rng, (n_draws,), float(model.data.mean()), model.n_data, 1.0)
    chains = check_int("chains", chains, 2)
    n_keep = -(-n_draws // chains)
    cov = model.approx_cov(model.n_data)[None]
    if hasattr(model, "cluster_means"):  # start in a label mode (a chain in the collapsed mode theta_1 = theta_2
        # would otherwise take long to leave it)
        theta0 = model.cluster_means().ravel() + rng.standard_normal((1, chains, model.dim)) @ np.linalg.cholesky(
            cov[0]).T
    else:
        theta0 = model.init_draws(rng, (chains,), model.data)[None]
    tr, _ = mala_blocks(model, model.data[None], None, 1.0, theta0, cov, rng, n_burn, n_keep, thin)
    draws = tr[:, 0]  # (n_keep, chains, d)
    if hasattr(model, "swap_labels"):
        draws[:, 1::2] = model.swap_labels(draws[:, 1::2])
    return draws.reshape(-1, model.dim)[:n_draws]


# ------------------------------------------------------------------------------------------------ consensus
def sample_covariances(draws: np.ndarray) -> np.ndarray:
    """The sample covariance (divisor M - 1) of every set of draws.

    Parameters
    ----------
    draws : numpy.ndarray, shape (..., M, d)
        Sets of M draws.

    Returns
    -------
    numpy.ndarray, shape (..., d, d)
    """
    c = draws - draws.mean(axis=-2, keepdims=True)
    return np.einsum("...mi,...mj->...ij", c, c) / (draws.shape[-2] - 1)


def precision_weights(covs: np.ndarray) -> np.ndarray:
    """The consensus weights W_s = Sigma_s^{-1}.

    Parameters
    ----------
    covs : numpy.ndarray, shape (..., d, d)
        The subposterior covariances.

    Returns
    -------
    numpy.ndarray, shape (..., d, d)

    References
    ----------
    Scott, Blocker, Bonassi, Chipman, George & McCulloch (2016).
    """
    return np.linalg.inv(covs)


def consensus(draws: np.ndarray, covs: np.ndarray | None = None) -> np.ndarray:
    """Consensus Monte Carlo: theta_i = (sum_s W_s)^{-1} sum_s W_s theta_si, combining the i-th draws of the subsets.

    Exact when the subposteriors are Gaussian.

    Parameters
    ----------
    draws : array_like, shape (S, R, M, d)
        Subposterior draws (:func:`simulate.subposterior_draws`).
    covs : array_like, shape (S, d, d) or (S, R, d, d), optional
        The subposterior covariances; default: the sample covariances per replicate.

    Returns
    -------
    numpy.ndarray, shape (R, M, d)

    Raises
    ------
    ParameterError
        When draws is not 4-D or covs has another shape.

    References
    ----------
    Scott et al. (2016); Baker, Fearnhead, Fox & Nemeth (2019), eq. (2) (:doc:`/papers/baker`, sec. 1.6).
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 4:
        raise ParameterError(f"draws must have shape (S, R, M, d), got {draws.shape}")
    S, R, M, d = draws.shape
    covs = sample_covariances(draws) if covs is None else np.asarray(covs, dtype=float)
    if covs.shape == (S, d, d):
        covs = np.broadcast_to(covs[:, None], (S, R, d, d))
    if covs.shape != (S, R, d, d):
        raise ParameterError(f"covs must have shape ({S}, {d}, {d}) or ({S}, {R}, {d}, {d}), got {covs.shape}")
    W = precision_weights(covs)  # (S, R, d, d)
    total = W.sum(axis=0)  # (R, d, d)
    num = np.einsum("srij,srmj->rmi", W, draws)
    return np.linalg.solve(total[:, None], num[..., None])[..., 0]


# ------------------------------------------------------------------------------------------------ KDEMC
def kdemc_bandwidth(M: int, d: int, bw_mult: float = 1.0) -> float:
    """The KDEMC bandwidth in whitened units, bw_mult (4/(d+2))^{1/(d+4)} M^{-1/(d+4)} (Silverman's rule).

    Parameters
    ----------
    M : int
        Draws per subposterior.
    d : int
        The dimension.
    bw_mult : float, default 1.0
        A multiplier.

    Returns
    -------
    float
    """
    return bw_mult * (4.0 / (d + 2)) ** (1.0 / (d + 4)) * M ** (-1.0 / (d + 4))


def kdemc(draws: np.ndarray, rng: np.random.Generator, n_out: int, *, bw_mult: float = 1.0,
          n_parallel: int = 20, n_burn: int = 20) -> np.ndarray:
    """Neiswanger, Wang & Xing's (2014) nonparametric KDE-product sampler (their Algorithm 1).

    Independent Metropolis-within-Gibbs over component indices t = (t_1..t_S): for s = 1..S propose
    t_s' ~ U{1..M} and accept with w_{t'}/w_t, w_t = prod_s N(theta_{s,t_s} | theta_bar_t, h^2 I); then
    theta ~ N(theta_bar_t, (h^2/S) I). Draws are whitened by the replicate's mean subposterior covariance and the
    bandwidth is fixed (:func:`~simulate.analysis.divide_conquer.kdemc_bandwidth`), workbench choices.

    Parameters
    ----------
    draws : array_like, shape (S, R, M, d)
        Subposterior draws.
    rng : numpy.random.Generator
        The stream (advanced).
    n_out : int
        Draws per replicate, a multiple of n_parallel.
    bw_mult : float, default 1.0
        The bandwidth's multiplier, > 0.
    n_parallel : int, default 20
        Gibbs chains per replicate, each giving n_out / n_parallel draws.
    n_burn : int, default 20
        Gibbs sweeps discarded first.

    Returns
    -------
    numpy.ndarray, shape (R, n_out, d)

    Raises
    ------
    ParameterError
        When draws is not 4-D, or n_out, n_parallel, bw_mult or n_burn is out of range.

    References
    ----------
    Neiswanger, Wang & Xing (2014), Algorithm 1; the mixture has M^S components (the "O(SM)" of Baker et al.,
    Sec. 2.1, is a slip; :doc:`/papers/baker`, secs. 1.6 and 6).
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 4:
        raise ParameterError(f"draws must have shape (S, R, M, d), got {draws.shape}")
    S, R, M, d = draws.shape
    n_out = check_int("n_out", n_out, 1)
    K = check_int("n_parallel", n_parallel, 1)
    if n_out % K:
        raise ParameterError(f"n_out must be a multiple of n_parallel = {K}, got {n_out}")
    bw_mult = check_positive("bw_mult", bw_mult)
    n_burn = check_int("n_burn", n_burn, 0)
    # whiten each replicate by the mean subposterior covariance
    cbar = sample_covariances(draws).mean(axis=0)  # (R, d, d)
    L = np.linalg.cholesky(cbar)
    Linv = np.linalg.inv(L)
    z = np.einsum("rij,srmj->srmi", Linv, draws)
    h = kdemc_bandwidth(M, d, bw_mult)
    sq = np.einsum("srmi,srmi->srm", z, z)
    idx = rng.integers(0, M, size=(S, R, K))
    rr = np.arange(R)[:, None]
    pts = z[np.arange(S)[:, None, None], rr[None], idx]  # (S, R, K, d)
    sum1 = pts.sum(axis=0)
    sum2 = sq[np.arange(S)[:, None, None], rr[None], idx].sum(axis=0)

    def logw(s1, s2):
        return -(s2 - np.einsum("rki,rki->rk", s1, s1) / S) / (2 * h * h)

    lw = logw(sum1, sum2)
    n_keep = n_out // K
    out = np.empty((R, K, n_keep, d))
    for it in range(n_burn + n_keep):
        for s in range(S):
            c = rng.integers(0, M, size=(R, K))
            old_i = idx[s]
            s1 = sum1 - z[s, rr, old_i] + z[s, rr, c]
            s2 = sum2 - sq[s, rr, old_i] + sq[s, rr, c]
            lw_new = logw(s1, s2)
            acc = np.log(rng.random((R, K))) < lw_new - lw
            idx[s] = np.where(acc, c, old_i)
            sum1 = np.where(acc[..., None], s1, sum1)
            sum2 = np.where(acc, s2, sum2)
            lw = np.where(acc, lw_new, lw)
        if it >= n_burn:
            out[:, :, it - n_burn] = sum1 / S + (h / math.sqrt(S)) * rng.standard_normal((R, K, d))
    out = out.reshape(R, n_out, d)
    return np.einsum("rij,rmj->rmi", L, out)


# ------------------------------------------------------------------------------------------------ Weierstrass
def _pair_combine(a: np.ndarray, b: np.ndarray, rng: np.random.Generator, accept: float) -> np.ndarray:
    """Combine two draw sets a, b (R, M, d) by random pairing + rejection (uniform kernel)."""
    R, M, d = a.shape
    Ca, Cb = sample_covariances(a), sample_covariances(b)
    Pa, Pb = np.linalg.inv(Ca), np.linalg.inv(Cb)
    Pt_inv = np.linalg.inv(Pa + Pb)
    Wa, Wb = Pt_inv @ Pa, Pt_inv @ Pb  # (R, d, d)
    Dinv = np.linalg.inv(Ca + Cb)
    n_perm = math.ceil(1.0 / accept)
    k = max(1, math.ceil(accept * M))
    outs = []
    for _ in range(n_perm):
        perm = np.argsort(rng.random((R, M)), axis=1)
        bp = np.take_along_axis(b, perm[..., None], axis=1)
        diff = a - bp
        D = np.einsum("rmi,rij,rmj->rm", diff, Dinv, diff)
        keep = np.argsort(D, axis=1)[:, :k]
        aa = np.take_along_axis(a, keep[..., None], axis=1)
        bb = np.take_along_axis(bp, keep[..., None], axis=1)
        outs.append(np.einsum("rij,rmj->rmi", Wa, aa) + np.einsum("rij,rmj->rmi", Wb, bb))
    out = np.concatenate(outs, axis=1)
    # back to M draws per replicate (random subset if more came out)
    sel = np.argsort(rng.random((R, out.shape[1])), axis=1)[:, :M]
    return np.take_along_axis(out, sel[..., None], axis=1)


def weierstrass(draws: np.ndarray, rng: np.random.Generator, accept: float = 0.1) -> np.ndarray:
    """The Weierstrass rejection sampler, subsets combined pairwise in a binary tree (module docstring).

    Parameters
    ----------
    draws : array_like, shape (S, R, M, d)
        Subposterior draws.
    rng : numpy.random.Generator
        The stream (advanced).
    accept : float, default 0.1
        The quantile of the pairs' Mahalanobis discrepancy accepted, 0 < accept <= 1.

    Returns
    -------
    numpy.ndarray, shape (R, M, d)

    Raises
    ------
    ParameterError
        When draws is not 4-D or accept is not in (0, 1].

    References
    ----------
    Wang & Dunson (2013), the rejection variant of their R package (:doc:`/papers/baker`, sec. 1.6).
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 4:
        raise ParameterError(f"draws must have shape (S, R, M, d), got {draws.shape}")
    accept = check_positive("accept", accept)
    if accept > 1:
        raise ParameterError(f"accept must satisfy 0 < accept <= 1, got {accept}")
    sets = [draws[s] for s in range(draws.shape[0])]
    while len(sets) > 1:
        nxt = [_pair_combine(sets[i], sets[i + 1], rng, accept) for i in range(0, len(sets) - 1, 2)]
        if len(sets) % 2:
            nxt.append(sets[-1])
        sets = nxt
    return sets[0]


# ------------------------------------------------------------------------------------------------ SG-MCMC
def sg_draws(sampler, n_rep: int, chains_per_rep: int, n_keep: int, *, n_burn: int, thin: int = 1,
             seed: int = 0, theta0=None) -> np.ndarray:
    """Draws of an SG-MCMC sampler on the full data, pooled like the subposterior draws for the KL comparison.

    R x C chains; every ``thin``-th state after ``n_burn`` steps is kept.

    Parameters
    ----------
    sampler : Sampler
        The sampler, on a model with ``init_draws`` when theta0 is None.
    n_rep : int
        R, the replicates, >= 1.
    chains_per_rep : int
        C, chains per replicate, >= 1.
    n_keep : int
        States kept per chain, >= 1.
    n_burn : int
        Steps before the first kept state, >= 0.
    thin : int, default 1
        Steps between kept states.
    seed : int, default 0
        The run's seed.
    theta0 : callable, optional
        ``theta0(rng, m) -> (m, d)``; default: the model's overdispersed ``init_draws``.

    Returns
    -------
    numpy.ndarray, shape (R, C * n_keep, d)

    Raises
    ------
    ParameterError
        For an argument out of its range.
    ChainDivergedError
        When a chain reaches a non-finite state (explicit SG steps can blow up on targets whose gradient is not
        globally Lipschitz, e.g. the warped Gaussian).
    """
    n_rep = check_int("n_rep", n_rep, 1)
    C = check_int("chains_per_rep", chains_per_rep, 1)
    n_keep = check_int("n_keep", n_keep, 1)
    n_burn = check_int("n_burn", n_burn, 0)
    thin = check_int("thin", thin, 1)
    model = sampler.model
    M = n_rep * C
    total = n_burn + n_keep * thin
    if theta0 is None:
        theta0 = lambda rng, m: model.init_draws(rng, (m,), model.data)  # noqa: E731
    res = run(sampler, M, 1, seed=seed, theta0=theta0, record_at=range(n_burn + thin, total + 1, thin),
              test_functions=())
    tr = np.stack([res.snapshots[k] for k in sorted(res.snapshots)])  # (n_keep, M, d)
    bad = ~np.all(np.isfinite(tr), axis=(0, 2))
    if bad.any():
        raise ChainDivergedError(f"{int(bad.sum())} of {M} chains of {sampler.name} reached a non-finite state with "
                                 f"h = {sampler.h:.3g}: reduce h or start the chains closer to the posterior")
    d = model.dim
    return tr.reshape(n_keep, n_rep, C, d).transpose(1, 2, 0, 3).reshape(n_rep, C * n_keep, d)
