"""The atlas (theory.atlas): the exact routes against each other and against the engine's moments, statuses and bad
input, and planted bugs that the bound claims' exact checks catch (a wrong constant in a bound, a wrong exact
distance)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from simulate.validation import ParameterError
from theory import exact_law
from theory.atlas import evaluate_bound, problem
from theory.atlas import exact as exact_mod
from theory.atlas.grid import problems_for
from theory.atlas.laws import K_GRID, _eigen_path, chain_laws, start_law
from theory.atlas.samplers import build_sampler
from theory.bounds.literature import DK_W2, Bound, Source
from theory.bounds.literature.dalalyan_karagulyan import dk_w2_bound as w2_bound
from verify.bound_checks import bound_claim_result

SMALL = ("gauss_p1", "regression_small")


def test_separable_route_equals_the_engine_on_the_whole_model():
    """gauss_p10_k10 through its coordinates' projected laws against the engine on the 10-dimensional model."""
    for sampler, n in (("ula", None), ("sgld", 10)):
        sep = chain_laws("gauss_p10_k10", sampler, 0.05, n, "offset")
        assert sep.route == "separable"
        prob = problem("gauss_p10_k10")
        law = exact_law(build_sampler(prob, sampler, 0.05, n), *start_law(prob, "offset"))
        for k in (1, 30, 3000):
            m, C = law.moments(k)
            assert np.allclose(sep.at[k][0], m, rtol=1e-10, atol=1e-12)
            assert np.allclose(sep.at[k][1], C, rtol=1e-9, atol=1e-14)


def test_eigen_path_equals_the_engine_moments():
    prob = problem("regression_small")
    for sampler, n in (("ula", None), ("sgld", 2)):
        law = exact_law(build_sampler(prob, sampler, 0.01, n), *start_law(prob, "offset"))
        path = _eigen_path(law, K_GRID, False)
        for k in (1, 300, 3000):
            m, C = law.moments(k, whole_state=True)
            assert np.allclose(path[k][0], m, rtol=1e-9, atol=1e-12)
            assert np.allclose(path[k][1], C, rtol=1e-8, atol=1e-13)


def _restricted(b: Bound, problems=SMALL, **kw) -> Bound:
    return dataclasses.replace(b, problems=problems, **kw)


def test_published_bound_holds_on_small_problems_and_orders_are_fitted():
    res = evaluate_bound(_restricted(DK_W2))
    assert res.points and not res.by_status("violated") and not res.by_status("error")
    assert {o.problem for o in res.orders} == set(SMALL)
    for o in res.orders:  # exact ULA bias O(h) in W2, the bound O(h^1/2)
        assert abs(o.q_exact - 1.0) < 0.05 and abs(o.q_bound - 0.5) < 0.05
    claim = bound_claim_result(res)
    assert all(c.passed for c in claim.exact if c.part == "bound")


def test_planted_wrong_constant_is_a_counter_example():
    """Dalalyan & Karagulyan's 1.65 replaced by 0.001: the exact check of every problem fails, naming the point."""
    wrong = _restricted(DK_W2, value=lambda c: w2_bound(c) * 0 + 0.001 * c.kappa * math.sqrt(c.step * c.p))
    claim = bound_claim_result(evaluate_bound(wrong))
    failed = [c for c in claim.exact if not c.passed and c.part == "bound"]  # the order checks (part "behaviour")
    assert failed and all("violations; worst: bound" in c.detail for c in failed)  # fail for the published one too


def test_planted_bug_in_the_exact_distance_is_caught(monkeypatch):
    """An exact W2 three times too large (a bug in the exact route) turns holding points into violations."""
    real = exact_mod.w2_gaussian
    monkeypatch.setattr(exact_mod, "w2_gaussian", lambda *a: 3.0 * real(*a) + 1.0)
    chain_laws.cache_clear()
    claim = bound_claim_result(evaluate_bound(_restricted(DK_W2, problems=("gauss_p1",))))
    assert any(not c.passed for c in claim.exact)


def test_bad_bounds_get_error_points_and_the_rest_still_reports():
    def value(c):
        if c.K == 1:
            raise RuntimeError("boom")
        return float("nan") if c.K == 3 else (-1.0 if c.K == 10 else 1e6)

    b = Bound(key="test.bad", title="bad", reference="r", metric="w2", sampler="ula", law="last iterate",
              start="offset", formula="f", assumptions="a", value=value, outside=lambda c: None,
              sources=(Source("x", "y", "own"),), problems=("gauss_p1",))
    res = evaluate_bound(b)
    errors = res.by_status("error")
    assert {p.K for p in errors} == {1, 3, 10}
    assert any("raised RuntimeError: boom" in p.message and "K = 1" in p.message for p in errors)
    assert any("value returned nan" in p.message for p in errors)
    assert any("value returned -1.0" in p.message for p in errors)
    assert res.by_status("holds")  # every other K still reports
    with pytest.raises(ParameterError, match="test.bad"):
        bound_claim_result(res)


def test_points_outside_the_assumptions_are_shown_and_not_counted():
    b = _restricted(DK_W2, problems=("gauss_p1",), outside=lambda c: "too large" if c.step > 0.01 else None,
                    value=lambda c: 0.0)  # violated wherever it is counted
    res = evaluate_bound(b)
    outside = res.by_status("outside")
    assert outside and all(p.h / 2 > 0.01 for p in outside)
    assert all(p.h / 2 <= 0.01 for p in res.by_status("violated"))


@pytest.mark.parametrize("bad,match", [(dict(problems=("nope",)), "unknown atlas problem 'nope'"),
                                       (dict(problems=("gauss_p1",), sampler="saga_ld"), "does not run on problem"),
                                       (dict(problems=("gauss_p100_k10",), law="average of iterates 1..K",
                                             metric="kl"), "p <= 11")])
def test_unknown_problem_or_a_dimension_the_exact_route_cannot_take(bad, match):
    with pytest.raises(ParameterError, match=match):
        problems_for(dataclasses.replace(DK_W2, **bad))


def test_bound_definition_is_validated():
    with pytest.raises(ParameterError, match="metric"):
        dataclasses.replace(DK_W2, metric="hellinger")
    with pytest.raises(ParameterError, match="status"):
        Source("x", "y", "folklore")
