"""SGHMC (simulate.integrators.sghmc) and its exact stationary law (theory.chains.sghmc)."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import FullGradient, GaussianMeanModel, ParameterError, block_rng, run
from simulate.integrators.sghmc import SGHMC
from simulate.samplers import sghmc
from theory import exact_law
from theory.chains import sghmc as sg
from theory.chains.additive_noise import additive_noise_sampler
from verify.harness import run_claims
from verify.mutants import load_mutants
from verify.registry import Settings, select
from verify.report import verdict

MODEL = GaussianMeanModel.simulate_data(200, theta_true=0.5, seed=3)


def test_one_step_matches_chen_eq15_written_out():
    s = sghmc(MODEL, 0.1 / MODEL.grad_lipschitz, 0.3, estimator=FullGradient())
    state = s.init(np.full((5, 1), 0.2), block_rng(1, 0))
    theta0, v0 = state.theta.copy(), state.integrator_state.v.copy()
    rng = block_rng(2, 0)
    new = s.step(state, rng)
    xi = block_rng(2, 0).standard_normal((5, 1))
    g = MODEL.grad_log_post(theta0)
    v1 = 0.7 * v0 + s.h * g + np.sqrt(2 * 0.3 * s.h) * xi
    np.testing.assert_allclose(new.integrator_state.v, v1, rtol=1e-13)
    np.testing.assert_allclose(new.theta, theta0 + v1, rtol=1e-13)
    assert new.integrator_state.step == 1


def test_momentum_resampled_every_L_steps():
    s = sghmc(MODEL, 1e-4, 0.1, n=10, resample_every=3)
    res = run(s, 64, 10, seed=5)
    assert res.time_averages["theta"].shape == (64, 1)
    state = s.init(np.zeros((4, 1)), block_rng(0, 0))
    rng = block_rng(9, 0)
    for _ in range(3):
        state = s.step(state, rng)
    assert state.integrator_state.step == 3
    assert np.all(np.isfinite(state.integrator_state.v))


def test_run_is_reproducible_and_blockwise_identical():
    s = sghmc(MODEL, 1e-4, 0.2, n=10)
    a = run(s, 100, 50, seed=11, block_size=64)
    b = run(s, 100, 50, seed=11, block_size=64, blocks=[0])
    c = run(s, 100, 50, seed=11, block_size=64, blocks=[1])
    np.testing.assert_array_equal(a.time_averages["theta"], np.concatenate(
        [b.time_averages["theta"], c.time_averages["theta"]]))


def test_from_friction_is_eq15_substitution():
    integ, eta = SGHMC.from_friction(0.01, 2.0)
    assert eta == pytest.approx(1e-4) and integ.alpha == pytest.approx(0.02)


@pytest.mark.parametrize("kwargs, word", [
    (dict(alpha=0.0), "alpha"), (dict(alpha=1.5), "alpha"), (dict(alpha=float("nan")), "alpha"),
    (dict(alpha=0.5, resample_every=0), "resample_every"),
])
def test_bad_integrator_parameters(kwargs, word):
    with pytest.raises(ParameterError, match=word):
        SGHMC(**kwargs)


def test_unstable_learning_rate_is_refused_with_the_bound():
    P = MODEL.grad_lipschitz
    with pytest.raises(ParameterError, match=r"4 - 2 alpha"):
        sghmc(MODEL, 3.5 / P, 0.5, n=10)  # stable only for eta P < 3
    sghmc(MODEL, 2.9 / P, 0.5, n=10)
    with pytest.raises(ParameterError, match="estimator or a minibatch size"):
        sghmc(MODEL, 1e-4, 0.5)


def test_closed_form_matches_lyapunov_and_limits():
    for a, etap, s2 in [(0.1, 0.5, 0.0), (0.9, 0.05, 1e4), (0.02, 3.9, 10.0)]:
        P = 1001.0
        closed = sg.stationary_var_theta(P, a, etap / P, s2)
        lyap = exact_law(additive_noise_sampler(P, etap / P, s2, SGHMC(a))).stationary_cov()[0, 0]
        assert closed == pytest.approx(lyap, rel=1e-10)
    with pytest.raises(ParameterError, match="unstable"):
        sg.stationary_var_theta(1.0, 0.5, 3.0, 0.0)
    with pytest.raises(ParameterError, match="noise_var"):
        sg.stationary_var_theta(1.0, 0.5, 0.1, -1.0)


@pytest.mark.parametrize("mutant_id", ["sghmc.friction_missing_step", "sghmc.noise_missing_alpha"])
@pytest.mark.slow
def test_planted_sghmc_bugs_are_caught(mutant_id):
    m = load_mutants()[mutant_id]
    settings = Settings(chains=2000, seed=7, alpha=0.01)
    rows = run_claims(select(ids=list(m.claims)), settings)
    assert all(verdict(c, r) == "holds" for c, r in rows)
    with m.patch():
        rows = run_claims(select(ids=list(m.claims)), settings)
    assert any(verdict(c, r) == "fails" for c, r in rows)
