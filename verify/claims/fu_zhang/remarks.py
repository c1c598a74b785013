"""Two remarks of Fu & Zhang judged as claims.

* "Both uniform and importance sampling can be seen as special cases of this method" (Sec. 3.2): the law of eq. (10)
  for every partition of a small data set and every allocation of the minibatch, enumerated exactly, against uniform
  minibatches and against importance sampling with Lemma 3.2's probabilities (eq. 6, the same number of draws).
* The Remark after Theorem 3.4: with a bounded variance the noise term is O(1/T), and CP "improves the constant and
  enjoys the same convergence rate O(1/T)" as SG-MCMC: the exact MSE of the time average of fixed-step CP-SGLD and
  SGLD on the Gaussian mean model (theory.chains.stratified, new) as T grows, and the simulator at two T.
"""

from __future__ import annotations

import itertools

import numpy as np

from simulate.estimators.strata import Strata
from simulate.estimators.stratified import Stratified
from simulate.models.gaussian import GaussianMeanModel
from simulate.runtime.runner import run
from theory.chains import stratified as stratified_chains
from theory.noise import stratified as stratified_noise
from theory.noise.subset_moments import set_partitions
from verify.api import Check, ClaimResult, ExactCheck, OrderingCheck, Settings, claim, mean_and_se, simulation_cache

from ._common import PAPER, B, gauss_model, posterior_precision
from .noise import enumerate_estimates
from .samplers import BURN_IN, N_STEPS, SGLD_HA, _noise_cov, _sampler

RATE_T = (10**2, 10**3, 10**4, 10**5, 10**6)
LONG_STEPS = 4 * N_STEPS  # the simulated second length (the first is samplers.N_STEPS)
SPECIAL_N, SPECIAL_SEED = 6, 28


# ------------------------------------------------------------------------------------------ special cases
def special_case_model() -> GaussianMeanModel:
    """Six 1-D data, two far from the rest (per-datum gradients of very different size at theta = 0)."""
    rng = np.random.default_rng(SPECIAL_SEED)
    x = np.concatenate([rng.normal(0.0, 0.3, SPECIAL_N - 2), [6.0, 9.0]])
    return GaussianMeanModel(x[:, None], sigma_x=1.0, sigma0=10.0)


def law(values: np.ndarray, probs: np.ndarray) -> tuple[tuple[float, float], ...]:
    """A discrete law as sorted (value, probability) pairs, values rounded to 1e-9 and merged."""
    out: dict[float, float] = {}
    for v, p in zip(np.round(values, 9), probs, strict=True):
        out[float(v)] = out.get(float(v), 0.0) + float(p)
    return tuple(sorted((v, round(p, 12)) for v, p in out.items()))


def stratified_laws(model: GaussianMeanModel, b: int) -> dict:
    """{(partition, sizes): law of eq. (10)'s sum of likelihood gradients at theta = 0} for every partition of the
    data and every allocation of b with 1 <= b_i <= n_i (Algorithm 1: without replacement), enumerated exactly."""
    theta = np.zeros(1)
    out = {}
    for blocks in set_partitions(list(range(model.n_data))):
        if len(blocks) > b:
            continue
        labels = np.empty(model.n_data, dtype=np.int64)
        for i, blk in enumerate(blocks):
            labels[blk] = i
        strata = Strata.from_labels(labels, model.data)
        for cut in itertools.combinations(range(1, b), len(blocks) - 1):
            sizes = tuple(np.diff(np.concatenate([[0], cut, [b]])).tolist())
            if any(s > strata.sizes[i] for i, s in enumerate(sizes)):
                continue
            vals = enumerate_estimates(Stratified(strata, sizes, replace=False), model, theta)[:, 0]
            out[(tuple(map(tuple, blocks)), sizes)] = law(vals, np.full(vals.size, 1.0 / vals.size))
    return out


def importance_law(model: GaussianMeanModel, b: int) -> tuple[tuple[float, float], ...]:
    """Law of importance sampling (eq. 6, Lemma 3.2's p_i proportional to ||g_i||) with b independent draws, at
    theta = 0: (1/b) sum_s g_{I_s}/p_{I_s}."""
    g = stratified_noise.gaussian_grads(model.data, np.zeros(1), model.sigma_x)[:, 0]
    p = np.abs(g) / np.abs(g).sum()
    vals, probs = [], []
    for draw in itertools.product(range(g.size), repeat=b):
        vals.append(np.mean([g[i] / p[i] for i in draw]))
        probs.append(np.prod([p[i] for i in draw]))
    return law(np.array(vals), np.array(probs))


