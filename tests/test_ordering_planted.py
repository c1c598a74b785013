"""Planted bugs for the orderings and the expected outcomes of issue 28: a tie must not hold, a reversed ordering must
fail, and a slip inside a registered erratum's consistency check must fail the run (it passed silently before, as the
erratum masked it)."""

from __future__ import annotations

import pytest

import simulate.integrators as integ
import theory.linear_gaussian.quadratic as quadratic
from theory.noise.subset_moments import falling
from verify.__main__ import main
from verify.claims.vollmer import _logistic_runs
from verify.harness import all_as_expected, run_claims
from verify.registry import Settings, clear_caches, select
from verify.verdicts import unexpected_checks, verdict

SMALL = Settings(chains=2000, seed=7, alpha=0.01)


def _rows(ids: list[str], settings: Settings = SMALL):
    clear_caches()
    try:
        return run_claims(select(ids=ids), settings)
    finally:
        clear_caches()


def test_a_tie_never_holds(monkeypatch):
    """vollmer.sec7.sgld_bias_vs_n with the minibatch gradient silently replaced by the full gradient: every n gives
    Euler's bias, so 'the bias grows as n shrinks' is a tie: not shown, the claim is inconclusive and the run fails
    (under the old one-sided form it held)."""
    real = _logistic_runs.make_sampler

    def full_gradient(method, n, h=_logistic_runs.H, model=None):
        return real("euler" if method == "sgld" else method, n, h, model)

    monkeypatch.setattr(_logistic_runs, "make_sampler", full_gradient)
    rows = _rows(["vollmer.sec7.sgld_bias_vs_n"])
    (claim, res), = rows
    assert verdict(claim, res) == "inconclusive" and not all_as_expected(rows)
    assert {c.outcome for c in res.checks} == {"inconclusive"}
    assert all(c.needed_factor > 1 for c in res.checks)


@pytest.mark.slow
def test_a_reversed_ordering_fails(monkeypatch):
    """vollmer.sec7.msgld_vs_sgld with mSGLD's correction of the wrong sign (noise inflated, not reduced): under
    reading B 'mSGLD better than SGLD at n = 150' is contradicted, and the readings split otherwise than
    registered."""
    monkeypatch.setattr(integ.ModifiedLangevin, "correction", -8)
    rows = _rows(["vollmer.sec7.msgld_vs_sgld"])
    (claim, res), = rows
    better = next(c for c in res.checks if c.part == "B" and c.label.startswith("n=150"))
    assert better.outcome == "fails" and better.rejected and not better.shown
    assert not all_as_expected(rows)
    assert better in unexpected_checks(claim, res)


def test_a_slip_in_the_fourth_moment_count_fails_the_run(monkeypatch, tmp_path, capsys):
    """The engine's count moments of sampling without replacement with N^r for the falling factorial (N)_r (the
    with-replacement denominator): the exact consistency check inside the erratum vollmer.fig3.subsampled_costs
    misses by 1.3e-4 against 1e-10. Before issue 28 the erratum's verdict 'fails' hid it and the run exited 0."""
    real = quadratic.count_moment

    def slipped(sizes, group):
        if group.replace:
            return real(sizes, group)
        return falling(group.draws, len(sizes)) / group.size ** len(sizes)

    monkeypatch.setattr(quadratic, "count_moment", slipped)
    rc = main(["--claim", "vollmer.fig3.subsampled_costs", "--chains", "400", "--out", str(tmp_path), "--no-figures",
               "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "UNEXPECTED CHECKS (1; each fails the run)" in out
    assert ('vollmer.fig3.subsampled_costs: check "the exact MSE2 at the four minimisers (theory.toy.finite_time) = '
            'the exact engine\'s time-average MSE" registered to hold, but fails') in out
    assert "a registered erratum, as expected" in out  # the claim's own verdict is unchanged: the check fails the run
    monkeypatch.setattr(quadratic, "count_moment", real)
    assert main(["--claim", "vollmer.fig3.subsampled_costs", "--chains", "400", "--out", str(tmp_path / "ok"),
                 "--no-figures", "--no-progress"]) == 0
