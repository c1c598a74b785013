"""verify.conformance asks the exact engine: its answers equal the independent reference recursion
(tests/_conformance_recursion.py) for every declared case of ``verify.conformance.cases``, and the integrators added
for the peers (explicit-Euler SGHMC, BAOAB, a temperature, momentum variances, SVRG with replacement) simulate their
engine laws (with a planted bug that the same check catches)."""

from __future__ import annotations

import dataclasses
import importlib.util
import math

import numpy as np
import pytest
from _conformance_recursion import MomentChain

from simulate.estimators.minibatch import FullGradient, Minibatch
from simulate.estimators.vr import SVRG
from simulate.integrators import BAOAB, SGHMC, ExplicitEulerSGHMC, Langevin
from simulate.sampler import Sampler
from simulate.validation import ParameterError
from theory.linear_gaussian import exact_law
from verify.conformance import Declared, linreg_problem, toy_problem
from verify.conformance import cases as C
from verify.conformance._exact import _exact_moments

TOY, LR = toy_problem(), linreg_problem()
STEPS = np.array([0, 1, 3, 10, 30])  # the snapshots of cases.py's schedules, and call 0


def _h(p, c):
    return c / p.model.grad_lipschitz


def _declared_cases() -> list[tuple[str, object, Declared]]:
    """The declarations of verify.conformance.cases, as its adapters write them (blackjax.py, sgmcmcjax.py,
    posteriors.py) with cases.py's constants, each after the case's ``declared`` transform."""
    n, L, T, a = C.N_BATCH, C.SGHMC_L, C.TEMPERATURE, C.SGHMC_ALPHA
    out = []
    for p in (TOY, LR):  # blackjax SGLD: replace=True; SGMCMCJax SGLD: replace=True; posteriors SGLD: without
        for rep in (True, False):
            out.append((f"SGLD {p.name} replace={rep}", p, Declared("sgld", h=_h(p, C.SGLD_H), n=n, replace=rep)))
    cv = tuple(C._cv_centre(LR))
    out.append(("SGLD-CV", LR, Declared("sgld_cv", h=_h(LR, C.SGLD_H), n=n, replace=True, theta_hat=cv)))
    out.append((f"blackjax SGLD T={T:g}", TOY, Declared("sgld", h=_h(TOY, C.SGLD_H), n=n, replace=True,
                                                        temperature=T)))
    bj = Declared("sghmc", h=_h(TOY, C.SGHMC_H), n=n, replace=True, alpha=a, order="explicit_euler", inner_steps=L,
                  momentum_refresh=True, minibatch_per_call=True)
    out += [("blackjax SGHMC", TOY, bj), ("blackjax SGHMC as Chen", TOY, C._chen_order(bj))]
    bjT = dataclasses.replace(bj, temperature=T)
    out += [("blackjax SGHMC T", TOY, bjT),
            ("blackjax SGHMC T, N(0, I)", TOY, dataclasses.replace(bjT, refresh_var=bjT.h))]
    out.append(("SGMCMCJax SVRG-LD", LR, Declared("svrg_ld", h=_h(LR, C.SGLD_H), n=n, replace=True, update_rate=10,
                                                  anchor_offset=1)))
    sj = Declared("sghmc", h=_h(LR, C.SGHMC_H), n=n, replace=True, alpha=a, order="explicit_euler", inner_steps=L,
                  momentum_refresh=True)
    out += [("SGMCMCJax SGHMC", LR, sj), ("SGMCMCJax SGHMC as Chen", LR, C._chen_order(sj))]
    ba = Declared("baoab", h=_h(LR, C.SGHMC_H), n=n, replace=True, alpha=C.BAOAB_ALPHA, v0_var=0.0)
    baT = dataclasses.replace(ba, temperature=T)
    out += [("SGMCMCJax BAOAB", LR, ba), ("SGMCMCJax BAOAB tau", LR, baT),
            ("SGMCMCJax BAOAB tau as T^2", LR, dataclasses.replace(baT, temperature=T**2))]
    h = _h(LR, C.SGHMC_H)
    pt = Declared("sghmc", h=h, n=n, replace=False, alpha=a, order="explicit_euler", v0_var=h * LR.n_data)
    out += [("posteriors SGHMC", LR, pt), ("posteriors SGHMC as Chen", LR, C._chen_order(pt))]
    return out


