"""Sections 5-6 on the toy: Theorem 5.2 constants, optimal step, minimal cost, scalings."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from simulate import ParameterError
from theory.bounds import vollmer as va
from theory.symbols import A, h
from theory.toy import moments as tm
from theory.toy.finite_time import toy_finite_time
from verify.claims.vollmer.toy import default_model
from verify.harness import run_claims
from verify.registry import Settings, select
from verify.report import verdict

X = default_model().data[:, 0]


@pytest.mark.parametrize("method,n", [("euler", None), ("sgld", 10), ("msgld", 100)])
def test_cv_is_the_limit_of_h_times_asymptotic_variance(method, n):
    """C_v (symbolic) equals lim h sigma_as^2 of the exact closed form, evaluated at decreasing r."""
    _, cv = va.theorem52_constants(method)
    gaps = []
    for r in (1e-2, 1e-3, 1e-4):
        ch = toy_finite_time(method, X, n, r=r, dps=40)
        hh = r / float(ch.A)
        gaps.append(abs(hh * float(ch.asymptotic_variance()) / float(cv.subs(va._toy_subs(ch))) - 1))
    assert gaps[2] < gaps[1] < gaps[0] and gaps[2] < 1e-2


def test_cv_matches_the_ou_integrated_autocovariance():
    """Continuous-time check: for the OU limit, Var of the time average of theta^2 over T is
    (16 mu^2 s^4 + 4 s^6)/T with s^2 = 1/(2A); with T = M h this is C_v/(M h)."""
    mu = va._mu
    s2 = 1 / (2 * A)
    _, cv = va.theorem52_constants("euler")
    assert sp.simplify(cv - (16 * mu**2 * s2**2 + 4 * s2**3)) == 0


def test_optimal_step_is_a_stationary_point():
    c1, cv = va.theorem52_constants("sgld")
    hstar, msestar = va.optimal_step_expr("sgld")
    f = c1**2 * h**2 + cv / (va._M * h)
    assert sp.simplify(sp.diff(f, h).subs(h, hstar)) == 0
    assert sp.simplify(msestar - 3 * c1**2 * hstar**2) == 0


def test_minimal_steps_is_the_first_crossing():
    ch = toy_finite_time("euler", X, None, r=0.5, dps=40)
    eps2 = 1e-6
    m = int(va.minimal_steps(ch, eps2))
    assert float(ch.mse2(m)) <= eps2 < float(ch.mse2(m - 1))
    assert va.minimal_steps(ch, float(ch.bias_theta2()) ** 2 * 0.5) == math.inf


def test_scaling_exponents_and_threshold():
    p = sp.Symbol("p", positive=True)
    assert sp.simplify(va.excess_scaling_exponent("sgld", p) + p) == 0
    assert sp.simplify(va.excess_scaling_exponent("msgld", p) - 1 + 2 * p) == 0
    assert sp.simplify(va.msgld_beats_sgld_threshold() - h * tm.VB / 4) == 0


def test_bad_input():
    with pytest.raises(ParameterError, match="r_bounds"):
        va.optimal_step("euler", X, None, 1000, r_bounds=(0.5, 0.1))
    with pytest.raises(ParameterError, match="eps2"):
        va.minimal_steps(toy_finite_time("euler", X, None, r=0.5), -1.0)


def test_thm52_claim_fails_on_the_example1_typo(monkeypatch):
    """The printed Example 1 has sigma_p Var(B) for sigma_p^2 Var(B): planting it in c1 must fail the claim."""
    real = va.theorem52_constants.__wrapped__

    def typo(method):
        c1, cv = real(method)
        if method == "sgld":
            c1 = sp.Rational(1, 4) + tm.VB * sp.sqrt(1 / (2 * A))
        return c1, cv

    monkeypatch.setattr(va, "theorem52_constants", typo)
    rows = run_claims(select(ids=["vollmer.thm52.toy_constants"]), Settings(chains=100))
    assert verdict(*rows[0]) == "fails"
