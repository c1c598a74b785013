"""The engine's claims (verify/claims/engine/laws.py) can fail: a wrong engine input, an engine bug and mutated
samplers are each reported, at the fast test settings; the correct code holds."""

from __future__ import annotations

from unittest import mock

import pytest

import theory.linear_gaussian.integrator_laws as il
import theory.linear_gaussian.noise as nz
from simulate.integrators.sghmc import SGHMC
from theory.laws import law_replaced
from verify.harness import run_claims
from verify.mutants import load_mutants
from verify.registry import Settings, select
from verify.report import verdict

FAST = Settings(chains=2000, seed=7, alpha=0.01)


def _verdicts(ids):
    rows = run_claims(select(ids=ids), FAST)
    return {c.id: verdict(c, r) for c, r in rows}


def test_engine_claims_hold_on_correct_code():
    v = _verdicts(["engine.toy.langevin", "engine.linreg.langevin", "engine.linreg.sghmc_refresh"])
    assert set(v.values()) == {"holds"}, v


_orig_minibatch = nz.Scheme.minibatch.__func__


def _without_read_as_with(cls, N, n, replace):
    return _orig_minibatch(cls, N, n, replace or n < N)


def _refresh_one_step_late(integ, ctx):
    from dataclasses import replace

    law = il.sghmc_law(integ, ctx)
    return replace(law, post=lambda p, lay: law.post((p - 1) % law.period, lay))


PLANTED = {
    "engine input: minibatches without replacement read as with": (
        lambda: mock.patch.object(nz.Scheme, "minibatch", classmethod(_without_read_as_with)),
        ["engine.toy.langevin", "engine.linreg.langevin"]),
    "engine: SGHMC momentum refresh one step late": (
        lambda: law_replaced(SGHMC, _refresh_one_step_late),
        ["engine.toy.sghmc_refresh", "engine.linreg.sghmc_refresh"]),
    "sampler: reused minibatch drawn once": (lambda: load_mutants()["reuse.drawn_once"].patch(),
                                             ["engine.toy.langevin"]),
    "sampler: reused minibatch redrawn every step": (lambda: load_mutants()["reuse.K_ignored"].patch(),
                                                     ["engine.toy.langevin"]),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_reported(bug):
    patch, ids = PLANTED[bug]
    with patch():
        v = _verdicts(ids)
    assert all(x == "fails" for x in v.values()), (bug, v)
