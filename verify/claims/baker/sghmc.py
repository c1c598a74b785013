"""SGHMC as used by Baker et al. (2019, Sec. 2.4; Chen, Fox & Guestrin 2014 eq. 15 with beta_hat = 0) on the 1-D
Gaussian mean model: the simulator's SGHMC against the exact stationary law of the fixed-step chain
(theory.chains.sghmc, new).

Model: x_i ~ N(1, 1), N = 1000, prior N(0, 1) (posterior precision P = 1001).  Configurations are given either as
(alpha, eta P) or, for two of them, in Chen et al.'s eq. (13) parameters (step eps, friction C), converted with
``SGHMC.from_friction`` (eta = eps^2, alpha = eps C), so that a friction term missing its step size is visible.
Chains start at the exact posterior with v ~ N(0, eta); the burn-in leaves a transient below 1e-12 of the initial
deviation (computed from the spectral radius of the mean recursion); per-chain time averages over 30 relaxation
times give the stationary mean and variance with s.e. across chains.
"""

from __future__ import annotations

import math
from functools import cache

import sympy as sp

from simulate import FullGradient, GaussianMeanModel, Minibatch, run
from simulate.integrators.sghmc import SGHMC
from simulate.samplers import sghmc
from theory import exact_law
from theory.chains import sghmc as sghmc_chain
from theory.chains.additive_noise import additive_noise_sampler
from verify.api import (
    Check,
    ClaimResult,
    ExactCheck,
    Settings,
    claim,
    mean_and_se,
    simulation_cache,
    stationary_variance_and_se,
    variance_and_se,
)

PAPER = "baker"
N_DATA, THETA_TRUE, DATA_SEED = 1000, 1.0, 2019
#: (label, alpha-or-None, eta*P-or-None, (eps, C)-or-None, n or None for the full gradient)
CONFIGS = [
    ("full a=0.1 etaP=0.5", 0.1, 0.5, None, None),
    ("full a=0.5 etaP=0.05", 0.5, 0.05, None, None),
    ("n=10 a=0.1 etaP=0.05", 0.1, 0.05, None, 10),
    ("n=100 a=0.5 etaP=0.5", 0.5, 0.5, None, 100),
    ("n=10 eps=0.01 C=1", None, None, (0.01, 1.0), 10),
    ("full eps=0.02 C=1", None, None, (0.02, 1.0), None),
]
TOLERANCE = 1e-12
RELAXATION_TIMES = 30
SOURCE = "Baker et al. 2019 Sec. 2.4; Chen et al. 2014 eq. (15); stationary law new (theory.chains.sghmc)"


@cache
def sghmc_model() -> GaussianMeanModel:
    return GaussianMeanModel.simulate_data(N_DATA, theta_true=THETA_TRUE, seed=DATA_SEED)


def sghmc_sampler(alpha: float | None, eta_p: float | None, eps_c, n: int | None):
    model = sghmc_model()
    P = model.grad_lipschitz
    estimator = FullGradient() if n is None else Minibatch(n, replace=False)
    if eps_c is not None:
        integrator, h = SGHMC.from_friction(*eps_c)
        return sghmc(model, h, integrator.alpha, estimator=estimator)
    return sghmc(model, eta_p / P, alpha, estimator=estimator)


# ------------------------------------------------------------------------------------------ computation
def gradient_noise_var(n: int | None) -> float:
    """Var of the minibatch estimate without replacement, from the data (Vollmer et al. eq. 16, written out here
    independently of the simulator): (N^2/n) s_x^2 (N - n)/(N - 1), s_x^2 the divisor-N sample variance."""
    if n is None:
        return 0.0
    x = sghmc_model().data[:, 0]
    N = x.size
    return N * N / n * float(x.var()) * (N - n) / (N - 1)


@simulation_cache
def sghmc_stationary_estimates(label: str, chains: int, seed: int) -> dict:
    """Stationary mean and variance (with s.e. across chains) of one configuration, and its (P, alpha, eta, s2)."""
    cfg = next(c for c in CONFIGS if c[0] == label)
    sampler = sghmc_sampler(*cfg[1:])
    model = sampler.model
    P = model.grad_lipschitz
    # theory's (alpha, eta) come from the configuration (eq. 15 substitution written out), not from the sampler
    a, h = (cfg[3][0] * cfg[3][1], cfg[3][0] ** 2) if cfg[3] is not None else (cfg[1], cfg[2] / P)
    rho = sghmc_chain.spectral_radius(P, a, h)
    mu, sd = float(model.posterior_mean[0]), math.sqrt(model.posterior_var)
    burn = math.ceil(math.log(TOLERANCE) / math.log(rho))
    steps = math.ceil(RELAXATION_TIMES / (1.0 - rho))
    res = run(sampler, chains, steps, seed=seed, burn_in=burn,
              theta0=lambda rng, m: mu + sd * rng.standard_normal((m, 1)))
    a1, a2 = res.time_averages["theta"][:, 0], res.time_averages["theta2"][:, 0]
    mean, se_mean = mean_and_se(a1)
    var, se_var = stationary_variance_and_se(a2, a1)
    var_avg, se_var_avg = variance_and_se(a1)
    law = exact_law(sampler, theta0=[mu], cov0=[[sd * sd]]).time_average([1.0], n_steps=steps, burn_in=burn)
    return dict(P=P, alpha=a, h=h, mu=mu, mean=mean, se_mean=se_mean, var=var, se_var=se_var,
                s2=gradient_noise_var(cfg[4]), var_avg=var_avg, se_var_avg=se_var_avg, var_avg_exact=law.variance,
                steps=steps)


