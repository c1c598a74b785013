"""The models and samplers the grid claims use (shared helpers; registers nothing)."""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate import Sampler, euler, msgld, run, sghmc, sgld, sgld_cv
from simulate.estimators.additive_noise import AdditiveNoise
from simulate.integrators.langevin import Langevin
from simulate.integrators.underdamped import ExplicitEulerSGHMC
from simulate.models.low_dim_logistic import small_logistic_1d
from simulate.models.potentials import quartic
from simulate.models.student_t import StudentTLocation
from verify.api import Check, mean_and_se

#: Steps of the early and late expectations and the time-average window [TA_BURN, TA_BURN + TA_STEPS).
K_EARLY, K_LATE, TA_BURN, TA_STEPS = 3, 150, 5, 40
#: Accuracy asked of the grid laws (their error estimates are reported beside every theory value): 1e-8 for a 1-D
#: state, 1e-5 for SGHMC's 2-D phase space.
TOL, TOL_PHASE_SPACE = 1e-8, 1e-5


def tol_for(name: str) -> float:
    """The grid law's tolerance for the sampler ``name`` of :func:`samplers`."""
    return TOL_PHASE_SPACE if name.startswith("sghmc") else TOL


@cache
def logistic1d():
    """N = 12 one-covariate logistic regression (every minibatch enumerable)."""
    return small_logistic_1d()


@cache
def student_t():
    """Student-t location, nu = 3, N = 20, with two outliers added to the simulated data."""
    base = StudentTLocation.simulate_data(18, theta_true=1.0, nu=3.0, seed=7)
    return StudentTLocation(np.concatenate([base.data, [7.0, 9.5]]), nu=3.0, scale=1.0, sigma0=10.0)


def samplers(model_name: str) -> dict[str, Sampler]:
    """The samplers of one model, at step sizes well inside their stability ranges."""
    if model_name == "logistic1d":
        m = logistic1d()
        h = 0.5 / m.grad_lipschitz
        mode = m.posterior_mode()
        return {"euler": euler(m, h), "sgld": sgld(m, h, 3), "sgld_wr": sgld(m, h, 3, replace=True),
                "msgld": msgld(m, h, 3), "sgld_cv": sgld_cv(m, h, 2, theta_hat=mode + 0.3),
                "sghmc": sghmc(m, 0.3 * h, 0.3, n=3),
                "sghmc_euler": Sampler(m, sgld(m, h, 3).estimator, ExplicitEulerSGHMC(0.5), 0.1 * h,
                                       name="sghmc_euler")}
    if model_name == "student_t":
        m = student_t()
        h = 0.5 / m.grad_lipschitz
        return {"euler": euler(m, h), "sgld": sgld(m, h, 5), "msgld": msgld(m, h, 5)}
    m = quartic()
    return {"euler": euler(m, 0.05), "sgld_additive": Sampler(m, AdditiveNoise(4.0), Langevin(), 0.05, name="sgld")}


def theta0_of(model_name: str) -> np.ndarray:
    """A start away from the posterior's centre (so that the early moments test the transient)."""
    return {"logistic1d": np.array([-0.5]), "student_t": np.array([0.0]), "quartic": np.array([0.8])}[model_name]


def simulate_moments(sampler: Sampler, theta0: np.ndarray, chains: int, seed: int) -> dict:
    """Per-chain theta_{K_EARLY}, theta_{K_LATE} and the time average of theta over the window."""
    res = run(sampler, chains, TA_STEPS, burn_in=TA_BURN, seed=seed, theta0=theta0, record_at=[K_EARLY, K_LATE],
              test_functions={"theta": lambda th: th[:, :1]})
    return {"early": res.snapshots[K_EARLY][:, 0], "late": res.snapshots[K_LATE][:, 0],
            "avg": res.time_averages["theta"][:, 0]}


def law_checks(tag: str, law, sim: dict) -> list[Check]:
    """z-tests of the grid law's E theta_3, E theta_150^2 and the MSE of the time average against the chains."""
    th, th2 = (lambda x: x[:, 0]), (lambda x: x[:, 0] ** 2)
    out = []
    e = law.expectation(th, K_EARLY)
    m, se = mean_and_se(sim["early"])
    out.append(Check(f"{tag}: E theta_{K_EARLY}", float(e.value), m, se, {"grid error": e.error}))
    e2 = law.expectation(th2, K_LATE)
    m, se = mean_and_se(sim["late"] ** 2)
    out.append(Check(f"{tag}: E theta_{K_LATE}^2", float(e2.value), m, se, {"grid error": e2.error}))
    if law.D == law.d:
        ta = law.time_average(th, n_steps=TA_STEPS, burn_in=TA_BURN)
        m, se = mean_and_se((sim["avg"] - ta.target) ** 2)
        out.append(Check(f"{tag}: MSE of the time average of theta over [{TA_BURN}, {TA_BURN + TA_STEPS})",
                         float(ta.mse), m, se, {"grid error": ta.error[2], "target pi(theta)": ta.target}))
    return out
