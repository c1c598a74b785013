"""theory.tradeoffs: the explorer's API (exact optima, surfaces, explanations, spot-checks, models, bad input)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulate import LogisticRegressionModel
from simulate.validation import ParameterError
from theory import exact_law
from theory import tradeoffs as tr


@pytest.fixture(scope="module")
def toy():
    return tr.toy(200)


def test_budget_steps_count_the_estimators_costs(toy):
    m = toy.model
    assert tr.Budget(1e4).steps(tr.SAMPLERS["sgld"].build(m, 1e-3, 10, tr.SamplerOptions())) == (0, 1000)
    cv = tr.SAMPLERS["sgld_cv"].build(m, 1e-3, 10, tr.SamplerOptions())  # 2n per step + N once
    assert tr.Budget(1e4).steps(cv) == (0, (10_000 - 200) // 20)
    vr = tr.SAMPLERS["vrsgld"].build(m, 1e-3, 10, tr.SamplerOptions())  # 2 n2 + n1/m = 20 + 100/10
    assert tr.Budget(50, "passes", burn_in=0.1).steps(vr) == (33, 333 - 33)
    assert tr.Budget(10).steps(cv) is None


def test_surface_is_the_engine_and_the_optimum_its_minimum(toy):
    spec, obj, budget = tr.SAMPLERS["sgld"], tr.Objective.quadratic(), tr.Budget(2e4)
    (surf,) = tr.surfaces(spec, toy.model, obj, [budget], (1, 10, 200), fractions=(0.01, 0.1, 0.5, 0.9))
    for i, n in enumerate(surf.n):
        edge = exact_law(spec.build(toy.model, 1e-3, int(n), tr.SamplerOptions())).stability_limit()
        assert surf.edge[i] == pytest.approx(edge, rel=1e-5)
        for j, h in enumerate(surf.h[i]):
            law = exact_law(spec.build(toy.model, float(h), int(n), tr.SamplerOptions()))
            L = int(2e4 // n)
            assert surf.mse[i, j] == law.time_average_mse(quadratic=np.eye(1), n_steps=L)
    i, j = surf.grid_optimum()
    assert surf.mse[i, j] == np.nanmin(surf.mse)
    opt = tr.optimum(surf, spec, toy.model, obj, budget)
    assert opt.mse <= surf.mse[i, j] and opt.n == surf.n[i]
    assert opt.bias2 + opt.variance == pytest.approx(opt.mse, rel=1e-10)
    assert opt.startup_bias + opt.stationary_bias == pytest.approx(opt.mean - opt.target, abs=1e-14)
    # the engine's closed form carries no error estimate: zeros, and no accuracy line in the table
    assert np.all(surf.mse_error[np.isfinite(surf.mse)] == 0) and opt.mse_error == 0
    assert surf.grid_accuracy(i, j) == ""


def test_tradeoffs_table_spot_checks_and_explanations(toy):
    ans = tr.tradeoffs(toy, tr.Budget(2e4), tr.Objective.quadratic(), ["sgld", "sgld_cv", "vrsgld"],
                       n_values=(1, 10, 50), spot_chains=2000, seed=3)
    sg, cv, vr = (ans.results[k] for k in ("sgld", "sgld_cv", "vrsgld"))
    assert "allow_slow" in vr.error and vr.optimum is None  # periodic chain x quadratic objective
    for r in (sg, cv):
        assert r.optimum.explanation.split(":")[0] in ("bias-limited", "variance-limited")
        assert abs(r.spot.z) < 4.5, r.spot.describe()  # honest: s.e. across independent chains
    assert cv.optimum.mse < sg.optimum.mse  # the control variate removes the toy's gradient noise
    table = ans.table()
    assert "SGLD-CV" in table and "allow_slow" in table and "best: SGLD-CV" in table
    assert ans.to_dict()["samplers"]["sgld"]["optimum"]["n"] == sg.optimum.n


def test_edge_optimum_is_explained_as_such():
    ans = tr.tradeoffs(tr.toy(1000), tr.Budget(1e5), tr.Objective.mean(), ["sgld"], n_values=(1,), spot_chains=0)
    o = ans.results["sgld"].optimum
    assert o.h / o.edge > 0.9
    assert "largest stable h" in o.explanation


def test_variance_objective_is_centred_and_checked_by_simulation(toy):
    ans = tr.tradeoffs(toy, tr.Budget(5e3), tr.Objective.variance(), ["sgld"], n_values=(10,), spot_chains=3000,
                       seed=5)
    r = ans.results["sgld"]
    assert r.optimum.target == pytest.approx(toy.model.posterior_var, rel=1e-12)
    assert abs(r.spot.z) < 4.5, r.spot.describe()


def test_spot_check_detects_a_wrong_exact_value(toy):
    """The spot-check can fail: against an exact MSE off by 20% it reports a large z."""
    ans = tr.tradeoffs(toy, tr.Budget(5e3), tr.Objective.quadratic(), ["sgld"], n_values=(10,), spot_chains=0)
    o = ans.results["sgld"].optimum
    s = tr.SAMPLERS["sgld"].build(toy.model, o.h, o.n, tr.SamplerOptions())
    bad = tr.spot_check(s, tr.Objective.quadratic(), o.burn_in, o.n_steps, 1.2 * o.mse, o.target, chains=4000)
    assert abs(bad.z) > 4.5


def test_linear_regression_and_logistic_laplace_models():
    lr = tr.linear_regression(N=300, dim=2, seed=1)
    assert lr.at(100).n_data == 100
    Z, y = lr.model.Z, lr.model.y
    mine = tr.linear_regression(Z, y, sigma0=10.0)
    assert "your data" in mine.label and mine.at(50).n_data == 50
    with pytest.raises(ParameterError, match="N must satisfy"):
        mine.at(400)
    logit = LogisticRegressionModel.paper_synthetic(300)
    spec = tr.logistic_laplace(logit)
    assert "Laplace" in spec.label and "not for logistic regression" in spec.approximation
    mode, cov = logit.laplace()
    law = exact_law(tr.SAMPLERS["sgld"].build(spec.model, 1e-3, 10, tr.SamplerOptions()))
    np.testing.assert_allclose(law.posterior_mean, mode, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(law.posterior_cov, cov, rtol=1e-8, atol=1e-12)
    ans = tr.tradeoffs(spec, tr.Budget(20, "passes"), tr.Objective.mean(), ["sgld", "sgld_cv"], n_values=(5, 30),
                       fractions=(0.05, 0.3, 0.9), spot_chains=0)
    assert "not for logistic regression" in ans.table()
    assert ans.results["sgld_cv"].optimum is not None


def test_laplace_gradients_are_the_linearised_logistic_gradients():
    logit = LogisticRegressionModel.paper_synthetic(50, seed=4)
    lin = tr.laplace_linearised(logit)
    mode = logit.posterior_mode()
    idx = np.arange(50)[:, None]
    np.testing.assert_allclose(lin.grad_log_lik(mode[None, :], idx), logit.grad_log_lik(mode[None, :], idx),
                               rtol=1e-10, atol=1e-12)
    d = 1e-6 * np.array([1.0, -2.0, 0.5])
    lhs = lin.grad_log_lik((mode + d)[None, :], idx) - lin.grad_log_lik(mode[None, :], idx)
    rhs = logit.grad_log_lik((mode + d)[None, :], idx) - logit.grad_log_lik(mode[None, :], idx)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-4, atol=1e-13)


@pytest.mark.parametrize("call, match", [
    (lambda: tr.Budget(-1), "budget"),
    (lambda: tr.Budget(10, "seconds"), "unit"),
    (lambda: tr.Budget(10, burn_in=1.0), "burn_in"),
    (lambda: tr.Objective("median"), "objective"),
    (lambda: tr.sampler_spec("nuts"), "sampler"),
    (lambda: tr.SamplerOptions(alpha=1.5), "alpha"),
    (lambda: tr.SamplerOptions(m=0), "m"),
    (lambda: tr.tradeoffs("toy", tr.Budget(1e3)), "ModelSpec"),
    (lambda: tr.linear_regression(np.ones((3, 1))), "both Z"),
    (lambda: tr.preset("mnist", 100), "model"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_centred_quadratic_mean_identity(toy):
    """E avg (theta - c)^2 = E avg theta^2 - 2 c E avg theta + c^2: the engine's centre against its linear route."""
    law = exact_law(tr.SAMPLERS["sgld"].build(toy.model, 2e-3, 10, tr.SamplerOptions()))
    c = 0.7
    q = law.time_average(quadratic=np.eye(1), n_steps=300, burn_in=20)
    qc = law.time_average(quadratic=np.eye(1), n_steps=300, burn_in=20, centre=[c])
    lin = law.time_average(np.ones(1), n_steps=300, burn_in=20)
    assert qc.mean == pytest.approx(q.mean - 2 * c * lin.mean + c * c, rel=1e-12)
    assert math.isclose(qc.target, toy.model.posterior_var + (toy.model.posterior_mean[0] - c) ** 2, rel_tol=1e-12)
    with pytest.raises(ParameterError, match="centre"):
        law.time_average(np.ones(1), n_steps=10, centre=[0.0])


