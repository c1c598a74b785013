"""Baker, Fearnhead, Fox & Nemeth, "Control variates for stochastic gradient MCMC", Sec. 3: toy comparisons of
divide-and-conquer and SG-MCMC.

Exact checks with z-tests: consensus Monte Carlo is exact for Gaussian subposteriors (Scott et al. 2016), the
fixed-step SGLD / SGHMC laws on the Gaussian toy (the exact engine, theory.exact_law; new). The mixture (Fig. 2) is in
:mod:`verify.claims.baker.mixture`, against the exact posterior.
Qualitative statements of Figs. 2-4 are orderings that must be shown, in the Holm family (OrderingCheck, Student t
with R - 1 degrees of freedom over R replicate experiments, Welch for two independent samples): each holds when the
data support it past the family's threshold, fails when they contradict it, and is inconclusive otherwise. A
statistic with no spread across the replicates is judged exactly (strictly: a tie is not shown) and labelled
"degenerate". Scales the paper omits are the workbench's (simulate.models: bivariate_t, scalar_mixture,
warped_gaussian, gaussian); the mixture uses N = 2000 instead of 10^4 to fit the time budget.
"""

from __future__ import annotations

import numpy as np

from simulate.analysis import divide_conquer
from simulate.analysis.kl import gaussian_kl, knn_kl_divergence, knn_kl_replicates
from simulate.models.gaussian import GaussianMeanModel
from simulate.models.warped_gaussian import WarpedGaussian
from simulate.runtime.runner import run
from simulate.samplers import sgld
from theory import exact_law
from verify.api import (
    Check,
    ClaimResult,
    OrderingCheck,
    Settings,
    claim,
    mean_and_se,
    mean_check,
    simulation_cache,
)

PAPER = "baker"
S_SUB = 20
KL_K = 5
CONSENSUS_SIZES = [10 + 2 * s for s in range(S_SUB)]
WARPED_SEED = 33
#: Replicates of the warped-Gaussian experiment: 10 left KL(Weierstrass) > KL(SGLD) undecided (t = 7.8 with 9 d.f.
#: against a threshold near 8 in the full run's family; ~14 decide it with 90% power, docs/verdicts.md).
WARPED_REPS = 20
KL_NS = (500, 2000, 8000)
KL_REPS = (200, 100, 40)
SG_DIM, SG_N, SG_n = 4, 800, 50
DIMS = (1, 4, 10)


def ordering(label: str, values: np.ndarray, tie: float, direction: str, params: dict | None = None):
    """A qualitative statement about a per-replicate statistic as an ordering that must be shown, inside the Holm
    family: mean > tie ("greater") or < tie ("less"), Student t with R - 1 degrees of freedom (R replicates); a
    statistic with no spread is judged exactly (:func:`verify.api.mean_check`)."""
    return mean_check(label, tie, values, params, direction=direction, df=int(values.size) - 1, ordering=True)


# ---------------------------------------------------------------------------------------- consensus exactness
def consensus_model() -> GaussianMeanModel:
    """d = 3 Gaussian location with an informative N(0, 0.1^2 I) prior (so the 1/S prior power matters)."""
    return GaussianMeanModel.simulate_data(sum(CONSENSUS_SIZES), dim=3, theta_true=0.3,
                                           Sigma=GaussianMeanModel.ar1_cov(3), sigma0=0.1, seed=31)


