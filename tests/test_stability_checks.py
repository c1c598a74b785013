"""Step sizes a new user can get wrong: the simulator's check is the limit of the chain's mean and says so; the
exact engine refuses an h past the mean-square limit before a run (on scikit-learn's diabetes regression SGLD with
n = 10 has it well below 4/L); ``run`` stops chains that become non-finite or grow without bound, naming h."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes

from simulate import (
    ChainDivergedError,
    GaussianMeanModel,
    Langevin,
    LinearRegressionModel,
    Minibatch,
    ParameterError,
    Sampler,
    run,
    sgld,
)
from simulate.models.datasets import standardise_with_intercept
from theory import check_stable, exact_law


@pytest.fixture(scope="module")
def diabetes() -> LinearRegressionModel:
    data = load_diabetes()  # shipped with scikit-learn: no download
    X = standardise_with_intercept(data.data[:, [0, 1, 2, 3, 4, 8]])
    y = (data.target - data.target.mean()) / data.target.std()
    return LinearRegressionModel(X, y, sigma=0.7, sigma0=10.0)


def test_the_simulators_bound_is_named_the_limit_of_the_mean(diabetes):
    L = diabetes.grad_lipschitz
    with pytest.raises(ParameterError, match=r"the chain's mean is stable for h < 4/L.*its variance can be unstable "
                                             r"at a smaller h, the mean-square limit"):
        sgld(diabetes, 4.2 / L, 10)


def test_the_engine_refuses_an_h_between_the_mean_square_and_the_mean_limit(diabetes):
    L = diabetes.grad_lipschitz
    limit = check_stable(sgld(diabetes, 1.0 / L, 10))
    assert 2.0 < limit * L < 3.9  # well below the mean's limit 4/L
    assert limit == pytest.approx(exact_law(sgld(diabetes, 1.0 / L, 10)).stability_limit(1e-6))
    between = sgld(diabetes, 0.5 * (limit + 4.0 / L), 10)  # the simulator accepts it
    with pytest.raises(ParameterError, match=r"past the mean-square stability limit h\* = .*/L of sgld.*the "
                                             r"simulator's own check, h < .* = 4/L, is the limit of the chain's mean"):
        check_stable(between)
    assert exact_law(between).spectral_radius() > 1.0


class _Unbounded(Langevin):
    """A Langevin step that declares no step-size bound (as a user's integrator might): nothing refuses any h."""

    def step_bound(self, lipschitz: float) -> tuple[float, str]:
        return float("inf"), "none declared"


def test_run_stops_chains_that_grow_without_bound_and_names_h():
    model = GaussianMeanModel.simulate_data(100, theta_true=1.0, seed=0)
    sampler = Sampler(model, Minibatch(10), _Unbounded(), 5.0 / model.grad_lipschitz, name="sgld")
    # theta' = (1 - h L/2) theta + ...: the mean itself grows 1.5x per step
    with pytest.raises(ChainDivergedError, match=r"sgld diverged at h = .*grow without bound.*at step 320.*Reduce h"):
        run(sampler, n_chains=50, n_steps=600, seed=1)
    with pytest.raises(ChainDivergedError, match=r"grew past 1e154 by step|non-finite state by step"):
        run(sampler, n_chains=50, n_steps=1, burn_in=4000, seed=1)


def test_run_of_a_stable_sampler_is_not_disturbed(diabetes):
    """The watch reads the chains and changes no number: the same run twice, bit for bit, and no false alarm from
    chains started far from the posterior that contract towards it."""
    L = diabetes.grad_lipschitz
    s = sgld(diabetes, 1.0 / L, 10)
    a = run(s, n_chains=64, n_steps=300, seed=2, theta0=np.full(diabetes.dim, 1e3))
    b = run(s, n_chains=64, n_steps=300, seed=2, theta0=np.full(diabetes.dim, 1e3))
    assert np.array_equal(a.time_averages["theta"], b.time_averages["theta"])
