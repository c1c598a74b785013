"""Brosse, Durmus & Moulines (2018): the closed forms of theory.chains.brosse against the exact engine, and planted
bugs that each kind of check of the ``brosse`` claims catches (a z-test against simulation, an exact check against
the engine)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import theory.chains.brosse as brosse
import verify.claims.brosse.invariant as inv
from simulate import LinearRegressionModel
from simulate.integrators.langevin import Langevin
from simulate.validation import ParameterError
from theory import exact_law
from verify.api import Settings
from verify.harness import run_claims
from verify.registry import REGISTRY, clear_caches, load_all
from verify.verdicts import verdict


def test_closed_forms_equal_the_engine_and_the_decomposition():
    model = LinearRegressionModel.simulate_data(120, dim=3, seed=5)
    gamma = 0.3 / np.linalg.eigvalsh(model.precision)[-1]
    C = brosse.invariant_covariances(model, gamma, 4)
    for name, s in brosse.samplers(model, gamma, 4).items():
        m, S = exact_law(s).stationary_moments()
        assert np.allclose(m, model.posterior_mean, rtol=1e-10)
        assert np.allclose(S, C[name], rtol=1e-9, atol=1e-15), name
    assert np.allclose(C["sgld"], C["sgldfp"] + C["sgd"], rtol=1e-12)
    H = model.precision
    assert np.allclose(C["lmc"], np.linalg.inv(H) @ np.linalg.inv(np.eye(3) - gamma * H / 2), rtol=1e-12)
    b = brosse.coupling_bounds(C)
    assert b["sgld-sgd"] ** 2 == pytest.approx(np.trace(C["sgldfp"]))


def test_unstable_step_is_refused():
    model = LinearRegressionModel.simulate_data(50, dim=2, seed=1)
    with pytest.raises(ParameterError, match="gamma"):
        brosse.invariant_covariances(model, 3.0 / np.linalg.eigvalsh(model.precision)[-1], 5)


def _run(claim_id: str, chains: int = 1000):
    load_all()
    clear_caches()
    ((c, r),) = run_claims([REGISTRY[claim_id]], Settings(chains=chains))
    return verdict(c, r), r


def test_claims_hold():
    for cid in ("brosse.linreg.invariant_means", "brosse.linreg.sgld_decomposition",
                "brosse.large_n.sgld_behaves_like_sgd"):
        assert _run(cid)[0] == "holds", cid


def test_planted_noise_scale_bug_is_caught_by_the_z_tests(monkeypatch):
    """SGLD's injected noise sqrt(2h) instead of sqrt(h) (temperature 2): the simulated variances leave the closed
    form, while the exact checks (closed form against the engine, which reads the same samplers) still pass."""
    real = brosse.samplers

    def hot(model, gamma, p):
        out = real(model, gamma, p)
        out["sgld"] = dataclasses.replace(out["sgld"], integrator=Langevin(temperature=2.0))
        return out

    monkeypatch.setattr(inv, "samplers", hot)
    v, r = _run("brosse.linreg.invariant_covariances")
    assert v == "fails"
    assert any(k.rejected and k.label.startswith("sgld:") for k in r.checks)


def test_planted_closed_form_bug_is_caught_by_the_exact_checks(monkeypatch):
    """The closed form with the minibatch factor of draws without replacement: the exact check against the engine
    fails."""
    real = brosse.invariant_covariances

    def wrong(model, gamma, p):
        out = real(model, gamma, p)
        N = model.n_data
        out["sgd"] = out["sgd"] * (N - p) / (N - 1)
        return out

    monkeypatch.setattr(inv, "invariant_covariances", wrong)
    v, r = _run("brosse.linreg.invariant_covariances", chains=200)
    assert v == "fails"
    assert any(not e.passed and e.label.startswith("sgd:") for e in r.exact)
