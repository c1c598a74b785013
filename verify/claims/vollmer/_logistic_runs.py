"""Shared setting and simulations of the Section 7 claims of Vollmer, Zygalakis & Teh (2016): SGLD and mSGLD on
Bayesian logistic regression (this module registers no claim).

Setting (the paper's Section 7; docs/papers/vollmer.md secs. 8-9): d = 3, N = 1000, rows (x_i1, x_i2, 1),
x_ij ~ N(0, 1), prior N(0, I), h = 0.002 (workbench convention, the paper's own), minibatches without replacement.
Labels: the paper does not say how they were drawn; ours are y_i ~ sigma(y beta_true^T x_i) with
beta_true = (1, -1, 0.5) (simulate.models.logistic.PAPER_BETA_TRUE, seed 2016).

Reference posterior moments: tensor Gauss-Hermite quadrature in Laplace-whitened coordinates
(simulate.analysis.reference.posterior_moments_quadrature); its error, max |K=20 vs K=12 nodes|, is ~1e-14, so every
s.e. below that combines a simulation s.e. with the reference error "in quadrature" (sqrt(se^2 + err^2)) is in
practice the simulation s.e. The reference itself is checked against full-gradient MALA (claim a).

Asymptotic (stationary) biases of the posterior mean are per-chain time averages (eq. 7) after a burn-in, with the
Laplace-linear control variate of simulate.analysis.reference.laplace_cv_run (same expectation, ~20x smaller s.e. for
SGLD); s.e. across independent chains. Samplers compared at the same n share the seed, hence the minibatches and the
injected noise (common random numbers), and their differences are formed chain by chain.

Ordering statements ("grows", "better", "worse") are one-sided tests (:class:`OneSidedCheck`): the claim is
rejected only when the data contradict it significantly; the z in favour is reported.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from functools import cache

import numpy as np

from simulate import Sampler, euler, msgld, sgld
from simulate.analysis.reference import laplace_cv_run, posterior_moments_quadrature
from simulate.models.logistic import LogisticRegressionModel
from simulate.runtime.blocks import block_rng
from simulate.samplers import msgld_estimated_cov
from simulate.validation import ParameterError, check_int, check_positive
from verify.api import Settings, simulation_cache

PAPER = "vollmer"


H = 0.002


BURN_IN, STEPS = 80, 240  # in steps of h = 0.002: burn-in 0.16 and averaging window 0.48 time units


EULER_BURN_IN, EULER_STEPS = 100, 300


QUAD_ORDER = 12  # compared with QUAD_ORDER + 8 nodes per axis


COORDS = ("beta1", "beta2", "beta0")


@contextlib.contextmanager
def _single_thread() -> Iterator[None]:
    """Run BLAS single-threaded: the (M, N) products here are small, and threads only contend on a shared CPU."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        yield
        return
    with threadpool_limits(1):
        yield


# ------------------------------------------------------------------------------------------- model, reference
@cache
def paper_model() -> LogisticRegressionModel:
    """The paper's Section 7 design with our labels (beta_true = (1, -1, 0.5), seed 2016)."""
    return LogisticRegressionModel.paper_synthetic()


@simulation_cache
def reference() -> dict:
    """Gauss-Hermite posterior mean and second moments of :func:`paper_model` with their numerical error."""
    q = posterior_moments_quadrature(paper_model(), QUAD_ORDER)
    return dict(mean=q.mean, second=q.second, err=max(q.mean_error, q.second_error), nodes=q.nodes)


