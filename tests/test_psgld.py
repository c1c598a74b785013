"""pSGLD (Li et al. 2016, Algorithm 1), a sampler without an exact law, is checked by simulation against the posterior
by the claim of docs/add_a_sampler.md; three planted bugs make that claim fail (each check's detectable deviation is
stated in the guide). Also: its bad input, and that exact_law refuses it saying why."""

from __future__ import annotations

import numpy as np
import pytest
from _docs import run_guide

from simulate import GaussianMeanModel, ParameterError, psgld, run
from simulate.integrators.psgld import AdaptivePreconditionedLangevin, PSGLDState
from verify.harness import run_claims
from verify.registry import REGISTRY, Settings
from verify.report import verdict

CLAIM = "docs.psgld.posterior"


def _update(noise_preconditioned=True, drift_preconditioned=True, gbar_scaled=True):
    def update(self, theta, grad, xi, h, noise, state, rng=None):
        V = state.V
        gbar = grad / self.n_data if gbar_scaled else grad
        V *= self.alpha
        V += (1.0 - self.alpha) * gbar * gbar
        G = self.preconditioner(V)
        theta += 0.5 * h * (G * grad if drift_preconditioned else grad)
        theta += noise * (np.sqrt(G) * xi if noise_preconditioned else xi)
        return theta, PSGLDState(V, state.step + 1)

    return update


BUGS = {"noise not preconditioned": _update(noise_preconditioned=False),
        "drift not preconditioned": _update(drift_preconditioned=False),
        "V read from g instead of g / N": _update(gbar_scaled=False)}


@pytest.fixture(scope="module")
def guide_claim():
    run_guide("add_a_sampler.md")
    yield REGISTRY[CLAIM]
    REGISTRY.pop(CLAIM, None)


def _verdict(claim) -> str:
    (c, res), = run_claims([claim], Settings(chains=500, seed=5))
    assert res.error is None, res.error
    return verdict(c, res)


def test_the_reference_update_equals_the_integrators():
    """The planted variants start from a faithful copy of the update (same numbers, bit for bit)."""
    m = GaussianMeanModel.simulate_data(100, theta_true=[1.0, -1.0], dim=2, seed=1)
    s = psgld(m, 1e-4, 10)
    a = run(s, 50, 20, seed=2, theta0=m.posterior_mean).final
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(AdaptivePreconditionedLangevin, "update", _update())
        b = run(s, 50, 20, seed=2, theta0=m.posterior_mean).final
    assert np.array_equal(a, b)


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_planted_bug_fails_the_posterior_claim(guide_claim, bug, monkeypatch):
    monkeypatch.setattr(AdaptivePreconditionedLangevin, "update", BUGS[bug])
    assert _verdict(guide_claim) == "fails", bug


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"alpha": 1.0}, r"alpha must satisfy 0 < alpha < 1"),
    ({"alpha": 0.0}, r"alpha must satisfy 0 < alpha < 1"),
    ({"lam": 0.0}, r"lam must satisfy 0 < lam"),
    ({"lam": float("inf")}, r"lam must satisfy 0 < lam < inf"),
    ({"n_data": 0}, r"n_data must satisfy 1 <= n_data"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    args = {"n_data": 10} | kwargs
    with pytest.raises(ParameterError, match=match):
        AdaptivePreconditionedLangevin(**args)


def test_exact_law_refuses_and_says_why():
    from theory import exact_law

    m = GaussianMeanModel.simulate_data(20, theta_true=0.0, seed=1)
    with pytest.raises(ParameterError, match=r"no law on route 'affine': pSGLD's preconditioner follows the gradients"):
        exact_law(psgld(m, 1e-3, 5))