CASES = _declared_cases()


def _difference(dec, problem, s: float) -> float:
    """Largest difference engine - reference over mean(k), cov(k) at STEPS and the stationary law, relative to the
    reference's size (for covariances at least the posterior's)."""
    ex = _exact_moments(dec, problem, np.zeros(problem.dim), STEPS, noise_scale=s)
    ref = MomentChain(dec, problem, s)
    m, c = ref.moments(np.zeros(problem.dim), STEPS)
    sm, sc = ref.stationary()
    mscale = max(np.abs(m).max(), np.abs(problem.posterior_mean).max())
    cscale = max(np.abs(c).max(), np.abs(sc).max(), np.abs(problem.posterior_cov).max())
    return max(np.abs(ex.mean - m).max() / mscale, np.abs(ex.stationary_mean - sm).max() / mscale,
               np.abs(ex.cov - c).max() / cscale, np.abs(ex.stationary_cov - sc).max() / cscale)


@pytest.mark.parametrize("s", [1.0, 0.0, math.sqrt(2.0)])
@pytest.mark.parametrize(("label", "problem", "dec"), CASES, ids=[c[0] for c in CASES])
def test_engine_equals_the_reference_recursion(label, problem, dec, s):
    assert _difference(dec, problem, s) < 1e-12
    assert _exact_moments(dec, problem, np.zeros(problem.dim), [1]).source.startswith("theory.exact_law(")


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("blackjax", "sgmcmcjax", "posteriors")),
                    reason="the peer libraries are not installed: their adapters cannot build the declarations")
def test_the_list_covers_every_case_of_cases_py():
    def key(p, d):  # variances to 12 digits: the adapters compute h N in another order than this list
        def r(x):
            return None if x is None else float(f"{x:.12g}")
        return p.name, d.describe(), r(d.v0_var), r(d.refresh_var), d.theta_hat

    ours = {key(p, d) for _, p, d in CASES}
    for case in C.library_cases():
        p = case.problem()
        dec = case.make(p).declared
        dec = dec if case.declared is None else case.declared(dec)
        if not dec.epochs:
            assert key(p, dec) in ours, (case.library, case.algorithm)


def test_engine_refusals_name_the_reason():
    dec = Declared("sghmc", h=1e-4, n=10, alpha=0.2, inner_steps=5, momentum_refresh=True, minibatch_per_call=True)
    with pytest.raises(ParameterError, match="Reused.* multiplicative noise"):
        _exact_moments(dec, LR, np.zeros(2), [1])
    with pytest.raises(ParameterError, match="h must satisfy"):
        _exact_moments(Declared("sgld", h=_h(LR, 4.5), n=10), LR, np.zeros(2), [1])
    with pytest.raises(ParameterError, match="noise_scale must satisfy"):
        _exact_moments(Declared("sgld", h=_h(LR, 0.8), n=10), LR, np.zeros(2), [1], noise_scale=-1.0)
    with pytest.raises(ParameterError, match="theta0 must have 2 entries"):
        _exact_moments(Declared("sgld", h=_h(LR, 0.8), n=10), LR, np.zeros(3), [1])


# ------------------------------------------------------------------------------------------ simulation vs engine
def _simulated_z(sampler, k: int, chains: int, seed: int) -> float:
    """Largest |z| of the simulated mean and covariance entries of theta_k (chains from theta_0 = 1) against
    ``exact_law(sampler)``, each z over the standard error across chains."""
    d = sampler.model.dim
    theta0 = np.ones(d)
    rng = np.random.default_rng(seed)
    state = sampler.init(np.tile(theta0, (chains, 1)), rng)
    for _ in range(k):
        state = sampler.step(state, rng)
    x = state.theta
    mean, cov = exact_law(sampler, theta0).moments(k)
    z = [(x.mean(axis=0) - mean) / (x.std(axis=0, ddof=1) / math.sqrt(chains))]
    dev = x - mean
    for i in range(d):
        for j in range(i, d):
            q = dev[:, i] * dev[:, j]
            z.append([(q.mean() - cov[i, j]) / (q.std(ddof=1) / math.sqrt(chains))])
    return float(np.max(np.abs(np.concatenate(z))))


