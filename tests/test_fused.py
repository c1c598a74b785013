"""The fused block programs (simulate.runtime.fused) give the generic step loop's numbers to the last bit, for every
program, option and thread split; samplers they do not cover take the generic loop."""

from __future__ import annotations

import numpy as np
import pytest
from _results import assert_runs_identical

from simulate import GaussianMeanModel, LogisticRegressionModel, msgld, run, sgld
from simulate.integrators.langevin import Langevin
from simulate.runtime import fused
from simulate.runtime.runner import BUILTIN_TEST_FUNCTIONS
from simulate.sampler import Sampler


@pytest.fixture(scope="module")
def models():
    return {
        "toy": GaussianMeanModel.simulate_data(300, theta_true=0.7, sigma_x=1.3, seed=3),
        "flat3": GaussianMeanModel.simulate_data(200, theta_true=[0.5, -1.0, 2.0], dim=3, sigma0=None, seed=4),
        "logistic": LogisticRegressionModel.paper_synthetic(n_data=400, seed=5),
        "logistic_wide": LogisticRegressionModel.paper_synthetic(n_data=5000, beta_true=np.linspace(-1, 1, 11), seed=6),
    }


def _sampler(models, name):
    toy, flat3, logi, wide = (models[k] for k in ("toy", "flat3", "logistic", "logistic_wide"))
    return {
        "toy_without": lambda: sgld(toy, 0.5 / toy.grad_lipschitz, 10),
        "toy_with": lambda: sgld(toy, 0.5 / toy.grad_lipschitz, 10, replace=True),
        "toy_stamped": lambda: sgld(toy, 0.3 / toy.grad_lipschitz, 12),
        "flat3_without": lambda: sgld(flat3, 0.4 / flat3.grad_lipschitz, 7),
        "flat3_hot": lambda: Sampler(flat3, sgld(flat3, 0.001, 5, replace=True).estimator, Langevin(2.5),
                                     0.4 / flat3.grad_lipschitz),
        "logistic_with": lambda: sgld(logi, 0.5 / logi.grad_lipschitz, 15, replace=True),
        "logistic_without": lambda: sgld(logi, 0.5 / logi.grad_lipschitz, 9),
        "logistic_wide": lambda: sgld(wide, 0.5 / wide.grad_lipschitz, 50),
    }[name]()


NAMES = ["toy_without", "toy_with", "toy_stamped", "flat3_without", "flat3_hot", "logistic_with",
         "logistic_without", "logistic_wide"]


def _same_bits(a, b) -> None:
    """assert_runs_identical, and every array equal byte for byte (signed zeros and NaN payloads too)."""
    assert_runs_identical(a, b)
    for x, y in [(a.final, b.final), (a.trace, b.trace)] + [(a.time_averages[k], b.time_averages[k])
                                                           for k in a.time_averages] + [
            (a.snapshots[k], b.snapshots[k]) for k in a.snapshots]:
        assert (x is None and y is None) or x.tobytes() == y.tobytes()


def _both(sampler, monkeypatch, **kw):
    """(fused run, generic run) of the same arguments."""
    assert fused.program_for(sampler, dict(BUILTIN_TEST_FUNCTIONS)) is not None
    a = run(sampler, **kw)
    monkeypatch.setattr(fused, "ENABLED", False)
    b = run(sampler, **kw)
    monkeypatch.setattr(fused, "ENABLED", True)
    return a, b


@pytest.mark.parametrize("name", NAMES)
def test_fused_equals_the_generic_loop(models, name, monkeypatch):
    """Partial last block, burn-in, snapshots, a trace, a callable start, 2 block threads."""
    s = _sampler(models, name)
    theta0 = lambda rng, m: rng.normal(0.3, 1.0, (m, s.model.dim))  # noqa: E731
    a, b = _both(s, monkeypatch, n_chains=75, n_steps=70, seed=9, burn_in=4, record_at=[0, 3, 66, 73],
                 trace_stride=9, block_size=32, theta0=theta0, threads=2)
    _same_bits(a, b)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_fused_in_one_block_parallel_over_chains(models, threads, monkeypatch):
    """One block with several threads runs the kernel parallel over chains: the same bits as one thread."""
    for name in ("toy_without", "logistic_wide"):
        s = _sampler(models, name)
        a, b = _both(s, monkeypatch, n_chains=61, n_steps=20, seed=2, threads=threads)
        _same_bits(a, b)


def test_fused_options(models, monkeypatch):
    """One test function, no time average (states only), a custom mapping of the built-in functions."""
    s = _sampler(models, "toy_with")
    for kw in (dict(test_functions=("theta2",)), dict(n_steps=0, record_at=[0, 5]),
               dict(test_functions={"theta": BUILTIN_TEST_FUNCTIONS["theta"]}), dict(burn_in=200)):
        args = dict(n_chains=40, n_steps=30, seed=4, block_size=16) | kw
        a, b = _both(s, monkeypatch, **args)
        _same_bits(a, b)
        assert list(a.time_averages) == list(b.time_averages)


def test_samplers_without_a_program_take_the_generic_loop(models):
    toy, logi = models["toy"], models["logistic"]
    phis = dict(BUILTIN_TEST_FUNCTIONS)
    assert fused.program_for(msgld(toy, 0.01, 5), phis) is None  # another integrator
    assert fused.program_for(sgld(logi, 0.001, 40), phis) is None  # the sequential draw (n(n-1) > N)
    assert fused.program_for(sgld(toy, 0.001, 200), phis) is None  # the complement draw (2n > N)
    assert fused.program_for(sgld(toy, 0.001, 5), {"cube": lambda th: th**3}) is None  # a user's test function


def test_the_divergence_watch_sees_the_same_states(models, monkeypatch):
    """The watch looks at the chains at the same steps (every CHECK_EVERY and the last) and sees the same states."""
    from simulate.runtime.divergence import DivergenceWatch

    seen = []
    look = DivergenceWatch.look
    monkeypatch.setattr(DivergenceWatch, "look", lambda self, k, th: (seen.append((k, th.copy())), look(self, k, th)))
    s = _sampler(models, "logistic_with")
    a, b = _both(s, monkeypatch, n_chains=20, n_steps=150, seed=3, burn_in=10)
    _same_bits(a, b)
    half = len(seen) // 2
    assert [k for k, _ in seen[:half]] == [k for k, _ in seen[half:]] == [0, 64, 128, 159]
    for (_, x), (_, y) in zip(seen[:half], seen[half:], strict=True):
        assert x.tobytes() == y.tobytes()