def _chains(settings: Settings, divisor: int, floor: int) -> int:
    """Chains for one simulation: settings.chains // divisor, at least floor."""
    return max(settings.chains // divisor, floor)


# ------------------------------------------------------------------------------------------- samplers and runs
def make_sampler(method: str, n: int, h: float = H, model: LogisticRegressionModel | None = None) -> Sampler:
    """'euler', 'sgld', 'msgld' (exact covariance, eq. 54), 'msgld_covhat' (Remark 7), 'msgld_printed'
    (Remark 7 covariance in eq. (9) as printed, I - (h/2) Covhat(g))."""
    model = model or paper_model()
    if method == "euler":
        return euler(model, h)
    if method == "sgld":
        return sgld(model, h, n)
    if method == "msgld":
        return msgld(model, h, n)
    if method == "msgld_covhat":
        return msgld_estimated_cov(model, h, n)
    if method == "msgld_printed":
        return msgld_estimated_cov(model, h, n, cov_multiplier=4.0)
    raise ParameterError(f"method must be one of euler, sgld, msgld, msgld_covhat, msgld_printed; got {method!r}")


@simulation_cache
def stationary_run(method: str, n: int, h: float, chains: int, seed: int) -> dict:
    """Control-variate time averages of theta for one sampler on :func:`paper_model` (burn-in and window scale 1/h)."""
    scale = H / h
    if method == "euler":
        burn, steps = round(EULER_BURN_IN * scale), round(EULER_STEPS * scale)
    else:
        burn, steps = round(BURN_IN * scale), round(STEPS * scale)
    with _single_thread():
        res = laplace_cv_run(make_sampler(method, n, h), chains, steps, burn_in=burn, seed=seed)
    return dict(cv=res.cv, plain=res.plain, linear=res.linear, mode=res.mode)


def _seed(settings: Settings, n: int, h: float = H) -> int:
    """Samplers at the same (n, h) share this seed: common random numbers."""
    return settings.seed_for(f"logistic:n={n}:h={h:g}")


def _run(settings: Settings, method: str, n: int, h: float = H, divisor: int = 40, floor: int = 50) -> dict:
    """The cached stationary run of ``method`` at (n, h) with settings.chains // divisor chains (>= floor)."""
    return stationary_run(method, n, h, _chains(settings, divisor, floor), _seed(settings, n, h))


def _fmt(v: np.ndarray) -> str:
    """A vector in compact scientific notation for notes."""
    return "(" + ", ".join(f"{x:.2e}" for x in np.ravel(v)) + ")"


# ------------------------------------------------------------------------------------------- Figure 7 helper
def figure7_curves(
    model: LogisticRegressionModel | None = None,
    ns: tuple[int, ...] = (1000, 150, 50, 10),
    methods: tuple[str, ...] = ("sgld", "msgld_covhat"),
    h: float = H,
    n_runs: int = 100,
    n_iter: int = 20_000,
    n_points: int = 40,
    seed: int = 7,
    theta0: np.ndarray | None = None,
    reference_mean: np.ndarray | None = None,
) -> dict:
    """Vollmer et al. Figure 7: MSE of the time-average estimate of the posterior mean vs iterations and passes.

    For each method and n, ``n_runs`` independent runs (the chains axis) start at ``theta0`` (default 0, the
    paper's beta_0 [ASSUMED]); at log-spaced K the running average (1/K) sum_{k<K} theta_k (eq. 7, b = 0) gives
    MSE(K) = mean over runs of |avg_K - posterior mean|^2 (squared Euclidean error) and its s.e. across runs.
    Returns dict(iterations (P,), passes {n: K n / N}, mse {(method, n): (P,)}, se {(method, n): (P,)},
    reference (d,)). ``methods`` are names of :func:`make_sampler` ('msgld_covhat' is the paper's Remark 7 variant).
    For n = N every method is Euler (Covhat = 0), so that chain is run once and shared.
    Cost: about 1.5 ms per step and curve for n_runs = 100 (index draws and numpy overhead dominate): about 3
    minutes for the default 2 x 10^4 iterations and 4 x 2 curves (the paper runs to 10^6). With
    beta_true = (1, -1, 0.5) and theta0 = 0 the curves start at |posterior mean|^2 = 2.73 (the paper's start near 1
    points to a different, unstated beta_true).
    """
    model = model or paper_model()
    n_runs = check_int("n_runs", n_runs, 2)
    n_iter = check_int("n_iter", n_iter, 1)
    n_points = check_int("n_points", n_points, 2)
    h = check_positive("h", h)
    if reference_mean is None:
        if model.dim > 3:
            raise ParameterError("reference_mean is required for models with dim > 3 (quadrature needs d <= 3)")
        reference_mean = posterior_moments_quadrature(model, QUAD_ORDER).mean
    mu = np.asarray(reference_mean, dtype=np.float64)
    ks = np.unique(np.geomspace(1, n_iter, n_points).round().astype(int))
    th0 = np.zeros(model.dim) if theta0 is None else np.asarray(theta0, dtype=np.float64)
    mse, se = {}, {}
    for n in ns:
        check_int("n", n, 1, model.n_data)
        for meth in methods:
            if n == model.n_data and meth != methods[0]:
                mse[(meth, n)], se[(meth, n)] = mse[(methods[0], n)], se[(methods[0], n)]
                continue
            sampler = make_sampler(meth, n, h, model)
            rng = block_rng(seed, n)
            state = sampler.init(np.broadcast_to(th0, (n_runs, model.dim)), rng)
            total = np.zeros((n_runs, model.dim))
            vals, errs = [], []
            ki = 0
            with _single_thread():
                for k in range(1, n_iter + 1):
                    total += state.theta  # states theta_0 .. theta_{k-1}
                    if k == ks[ki]:
                        e2 = ((total / k - mu) ** 2).sum(axis=1)
                        vals.append(e2.mean())
                        errs.append(e2.std(ddof=1) / math.sqrt(n_runs))
                        ki += 1
                        if ki == len(ks):
                            break
                    state = sampler.step(state, rng)
            mse[(meth, n)] = np.array(vals)
            se[(meth, n)] = np.array(errs)
    return dict(iterations=ks, passes={n: ks * n / model.n_data for n in ns}, mse=mse, se=se, reference=mu)