def test_time_average_at_one_point_is_the_surface_entry(toy):
    spec, obj, budget = tr.SAMPLERS["msgld"], tr.Objective.quadratic(), tr.Budget(5e3, burn_in=0.2)
    (surf,) = tr.surfaces(spec, toy.model, obj, [budget], (5, 50), fractions=(0.1, 0.5))
    p = tr.time_average_at(spec, toy.model, obj, budget, 50, float(surf.h[1, 1]))
    assert (p.burn_in, p.n_steps) == (int(surf.burn_in[1]), int(surf.n_steps[1]))
    assert p.mse == surf.mse[1, 1] and p.bias2 == pytest.approx(surf.bias2[1, 1], rel=1e-12)
    assert p.bias2 + p.variance == pytest.approx(p.mse, rel=1e-10)
    assert tr.time_average_at(spec, toy.model, obj, tr.Budget(10), 50, 1e-3) is None  # 10 gradients < one step
    for bad in (0.0, -1e-3, math.nan, "1e-3"):
        with pytest.raises(ParameterError, match="h must be"):
            tr.time_average_at(spec, toy.model, obj, budget, 5, bad)
    with pytest.raises(ParameterError, match="n"):
        tr.time_average_at(spec, toy.model, obj, budget, 201, 1e-3)


