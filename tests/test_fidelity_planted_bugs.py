"""Planted bugs that the issue-20 checks catch: every check that can fail is shown failing on a realistic bug
(the anchor never refreshed, eq. (54)'s scale in the eq. (9) chain, minibatches drawn with replacement, stratum
weights swapped, the paper's eps read as the workbench's h)."""

from __future__ import annotations

import numpy as np

import simulate.estimators.minibatch as mb
import simulate.estimators.stratified as strat
from simulate.estimators.subsample import sample_indices
from simulate.integrators import PrintedEq9Langevin
from verify.harness import run_claims
from verify.registry import Settings, clear_caches, select
from verify.report import verdict

SMALL = Settings(chains=2000, seed=7, alpha=0.01)


def _run(claim_id: str, settings: Settings = SMALL):
    clear_caches()
    try:
        (claim, res), = run_claims(select(ids=[claim_id]), settings)
    finally:
        clear_caches()
    return claim, res


def test_correct_code_gives_the_registered_verdicts():
    ids = ["chen.lemma5.anchor_gap", "vollmer.eq9.printed_first_order", "chen.lemma2.gamma_nonnegative",
           "fu_zhang.thm31.bound", "vollmer.remark8.optimal_step"]
    rows = run_claims(select(ids=ids), SMALL)
    assert {c.id: verdict(c, r) for c, r in rows} == {c.id: c.expected for c, _ in rows}


def test_lemma5_claim_catches_an_anchor_that_is_never_refreshed(monkeypatch):
    """The sampler keeps one anchor for the whole run (m = 1000 > the 3m steps simulated) while the closed form uses
    m: the z-tests move, and so does the engine, which reads the same sampler."""
    from verify.claims.chen import lemma5

    real = lemma5.vrsgld
    monkeypatch.setattr(lemma5, "vrsgld", lambda model, hh, n1, n2, m: real(model, hh, n1, n2, 1000))
    clear_caches()
    try:
        res = lemma5.anchor_gap(SMALL)
    finally:
        clear_caches()
    assert max(abs(c.z) for c in res.checks) > 10
    assert not next(e for e in res.exact if e.kind == "consistency").passed


def test_eq9_claim_catches_the_corrected_noise_scale(monkeypatch):
    """The simulated chain uses eq. (54)'s h/8 scale while the closed form is eq. (9)'s h/2: the z-test (and the
    engine, which reads the same integrator) moves."""
    from verify.claims.vollmer import eq9

    monkeypatch.setattr(PrintedEq9Langevin, "correction", 8)
    clear_caches()
    try:
        res = eq9.printed_first_order(SMALL)
    finally:
        clear_caches()
    assert abs(res.checks[0].z) > 10
    assert not next(e for e in res.exact if e.kind == "consistency").passed


def test_gamma_draws_catch_minibatches_drawn_with_replacement(monkeypatch):
    """chen.lemma2.gamma_nonnegative: its identities cannot fail, its simulator draws can."""
    monkeypatch.setattr(mb.Minibatch, "draw", lambda self, model, M, step, rng: sample_indices(
        rng, model.n_data, self.n, M, True))
    claim, res = _run("chen.lemma2.gamma_nonnegative")
    assert verdict(claim, res) == "fails"
    assert all(e.passed for e in res.exact) and res.checks[0].rejected


def test_theorem31_draws_catch_swapped_stratum_weights(monkeypatch):
    """fu_zhang.thm31.bound on the Gaussian model: the identity holds whatever the estimator does (it reads the
    exact noise covariance); the one-step draws of eq. (10) catch weights b_i/n_i for n_i/b_i."""
    monkeypatch.setattr(strat.Stratified, "weights",
                        lambda self: np.asarray(self.sizes, dtype=np.float64) / self.strata.sizes)
    claim, res = _run("fu_zhang.thm31.bound")
    assert verdict(claim, res) == "fails"
    assert res.checks[0].rejected


def test_remark8_one_sided_checks_catch_a_halved_step(monkeypatch):
    """vollmer.remark8.optimal_step: the chains run at half the step the theory assumes (the paper's eps read as the
    workbench's h), so the simulated MSE at r* exceeds the one at 2 r*."""
    from verify.claims.vollmer import sections56

    real = sections56.make_sampler
    monkeypatch.setattr(sections56, "make_sampler", lambda method, r, n, rep: real(method, r / 2, n, rep))
    claim, res = _run("vollmer.remark8.optimal_step")
    assert verdict(claim, res) == "fails"
    rejected = [c.label for c in res.checks if c.rejected]
    assert any("MSE2(r*) - MSE2(2 r*) < 0" in lab for lab in rejected)  # the ordering contradicted
