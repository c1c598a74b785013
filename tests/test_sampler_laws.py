"""The shared sampler harness: every estimator x integrator registered with :func:`theory.law_for` (each with the
examples its registration provides), on two affine models, held to tests/_law_checks.py. A new sampler is checked by
registering its law; this module names none.

Models (N = 5, d = 2): a linear regression with varied features (multiplicative gradient noise: the minibatch's
precision P_S is random) and the Gaussian mean model (additive noise, where mSGLD and reused minibatches are exact).

* referee: exact law = brute-force enumeration of every draw sequence, to 1e-12, where the estimator lists its draws;
* simulation: exact law = simulated chains (z-tests, s.e. across 4000 chains), for the pairs an integrator's
  example is checked with (``Example.with_estimators``);
* refusals: where the simulator refuses a pair, or the engine says its moments do not close, the ParameterError says
  why;
* bad input: the registry's and the engine's errors name the class, the route and the field.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from _law_checks import law_or_refusal, referee_check, sampler_or_refusal, simulation_check

from simulate import GaussianMeanModel, LinearRegressionModel
from simulate.contracts import SupportsDrawEnumeration
from theory.laws import ExampleSettings, registered, registration

MODELS = {
    "linreg": LinearRegressionModel.simulate_data(5, dim=2, seed=3),
    "gauss_mean": GaussianMeanModel.simulate_data(5, theta_true=[0.5, -1.0], dim=2, seed=4),
}
SETTINGS = ExampleSettings(n=2, n_anchor=4, epoch=2, period=2)
THETA0 = np.array([0.3, -0.2])


def _examples(kind: str, model) -> list:
    return [ex for cls in registered("affine", kind) for ex in registration(cls).instances(model, SETTINGS)]


def _cases(statistical: bool) -> list:
    out = []
    for name, model in MODELS.items():
        for est in _examples("estimator", model):
            for integ in _examples("integrator", model):
                if statistical and integ.with_estimators is not None and \
                        not isinstance(est.obj, integ.with_estimators):
                    continue
                out.append(pytest.param(name, est, integ, id=f"{name}-{est.name}-{integ.name}"))
    return out


def _sampler(name, est, integ):
    model = MODELS[name]
    return sampler_or_refusal(model, est.obj, integ.obj, 0.5 * integ.h_scale / model.grad_lipschitz)


@pytest.mark.parametrize(("model", "est", "integ"), _cases(False))
def test_engine_matches_the_referee(model, est, integ):
    sampler = _sampler(model, est, integ)
    if sampler is None or law_or_refusal(sampler, THETA0) is None:
        return  # refused, saying why (law_or_refusal / sampler_or_refusal assert it)
    cov0 = np.array([[0.02, 0.005], [0.005, 0.01]])
    assert referee_check(sampler, THETA0, cov0) >= 2, "fewer than two steps affordable: use smaller examples"


@pytest.mark.parametrize(("model", "est", "integ"), _cases(True))
def test_exact_law_matches_simulation(model, est, integ):
    sampler = _sampler(model, est, integ)
    if sampler is None or law_or_refusal(sampler, THETA0) is None:
        return
    simulation_check(sampler, THETA0, seed=zlib.crc32(f"{model}-{est.label}-{integ.label}".encode()))


@pytest.mark.parametrize("kind", ["estimator", "integrator"])
def test_every_registered_class_has_examples_on_both_models(kind):
    for cls in registered("affine", kind):
        for model in MODELS.values():
            assert registration(cls).instances(model, SETTINGS), \
                f"{cls.__name__}: register examples with law_for(..., examples=...) so the harness can check it"


def test_draw_supports_are_distributions():
    for cls in registered("affine", "estimator"):
        for model in MODELS.values():
            for ex in registration(cls).instances(model, SETTINGS):
                if not isinstance(ex.obj, SupportsDrawEnumeration):
                    continue
                for k in range(4):
                    p = [q for _, q in ex.obj.draw_support(model, 3, k)]
                    assert min(p) > 0 and abs(sum(p) - 1) < 1e-12, (ex.label, k)


def test_the_referee_sees_minibatch_noise():
    """Enumerated SGLD and Euler moments differ after two steps (the referee is not trivially the full gradient)."""
    from _referee import enumerate_moments

    from simulate import euler, sgld

    m = MODELS["linreg"]
    h = 0.3 / m.grad_lipschitz
    assert np.abs(enumerate_moments(sgld(m, h, 2), THETA0, 2)[2][1] -
                  enumerate_moments(euler(m, h), THETA0, 2)[2][1]).max() > 1e-4


# ----------------------------------------------------------------------------------------------- planted bugs
def _preconditioning_the_noise_only(integ, ctx):
    """A wrong law of PreconditionedLangevin: the gradient enters theta without G."""
    from dataclasses import replace

    from theory.linear_gaussian.integrator_laws import preconditioned_langevin

    law = preconditioned_langevin(integ, ctx)

    def update(lay, cov_g):
        A, B, Qn = law.update(lay, cov_g)
        return A, lay.embed("theta") * (ctx.h / 2), Qn

    return replace(law, update=update)


def test_a_planted_law_bug_fails_the_referee_and_the_simulation():
    from simulate import Minibatch
    from simulate.integrators.preconditioned import PreconditionedLangevin
    from theory.laws import law_replaced

    m = MODELS["linreg"]
    sampler = sampler_or_refusal(m, Minibatch(2), PreconditionedLangevin([[1.5, 0.2], [0.2, 0.5]]),
                                 0.3 / m.grad_lipschitz)
    with law_replaced(PreconditionedLangevin, _preconditioning_the_noise_only):
        with pytest.raises(AssertionError):
            referee_check(sampler, THETA0)
        with pytest.raises(AssertionError):
            simulation_check(sampler, THETA0, seed=5)
    referee_check(sampler, THETA0)
    simulation_check(sampler, THETA0, seed=5)


# ----------------------------------------------------------------------------------------------- bad input
def test_law_of_an_unregistered_class_names_class_route_and_known_classes():
    from simulate import ParameterError
    from simulate.estimators.estimated_cov import EstimatedCovMinibatch
    from theory import law_of

    with pytest.raises(ParameterError, match=r"EstimatedCovMinibatch: no law registered on route 'affine' "
                                             r"\(known on 'affine': .*Minibatch.*\)"):
        law_of(EstimatedCovMinibatch(3))
    with pytest.raises(ParameterError, match=r"no law registered on route 'grid' \(known on 'grid': "):
        law_of(EstimatedCovMinibatch(3), "grid")


def test_a_class_without_law_says_why():
    from simulate import ParameterError, psgld
    from theory import exact_law

    m = MODELS["gauss_mean"]
    with pytest.raises(ParameterError, match=r"AdaptivePreconditionedLangevin has no law on route 'affine': .*"
                                             r"not affine in the state"):
        exact_law(psgld(m, 1e-3, 2))


def test_registration_refuses_what_is_not_an_estimator_or_integrator_or_a_second_law():
    from simulate import Langevin, ParameterError
    from theory import law_for, no_law

    with pytest.raises(ParameterError, match="neither a gradient estimator"):
        law_for(int)
    with pytest.raises(ParameterError, match="must be a simulator estimator or integrator class"):
        law_for(Langevin())
    with pytest.raises(ParameterError, match="route must be a non-empty string"):
        law_for(Langevin, route="")
    with pytest.raises(ParameterError, match=r"Langevin already has a law on route 'affine'"):
        law_for(Langevin)(lambda integ, ctx: None)
    with pytest.raises(ParameterError, match="Langevin already has a law"):
        no_law(Langevin, "no reason")
    with pytest.raises(ParameterError, match="reason must say why"):
        no_law(Langevin, " ")


class _Halving:
    """A stand-in integrator whose laws below are malformed."""

    name = "halving"
    needs_noise_cov = False

    def step_bound(self, lipschitz):
        return 4.0 / lipschitz, "h < 4/L"

    def noise_matrix(self, h, noise_cov):
        return 0.0

    def init_state(self, theta, h, rng):
        return ()

    def update(self, theta, grad, xi, h, noise, state, rng=None):
        theta += 0.5 * h * grad
        return theta, state

    def draws_in_update(self):
        return False


@pytest.mark.parametrize(("law", "match"), [
    (lambda integ, ctx: None, r"the law of _Halving must return an IntegratorLaw"),
    (lambda integ, ctx: _bad_law(update=lambda lay, c: (np.eye(lay.n), np.eye(lay.n), np.eye(lay.n))),
     r"the law of _Halving: B must have shape \(3, 2\)"),
    (lambda integ, ctx: _bad_law(period=0), r"the law of _Halving: period must be an integer >= 1"),
    (lambda integ, ctx: _bad_law(blocks=(("theta", 2),)), r"name the same state block twice"),
])
def test_a_malformed_law_is_told_which_field(law, match):
    from unittest import mock

    from simulate import Minibatch, ParameterError, Sampler
    from theory import exact_law, law_for
    from theory import laws as registry

    m = MODELS["linreg"]
    with mock.patch.dict(registry._REGISTRY["affine"]):
        law_for(_Halving)(law)
        with pytest.raises(ParameterError, match=match):
            exact_law(Sampler(m, Minibatch(2), _Halving(), 0.1 / m.grad_lipschitz))
    assert _Halving not in registered("affine")


def _bad_law(**fields):
    from dataclasses import replace

    from theory.linear_gaussian.contract import IntegratorLaw, eye, zeros

    ok = IntegratorLaw((), 1, lambda lay, c: (eye(lay.n, lay.dtype), lay.embed("theta"), zeros((lay.n, lay.n), float)),
                       lambda p, lay: [], lambda lay: zeros((lay.n, lay.n), float))
    return replace(ok, **fields)