def test_langevin_equivalent_step_of_sghmc():
    """h = 2 eta / alpha: an identity at alpha = 1 (eq. (15) is SGLD with h = 2 eta, exact laws equal to the last
    digit), and at alpha = 0.1 the time averages' variances agree to O(eta L) (measured 0.91 eta L) over a window of
    200 / (h L) steps, with the minibatch's gradient noise as without it."""
    from simulate import samplers as named

    model = tr.toy(100).model
    lip = model.grad_lipschitz
    a = np.ones(1)
    for n in (100, 10):
        same = exact_law(named.sghmc(model, 0.1 / lip, 1.0, n=n)).time_average(a, n_steps=500, burn_in=0)
        assert same == exact_law(named.sgld(model, tr.langevin_equivalent_step(0.1 / lip, 1.0), n)).time_average(
            a, n_steps=500, burn_in=0)  # an identity
        for eta_l in (1e-3, 1e-4):
            h = tr.langevin_equivalent_step(eta_l / lip, 0.1)
            T = int(200 / (h * lip))
            hmc = exact_law(named.sghmc(model, eta_l / lip, 0.1, n=n)).time_average(a, n_steps=T, burn_in=T)
            ld = exact_law(named.sgld(model, h, n)).time_average(a, n_steps=T, burn_in=T)
            assert hmc.variance / ld.variance - 1 == pytest.approx(0.91 * eta_l, rel=0.05)
    with pytest.raises(ParameterError, match="alpha must satisfy 0 < alpha <= 1"):
        tr.langevin_equivalent_step(1e-3, 1.5)
    with pytest.raises(ParameterError, match="eta"):
        tr.langevin_equivalent_step(-1.0, 0.1)
