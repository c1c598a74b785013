"""The peer-library cases that ``python -m verify.conformance`` (``make conformance``) runs.

Problems: the 1-D Gaussian toy (N = 100, prior N(0, 1)) and a 2-D linear regression (N = 200, varied design);
minibatch n = 10; all chains start at theta_0 = 0, far from the posterior mean, so that finite-k moments test the
drift and the noise separately. Step sizes in the workbench convention: SGLD h = 0.8 / L_grad (L_grad the largest
eigenvalue of the posterior precision), SGHMC h = 0.05 / L_grad with friction alpha = 0.2 per step (explicit-Euler
SGHMC is stable only for h L_grad < alpha), BAOAB h = 0.05 / L_grad with gamma dt = 0.5. Each library's adapter maps
these to its own parameters.

Expected verdicts: every library holds as its own source writes its algorithm; SGHMC declared in Chen et al.'s
order (the gradient at the updated position, eq. 15 / Algorithm 2; the workbench's SGHMC) is expected to fail for
all three: they evaluate the gradient before the position moves (explicit Euler). Bugs found are registered as
expected failures, each followed by the declaration that does hold (the diagnosis): blackjax's SGHMC at
temperature != 1, SGMCMCJax's released BAOAB (#69) and its BAOAB at tau != 1.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .harness import Schedule
from .problems import Problem, linreg_problem, toy_problem
from .suite import Case

SGLD_H = 0.8  # h * L_grad
SGHMC_H, SGHMC_ALPHA, SGHMC_L = 0.05, 0.2, 10
BAOAB_ALPHA = 0.5  # gamma dt
N_BATCH = 10
SGLD_SCHEDULE = Schedule(snapshots=(1, 3, 10, 30), burn_in=300, window=1000)
SGHMC_CALL_SCHEDULE = Schedule(snapshots=(1, 3, 10), burn_in=60, window=300)  # calls of L = 10 steps
SGHMC_STEP_SCHEDULE = Schedule(snapshots=(1, 3, 10, 30), burn_in=500, window=2000)

CHEN_ORDER = ("Chen et al. (2014) eq. (15) / Algorithm 2 evaluate the gradient at the updated position (the "
              "workbench's SGHMC); {lib} evaluates it before the position moves (explicit Euler, as {where}). "
              "The explicit scheme's stationary variance is biased at first order in h P / alpha (Var theta = "
              "(2 alpha + h s2)(2 - alpha + h P) / (P (alpha - h P)(4 - 2 alpha + h P)) in 1-D, new) and it is "
              "unstable for h P >= alpha without momentum refreshes: a documented discretisation, not a typo")


def _h(problem: Problem, c: float) -> float:
    return c / problem.model.grad_lipschitz


def _cv_centre(problem: Problem) -> np.ndarray:
    """A control-variate centre half a posterior sd off the mode (as a short SGD run would leave it)."""
    sd = np.sqrt(np.diag(problem.posterior_cov))
    return problem.posterior_mean + 0.5 * sd * (-1.0) ** np.arange(problem.dim)


def _chen_order(dec):
    return dataclasses.replace(dec, order="momentum_first")


TEMPERATURE = 2.0
BLACKJAX_T = ("blackjax redraws the momentum p ~ N(0, I) at every call whatever the temperature T "
              "(sgmcmc/sghmc.py: generate_gaussian_noise), while its diffusion's stationary momentum law is N(0, T I): "
              "at T != 1 theta does not sample p^(1/T). A bug (the friction/noise scaling PR #540 questioned is right)")
BAOAB_69 = ("SGMCMCJax issue #69: build_baoab_kernel unpacks (update_diff1, update_diff1) = baoab(...), so both "
            "half-steps are the final B kick and theta never moves (constant samples, s.e. 0). Fixed on master by PR "
            "#70 (2023-10) but the latest release on PyPI, 0.2.13, still ships it: a bug")
BAOAB_TAU = ("SGMCMCJax's BAOAB O-step draws tau * sqrt(1 - c^2) xi (diffusions.baoab) where temperature tau needs "
             "sqrt(tau) * sqrt(1 - c^2) xi: its stationary law is the one at temperature tau^2 (the next row holds). "
             "A bug (on master too) for any tau != 1")


def blackjax_cases() -> list[Case]:
    from .adapters.blackjax import blackjax_sghmc, blackjax_sgld

    lib = "blackjax"
    return [
        Case(lib, "SGLD", lambda p: blackjax_sgld(p, _h(p, SGLD_H), N_BATCH), toy_problem, SGLD_SCHEDULE,
             sim_key="blackjax/sgld/toy"),
        Case(lib, "SGLD", lambda p: blackjax_sgld(p, _h(p, SGLD_H), N_BATCH), linreg_problem, SGLD_SCHEDULE,
             sim_key="blackjax/sgld/linreg"),
        Case(lib, "SGLD-CV", lambda p: blackjax_sgld(p, _h(p, SGLD_H), N_BATCH, theta_hat=_cv_centre(p)),
             linreg_problem, SGLD_SCHEDULE),
        Case(lib, "SGHMC", lambda p: blackjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L), toy_problem,
             SGHMC_CALL_SCHEDULE, sim_key="blackjax/sghmc/toy",
             meaning="one minibatch for the L inner steps of a call (its API takes one batch per step call): exact on "
                     "the toy, whose gradient noise is additive; on linear regression this law needs fourth moments"),
        Case(lib, "SGHMC as Chen et al.", lambda p: blackjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L),
             toy_problem, SGHMC_CALL_SCHEDULE, declared=_chen_order, expected="fails", sim_key="blackjax/sghmc/toy",
             meaning=CHEN_ORDER.format(lib="blackjax", where="diffusions.sghmc, its 'Euler solver', does")),
        Case(lib, f"SGLD, temperature {TEMPERATURE:g}",
             lambda p: blackjax_sgld(p, _h(p, SGLD_H), N_BATCH, temperature=TEMPERATURE), toy_problem, SGLD_SCHEDULE),
        Case(lib, f"SGHMC, temperature {TEMPERATURE:g}",
             lambda p: blackjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L, temperature=TEMPERATURE),
             toy_problem, SGHMC_CALL_SCHEDULE, expected="fails", sim_key="blackjax/sghmc-T/toy", meaning=BLACKJAX_T),
        Case(lib, f"SGHMC, temperature {TEMPERATURE:g}, momentum redrawn N(0, I)",
             lambda p: blackjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L, temperature=TEMPERATURE),
             toy_problem, SGHMC_CALL_SCHEDULE, sim_key="blackjax/sghmc-T/toy",
             declared=lambda d: dataclasses.replace(d, refresh_var=d.h),
             meaning="the diagnosis of the previous row: declared with the momentum blackjax actually draws"),
    ]


def sgmcmcjax_cases() -> list[Case]:
    from .adapters.sgmcmcjax import sgmcmcjax_baoab, sgmcmcjax_sghmc, sgmcmcjax_sgld, sgmcmcjax_svrg

    lib = "SGMCMCJax"
    return [
        Case(lib, "SGLD", lambda p: sgmcmcjax_sgld(p, _h(p, SGLD_H), N_BATCH), toy_problem, SGLD_SCHEDULE,
             sim_key="sgmcmcjax/sgld/toy"),
        Case(lib, "SGLD", lambda p: sgmcmcjax_sgld(p, _h(p, SGLD_H), N_BATCH), linreg_problem, SGLD_SCHEDULE,
             sim_key="sgmcmcjax/sgld/linreg"),
        Case(lib, "SGLD-CV", lambda p: sgmcmcjax_sgld(p, _h(p, SGLD_H), N_BATCH, theta_hat=_cv_centre(p)),
             linreg_problem, SGLD_SCHEDULE),
        Case(lib, "SVRG-LD", lambda p: sgmcmcjax_svrg(p, _h(p, SGLD_H), N_BATCH, update_rate=10), linreg_problem,
             SGLD_SCHEDULE, meaning="anchor set before calls 0, 1, 11, 21, ... (update_rate 10): Dubey et al.'s "
                                    "epochs shifted by one call, declared as such"),
        Case(lib, "SGHMC", lambda p: sgmcmcjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L),
             linreg_problem, SGHMC_CALL_SCHEDULE, sim_key="sgmcmcjax/sghmc/linreg"),
        Case(lib, "SGHMC as Chen et al.",
             lambda p: sgmcmcjax_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH, SGHMC_L), linreg_problem,
             SGHMC_CALL_SCHEDULE, declared=_chen_order, expected="fails", sim_key="sgmcmcjax/sghmc/linreg",
             meaning=CHEN_ORDER.format(lib="SGMCMCJax", where="diffusions.sghmc, citing Chen et al. App. G, does")),
        Case(lib, "BAOAB (release 0.2.13)", lambda p: sgmcmcjax_baoab(p, _h(p, SGHMC_H), BAOAB_ALPHA, N_BATCH),
             linreg_problem, SGLD_SCHEDULE, expected="fails", meaning=BAOAB_69),
        Case(lib, "BAOAB (PR #70 fix)",
             lambda p: sgmcmcjax_baoab(p, _h(p, SGHMC_H), BAOAB_ALPHA, N_BATCH, released=False), linreg_problem,
             SGLD_SCHEDULE, meaning="the kernel assembled from SGMCMCJax's own parts as PR #70 does"),
        Case(lib, f"BAOAB (PR #70), tau {TEMPERATURE:g}",
             lambda p: sgmcmcjax_baoab(p, _h(p, SGHMC_H), BAOAB_ALPHA, N_BATCH, tau=TEMPERATURE, released=False),
             linreg_problem, SGLD_SCHEDULE, expected="fails", sim_key="sgmcmcjax/baoab-tau", meaning=BAOAB_TAU),
        Case(lib, f"BAOAB (PR #70), tau {TEMPERATURE:g} as temperature {TEMPERATURE ** 2:g}",
             lambda p: sgmcmcjax_baoab(p, _h(p, SGHMC_H), BAOAB_ALPHA, N_BATCH, tau=TEMPERATURE, released=False),
             linreg_problem, SGLD_SCHEDULE, sim_key="sgmcmcjax/baoab-tau",
             declared=lambda d: dataclasses.replace(d, temperature=d.temperature**2),
             meaning="the diagnosis of the previous row"),
    ]


def posteriors_cases() -> list[Case]:
    from .adapters.posteriors import posteriors_sghmc, posteriors_sgld

    lib = "posteriors"
    return [
        Case(lib, "SGLD", lambda p: posteriors_sgld(p, _h(p, SGLD_H), N_BATCH), toy_problem, SGLD_SCHEDULE,
             sim_key="posteriors/sgld/toy"),
        Case(lib, "SGLD", lambda p: posteriors_sgld(p, _h(p, SGLD_H), N_BATCH), linreg_problem, SGLD_SCHEDULE,
             sim_key="posteriors/sgld/linreg"),
        Case(lib, "SGLD, DataLoader epochs", lambda p: posteriors_sgld(p, _h(p, SGLD_H), N_BATCH, epochs=True),
             toy_problem, SGLD_SCHEDULE, sim_key="posteriors/sgld-epochs/toy",
             meaning="batches as the docs' DataLoader(shuffle=True) draws them: the errors of an epoch's disjoint "
                     "batches sum to zero, which lowers the stationary variance's gradient-noise part"),
        Case(lib, "SGLD, DataLoader epochs, as independent batches",
             lambda p: posteriors_sgld(p, _h(p, SGLD_H), N_BATCH, epochs=True), toy_problem, SGLD_SCHEDULE,
             sim_key="posteriors/sgld-epochs/toy", declared=lambda d: dataclasses.replace(d, epochs=False),
             expected="fails",
             meaning="the law of independent minibatches (what SG-MCMC theory assumes) is not the law of the docs' "
                     "epoch batching: not a bug, a different algorithm that the docs do not name"),
        Case(lib, "SGHMC", lambda p: posteriors_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH), linreg_problem,
             SGHMC_STEP_SCHEDULE, sim_key="posteriors/sghmc/linreg",
             meaning="momenta N(0, 1) at init (the default): v_0 has variance lr^2 = N h, N times its stationary "
                     "variance; declared as such"),
        Case(lib, "SGHMC as Chen et al.", lambda p: posteriors_sghmc(p, _h(p, SGHMC_H), SGHMC_ALPHA, N_BATCH),
             linreg_problem, SGHMC_STEP_SCHEDULE, declared=_chen_order, expected="fails",
             sim_key="posteriors/sghmc/linreg",
             meaning=CHEN_ORDER.format(lib="posteriors", where="its docstring writes it")),
    ]


LIBRARIES = {"blackjax": blackjax_cases, "sgmcmcjax": sgmcmcjax_cases, "posteriors": posteriors_cases}


def library_cases(only: list[str] | None = None) -> list[Case]:
    from simulate.validation import ParameterError

    names = only or list(LIBRARIES)
    for n in names:
        if n not in LIBRARIES:
            raise ParameterError(f"library must be one of {sorted(LIBRARIES)}, got {n!r}")
    return [c for n in names for c in LIBRARIES[n]()]


__all__ = ["LIBRARIES", "library_cases"]
