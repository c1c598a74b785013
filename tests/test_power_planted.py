"""The power rows of the engine claims (issue 28 item 4) catch changes of a few percent of a stationary variance that
the snapshot rows (8% detectable deviation at 10^4 chains) let through."""

from __future__ import annotations

import numpy as np

import simulate.integrators.sghmc as sghmc_mod
from verify.harness import run_claims
from verify.registry import Settings, clear_caches, select
from verify.verdicts import verdict

SMALL = Settings(chains=2000, seed=7, alpha=0.01)


def test_halving_the_momentum_refresh_variance_is_caught(monkeypatch):
    """The simulator redraws SGHMC's momentum from N(0, eta/2) instead of N(0, eta) (the engine keeps eta): a change
    of a few percent of the stationary variance. The power rows of engine.toy.sghmc_refresh reject it far past the
    threshold even at 2000 chains."""
    real = sghmc_mod.SGHMC._after_step

    def halved(self, v, k, h, rng):
        state = real(self, v, k, h, rng)
        if self.resample_every is not None and k % self.resample_every == 0:
            v *= np.sqrt(0.5)
        return state

    monkeypatch.setattr(sghmc_mod.SGHMC, "_after_step", halved)
    clear_caches()
    (claim, res), = run_claims(select(ids=["engine.toy.sghmc_refresh"]), SMALL)
    clear_caches()
    assert verdict(claim, res) == "fails"
    power = [c for c in res.checks if "power: stationary Var" in c.label]
    assert power and all(c.rejected and abs(c.z) > 10 for c in power)


def test_an_estimators_noise_slip_is_caught_by_its_power_rows(monkeypatch):
    """The simulator draws the with-replacement minibatch without replacement (the engine keeps the with-replacement
    law): the gradient noise's variance falls by (N - n)/(N - 1) = 16/19 on the toy, the stationary variance by about
    7%. The snapshot rows of engine.toy.langevin do not reject it at 2000 chains; the power rows every estimator now
    has under the Langevin step reject it far past the threshold."""
    import simulate.estimators.minibatch as minibatch_mod

    real = minibatch_mod.sample_indices
    monkeypatch.setattr(minibatch_mod, "sample_indices",
                        lambda rng, n_data, n, n_chains, replace: real(rng, n_data, n, n_chains, False))
    clear_caches()
    (claim, res), = run_claims(select(ids=["engine.toy.langevin"]), SMALL)
    clear_caches()
    assert verdict(claim, res) == "fails"
    rows = [c for c in res.checks if c.label.startswith("toy, minibatch with replacement x Langevin")]
    snapshot = [c for c in rows if "power:" not in c.label]
    power = [c for c in rows if "power:" in c.label]
    assert snapshot and not any(c.rejected for c in snapshot)
    assert power and all(c.rejected and c.z < -10 for c in power)
    var = next(c for c in power if "stationary Var" in c.label)
    assert 0.03 < 1 - var.estimate / var.theory < 0.1