def all_estimates(settings: Settings) -> list[tuple[str, dict]]:
    """The (cached) simulation of every configuration, each with its own seed."""
    return [(cfg[0], sghmc_stationary_estimates(cfg[0], settings.chains, settings.seed_for("sghmc:" + cfg[0])))
            for cfg in CONFIGS]


# ------------------------------------------------------------------------------------------ checks
def mean_checks(estimates: list[tuple[str, dict]]) -> list[Check]:
    """Per configuration: the stationary mean against the posterior mean and, beside it, the spread of the per-chain
    time averages (the variance of the mean's estimator) against the exact engine's: most bugs leave a Gaussian
    chain's mean unchanged, but not the variance and autocorrelation the second check sees."""
    out = []
    for label, e in estimates:
        params = dict(alpha=e["alpha"], eta=e["h"], L=e["steps"])
        out.append(Check(label, e["mu"], e["mean"], e["se_mean"], params=params))
        out.append(Check(f"{label}: Var of the time average over {e['steps']} steps (exact engine)", e["var_avg_exact"],
                         e["var_avg"], e["se_var_avg"], params=params))
    return out


def variance_checks(estimates: list[tuple[str, dict]]) -> list[Check]:
    """The stationary variance of each configuration against the closed form of theory.chains.sghmc."""
    return [Check(label, sghmc_chain.stationary_var_theta(e["P"], e["alpha"], e["h"], e["s2"]), e["var"], e["se_var"],
                  params=dict(alpha=e["alpha"], eta=e["h"])) for label, e in estimates]


def small_step_checks() -> list[ExactCheck]:
    """Exact: Var theta -> 1/P as eta -> 0, with leading excess eta (s2/(2 alpha P) + 1/(2 (2 - alpha)))."""
    P, a, eta, s2 = sghmc_chain.P, sghmc_chain.alpha, sghmc_chain.eta, sghmc_chain.s2
    var = sghmc_chain.stationary_moments_1d()["var_theta"]
    lim = sp.simplify(sp.limit(var, eta, 0) - 1 / P)
    lead = sp.simplify(sghmc_chain.excess_variance_series(2) - eta * (s2 / (2 * a * P) + 1 / (2 * (2 - a))))
    lyap = exact_law(additive_noise_sampler(1001.0, 1e-3, 2.5e4, SGHMC(0.3))).stationary_cov(whole_state=True)[0, 0]
    closed = sghmc_chain.stationary_var_theta(1001.0, 0.3, 1e-3, 2.5e4)
    return [
        ExactCheck("lim_{eta->0} Var theta = 1/P (sympy)", lim == 0, f"difference {lim}"),
        ExactCheck("leading excess = eta (s2/(2 alpha P) + 1/(2(2 - alpha))) (sympy)", lead == 0, f"residual {lead}"),
        ExactCheck("closed form = the exact engine (Lyapunov fixed point)", abs(lyap - closed) <= 1e-12 * closed,
                   f"{closed!r} vs {lyap!r}", kind="consistency"),
    ]


# ------------------------------------------------------------------------------------------ claims
@claim("baker.sghmc.stationary_mean", paper=PAPER, source=SOURCE,
       statement="Fixed-step SGHMC (beta_hat = 0) on a Gaussian target has the exact posterior mean as stationary "
                 "mean (each mean checked beside the spread of its estimator, the time average, against the exact "
                 "law).",
       family="baker.sghmc")
def sghmc_stationary_mean(settings: Settings) -> ClaimResult:
    return ClaimResult(checks=mean_checks(all_estimates(settings)))


@claim("baker.sghmc.stationary_variance", paper=PAPER, source=SOURCE,
       statement="Stationary Var theta = (2 - alpha)(2 alpha + eta s2) / (P alpha (4 - 2 alpha - eta P)) for SGHMC "
                 "with learning rate eta, friction alpha and gradient-noise variance s2.",
       family="baker.sghmc")
def sghmc_stationary_variance(settings: Settings) -> ClaimResult:
    return ClaimResult(checks=variance_checks(all_estimates(settings)))


@claim("baker.sghmc.small_step_limit", paper=PAPER, source=SOURCE,
       statement="As eta -> 0 SGHMC's stationary variance tends to the posterior's; with beta_hat = 0 the gradient "
                 "noise adds eta s2 / (2 alpha P) to it at first order.",
       family="baker.sghmc")
def small_step_limit(settings: Settings) -> ClaimResult:
    return ClaimResult(exact=small_step_checks())