def uniform_law(model: GaussianMeanModel, b: int) -> tuple[tuple[float, float], ...]:
    """Law of the uniform minibatch estimator (N/b) sum_{j in S} g_j, S a b-subset drawn without replacement."""
    g = stratified_noise.gaussian_grads(model.data, np.zeros(1), model.sigma_x)[:, 0]
    subsets = list(itertools.combinations(range(g.size), b))
    vals = np.array([g.size / b * g[list(s)].sum() for s in subsets])
    return law(vals, np.full(vals.size, 1.0 / vals.size))


def special_case_checks() -> list[ExactCheck]:
    """For b = 1 and 2: uniform sampling is one of eq. (10)'s laws (k = 1); importance sampling is none of them."""
    model = special_case_model()
    out = []
    for b in (1, 2):
        laws = stratified_laws(model, b)
        uni, imp = uniform_law(model, b), importance_law(model, b)
        uni_keys = [key for key, lw in laws.items() if lw == uni]
        imp_keys = [key for key, lw in laws.items() if lw == imp]
        var_is = sum(p * v * v for v, p in imp) - sum(p * v for v, p in imp) ** 2
        var_min = min(sum(p * v * v for v, p in lw) - sum(p * v for v, p in lw) ** 2 for lw in laws.values())
        out.append(ExactCheck(
            f"b = {b}: uniform sampling is eq. (10) with one cluster (k = 1, b_1 = b)", bool(uni_keys),
            f"{len(laws)} (partition, allocation) pairs enumerated; the uniform law is attained by {uni_keys}"))
        out.append(ExactCheck(
            f"b = {b}: importance sampling (eq. 6, Lemma 3.2's p_i) is eq. (10) for some partition and allocation",
            bool(imp_keys), f"no pair of the {len(laws)} has its law; variance of IS {var_is:.5g}, the smallest of "
                            f"eq. (10) {var_min:.5g}"
                            + (" (at b = 1 eq. (10) allows k = 1 only: b_i >= 1 in every cluster)" if b == 1 else ""),
            expect="fail"))
    return out


# ------------------------------------------------------------------------------------------ O(1/T)
def rate_rows() -> list[tuple[int, float, float, float]]:
    """Per T of RATE_T: exact MSE (trace) of the time average for CP-SGLD (Theorem 3.2, without replacement), for
    SGLD (k = 1) and with no gradient noise (the 1/(T h) part), fixed h, burn-in BURN_IN, started at the mean."""
    a = posterior_precision()
    h = SGLD_HA / a
    rows = []
    for T in RATE_T:
        mse = [float(np.trace(stratified_chains.sgld_time_average_cov(a, h, cov, BURN_IN, T)))
               for cov in (_noise_cov("neyman", False), _noise_cov("single", False), np.zeros((2, 2)))]
        rows.append((T, *mse))
    return rows


def rate_checks(rows: list[tuple[int, float, float, float]]) -> list[ExactCheck]:
    """T x MSE settles for both samplers (rate 1/T), and CP's constant is the smaller one."""
    (t1, cp1, u1, _), (t2, cp2, u2, f2) = rows[-2], rows[-1]
    settle = max(abs(t2 * cp2 / (t1 * cp1) - 1), abs(t2 * u2 / (t1 * u1) - 1))
    return [ExactCheck(
        "both CP-SGLD's and SGLD's time-average MSE decay as 1/T (T x MSE changes by < 0.1% over the last decade)",
        settle < 1e-3, "T x MSE (CP, SGLD, noise-free): " + "; ".join(
            f"T = {T:.0e}: {T * c:.5g}, {T * u:.5g}, {T * f:.5g}" for T, c, u, f in rows), kind="consistency"),
        ExactCheck("CP improves the constant: lim T x MSE is smaller for CP than for SGLD, and both exceed the "
                   "noise-free 1/(T h) part", f2 < cp2 < u2,
                   f"at T = {t2:.0e}: CP / SGLD = {cp2 / u2:.4f}; noise term (MSE - noise-free) CP / SGLD = "
                   f"{(cp2 - f2) / (u2 - f2):.4f}", kind="consistency")]