def consensus_draws(settings: Settings) -> tuple[np.ndarray, int]:
    """i.i.d. consensus draws from exact Gaussian subposteriors with exact precision weights, and R * M."""
    model = consensus_model()
    R, M = max(200, settings.chains // 10), 50
    rng = np.random.default_rng(settings.seed_for("baker.sec3.consensus_exact"))
    draws = divide_conquer.subposterior_draws(model, S_SUB, R, M, rng, sizes=CONSENSUS_SIZES)
    blocks = divide_conquer.split(model.n_data, S_SUB, CONSENSUS_SIZES)
    covs = np.stack([model.tempered_posterior(len(b), model.data[b].sum(0), divide_conquer.prior_power(S_SUB))[1]
                     for b in blocks])
    return divide_conquer.consensus(draws, covs).reshape(-1, model.dim), R * M


def consensus_checks(comb: np.ndarray, n_draws: int) -> list[Check]:
    """The combined draws' mean and covariance against the posterior's."""
    model = consensus_model()
    mean, cov = model.posterior_mean, model.posterior_cov
    d = mean.size
    out = []
    for i in range(d):
        m, se = mean_and_se(comb[:, i])
        out.append(Check(f"E theta_{i + 1}", float(mean[i]), m, se, {"R*M": n_draws}))
    u = comb - mean
    for i in range(d):
        for j in range(i, d):
            m, se = mean_and_se(u[:, i] * u[:, j])
            out.append(Check(f"Cov[{i + 1},{j + 1}] x 1e3", 1e3 * float(cov[i, j]), 1e3 * m, 1e3 * se))
    return out


@claim("baker.sec3.consensus_exact_gaussian", paper=PAPER,
       source="Baker et al. Sec. 2.1.1 eq. (2) and Sec. 3.4 (Scott et al. 2016); docs/papers/baker.md sec. 4",
       statement="Consensus Monte Carlo with W_s = Sigma_s^{-1} is exact when the subposteriors p(theta)^(1/S) "
                 "prod_{B_s} p(x|theta) are Gaussian: the combined draws have the posterior mean and covariance.",
       family="baker_toys")
def consensus_exact(settings: Settings) -> ClaimResult:
    return ClaimResult(
        checks=consensus_checks(*consensus_draws(settings)),
        notes=[f"S = {S_SUB} unequal blocks (sizes 10..48, N = {consensus_model().n_data}), prior N(0, 0.1^2 I) "
               "raised to 1/S in every subposterior, exact Gaussian subposterior draws, W_s = exact subposterior "
               "precision; with sample covariances the weights carry an O(1/M) error (not tested)"])


# ---------------------------------------------------------------------------------------- warped Gaussian
@simulation_cache
def warped_sim(seed: int) -> dict:
    """Consensus, KDEMC, Weierstrass and SGLD draws on the warped Gaussian (WARPED_REPS replicates) and their k-NN
    KL."""
    model = WarpedGaussian.simulate_data(seed=WARPED_SEED)
    rng = np.random.default_rng(seed)
    R, M = WARPED_REPS, 500
    draws = divide_conquer.subposterior_draws(model, S_SUB, R, M, rng)
    cons = divide_conquer.consensus(draws)
    kde = divide_conquer.kdemc(draws, rng, M)
    wei = divide_conquer.weierstrass(draws, rng, accept=0.1)
    ref = divide_conquer.reference_draws(model, 5000, seed + 1)
    L = model.n_data / model.sigma_x ** 2 * 3.0
    # SGLD starts from exact posterior draws: from the prior's tails (|theta_2| > 2.5) the explicit step is unstable
    # (the theta_2 curvature grows like 4 N theta_2^2 / sigma_x^2) and a few chains in a thousand diverge.
    xbar, n_all = float(model.data.mean()), model.n_data
    sg = divide_conquer.sg_draws(sgld(model, 0.5 / L, 50), R, 10, M // 10, n_burn=1500, thin=10, seed=seed + 2,
                     theta0=lambda r, m: model.exact_draws(r, (m,), xbar, n_all))
    return dict(model=model, cons=cons, sg=sg, ref=ref, kde=kde,
                kl_cons=knn_kl_replicates(cons, ref, KL_K), kl_sg=knn_kl_replicates(sg, ref, KL_K),
                kl_kde=knn_kl_replicates(kde, ref, KL_K), kl_wei=knn_kl_replicates(wei, ref, KL_K))


def warped_consensus_checks(sim: dict) -> list:
    """Consensus pulls mass into the banana's centre, and has a larger KL than SGLD."""
    exact = sim["model"].posterior_moment_theta2_sq()
    per_rep = (sim["cons"][..., 1] ** 2).mean(axis=1)
    return [ordering("consensus E[theta_2^2] < exact/2 (mass pulled into the centre of the banana; the workbench's "
                     "reading of the figure)", per_rep, 0.5 * exact, "less", {"exact": exact}),
            ordering("KL(consensus) - KL(SGLD) > 0 (paired over replicates)", sim["kl_cons"] - sim["kl_sg"],
                     0.0, "greater", {"k": KL_K})]


def warped_ordering_checks(sim: dict) -> list:
    """KL(SGLD) <= KL(Weierstrass) <= KL(KDEMC) <= KL(consensus), and KDEMC's short tails."""
    kls = {"SGLD": sim["kl_sg"], "Weierstrass": sim["kl_wei"], "KDEMC": sim["kl_kde"], "consensus": sim["kl_cons"]}
    names = list(kls)
    out = [ordering(f"KL({hi}) - KL({lo}) > 0 (paired over replicates)", kls[hi] - kls[lo], 0.0, "greater")
           for lo, hi in zip(names[:-1], names[1:], strict=True)]
    exact = sim["model"].posterior_moment_theta2_sq()
    out.append(ordering("KDEMC E[theta_2^2] < exact/2 (tails underestimated; the workbench's reading of the figure)",
                        (sim["kde"][..., 1] ** 2).mean(axis=1), 0.5 * exact, "less", {"exact": exact}))
    return out


@claim("baker.sec3.warped_consensus_biased", paper=PAPER, source="Baker et al. Sec. 3.3, Fig. 3",
       statement="On the warped Gaussian consensus Monte Carlo is not exact: averaging subposterior draws from "
                 "opposite banana tails puts mass in the centre; SG methods (SGLD) have smaller KL to the posterior.",
       family="baker_toys")
def warped_consensus(settings: Settings) -> ClaimResult:
    sim = warped_sim(settings.seed_for("baker.sec3.warped"))
    out = ClaimResult().add(*warped_consensus_checks(sim))
    out.notes.append(f"KL consensus {sim['kl_cons'].mean():.3f}, SGLD {sim['kl_sg'].mean():.3f} (k-NN KL, k = "
                     f"{KL_K}); E[theta_2^2] exact {sim['model'].posterior_moment_theta2_sq():.4f} (quadrature)")
    return out


@claim("baker.sec3.warped_ordering", paper=PAPER, source="Baker et al. Sec. 3.3, Fig. 3",
       statement="On the warped Gaussian KDEMC works reasonably but underestimates the tails, Weierstrass improves "
                 "on KDEMC but does not reach the SG methods: KL(SGLD) < KL(Weierstrass) < KL(KDEMC) < "
                 "KL(consensus).",
       family="baker_toys")
def warped_ordering(settings: Settings) -> ClaimResult:
    out = ClaimResult().add(*warped_ordering_checks(warped_sim(settings.seed_for("baker.sec3.warped"))))
    out.notes.append("KDEMC: Silverman bandwidth in whitened coordinates, 20 Gibbs chains per replicate; Weierstrass: "
                     "pairwise tree, uniform kernel, acceptance 0.1; nothing tuned on the KL (the paper tuned both)")
    return out


# ---------------------------------------------------------------------------------------- k-NN KL estimator
KL_MEAN, KL_COV = np.array([0.5, -0.3]), np.array([[1.5, 0.3], [0.3, 0.8]])


def knn_kl_biases(settings: Settings) -> dict[int, tuple[float, float]]:
    """Bias (with s.e.) of the k-NN KL estimate of KL(N(0, I) || N(m1, S1)) at each sample size n."""
    rng = np.random.default_rng(settings.seed_for("baker.sec3.knn_kl"))
    ch = np.linalg.cholesky(KL_COV)
    true = gaussian_kl(np.zeros(2), np.eye(2), KL_MEAN, KL_COV)
    bias = {}
    for n, R in zip(KL_NS, KL_REPS, strict=True):
        est = np.array([knn_kl_divergence(rng.standard_normal((n, 2)), KL_MEAN + rng.standard_normal((n, 2)) @ ch.T,
                                          KL_K) for _ in range(R)])
        bias[n] = mean_and_se(est - true)
    return bias


def knn_kl_check(bias: dict[int, tuple[float, float]], true: float) -> OrderingCheck:
    """The bias moves towards 0 from the smallest to the largest n (an ordering, Welch degrees of freedom)."""
    (b0, s0), (b1, s1) = bias[KL_NS[0]], bias[KL_NS[-1]]
    # the bias at the small n is resolved (many s.e.) and fixes the direction towards 0; the statistic
    # sign(b0) (b0 - b1) is then linear in the two independent estimates (|b0| - |b1| when they share a sign)
    shrink = float(np.sign(b0)) * (b0 - b1)
    # two independent samples of R replicates each: Welch-Satterthwaite degrees of freedom
    r0, r1 = KL_REPS[0], KL_REPS[-1]
    df = int((s0**2 + s1**2) ** 2 / (s0**4 / (r0 - 1) + s1**4 / (r1 - 1)))
    return OrderingCheck(f"bias moves towards 0 from n = {KL_NS[0]} to {KL_NS[-1]}: sign(b_min) (b(n_min) - b(n_max)) "
                         "> 0", 0.0, shrink, float(np.hypot(s0, s1)), {"true_kl": true}, direction="greater", df=df)


@claim("baker.sec3.knn_kl_consistent", paper=PAPER,
       source="Baker et al. Sec. 3 (FNN k-NN KL estimator; Wang, Kulkarni & Verdu 2009 Thm. 1)",
       statement="The k-NN KL divergence estimator used for Figs. 1-4 converges to the true KL as the sample grows "
                 "(checked on two bivariate Gaussians with the closed-form KL).",
       family="baker_toys")
def knn_kl_consistent(settings: Settings) -> ClaimResult:
    true = gaussian_kl(np.zeros(2), np.eye(2), KL_MEAN, KL_COV)
    bias = knn_kl_biases(settings)
    return ClaimResult(checks=[knn_kl_check(bias, true)], notes=[
        f"KL(N(0,I) || N(m1,S1)) = {true:.4f} (closed form); "
        + "; ".join(f"n = {n}: bias {b:+.4f} +- {s:.4f}" for n, (b, s) in bias.items()),
        "the k-NN estimator is biased at finite n (bias about n^{-1/2} here), so a z-test of equality at one n would "
        "reject at large R; consistency is judged by the shrinking bias"])


# ---------------------------------------------------------------------------------------- SGLD / SGHMC exact laws
def sg_model() -> GaussianMeanModel:
    return GaussianMeanModel.simulate_data(SG_N, dim=SG_DIM, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(SG_DIM),
                                           sigma0=None, seed=34)


def sg_exact_run(which: str, settings: Settings) -> tuple[np.ndarray, np.ndarray, str, int]:
    """SGLD or SGHMC (momentum redrawn every 3 steps) from the posterior mean: (states at the last step, exact
    stationary covariance, the parameters in words, the step)."""
    model = sg_model()
    mean = model.posterior_mean
    lam_max = float(np.linalg.eigvalsh(model.n_data * model.P)[-1])
    if which == "sgld":
        h = 0.5 / lam_max
        sampler = sgld(model, h, SG_n)
        V = exact_law(sampler).stationary_cov()
        n_steps = 250
        params = f"h = 0.5/lambda_max(P) = {h:.3g}"
    else:
        from simulate.samplers import sghmc

        h, alpha, L = 0.1 / lam_max, 0.3, 3
        sampler = sghmc(model, h, alpha, n=SG_n, resample_every=L)
        V = exact_law(sampler).stationary_cov(phase=0)  # theta right after a momentum redraw
        n_steps = 252  # a multiple of L: the state right after a momentum redraw
        params = f"eta = 0.1/lambda_max(P) = {h:.3g}, alpha = {alpha}, momentum redrawn every L = {L} steps"
    chains = max(100, settings.chains // 2)
    res = run(sampler, chains, 1, seed=settings.seed_for(f"baker.sec3.{which}_exact"), theta0=mean,
              record_at=[n_steps], test_functions=())
    return res.snapshots[n_steps], V, params, n_steps


def moment_checks(theta: np.ndarray, mean: np.ndarray, V: np.ndarray, tag: str) -> list[Check]:
    """Mean and covariance (scaled by N) of the states against the exact law."""
    u = theta - mean
    d = mean.size
    out = []
    for i in range(d):
        m, se = mean_and_se(theta[:, i])
        out.append(Check(f"{tag} E theta_{i + 1}", float(mean[i]), m, se))
    for i in range(d):
        for j in range(i, d):
            m, se = mean_and_se(u[:, i] * u[:, j])
            out.append(Check(f"{tag} Cov[{i + 1},{j + 1}] x N", SG_N * float(V[i, j]), SG_N * m, SG_N * se))
    return out


def sg_exact_result(which: str, settings: Settings) -> ClaimResult:
    """The moment checks of SGLD or SGHMC and the step-size bias they resolve."""
    theta, V, params, n_steps = sg_exact_run(which, settings)
    model = sg_model()
    mean, post_cov = model.posterior_mean, model.posterior_cov
    rel = np.trace(V) / np.trace(post_cov) - 1
    return ClaimResult(checks=moment_checks(theta, mean, V, which), notes=[
        f"d = {SG_DIM}, N = {SG_N}, n = {SG_n} without replacement, Sigma_ij = 0.5^|i-j|, flat prior; {params}; state "
        f"at step {n_steps} (chains started at the posterior mean); tr V / tr Sigma_post - 1 = {rel:+.3f} (the "
        "step-size bias the test resolves)"])


@claim("baker.sec3.sgld_exact_gaussian", paper=PAPER,
       source="Baker et al. Sec. 3.4 toy; SGLD eq. (5); exact Lyapunov law new (the exact engine)",
       statement="Fixed-step SGLD (minibatch n = 50 without replacement) on the d-dim Gaussian location toy has mean "
                 "xbar and covariance V = A V A^T + (h^2/4) Q + h I (new): the simulator is checked on this target.",
       family="baker_toys")
def sgld_exact(settings: Settings) -> ClaimResult:
    return sg_exact_result("sgld", settings)


@claim("baker.sec3.sghmc_exact_gaussian", paper=PAPER,
       source="Baker et al. Sec. 2.4 (SGHMC, L = 3, beta_hat = 0; Chen et al. 2014 eq. 15); exact law new",
       statement="Fixed-step SGHMC with momentum redrawn every L = 3 steps on the Gaussian toy has mean xbar and, at "
                 "the redraw times, the covariance of the linear cycle map's Lyapunov equation (new).",
       family="baker_toys")
def sghmc_exact(settings: Settings) -> ClaimResult:
    return sg_exact_result("sghmc", settings)


# ---------------------------------------------------------------------------------------- dimension (Fig. 4)
@simulation_cache
def dimension_sim(seed: int) -> dict:
    """Per dimension d: the KL of consensus, KDEMC and Weierstrass on the d-dim Gaussian (10 replicates)."""
    rng = np.random.default_rng(seed)
    R, M = 10, 500
    out = {}
    for d in DIMS:
        model = GaussianMeanModel.simulate_data(800, dim=d, theta_true=0.0, Sigma=GaussianMeanModel.ar1_cov(d),
                                                sigma0=None, seed=36 + d)
        draws = divide_conquer.subposterior_draws(model, S_SUB, R, M, rng)
        ref = divide_conquer.reference_draws(model, 5000, seed + d)
        out[d] = dict(cons=knn_kl_replicates(divide_conquer.consensus(draws), ref, KL_K),
                      kdemc=knn_kl_replicates(divide_conquer.kdemc(draws, rng, M), ref, KL_K),
                      weier=knn_kl_replicates(divide_conquer.weierstrass(draws, rng), ref, KL_K))
    return out


@claim("baker.sec3.kdemc_degrades_with_d", paper=PAPER, source="Baker et al. Sec. 3.4, Fig. 4",
       statement="On the d-dim Gaussian the KL of KDEMC grows with d faster than that of consensus (exact here).",
       family="baker_toys")
def kdemc_degrades_with_d(settings: Settings) -> ClaimResult:
    sim = dimension_sim(settings.seed_for("baker.sec3.dimension"))
    lo, hi = sim[DIMS[0]], sim[DIMS[-1]]
    growth = {k: (hi[k] - lo[k]) for k in ("cons", "kdemc")}
    table = "; ".join(f"d = {d}: " + ", ".join(f"{k} {v.mean():.3f}" for k, v in sim[d].items()) for d in DIMS)
    return ClaimResult(notes=[f"mean KL per method: {table}"]).add(ordering(
        f"KL growth from d = {DIMS[0]} to {DIMS[-1]}: KDEMC - consensus > 0 (paired over replicates)",
        growth["kdemc"] - growth["cons"], 0.0, "greater"))


# ---------------------------------------------------------------------------------------- out of scope
def not_run(settings: Settings) -> ClaimResult:  # pragma: no cover - out-of-scope claims are listed, never run
    return ClaimResult()


claim("baker.sec3.fig1_method_ranking", paper=PAPER, source="Baker et al. Sec. 3.1, Fig. 1",
      statement="On the bivariate-t toy SGHMC has the lowest KL, closely followed by consensus and Weierstrass; KDEMC "
                "and SGLD converge slowest.",
      family="baker_toys",
      out_of_scope="the ranking depends on step sizes and bandwidths tuned by minimising the same KL, and on iteration "
                   "counts, none of which are reported; the notebook shows the workbench's ranking at its settings",
      )(not_run)
claim("baker.sec3.sghmc_start_sensitivity", paper=PAPER, source="Baker et al. Secs. 3.2-3.3",
      statement="SGHMC performs well from a good start but worse than SGLD from a far start.", family="baker_toys",
      out_of_scope="'good' and 'far' starting points and the SGHMC tuning (eta, alpha) are not reported")(not_run)
claim("baker.sec3.weierstrass_linear_in_d", paper=PAPER, source="Baker et al. Sec. 3.4, Fig. 4",
      statement="The Weierstrass sampler's error grows linearly in d, KDEMC's exponentially.", family="baker_toys",
      out_of_scope="a rate in d cannot be told apart from a few d values with a biased KL estimator; the notebook "
                   "shows KL vs d for both methods")(not_run)
