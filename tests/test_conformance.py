"""verify.conformance: the reference moment recursion (tests/_conformance_recursion.py) against the workbench's
theory, the harness's power, planted bugs in a user's numpy step, bad input, and one quick case per peer adapter
(skipped, with the reason, when the peer is not installed). The engine against the reference:
test_conformance_engine.py.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math

import numpy as np
import pytest
import sympy as sp
from _conformance_recursion import MomentChain

from simulate.models.gaussian import GaussianMeanModel
from simulate.samplers import sghmc, sgld, sgld_cv
from simulate.validation import ParameterError
from theory import exact_law
from theory.chains import linear_regression as linreg_chains
from theory.noise.minibatch import k_factor
from theory.toy.chain import ToyChain
from theory.toy.constants import toy_constants
from verify.conformance import (
    Case,
    Declared,
    NumpyStep,
    Problem,
    Schedule,
    linreg_problem,
    numpy_sgld,
    run_cases,
    toy_problem,
)
from verify.conformance._exact import _exact_moments
from verify.conformance.report import write

TOY, LR = toy_problem(), linreg_problem()
QUICK = Schedule(snapshots=(1, 3, 10), burn_in=150, window=400)


def _h(p, c):
    return c / p.model.grad_lipschitz


# ------------------------------------------------------------------------------------------ the exact engine
@pytest.mark.parametrize("replace", [False, True])
def test_recursion_matches_toy_chain(replace):
    dec = Declared("sgld", h=_h(TOY, 0.8), n=10, replace=replace)
    ks = np.array([0, 1, 2, 7, 40, 2000])
    mean, cov = MomentChain(dec, TOY).moments([0.3], ks)
    tc = ToyChain("sgld", toy_constants(TOY.y, 10, replace, TOY.sigma, TOY.sigma0), dec.h)
    np.testing.assert_allclose(mean[:, 0], tc.mean(ks, 0.3), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cov[:, 0, 0], tc.variance(ks, 0.0), rtol=1e-11, atol=1e-16)
    sm, sc = MomentChain(dec, TOY).stationary()
    assert sc[0, 0] == pytest.approx(tc.stationary_variance(), rel=1e-12)
    assert sm[0] == pytest.approx(tc.stationary_mean(), rel=1e-12)


@pytest.mark.parametrize("alg", ["sgld", "sgld_cv"])
@pytest.mark.parametrize("replace", [False, True])
def test_recursion_matches_baker_stationary_cov(alg, replace):
    th = tuple(LR.posterior_mean + 0.03) if alg == "sgld_cv" else None
    dec = Declared(alg, h=_h(LR, 0.8), n=10, replace=replace, theta_hat=th)
    law = exact_law(sgld(LR.model, dec.h, 10, replace) if alg == "sgld" else sgld_cv(LR.model, dec.h, 10, th, replace))
    mu, S = law.stationary_mean(), law.stationary_cov()
    sm, sc = MomentChain(dec, LR).stationary()
    np.testing.assert_allclose(sc, S, rtol=1e-11)
    np.testing.assert_allclose(sm, mu, rtol=1e-12)
    _, cov = MomentChain(dec, LR).moments(np.zeros(2), [4000])  # the finite-k recursion converges to it
    np.testing.assert_allclose(cov[0], S, rtol=1e-10)


def test_recursion_matches_sghmc_theory():
    dec = Declared("sghmc", h=_h(LR, 0.05), n=10, alpha=0.2)
    S = exact_law(sghmc(LR.model, dec.h, 0.2, n=10)).stationary_cov()
    np.testing.assert_allclose(MomentChain(dec, LR).stationary()[1], S, rtol=1e-11)
    # momentum redrawn every L steps: Baker et al.'s toy law (flat prior: sigma0 huge)
    flat = Problem("flat", TOY.Z, TOY.y, 1.0, 1e7)
    P = flat.precision[0, 0]
    dec = Declared("sghmc", h=0.05 / P, n=10, alpha=0.2, inner_steps=7, momentum_refresh=True)
    location = GaussianMeanModel(TOY.y[:, None], Sigma=np.eye(1), sigma0=None)
    V = exact_law(sghmc(location, dec.h, 0.2, n=10, resample_every=7)).stationary_cov(phase=0)
    assert MomentChain(dec, flat).stationary()[1][0, 0] == pytest.approx(V[0, 0], rel=1e-10)


def test_svrg_with_anchor_every_step_is_exact_gradient_langevin():
    dec = Declared("svrg_ld", h=_h(LR, 0.8), n=10, update_rate=1)
    np.testing.assert_allclose(MomentChain(dec, LR).stationary()[1],
                               linreg_chains.ula_stationary_cov(LR.precision, dec.h),
                               rtol=1e-11)


def test_explicit_euler_sghmc_closed_form():
    """1-D stationary variance of explicit-Euler SGHMC (new, quoted in the conformance table), against the engine:
    Var theta = (2 alpha + h s2)(2 - alpha + h P) / (P (alpha - h P)(4 - 2 alpha + h P))."""
    P, a, h, s2 = sp.symbols("P alpha h s2", positive=True)
    tt, tv, vv = sp.symbols("tt tv vv")
    F = sp.Matrix([[1, 1], [-h * P, 1 - a]])
    S = sp.Matrix([[tt, tv], [tv, vv]])
    E = F * S * F.T + sp.Matrix([[0, 0], [0, h * h * s2 + 2 * a * h]]) - S
    var = sp.solve([E[0, 0], E[0, 1], E[1, 1]], [tt, tv, vv], dict=True)[0][tt]
    printed = (2 * a + h * s2) * (2 - a + h * P) / (P * (a - h * P) * (4 - 2 * a + h * P))
    assert sp.simplify(var - printed) == 0
    Pn = TOY.precision[0, 0]
    dec = Declared("sghmc", h=0.05 / Pn, n=10, alpha=0.2, order="explicit_euler")
    s2n = k_factor(TOY.n_data, 10, False) * np.sum((TOY.y - TOY.y.mean()) ** 2) / TOY.sigma**4
    value = float(printed.subs({P: Pn, a: 0.2, h: dec.h, s2: s2n}))
    assert MomentChain(dec, TOY).stationary()[1][0, 0] == pytest.approx(value, rel=1e-11)


def test_exact_gradient_baoab_has_the_exact_configurational_variance():
    """Leimkuhler & Matthews (2013): BAOAB samples theta exactly from a Gaussian target at any stable step."""
    for c in (0.3, 2.0):
        dec = Declared("baoab", h=_h(LR, c), n=LR.n_data, alpha=0.5)  # n = N without replacement: no gradient noise
        np.testing.assert_allclose(MomentChain(dec, LR).stationary()[1], LR.posterior_cov, rtol=1e-11)


def test_temperature_scales_the_stationary_law_of_exact_gradient_langevin():
    dec = Declared("svrg_ld", h=_h(LR, 0.8), n=10, update_rate=1, temperature=3.0)  # exact gradient, as above
    np.testing.assert_allclose(MomentChain(dec, LR).stationary()[1],
                               3.0 * linreg_chains.ula_stationary_cov(LR.precision, dec.h),
                               rtol=1e-11)


def test_noise_scale_enters_as_s_squared():
    dec = Declared("sgld", h=_h(LR, 0.8), n=10)
    v = [_exact_moments(dec, LR, np.zeros(2), [5], noise_scale=s).cov[0] for s in (0.0, 1.0, math.sqrt(2.0))]
    rec1 = MomentChain(dec, LR).moments(np.zeros(2), [5])[1][0]
    np.testing.assert_allclose(v[1], rec1, rtol=1e-12)
    np.testing.assert_allclose(v[2] - v[1], v[1] - v[0], rtol=1e-10)


# ------------------------------------------------------------------------------------------ harness, planted bugs
def _numpy_case(name, make, problem=LR, expected="holds"):
    return Case("numpy", name, make, lambda: problem, QUICK, expected=expected, chains=2000)


def test_numpy_step_holds_and_planted_bugs_are_detected(tmp_path):
    h = _h(LR, 0.8)
    cases = [_numpy_case("SGLD", lambda p: numpy_sgld(p, h, 10)),
             _numpy_case("SGLD with replacement", lambda p: numpy_sgld(p, h, 10, replace=True)),
             _numpy_case("noise sqrt(2h)", lambda p: numpy_sgld(p, h, 10, noise=math.sqrt(2)), expected="fails"),
             _numpy_case("N/n dropped", lambda p: numpy_sgld(p, h, 10, scale_batch=False), expected="fails"),
             _numpy_case("with replacement, declared without",
                         lambda p: dataclasses.replace(numpy_sgld(p, _h(p, 0.8), 50, replace=True),
                                                       declared=Declared("sgld", h=_h(p, 0.8), n=50)),
                         TOY, "fails")]
    res = run_cases(cases, seed=3)
    assert [r.verdict for r in res] == ["holds", "holds", "fails", "fails", "fails"], [r.sentence() for r in res]
    ok = res[0]
    assert "holds: would have detected a noise-scale error of" in ok.sentence()
    assert 0 < ok.noise_error < 0.2  # 2000 chains: a few percent
    for c in ok.checks:  # power figures from the s.e. at the strictest Holm threshold
        assert c.params["mde"] > 4.5 * c.se
        if c.params["kind"] == "mean":
            assert c.params["noise_error"] == math.inf
    path = write(res, {"seed": 3, "alpha": 0.01}, tmp_path)  # the report and its JSON record, with the environment
    rec = json.loads((tmp_path / "results.json").read_text())
    assert path.exists() and [c["verdict"] for c in rec["cases"]] == [r.verdict for r in res]
    assert rec["versions"]["numpy"] and "blackjax" in rec["versions"]


def _numpy_epoch_sgld(problem, h, n):
    """SGLD on the toy with DataLoader(shuffle=True)-style batches: a permutation per chain every N/n steps."""
    x, N, s02, s2 = problem.y, problem.n_data, problem.sigma0**2, problem.sigma**2

    def step(state, rng):
        theta, perm, k = state
        j = k % (N // n)
        if j == 0:
            perm = rng.random((theta.shape[0], N)).argsort(axis=1)
        xb = x[perm[:, j * n:(j + 1) * n]]
        g = -theta / s02 + (N / n) * (xb.sum(axis=1, keepdims=True) - n * theta) / s2
        return theta + 0.5 * h * g + np.sqrt(h) * rng.standard_normal(theta.shape), perm, k + 1

    return NumpyStep("numpy epoch SGLD", Declared("sgld", h=h, n=n, epochs=True), step,
                     init_fn=lambda th, rng: (th, None, 0), position_fn=lambda st: st[0])


def test_epoch_batches_exact_law_and_its_difference_from_independent_batches():
    h = _h(TOY, 0.8)
    make = lambda p: _numpy_epoch_sgld(p, h, 10)  # noqa: E731
    cases = [Case("numpy", "epochs", make, lambda: TOY, QUICK, chains=4000, sim_key="ep"),
             Case("numpy", "epochs as independent", make, lambda: TOY, QUICK, chains=4000, sim_key="ep",
                  declared=lambda d: dataclasses.replace(d, epochs=False), expected="fails")]
    res = run_cases(cases, seed=11)
    assert [r.verdict for r in res] == ["holds", "fails"], [r.sentence() for r in res]
    from verify.conformance._epochs import EpochToyChain

    ep = EpochToyChain(Declared("sgld", h=h, n=10, epochs=True), TOY)
    one_batch = MomentChain(Declared("sgld", h=h, n=10), TOY).moments([0.0], [1])[1][0, 0, 0]
    assert ep.variance(1) == pytest.approx(one_batch, rel=1e-12)  # one batch is a uniform n-subset
    with pytest.raises(ParameterError, match="epochs have an exact law for SGLD on the 1-D toy only"):
        EpochToyChain(Declared("sgld", h=h, n=10, epochs=True), LR)
    with pytest.raises(ParameterError, match="epochs need n to divide N"):
        EpochToyChain(Declared("sgld", h=h, n=7, epochs=True), TOY)
    with pytest.raises(ParameterError, match="epochs .* 'sgld' without replacement only"):
        Declared("sgld", h=h, n=10, epochs=True, replace=True)


def test_power_figure_matches_a_direct_computation():
    from scipy import stats

    from verify.conformance.suite import power_figures
    from verify.registry import Check

    c = Check("x", 2.0, 2.0, 0.01, {"kind": "var", "noise_b": 1.0})
    power_figures(c, 0.01 / 100)
    mde = (stats.norm.isf(0.01 / 200) + stats.norm.ppf(0.9)) * 0.01
    assert c.params["mde"] == pytest.approx(mde)
    assert c.params["mde_rel"] == pytest.approx(mde / 2)
    assert c.params["noise_error"] == pytest.approx(1 - math.sqrt(1 - mde))  # lowering the noise: the harder side


# ------------------------------------------------------------------------------------------ bad input
def _bad_step(fn):
    return NumpyStep("broken step", Declared("sgld", h=_h(TOY, 0.8), n=10), fn)


@pytest.mark.parametrize(("fn", "match"), [
    (lambda th, rng: th[:, 0], r"'broken step' returned shape \(\d+,\) at call 1; expected \(\d+, 2\)"),
    (lambda th, rng: th * np.nan, r"'broken step' returned NaN or inf at call 1"),
    (lambda th, rng: "x", r"'broken step' returned a position that is not a float array"),
])
def test_bad_step_raises_naming_the_step(fn, match):
    from verify.conformance.harness import simulate_case

    with pytest.raises(ParameterError, match=match):
        simulate_case(_bad_step(fn), LR, 100, QUICK, seed=1)


def test_bad_step_in_a_run_is_reported_and_the_others_still_run():
    res = run_cases([_numpy_case("broken", lambda p: _bad_step(lambda th, rng: th[:, :1])),
                     _numpy_case("SGLD", lambda p: numpy_sgld(p, _h(p, 0.8), 10))], seed=1)
    assert res[0].verdict == "error" and "broken step" in res[0].error
    assert res[1].verdict == "holds"


@pytest.mark.parametrize(("kw", "match"), [
    (dict(algorithm="sgnht", h=0.1, n=10), r"algorithm must be one of .*got 'sgnht'"),
    (dict(algorithm="sghmc", h=0.1, n=10), r"alpha \(the friction per step\) must be given"),
    (dict(algorithm="sghmc", h=0.1, n=10, alpha=0.1, order="leapfrog"), r"order must be one of"),
    (dict(algorithm="sgld_cv", h=0.1, n=10), r"theta_hat .* must be given"),
    (dict(algorithm="svrg_ld", h=0.1, n=10), r"update_rate must be an integer"),
    (dict(algorithm="sgld", h=-1.0, n=10), r"h must satisfy 0 < h"),
    (dict(algorithm="sgld", h=0.1, n=10, alpha=0.1), r"alpha is an SGHMC/BAOAB parameter"),
    (dict(algorithm="baoab", h=0.1, n=10), r"alpha \(the friction per step\) must be given for algorithm 'baoab'"),
    (dict(algorithm="baoab", h=0.1, n=10, alpha=0.5, inner_steps=3), r"algorithm 'baoab' takes one step per call"),
    (dict(algorithm="sgld", h=0.1, n=10, temperature=0.0), r"temperature must satisfy 0 < temperature"),
])
def test_bad_declaration(kw, match):
    with pytest.raises(ParameterError, match=match):
        Declared(**kw)


def test_engine_refuses_what_it_cannot_do_exactly():
    dec = Declared("sghmc", h=1e-4, n=10, alpha=0.2, inner_steps=5, momentum_refresh=True, minibatch_per_call=True)
    with pytest.raises(ParameterError, match="minibatch_per_call .* only for additive gradient noise"):
        MomentChain(dec, LR)
    with pytest.raises(ParameterError, match="no stationary second moment"):
        MomentChain(Declared("sgld", h=_h(LR, 4.5), n=10), LR).stationary()
    (res,) = run_cases([Case("numpy", "SGLD", lambda p: numpy_sgld(p, _h(p, 0.1), 10), lambda: LR,
                             Schedule(snapshots=(1,), burn_in=2, window=50), chains=200)])
    assert res.verdict == "error" and "burn_in = 2 is too short" in res.error


# ------------------------------------------------------------------------------------------ one quick case per peer
def _skip_unless(*mods):
    for m in mods:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"{m} is not installed (pip install -e '.[bench,conformance-torch]'); adapter not tested")


def test_sgmcmcjax_released_baoab_bug_is_detected():
    """SGMCMCJax #69 (BAOAB returns constant samples), still in the 0.2.13 release: every check is rejected."""
    _skip_unless("jax", "sgmcmcjax")
    from importlib.metadata import version

    if version("sgmcmcjax") != "0.2.13":
        pytest.skip(f"the case pins SGMCMCJax 0.2.13 (installed: {version('sgmcmcjax')})")
    from verify.conformance.cases import sgmcmcjax_cases

    case = next(c for c in sgmcmcjax_cases() if c.algorithm == "BAOAB (release 0.2.13)")
    (res,) = run_cases([dataclasses.replace(case, schedule=QUICK, chains=200)], seed=7)
    assert res.verdict == "fails" and all(c.rejected for c in res.checks)
    assert res.worst.params["degenerate"] == "no spread across chains (s.e. 0)"


@pytest.mark.parametrize("peer", ["blackjax", "sgmcmcjax", "posteriors"])
def test_one_quick_case_per_peer_adapter(peer):
    _skip_unless(*{"blackjax": ["jax", "blackjax"], "sgmcmcjax": ["jax", "sgmcmcjax"],
                   "posteriors": ["torch", "posteriors"]}[peer])
    from verify.conformance.cases import LIBRARIES

    case = dataclasses.replace(LIBRARIES[peer]()[0], schedule=QUICK, chains=2000)
    (res,) = run_cases([case], seed=7)
    assert res.verdict == "holds", res.sentence()
    assert res.problem == "toy" and len(res.checks) == 8


def test_the_docs_example_of_a_users_numpy_step_holds(capsys):
    """docs/conformance.md's first Python block (a user's own vectorised SGLD) runs and holds."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "conformance.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/conformance.md", "exec"), {})
    assert capsys.readouterr().out.startswith("holds: would have detected a noise-scale error of")