@simulation_cache
def long_run(rule: str, chains: int, seed: int):
    """CP-SGLD (``rule`` "neyman") or SGLD ("single") without replacement over LONG_STEPS after BURN_IN, from the
    posterior mean."""
    return run(_sampler("sgld", rule, False), chains, LONG_STEPS, burn_in=BURN_IN, seed=seed,
               theta0=gauss_model().posterior_mean)


def rate_simulated_checks(settings: Settings) -> list[Check]:
    """The simulator at T = LONG_STEPS: the MSE of each time average against the exact form (a wrong variance or
    rate fails), and CP's MSE below SGLD's (shown)."""
    a = posterior_precision()
    h = SGLD_HA / a
    mu = gauss_model().posterior_mean
    out, sq = [], {}
    chains = max(500, settings.chains // 2)
    for label, rule in (("CP-SGLD (Theorem 3.2)", "neyman"), ("SGLD (k = 1)", "single")):
        res = long_run(rule, chains, settings.seed_for(f"fu_zhang.rate.{rule}"))
        sq[rule] = np.sum((res.time_averages["theta"] - mu) ** 2, axis=1)
        exact = float(np.trace(stratified_chains.sgld_time_average_cov(a, h, _noise_cov(rule, False), BURN_IN,
                                                                        LONG_STEPS)))
        m, se = mean_and_se(sq[rule])
        out.append(Check(f"{label}: MSE of the time average at T = {LONG_STEPS} (exact, trace)", exact, m, se,
                         dict(T=LONG_STEPS, burn_in=BURN_IN, h=h, chains=chains)))
    (m1, s1), (m2, s2) = mean_and_se(sq["neyman"]), mean_and_se(sq["single"])
    out.append(OrderingCheck(f"CP-SGLD's time-average MSE is below SGLD's at T = {LONG_STEPS} (same h, b = {B})", 0.0,
                             m1 - m2, float(np.hypot(s1, s2)), dict(T=LONG_STEPS), direction="less"))
    return out


# ------------------------------------------------------------------------------------------ claims
@claim("fu_zhang.sec32.special_cases", paper=PAPER, source="Fu & Zhang Sec. 3.2, before eq. (9)",
       statement="Both uniform and importance sampling can be seen as special cases of the clustered estimator "
                 "(eq. 10).",
       family="fu_zhang_exact", expected="fails",
       erratum="Uniform sampling is eq. (10) with one cluster, but importance sampling (eq. 6 with Lemma 3.2's "
               "probabilities) is not eq. (10) for any partition and allocation: eq. (10) draws b_i >= 1 data from "
               "every cluster, so with a minibatch of one it allows only k = 1 (uniform), and with b = 2 none of the "
               "enumerated (partition, allocation) laws of six data is the law of two importance-sampled draws. "
               "Stratification assigns one weight n_i/b_i per cluster, importance sampling one per datum; the "
               "appendix's remark that stratified sampling approximates the optimal trial density is an analogy, "
               "not an inclusion.")
def special_cases(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=special_case_checks(),
                       notes=["data: six 1-D points (four near 0, two at 6 and 9), Gaussian mean model, theta = 0; "
                              "laws compared value by value (rounded to 1e-9) with their probabilities"])


@claim("fu_zhang.thm34.same_rate", paper=PAPER, source="Fu & Zhang Theorem 3.4 (eq. 18), the Remark after it",
       statement="With a bounded gradient variance, sum_l E||dV_l||^2/T^2 = O(1/T); CP improves the constant and "
                 "keeps the same O(1/T) rate of the MSE as SG-MCMC.",
       family="fu_zhang_stationary")
def same_rate(settings: Settings) -> ClaimResult:
    rows = rate_rows()
    return ClaimResult(exact=rate_checks(rows), notes=[
        f"Gaussian mean model (blob data), h = {SGLD_HA}/a, b = {B}, burn-in {BURN_IN}, phi = theta (unbiased at any "
        "h, so the h^2 term of (18) is absent and the whole MSE is O(1/T)); theory.chains.stratified's exact form, "
        f"checked against the simulator at T = {N_STEPS} (fu_zhang.thm34.time_average_mse) and T = {LONG_STEPS} "
        "(here)"]).add(*rate_simulated_checks(settings))
