"""Default paths a user reaches without choosing: SGLD-CV's own centring value (Baker et al. 2019, Assumption 3).

``simulate.sgld_cv(model, h, n)`` and ``simulate.control_variate(model, n)`` without ``theta_hat`` find the centre
themselves (minibatch SGD with Polyak-Ruppert averaging, :func:`simulate.estimators.mode.sgd_mode`). The
paper's O(N/n) noise needs Assumption 3 (a): theta_hat within O(N^{-1/2}) of the mode, i.e. within a bounded number of
posterior standard deviations. This claim checks that the default meets it on linear regression at N = 10^3..1.6e4
and that the estimator built on it has the exact CV noise (theory.noise.minibatch, at the found centre).
"""

from __future__ import annotations

import numpy as np

from simulate import LinearRegressionModel, control_variate
from theory.noise import minibatch as bn
from verify.api import Check, Claim, ClaimResult, ExactCheck, Settings, mean_and_se, register

SRC = "Baker et al. (2019)"
N_GRID = (1000, 4000, 16_000)
N_BATCH = 10
DATA_SEED = 2031


def _model(N: int) -> LinearRegressionModel:
    return LinearRegressionModel.simulate_data(N, dim=2, seed=DATA_SEED)


def _expected_cv_noise(model: LinearRegressionModel, theta_hat: np.ndarray) -> float:
    """E over theta ~ posterior of tr Cov(g_CV | theta) = K E[delta^T M delta], delta = theta - theta_hat: the
    quadratic form summed over the columns of a square root of E[delta delta^T] = Sigma + (mu - hat)(mu - hat)^T."""
    d = model.posterior_mean - theta_hat
    root = np.linalg.cholesky(model.posterior_cov + np.outer(d, d))
    return float(sum(np.trace(bn.cv_noise_cov_linreg(model.Z, model.sigma, theta_hat + root[:, j], theta_hat,
                                                     N_BATCH)) for j in range(model.dim)))


def _default_centre(settings: Settings) -> ClaimResult:
    out = ClaimResult()
    rows = []
    for N in N_GRID:
        model = _model(N)
        est = control_variate(model, N_BATCH)  # the default path: no theta_hat given
        mu, P = model.posterior_mean, model.precision
        dist = float((est.theta_hat - mu) @ P @ (est.theta_hat - mu))  # squared distance in posterior s.d.
        rng = np.random.default_rng(settings.seed_for(f"baker.a3.default_centre/{N}"))
        theta = mu + rng.standard_normal((settings.chains, model.dim)) @ np.linalg.cholesky(model.posterior_cov).T
        g, _ = est.estimate(model, theta, None, rng)
        sq = ((g - model.grad_log_post(theta)) ** 2).sum(axis=1)
        est_mean, se = mean_and_se(sq)
        exact = _expected_cv_noise(model, est.theta_hat)
        out.checks.append(Check(f"N = {N}: E|g_CV - grad log post|^2, theta ~ posterior (default theta_hat)", exact,
                                est_mean, se, {"N": N, "n": N_BATCH, "theta_hat": est.theta_hat}))
        rows.append((N, dist, exact * N_BATCH / N))
        out.exact.append(ExactCheck(f"N = {N}: default theta_hat within one posterior s.d. of the mode "
                                    "((hat - mu)^T P (hat - mu) < 1)", dist < 1.0, f"{dist:.3g}"))
    ratios = np.array([r[2] for r in rows])
    out.exact.append(ExactCheck("CV noise with the default centre is O(N/n): n E|xi|^2 / N flat in N "
                                "(criterion max/min < 1.5)", float(ratios.max() / ratios.min()) < 1.5,
                                ", ".join(f"N={r[0]}: {r[2]:.4g}" for r in rows)))
    out.notes.append(f"d = 2 linear regression (varied design), n = {N_BATCH} without replacement; sgd_mode's "
                     "defaults (step 1/L, 10^4 iterations, averaging of the second half, seed 0); one independent "
                     "theta ~ posterior and minibatch per chain")
    arr = np.array(rows)

    def draw(ax) -> None:
        ax.semilogx(arr[:, 0], arr[:, 1], "o-", label="(hat - mu)^T P (hat - mu)")
        ax.axhline(1.0, color="0.5", ls="--", lw=0.8, label="one posterior s.d.")
        ax.set_xlabel("N")
        ax.set_ylabel("squared distance of the default centre")
        ax.legend(fontsize=7)
    out.figure = draw
    return out


register(Claim(
    id="baker.a3.default_centre", paper="baker",
    source=f"{SRC} Assumption 3 (a), Algorithm 1's theta_hat; digest sec. 3",
    statement="The centre that sgld_cv / control_variate find by default (averaged minibatch SGD) lies within one "
              "posterior standard deviation of the mode, so Assumption 3 holds and the CV gradient noise is O(N/n); "
              "the estimator built on it has the exact CV noise.",
    family="baker_defaults", run=_default_centre,
))
