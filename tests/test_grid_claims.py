"""The grid claims (verify/claims/grid, vollmer.thm6.minibatch_noise_general_potentials): they hold, and they fail on
planted bugs in the simulator (the simulation is checked against the exact grid law, so a sampler that does not do
what its object says is caught) and in the grid law's inputs."""

from __future__ import annotations

import numpy as np
import pytest

from simulate.estimators.minibatch import Minibatch
from simulate.integrators.langevin import Langevin, ModifiedLangevin
from verify.harness import run_claims
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=3000, seed=11, alpha=0.01)


def _verdicts(ids, settings=FAST):
    rows = run_claims(select(ids=ids), settings)
    return {c.id: verdict(c, r) for c, r in rows}, rows


def test_grid_claims_hold():
    verdicts, _ = _verdicts(["grid.student_t.exact_law", "grid.quartic.exact_law"])
    assert set(verdicts.values()) == {"holds"}


def test_grid_claim_fails_when_the_drift_is_h_not_h_over_2(monkeypatch):
    """Planted bug: theta' = theta + h g + sqrt(h) xi (Chen's drift with the workbench's noise); the laws of E theta_3
    and E theta_150^2 move by far more than the s.e. at 3000 chains."""

    def update(self, theta, grad, xi, h, noise, state=(), rng=None):
        theta += h * grad + noise * xi
        return theta, state

    monkeypatch.setattr(Langevin, "update", update)
    verdicts, rows = _verdicts(["grid.student_t.exact_law"])
    assert verdicts == {"grid.student_t.exact_law": "fails"}


def test_grid_claim_fails_when_the_minibatch_scale_is_wrong(monkeypatch):
    """Planted bug: the minibatch sum scaled by N/(n + 1) instead of N/n (the likelihood under-weighted by 5/6 at
    n = 5): SGLD's and mSGLD's laws move; the claim must fail on them and hold on Euler."""
    monkeypatch.setattr(Minibatch, "scale", lambda self, model: model.n_data / (self.n + 1))
    verdicts, rows = _verdicts(["grid.student_t.exact_law"])
    rejected = {c.label for _, r in rows for c in r.checks if c.rejected}
    assert verdicts == {"grid.student_t.exact_law": "fails"}, rejected
    assert rejected and all(lbl.startswith(("sgld", "msgld")) for lbl in rejected)


@pytest.mark.slow
def test_general_potentials_claim_holds():
    verdicts, rows = _verdicts(["vollmer.thm6.minibatch_noise_general_potentials"])
    failed = [e.label for _, r in rows for e in r.exact if not e.passed]
    assert verdicts == {"vollmer.thm6.minibatch_noise_general_potentials": "holds"}, failed
    assert np.isfinite([c.z for _, r in rows for c in r.checks]).all()


BIAS_2D = "grid.logistic2d.sgld_msgld_euler_bias"


@pytest.mark.slow
def test_logistic2d_bias_claim_fails_when_msgld_drift_is_h(monkeypatch):
    """Planted bug: mSGLD's update takes the drift h g (Chen's convention) instead of (h/2) g; its chains, started from
    its exact stationary law, leave it within the window: the mSGLD checks reject (Euler's and SGLD's do not)."""
    original = ModifiedLangevin.update

    def update(self, theta, grad, xi, h, noise, state=(), rng=None):
        return original(self, theta, 2.0 * grad, xi, h, noise, state, rng)

    monkeypatch.setattr(ModifiedLangevin, "update", update)
    verdicts, rows = _verdicts([BIAS_2D])
    rejected = {c.label for _, r in rows for c in r.checks if c.rejected}
    assert verdicts == {BIAS_2D: "fails"}, rejected
    assert any(lbl.startswith("msgld") for lbl in rejected)
    assert not any(lbl.startswith(("euler", "sgld")) for lbl in rejected), rejected


@pytest.mark.slow
def test_logistic2d_bias_claim_fails_when_the_msgld_correction_is_off(monkeypatch):
    """Planted bug in code the grid law and the simulator share: the minibatch noise covariance halved (mSGLD's
    correction then removes half of the noise's first-order bias). Simulation and law agree, so only the exact
    first-order check can catch it: mSGLD's excess over Euler no longer shrinks 4-fold from h to h/2."""
    original = Minibatch.noise_cov
    monkeypatch.setattr(Minibatch, "noise_cov", lambda self, model, theta=None: 0.5 * original(self, model, theta))
    verdicts, rows = _verdicts([BIAS_2D])
    failed = [e.label for _, r in rows for e in r.exact if not e.passed]
    assert verdicts == {BIAS_2D: "fails"}
    assert len(failed) == 1 and failed[0].startswith("mSGLD: its excess"), failed