H = _h(LR, 0.05)
K_SIM = 60  # steps simulated: long enough that the injected noise dominates theta_k's spread
NEW = {
    "explicit-Euler SGHMC": lambda: Sampler(LR.model, Minibatch(10), ExplicitEulerSGHMC(0.2), H),
    "explicit-Euler SGHMC, refresh, T, v0": lambda: Sampler(
        LR.model, Minibatch(10, True), ExplicitEulerSGHMC(0.2, 4, temperature=2.0, v0_var=3 * H, refresh_var=0.5 * H),
        H),
    "SGHMC, T and momentum variances": lambda: Sampler(
        LR.model, Minibatch(10), SGHMC(0.2, 3, temperature=0.5, v0_var=0.0, refresh_var=2 * H), H),
    "BAOAB": lambda: Sampler(LR.model, Minibatch(10, True), BAOAB(0.5, temperature=2.0, v0_var=0.0), _h(LR, 1.0)),
    "BAOAB, exact gradient": lambda: Sampler(LR.model, FullGradient(), BAOAB(1.5, v0_var=4 * H), _h(LR, 2.0)),
    "Langevin, T": lambda: Sampler(LR.model, Minibatch(10), Langevin(temperature=3.0), _h(LR, 0.8)),
    "SVRG with replacement": lambda: Sampler(LR.model, SVRG(10, 4, replace=True), Langevin(), _h(LR, 0.8)),
}


@pytest.mark.parametrize("name", list(NEW))
def test_new_integrators_simulate_their_exact_law(name):
    assert _simulated_z(NEW[name](), K_SIM, 20000, seed=7) < 4.5


@pytest.mark.parametrize(("cls", "attr", "wrong"), [
    # the O-step's variance with 1 - c for 1 - c^2; the friction noise 2.4 alpha h for 2 alpha h; 1.2 h T for h T
    (BAOAB, "noise_scale", lambda self, h: math.sqrt(h * self.temperature * (1.0 - self.damping))),
    (ExplicitEulerSGHMC, "noise_scale", lambda self, h: math.sqrt(2.4 * self.alpha * h * self.temperature)),
    (Langevin, "noise_scale", lambda self, h: math.sqrt(1.2 * h * self.temperature)),
])
def test_planted_wrong_coefficient_fails_the_simulation_check(cls, attr, wrong, monkeypatch):
    make = {BAOAB: NEW["BAOAB, exact gradient"], ExplicitEulerSGHMC: NEW["explicit-Euler SGHMC"],
            Langevin: NEW["Langevin, T"]}[cls]
    monkeypatch.setattr(cls, attr, wrong)  # the simulator's coefficient; the engine reads the integrator's fields
    assert _simulated_z(make(), K_SIM, 20000, seed=7) > 4.5


@pytest.mark.parametrize(("make", "match"), [
    (lambda: Langevin(temperature=-1.0), "temperature must satisfy 0 <= temperature < inf"),
    (lambda: SGHMC(0.2, temperature=float("inf")), "temperature must satisfy"),
    (lambda: SGHMC(0.2, v0_var=-1.0), "v0_var must satisfy 0 <= v0_var < inf"),
    (lambda: ExplicitEulerSGHMC(0.2, refresh_var="a"), "refresh_var must be a real number"),
    (lambda: BAOAB(0.0), "alpha must satisfy 0 < alpha"),
    (lambda: BAOAB(0.5, v0_var=float("nan")), "v0_var must satisfy"),
    (lambda: Sampler(LR.model, Minibatch(10), ExplicitEulerSGHMC(0.2), _h(LR, 0.3)), "h must satisfy .*alpha/L"),
])
def test_new_integrator_parameters_are_checked(make, match):
    with pytest.raises(ParameterError, match=match):
        make()


def test_baoab_time_averages_refuse_the_distinct_first_step():
    law = exact_law(NEW["BAOAB"]())
    with pytest.raises(ParameterError, match="step 0 differs"):
        law.time_average_mse(np.ones(2), n_steps=10)


def test_baoab_first_step_in_every_route_of_the_finite_k_law():
    """moments(k) (single steps, then powers of the period past POWER_FROM) equals the step-by-step trajectory."""
    law = exact_law(NEW["BAOAB"](), np.ones(2))
    traj = {k: (m, c) for k, m, c in law.trajectory(300)}
    for k in (0, 1, 2, 65, 300):
        m, c = law.moments(k)
        np.testing.assert_allclose(m, traj[k][0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(c, traj[k][1], rtol=1e-10, atol=1e-15)
