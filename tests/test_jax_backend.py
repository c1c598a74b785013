"""The JAX backend (``run(..., backend="jax")``, on the CPU build of JAX here) held to the exact engine as
tests/test_sampler_laws.py holds numpy: every registered estimator x integrator on the same two models and examples.

* laws: E u^T theta_k, Var u^T theta_k at k = 3 and 12 and the mean and MSE of a time average, simulated on JAX
  (4000 chains, one run per pair) against the exact law; z-tests with standard errors across chains at
  |z| < Z_MAX = 4.5 (a Bonferroni bound: about 900 checks over the whole matrix at 6.8e-6 each, a family-wise
  false-alarm rate below 1%; the detectable deviation is 4.5 standard errors plus the power margin). The matrix is
  ``slow`` (one compilation per pair); a representative subset, one pair per estimator and per integrator class,
  runs in the fast suite;
* coverage: every estimator and integrator registered with theory.law_for for affine models runs on JAX (ULMC,
  Cheng et al. 2018, included);
* a planted bug in the backend's own primitives (the Langevin drift h g: slow) and in its model view (a coordinate
  mix-up in sum_j P_j theta) is caught by the same checks;
* minibatches: Floyd's algorithm and its complement give every n-subset with probability 1 / C(N, n), with
  replacement every index with probability 1 / N (exact enumeration of the support, a chi-square test);
* reproducibility: the same seed gives the same bits; the numbers do not depend on the chunking of chains, on
  ``block_size`` or ``blocks`` (to rounding: XLA orders a reduction by array size);
* bad input: an unknown backend, JAX missing, a part the backend does not cover, numpy-only options, a test function
  JAX cannot trace; float64 enabled for the run only.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the JAX backend's tests need JAX: pip install 'sgmcmc-workbench[jax]'")

from _law_checks import law_or_refusal, simulation_check  # noqa: E402
from test_sampler_laws import MODELS, THETA0, _cases, _sampler  # noqa: E402

from simulate import (  # noqa: E402
    GaussianMeanModel,
    LinearRegressionModel,
    LogisticRegressionModel,
    ParameterError,
    run,
    sgld,
)
from simulate.runtime.backends import BackendNotCovered, JaxBackend, using_backend  # noqa: E402

#: One pair per estimator class (under Langevin) and per integrator class (under a minibatch), on linear regression
#: (multiplicative gradient noise) unless the pair needs additive noise: the fast suite's share of the matrix.
FAST = {
    "linreg-minibatch-langevin", "linreg-minibatch_with_replacement-sghmc_refresh", "linreg-full_gradient-baoab",
    "linreg-stratified_with_replacement-langevin", "gauss_mean-additive_noise-msgld",
    "linreg-control_variate-preconditioned", "linreg-chen_et_al__alg__1-langevin", "linreg-svrg-sghmc_euler",
    "linreg-saga-no_noise", "gauss_mean-reused_2_steps-msgld", "linreg-reused_stratified__2_steps-sghmc",
    "gauss_mean-minibatch-msgld_printed_eq9", "linreg-minibatch-ulmc",
}


def _matrix():
    out = []
    for p in _cases(True):
        name, est, integ = p.values
        pid = f"{name}-{est.name}-{integ.name}"
        marks = () if pid in FAST else (pytest.mark.slow,)
        out.append(pytest.param(name, est, integ, id=pid, marks=marks))
    return out


@pytest.mark.parametrize(("model", "est", "integ"), _matrix())
def test_jax_backend_matches_the_exact_law(model, est, integ):
    sampler = _sampler(model, est, integ)
    if sampler is None or law_or_refusal(sampler, THETA0) is None:
        return  # refused by the simulator or the engine, saying why (as in the numpy harness)
    simulation_check(sampler, THETA0, seed=zlib.crc32(f"jax-{model}-{est.label}-{integ.label}".encode()),
                     backend="jax")


def test_every_fast_pair_exists():
    ids = {f"{p.values[0]}-{p.values[1].name}-{p.values[2].name}" for p in _cases(True)}
    assert FAST <= ids, sorted(FAST - ids)


def test_the_backend_covers_every_registered_estimator_and_integrator():
    """Every class with a law registered for affine models (what the numpy harness checks) runs on JAX: a new
    registration must be added to simulate/_jax/coverage.py (after its step is written against simulate.arrays) or
    this test says which."""
    from simulate._jax.coverage import ESTIMATORS, INTEGRATORS
    from theory.laws import registered

    for kind, covered in (("estimator", ESTIMATORS), ("integrator", INTEGRATORS)):
        gap = [c.__name__ for c in registered("affine", kind) if c not in covered]
        assert not gap, f"registered {kind}s the JAX backend does not run: {gap}"


# ----------------------------------------------------------------------------------------------- planted bugs
def _linreg_sgld():
    m = MODELS["linreg"]
    return sgld(m, 0.3 / m.grad_lipschitz, 2)


@pytest.mark.slow
def test_a_planted_bug_in_the_backends_langevin_step_is_caught(monkeypatch):
    from simulate._jax.namespace import JaxNamespace

    sampler = _linreg_sgld()
    monkeypatch.setattr(JaxNamespace, "langevin_step", lambda self, th, g, half_h, xi, noise: th + g * (2 * half_h)
                        + xi * noise)  # drift h g instead of (h/2) g
    with pytest.raises(AssertionError):
        simulation_check(sampler, THETA0, seed=11, backend="jax")
    monkeypatch.undo()
    simulation_check(sampler, THETA0, seed=11, backend="jax")


def test_a_planted_bug_in_the_backends_model_view_is_caught(monkeypatch):
    from simulate._jax.models import AffineView

    sampler = _linreg_sgld()
    right = AffineView._precision_times
    monkeypatch.setattr(AffineView, "_precision_times",  # sum_j P_j x with x's coordinates swapped (an index mix-up)
                        lambda self, idx, x: right(self, idx, x[:, ::-1]))
    with pytest.raises(AssertionError):
        simulation_check(sampler, THETA0, seed=12, backend="jax")


# ----------------------------------------------------------------------------------------------- minibatches
def _chi2_p(counts: np.ndarray, probs: np.ndarray) -> float:
    from scipy.stats import chi2

    expected = counts.sum() * probs
    return float(chi2.sf(((counts - expected) ** 2 / expected).sum(), counts.size - 1))


@pytest.mark.parametrize(("N", "n", "replace"), [(7, 3, False), (7, 5, False), (6, 6, False), (5, 2, True)])
def test_minibatches_are_exact(N, n, replace):
    """Every n-subset (without replacement: Floyd's algorithm, or the complement for n > N/2) with probability
    1 / C(N, n); with replacement each index 1/N. Chi-square over the whole support, p > 1e-4."""
    import jax.numpy as jnp

    from simulate._jax.streams import DeferredIndices, chain_keys, key_data

    M = 20_000
    with jax.enable_x64(True):
        draw = jax.jit(lambda: DeferredIndices(chain_keys(key_data(3), 0, M)[1], jnp.uint32(0), N, n, replace).draw())
        idx = np.asarray(draw())
    assert idx.shape == (n, M) and idx.min() >= 0 and idx.max() < N
    if replace:
        counts = np.bincount(idx.ravel(), minlength=N)
        assert _chi2_p(counts, np.full(N, 1 / N)) > 1e-4
        return
    srt = np.sort(idx, axis=0)
    assert np.all(np.diff(srt, axis=0) > 0), "a repeated index without replacement"
    codes = (srt * N ** np.arange(n)[:, None]).sum(axis=0)
    counts = np.unique(codes, return_counts=True)[1]
    assert counts.size == math.comb(N, n)
    if counts.size > 1:
        assert _chi2_p(counts, np.full(counts.size, 1 / counts.size)) > 1e-4


# ----------------------------------------------------------------------------------------------- reproducibility
def test_same_seed_same_bits_and_chunking_changes_nothing_but_rounding():
    m = LinearRegressionModel.simulate_data(50, dim=2, seed=1)
    s = sgld(m, 0.3 / m.grad_lipschitz, 5)
    kw = dict(n_chains=300, n_steps=20, burn_in=3, seed=4, record_at=[7], theta0=np.array([0.2, -0.1]))
    whole, chunked = JaxBackend(keep_compiled=True), JaxBackend(chunk=70, keep_compiled=True)  # two compilations
    a = run(s, backend=whole, **kw)
    b = run(s, backend=whole, **kw)
    c = run(s, backend=chunked, **kw)  # 5 chunks, the last padded
    d = run(s, backend=chunked, block_size=100, blocks=[1, 2], **kw)
    assert a.backend.startswith("jax (cpu, float64)")
    for x, y in ((a.final, b.final), (a.snapshots[7], b.snapshots[7]), (a.time_averages["theta2"],
                                                                        b.time_averages["theta2"])):
        assert np.array_equal(x, y)
    for x, y in ((a.final, c.final), (a.snapshots[7], c.snapshots[7]), (a.final[100:], d.final),
                 (a.time_averages["theta"][100:], d.time_averages["theta"])):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)
    assert d.chain_offset == 100 and d.n_chains == 200


@pytest.mark.slow
def test_float64_is_enabled_for_the_run_only_and_float32_runs():
    import jax.numpy as jnp

    before = jax.config.jax_enable_x64
    m = GaussianMeanModel.simulate_data(40, seed=2)
    s = sgld(m, 0.2 / m.A, 4)
    r64 = run(s, 400, 30, seed=1, backend="jax")
    assert jax.config.jax_enable_x64 == before and jnp.ones(1).dtype == (jnp.float64 if before else jnp.float32)
    r32 = run(s, 400, 30, seed=1, backend=JaxBackend(dtype="float32"))
    assert r32.backend == "jax (cpu, float32)" and r32.final.dtype == np.float64
    # other draws (float32 normals take other bits), the same law: the means agree within 5 standard errors
    a, b = r32.time_averages["theta"][:, 0], r64.time_averages["theta"][:, 0]
    assert abs(a.mean() - b.mean()) < 5 * np.sqrt(a.var() / a.size + b.var() / b.size)


def test_outputs_have_the_numpy_backends_form():
    m = LogisticRegressionModel.paper_synthetic(n_data=60, seed=3)
    s = sgld(m, 0.3 / m.grad_lipschitz, 6)
    kw = dict(n_chains=40, n_steps=6, burn_in=2, record_at=[0, 3, 6], trace_stride=3, seed=5,
              test_functions={"first": lambda th: th[:, 0]})
    a, b = run(s, **kw), run(s, backend="jax", **kw)
    for field in ("n_chains", "chain_offset", "burn_in", "n_steps", "total_steps", "block_size", "grads_per_chain"):
        assert getattr(a, field) == getattr(b, field), field
    assert a.time_averages.keys() == b.time_averages.keys() and b.time_averages["first"].shape == (40,)
    assert a.snapshots.keys() == b.snapshots.keys() and np.array_equal(b.snapshots[0], np.zeros((40, 3)))
    assert np.array_equal(a.trace_steps, b.trace_steps) and a.trace.shape == b.trace.shape
    for i, k in enumerate(b.trace_steps):
        np.testing.assert_array_equal(b.trace[i], b.snapshots[k])


def test_divergence_is_detected():
    from simulate import ChainDivergedError

    m = LinearRegressionModel.simulate_data(50, dim=2, scale_spread=1.5, seed=3)
    s = sgld(m, 3.9 / m.grad_lipschitz, 1)
    with pytest.raises(ChainDivergedError, match="diverged at h = "):
        run(s, 200, 400, seed=1, backend="jax")


# ----------------------------------------------------------------------------------------------- bad input
def test_bad_input_is_named():
    from simulate import Sampler, psgld
    from simulate.estimators.additive_noise import AdditiveNoise
    from simulate.integrators.langevin import Langevin
    from simulate.models.potentials import double_well

    m = MODELS["gauss_mean"]
    s = sgld(m, 0.1 / m.grad_lipschitz, 2)
    with pytest.raises(ParameterError, match=r"backend must be one of \('numpy', 'jax'\)"):
        run(s, 10, 2, backend="cuda")
    with pytest.raises(BackendNotCovered, match="the integrator AdaptivePreconditionedLangevin"):
        run(psgld(m, 1e-3, 2), 10, 2, backend="jax")
    pot = double_well()
    with pytest.raises(BackendNotCovered, match="the model PotentialModel"):
        run(Sampler(pot, AdditiveNoise(1.0), Langevin(), 0.01), 10, 2, backend="jax")
    one_d = GaussianMeanModel.simulate_data(20, seed=1)
    with pytest.raises(BackendNotCovered, match="AdditiveNoise with a variance V"):
        run(Sampler(one_d, AdditiveNoise(lambda th: 1.0 + th**2), Langevin(), 0.01), 10, 2, backend="jax")
    for option in (dict(threads=2), dict(draw_ahead=True), dict(hook=lambda a, b: None)):
        with pytest.raises(BackendNotCovered, match="an option of the numpy backend"):
            run(s, 10, 2, backend="jax", **option)
    with pytest.raises(BackendNotCovered, match="test function 'host' cannot be traced by JAX"):
        run(s, 10, 2, backend="jax", test_functions={"host": lambda th: np.stack([np.asarray(th)[:, 0]], axis=1)})
    with pytest.raises(ParameterError, match="JaxBackend dtype must be"):
        JaxBackend(dtype="float16")


def test_jax_missing_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_jax(name, *args, **kwargs):
        if name == "jax" or name.startswith("jax."):
            raise ImportError("no jax here")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jax)
    m = MODELS["gauss_mean"]
    with pytest.raises(BackendNotCovered, match=r"pip install 'sgmcmc-workbench\[jax\]'"):
        run(sgld(m, 0.1 / m.grad_lipschitz, 2), 10, 2, backend="jax")


def test_using_backend_runs_inside_and_falls_back_where_told():
    from simulate import psgld

    m = MODELS["gauss_mean"]
    s = sgld(m, 0.1 / m.grad_lipschitz, 2)
    with using_backend("jax", fallback=True) as record:
        assert run(s, 20, 2, seed=1).backend.startswith("jax")
        assert run(psgld(m, 1e-3, 2), 20, 2, seed=1).backend == "numpy"
        assert run(s, 20, 2, seed=1, backend="numpy").backend == "numpy"
    assert [name for name, _ in record.fell_back] == ["psgld"]
    assert "AdaptivePreconditionedLangevin" in record.fell_back[0][1] and record.compile_seconds > 0
    assert run(s, 20, 2, seed=1).backend == "numpy"
    with using_backend("jax"), pytest.raises(BackendNotCovered):
        run(psgld(m, 1e-3, 2), 20, 2, seed=1)
