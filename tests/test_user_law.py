"""A user's own integrator with its own exact law, in a module OUTSIDE the repository (written to a temporary folder
and imported from there): ``theory.exact_law`` gives its law, the brute-force referee and the simulation checks of the
shared harness (tests/_law_checks.py) hold it, and nothing in the workbench was edited. Its registration is removed
again after the test."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from _law_checks import referee_check, simulation_check

from simulate import GaussianMeanModel, LinearRegressionModel, Minibatch, Sampler, Strata, Stratified
from theory import exact_law, registered
from theory import laws as registry

ROOT = Path(__file__).resolve().parents[1]

USER_MODULE = '''
"""Heavy-ball SGLD, a user's sampler: v' = beta v + (h/2) g(theta), theta' = theta + v' + sqrt(h / (1 - beta)) xi,
v_0 = 0 (as h -> 0 the momentum follows the gradient, v = (h/2) g / (1 - beta): Langevin with step h / (1 - beta), whose
noise variance is h / (1 - beta))."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from theory import law_for
from theory.laws import Example
from theory.linear_gaussian.contract import IntegratorLaw, Layout, eye, zeros


class HeavyBallState(NamedTuple):
    v: np.ndarray
    step: int


@dataclass(frozen=True)
class HeavyBallLangevin:
    """The simulator's side: the Integrator protocol of simulate.contracts, no base class needed."""

    beta: float
    name = "heavy_ball_langevin"
    needs_noise_cov = False

    def step_bound(self, lipschitz):
        # on a Gaussian target: lambda^2 - (1 + beta - h P / 2) lambda + beta, stable iff h P < 4 (1 + beta) (Jury)
        return 4.0 * (1.0 + self.beta) / lipschitz, "heavy ball, h < 4 (1 + beta) / L"

    def noise_matrix(self, h, noise_cov):
        return float(np.sqrt(h / (1.0 - self.beta)))

    def init_state(self, theta, h, rng):
        return HeavyBallState(np.zeros_like(theta), 0)

    def draws_in_update(self):
        return False

    def update(self, theta, grad, xi, h, noise, state, rng=None):
        v = self.beta * state.v + (0.5 * h) * grad
        theta += v
        theta += noise * xi
        return theta, HeavyBallState(v, state.step + 1)


@law_for(HeavyBallLangevin,
         examples=lambda model, s: [Example("heavy ball", HeavyBallLangevin(0.5), "heavy_ball", 0.3)])
def heavy_ball(integ, ctx):
    """x = (theta, v): A = [[I, beta I], [0, beta I]], B = (h/2) [I; I], Qn = h / (1 - beta) on theta."""
    h, beta = ctx.h, ctx.num(integ.beta)

    def update(lay: Layout, cov_g):
        th, v = lay.slice("theta"), lay.slice("v")
        A = eye(lay.n, lay.dtype)
        Ev = lay.select("v")
        A[th] = A[th] + Ev * beta
        A[v] = Ev * beta
        B = (lay.embed("theta") + lay.embed("v")) * (h / 2)
        E = lay.embed("theta")
        return A, B, E @ E.T * (h / (1 - beta))

    return IntegratorLaw((("v", ctx.parts.dim),), 1, update, lambda p, lay: [],
                         lambda lay: zeros((lay.n, lay.n), lay.dtype))
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_heavy_ball.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    with mock.patch.dict(registry._REGISTRY["affine"]):  # the registration leaves with the test
        mod = importlib.import_module("my_heavy_ball")
        assert ROOT not in Path(mod.__file__).resolve().parents
        yield mod
    sys.modules.pop("my_heavy_ball", None)


@pytest.mark.parametrize("estimator", ["minibatch", "stratified"])
def test_a_user_integrator_outside_the_repo_gets_exact_law_and_the_referee(user_module, estimator):
    HeavyBall = user_module.HeavyBallLangevin
    assert HeavyBall in registered("affine", "integrator")
    m = LinearRegressionModel.simulate_data(5, dim=2, seed=3)
    est = Minibatch(2) if estimator == "minibatch" else Stratified(Strata.from_labels(np.arange(5) % 2), (1, 1))
    sampler = Sampler(m, est, HeavyBall(0.5), 0.3 / m.grad_lipschitz)
    law = exact_law(sampler, theta0=[0.3, -0.2])
    assert law.state_names == (("theta", 2), ("v", 2))
    assert referee_check(sampler, np.array([0.3, -0.2])) >= 4
    simulation_check(sampler, np.array([0.3, -0.2]), seed=11)
    stationary = law.stationary_cov()  # beyond the referee: the engine's stationary law of the user's chain
    assert np.all(np.linalg.eigvalsh(stationary) > 0)


def test_the_user_law_with_the_full_gradient_targets_the_posterior_as_h_goes_to_0(user_module):
    """An independent route: with the exact gradient the stationary law tends to the posterior N(mu, P^{-1}) as h -> 0
    (the module docstring's argument), at rate O(h)."""
    from simulate import FullGradient

    m = GaussianMeanModel.simulate_data(20, theta_true=[1.0, -1.0], dim=2, seed=2)
    beta = 0.5
    law = exact_law(Sampler(m, FullGradient(), user_module.HeavyBallLangevin(beta), 1e-4 / m.grad_lipschitz))
    assert np.allclose(law.stationary_mean(), m.posterior_mean, rtol=1e-9)
    assert np.allclose(law.stationary_cov(), m.posterior_var * np.eye(2), rtol=1e-3)
