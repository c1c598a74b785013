"""theory.grid_law against simulation on non-Gaussian 1-D posteriors: for each model and sampler, the exact E theta
after 3 steps and E theta^2 after 150 steps from a start away from the posterior, and the MSE of the time average of
theta over [5, 45), against independent chains of the same sampler object (z-tests, s.e. across chains).

Models: a one-covariate logistic regression with N = 12 (every minibatch of SGLD, mSGLD and SGLD-CV enumerated as a
finite mixture; SGHMC and explicit-Euler SGHMC in their 2-D phase space), a Student-t location model with two
outliers (N = 20, n = 5: the minibatch law through Newton's identities with its error bound), the quartic potential
with Gaussian gradient noise (Vollmer et al. Section 4's setting).
"""

from __future__ import annotations

from collections.abc import Callable

from theory.grid import grid_law
from verify.api import ClaimResult, Settings, claim

from ._cases import law_checks, samplers, simulate_moments, theta0_of, tol_for

PAPER = "grid"
SOURCE = "theory.grid_law, docs/grid_law.md (new)"


def _claim_run(model_name: str) -> Callable[[Settings], ClaimResult]:
    def run_claim(settings: Settings) -> ClaimResult:
        out = ClaimResult()
        theta0 = theta0_of(model_name)
        for name, sampler in samplers(model_name).items():
            law = grid_law(sampler, theta0, tol=tol_for(name))
            sim = simulate_moments(sampler, theta0, settings.chains, settings.seed_for(f"grid.{model_name}.{name}"))
            out.checks += law_checks(name, law, sim)
            out.notes.append(f"{name}: h = {sampler.h:.4g}, grid {law.fine.grid.sizes} nodes (coarse "
                             f"{law.coarse.grid.sizes}), stationary E theta = "
                             f"{float(law.stationary_expectation(lambda x: x[:, 0]).value):.6g}")
        return out
    return run_claim


for _model, _text in (
        ("logistic1d", "a 1-D logistic regression with N = 12 (SGLD with and without replacement, mSGLD, SGLD-CV at "
                       "an off-mode centre, SGHMC, explicit-Euler SGHMC, Euler)"),
        ("student_t", "a Student-t location posterior with outliers (Euler, SGLD and mSGLD with n = 5 of N = 20)"),
        ("quartic", "the quartic potential U = theta^4/4 (Euler; SGLD with Gaussian gradient noise of variance 4)")):
    claim(f"grid.{_model}.exact_law", paper=PAPER, source=SOURCE, family="grid",
          statement=f"On {_text}, the grid law of each sampler object gives E theta_3, E theta_150^2 and the MSE of "
                    "the time average of theta exactly (to its refinement error): simulation of the same objects "
                    "agrees.")(_claim_run(_model))
