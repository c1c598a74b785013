"""Default paths a user reaches without choosing: SGLD-CV's own centring value (Baker et al. 2019, Assumption 3).

``simulate.sgld_cv(model, h, n)`` and ``simulate.control_variate(model, n)`` without ``theta_hat`` find the centre
themselves (minibatch SGD with Polyak-Ruppert averaging, :func:`simulate.estimators.mode.sgd_mode`). The
paper's O(N/n) noise needs Assumption 3 (a): theta_hat within O(N^{-1/2}) of the mode, i.e. within a bounded number of
posterior standard deviations. This claim checks that the default meets it on linear regression at N = 10^3..1.6e4
and that the estimator built on it has the exact CV noise (theory.noise.minibatch, at the found centre).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from simulate import LinearRegressionModel, control_variate
from theory.noise import minibatch as minibatch_noise
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se

from ._common import posterior_draws

SRC = "Baker et al. (2019)"
N_GRID = (1000, 4000, 16_000)
N_BATCH = 10
DATA_SEED = 2031


def _model(N: int) -> LinearRegressionModel:
    return LinearRegressionModel.simulate_data(N, dim=2, seed=DATA_SEED)


# ------------------------------------------------------------------------------------------ computation
def expected_cv_noise(model: LinearRegressionModel, theta_hat: np.ndarray) -> float:
    """E over theta ~ posterior of tr Cov(g_CV | theta) = K E[delta^T M delta], delta = theta - theta_hat: the
    quadratic form summed over the columns of a square root of E[delta delta^T] = Sigma + (mu - hat)(mu - hat)^T."""
    d = model.posterior_mean - theta_hat
    root = np.linalg.cholesky(model.posterior_cov + np.outer(d, d))
    return float(sum(np.trace(minibatch_noise.cv_noise_cov_linreg(model.Z, model.sigma, theta_hat + root[:, j],
                                                                  theta_hat, N_BATCH)) for j in range(model.dim)))


def default_centre_run(N: int, settings: Settings) -> dict:
    """The default centre at N, its squared distance to the mode in posterior s.d., and |g_CV - grad log post|^2 at
    one posterior draw (and one minibatch) per chain, with the exact expectation of the latter."""
    model = _model(N)
    est = control_variate(model, N_BATCH)  # the default path: no theta_hat given
    mu, P = model.posterior_mean, model.precision
    dist = float((est.theta_hat - mu) @ P @ (est.theta_hat - mu))  # squared distance in posterior s.d.
    rng = np.random.default_rng(settings.seed_for(f"baker.a3.default_centre/{N}"))
    theta = posterior_draws(model, settings.chains, rng)
    g, _ = est.estimate(model, theta, None, rng)
    sq = ((g - model.grad_log_post(theta)) ** 2).sum(axis=1)
    return dict(theta_hat=est.theta_hat, dist=dist, sq=sq, exact=expected_cv_noise(model, est.theta_hat))


# ------------------------------------------------------------------------------------------ checks and figure
def default_centre_checks(runs: dict[int, dict]) -> list[Check | ExactCheck]:
    """Per N the simulated CV noise against the exact one and the centre's distance; then O(N/n) across N."""
    out: list[Check | ExactCheck] = []
    for N, r in runs.items():
        est_mean, se = mean_and_se(r["sq"])
        out.append(Check(f"N = {N}: E|g_CV - grad log post|^2, theta ~ posterior (default theta_hat)", r["exact"],
                         est_mean, se, {"N": N, "n": N_BATCH, "theta_hat": r["theta_hat"]}))
        out.append(ExactCheck(f"N = {N}: default theta_hat within one posterior s.d. of the mode "
                              "((hat - mu)^T P (hat - mu) < 1)", r["dist"] < 1.0, f"{r['dist']:.3g}"))
    ratios = {N: r["exact"] * N_BATCH / N for N, r in runs.items()}
    values = np.array(list(ratios.values()))
    out.append(ExactCheck("CV noise with the default centre is O(N/n): n E|xi|^2 / N flat in N "
                          "(criterion max/min < 1.5)", float(values.max() / values.min()) < 1.5,
                          ", ".join(f"N={N}: {v:.4g}" for N, v in ratios.items())))
    return out


def draw_default_centre(ax, Ns: np.ndarray, dists: np.ndarray) -> None:
    """The default centre's squared distance to the mode against N."""
    ax.semilogx(Ns, dists, "o-", label="(hat - mu)^T P (hat - mu)")
    ax.axhline(1.0, color="0.5", ls="--", lw=0.8, label="one posterior s.d.")
    ax.set_xlabel("N")
    ax.set_ylabel("squared distance of the default centre")
    ax.legend(fontsize=7)


# ------------------------------------------------------------------------------------------ claim
@claim("baker.a3.default_centre", paper="baker",
       source=f"{SRC} Assumption 3 (a), Algorithm 1's theta_hat; docs/papers/baker.md sec. 1.3",
       statement="The centre that sgld_cv / control_variate find by default (averaged minibatch SGD) lies within one "
                 "posterior standard deviation of the mode, so Assumption 3 holds and the CV gradient noise is "
                 "O(N/n); the estimator built on it has the exact CV noise.",
       family="baker_defaults")
def default_centre(settings: Settings) -> ClaimResult:
    runs = {N: default_centre_run(N, settings) for N in N_GRID}
    out = ClaimResult().add(*default_centre_checks(runs))
    out.notes.append(f"d = 2 linear regression (varied design), n = {N_BATCH} without replacement; sgd_mode's "
                     "defaults (step 1/L, 10^4 iterations, averaging of the second half, seed 0); one independent "
                     "theta ~ posterior and minibatch per chain")
    out.figure = partial(draw_default_centre, Ns=np.array(N_GRID, dtype=float),
                         dists=np.array([r["dist"] for r in runs.values()]))
    return out
