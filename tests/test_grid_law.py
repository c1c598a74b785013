"""theory.grid_law: the law of a sampler from its discretised one-step kernel, against the exact engine on
linear-Gaussian models (1e-8), the exact minibatch laws against enumeration, the law registry, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from simulate import GaussianMeanModel, Sampler, euler, msgld, sghmc, sgld, sgld_cv
from simulate.estimators.additive_noise import AdditiveNoise
from simulate.integrators.langevin import Langevin
from simulate.integrators.underdamped import ExplicitEulerSGHMC
from simulate.models.potentials import PotentialModel, quartic, theta
from simulate.validation import ParameterError
from theory import exact_law
from theory.grid import GridRefusal, grid_law
from theory.grid import minibatch as mb
from theory.laws import law_for, law_of, registered

TH = lambda th: th[:, 0]  # noqa: E731
TH2 = lambda th: th[:, 0] ** 2  # noqa: E731


def _toy(N: int = 8) -> GaussianMeanModel:
    return GaussianMeanModel.simulate_data(N, theta_true=1.0, seed=2016)


def _samplers_1d():
    m = _toy()
    h = 0.3 / m.grad_lipschitz
    return {
        "euler": euler(m, h), "sgld": sgld(m, h, 3), "sgld_wr": sgld(m, h, 3, replace=True),
        "msgld": msgld(m, h, 3), "sgld_cv": sgld_cv(m, h, 2, theta_hat=np.array([0.8])),
        "sghmc": sghmc(m, h, 0.3, n=3),
        "sghmc_euler": Sampler(m, sgld(m, h, 3).estimator, ExplicitEulerSGHMC(0.5), 0.2 * h),
    }


@pytest.mark.parametrize("name", ["euler", "sgld", "sgld_wr", "msgld", "sgld_cv",
                                  pytest.param("sghmc", marks=pytest.mark.slow),
                                  pytest.param("sghmc_euler", marks=pytest.mark.slow)])
def test_agrees_with_the_exact_engine_in_1d(name):
    s = _samplers_1d()[name]
    g = grid_law(s, theta0=[0.5], tol=1e-9)
    e = exact_law(s, theta0=[0.5])
    mu, C = e.stationary_moments()
    m, m2 = g.stationary_expectation(TH), g.stationary_expectation(TH2)
    assert abs(m.value - mu[0]) < 1e-8 and abs(m2.value - m.value**2 - C[0, 0]) < 1e-8
    assert m.error < 1e-7
    for k in (1, 3, 12):
        got = g.expectation(TH2, k)
        # explicit-Euler SGHMC's degenerate kernel (no noise on theta) converges more slowly in finite k: within its
        # error estimate (measured: 4e-6 at tol 1e-9, 1.5e-7 at tol 1e-11)
        allowed = max(1e-8, got.error) if name == "sghmc_euler" else 1e-8
        assert abs(got.value - (e.mean(k)[0] ** 2 + e.cov(k)[0, 0])) < allowed, k
    if name in ("sghmc", "sghmc_euler"):
        return  # time averages of the 2-D phase space are checked in the slow test below
    for L, b in ((40, 0), (300, 5), (10**7, 0)):
        ta, te = g.time_average(TH, n_steps=L, burn_in=b), e.time_average([1.0], n_steps=L, burn_in=b)
        assert abs(ta.mean - te.mean) < 1e-8 and abs(ta.variance - te.variance) < 1e-8 * max(1.0, te.variance)
        assert abs(ta.mse - te.mse) < 1e-8


@pytest.mark.slow
def test_sghmc_time_average_agrees_with_the_engine():
    s = _samplers_1d()["sghmc"]
    g, e = grid_law(s, theta0=[0.5], tol=1e-8), exact_law(s, theta0=[0.5])
    ta, te = g.time_average(TH, n_steps=60, burn_in=0), e.time_average([1.0], n_steps=60, burn_in=0)
    assert abs(ta.mse - te.mse) < 1e-8


def test_newton_route_agrees_with_the_engine():
    """N = 30, n = 7 without replacement: C(30, 7) minibatches, too many to enumerate (the power-sum route)."""
    m = _toy(30)
    s = sgld(m, 0.3 / m.grad_lipschitz, 7)
    assert mb.plan(30, 7, False, 1e-11)[0] == "newton"
    g, e = grid_law(s, theta0=[0.4], tol=1e-9), exact_law(s, theta0=[0.4])
    mu, C = e.stationary_moments()
    v = g.stationary_expectation(TH2).value - g.stationary_expectation(TH).value ** 2
    assert abs(v - C[0, 0]) < 1e-9


def test_2d_gaussian_agrees_with_the_engine():
    m = GaussianMeanModel.simulate_data(10, theta_true=np.array([1.0, -1.0]), dim=2, seed=3)
    for s in (euler(m, 0.5 / m.grad_lipschitz), sgld(m, 0.5 / m.grad_lipschitz, 2, replace=True)):
        g, e = grid_law(s, theta0=[0.9, -0.9], tol=1e-6), exact_law(s, theta0=[0.9, -0.9])
        mu, C = e.stationary_moments()
        got = g.stationary_expectation(lambda th: np.stack([th[:, 0], th[:, 1], th[:, 0] * th[:, 1]], 1)).value
        assert np.abs(got[:2] - mu).max() < 1e-8
        assert abs(got[2] - got[0] * got[1] - C[0, 1]) < 1e-8


@pytest.mark.slow
def test_2d_gaussian_finite_k_agrees_with_the_engine():
    m = GaussianMeanModel.simulate_data(10, theta_true=np.array([1.0, -1.0]), dim=2, seed=3)
    s = euler(m, 0.5 / m.grad_lipschitz)
    g, e = grid_law(s, theta0=[0.9, -0.9], tol=1e-6), exact_law(s, theta0=[0.9, -0.9])
    assert abs(g.expectation(lambda th: th[:, 1], 4).value - e.mean(4)[1]) < 1e-8


def _brute_cf(W, n, replace, axes):
    """E exp(i kappa . S) by enumerating every (multi)set."""
    P, N, D = W.shape
    combos = itertools.product(range(N), repeat=n) if replace else itertools.combinations(range(N), n)
    sums = np.array([W[:, list(c)].sum(axis=1) for c in combos]).transpose(1, 0, 2)
    mesh = np.meshgrid(*axes, indexing="ij")
    ph = sum(sums[..., j, None, None] * mesh[j][None, None] for j in range(D))
    return np.exp(1j * ph).mean(axis=1)


@pytest.mark.parametrize("N,n,replace", [(9, 3, False), (9, 7, False), (6, 3, True), (12, 5, False)])
def test_minibatch_cf_against_enumeration(N, n, replace):
    rng = np.random.default_rng(N + n)
    W = rng.normal(size=(2, N, 2))
    axes = (0.7 * np.fft.fftfreq(8, 1 / 8), 0.5 * np.fft.fftfreq(6, 1 / 6))
    cf, bound, _ = mb.minibatch_cf(W, n, replace, axes)
    assert np.abs(cf - _brute_cf(W, n, replace, axes)).max() < 1e-12 + bound
    if not replace:  # the power-sum route: exact at M = n, and within its truncation bound below
        k = min(n, N - n)
        assert np.abs(mb._newton(W, n, k, axes) - cf).max() < 1e-12
        for M in range(1, k):
            assert np.abs(mb._newton(W, n, M, axes) - cf).max() <= mb.truncation_bound(N, k, M) * (1 + 1e-9) + 1e-13


def test_newton_kernel_matches_the_recursion_written_in_numpy():
    """The numba kernel of the power-sum recursion against the same recursion as whole-array numpy (the route it
    replaced), including M < k (a ring buffer of M + 1 terms) and M = k."""
    from simulate._fast import kernels

    rng = np.random.default_rng(7)
    for M, k in ((3, 11), (5, 5), (1, 4)):
        psi = rng.normal(size=(M, 50)) + 1j * rng.normal(size=(M, 50))
        c = mb.recursion_coefficients(40, k, M)
        hist = [np.ones(50, complex)]
        for j in range(1, k + 1):
            hist.append(sum((c[j, m] * psi[m - 1]) * hist[j - m] for m in range(1, min(j, M) + 1)))
        got = kernels.newton_elementary(psi, c, k)
        assert np.abs(got - hist[k]).max() <= 1e-13 * max(1.0, np.abs(hist[k]).max())


def test_minibatch_plan_refuses_what_it_cannot_bound():
    with pytest.raises(ParameterError, match=r"n = 200 of N = 569.*use n <= \d+ or n >= \d+, or replace=True"):
        mb.plan(569, 200, False, 1e-11)
    assert mb.plan(569, 200, True, 1e-11)[0] == "replace"


def test_law_registry():
    classes = {c.__name__ for c in registered("grid")}
    assert {"Minibatch", "FullGradient", "ControlVariate", "AdditiveNoise", "Langevin", "ModifiedLangevin", "SGHMC",
            "ExplicitEulerSGHMC"} <= classes

    class MyIntegrator(Langevin):
        pass

    with pytest.raises(ParameterError, match=r"MyIntegrator: no law registered on route 'grid' \(known on 'grid'"):
        law_of(MyIntegrator(), "grid")
    law_for(MyIntegrator, route="grid")(law_of(Langevin(), "grid"))
    m = _toy()
    s = Sampler(m, sgld(m, 0.01, 2).estimator, MyIntegrator(), 0.01)
    assert abs(grid_law(s, tol=1e-8).stationary_expectation(TH).value
               - exact_law(sgld(m, 0.01, 2)).stationary_mean()[0]) < 1e-8


class _HoledGaussian(PotentialModel):
    """N(0, 1) whose gradient is NaN on (0.2, 0.6): a user's model with a bug."""

    def __init__(self):
        super().__init__(theta**2 / 2)

    def grad_log_post(self, th):
        return np.where((th > 0.2) & (th < 0.6), np.nan, -th)


def test_bad_input():
    m3 = GaussianMeanModel.simulate_data(10, theta_true=np.zeros(3), dim=3, seed=1)
    with pytest.raises(ParameterError, match="dimension.*1 or 2.*d = 3"):
        grid_law(euler(m3, 0.01))
    m = _toy()
    s = sgld(m, 0.3 / m.grad_lipschitz, 3)
    far = grid_law(s, theta0=[40.0], tol=1e-8)
    with pytest.raises(ParameterError, match="theta0 = .* lies outside the grid's region"):
        far.expectation(TH, 3)
    with pytest.raises(ParameterError, match=r"n_grid = \(10,\) is too coarse.*smallest grid that works is") as bad:
        grid_law(s, n_grid=10, tol=1e-9)
    assert not isinstance(bad.value, GridRefusal)  # the user's grid: bad input, not a refusal of the sampler
    with pytest.raises(GridRefusal, match="escapes the grid's region.*reduce h"):
        grid_law(euler(quartic(), 0.6), tol=1e-8)
    with pytest.raises(ParameterError, match=r"n_grid = \(100, 100\) has 10000 nodes; .* at most 6400") as big:
        grid_law(sghmc(m, 0.3 / m.grad_lipschitz, 0.3, n=3), n_grid=100)  # (theta, v): two axes
    assert not isinstance(big.value, GridRefusal)
    with pytest.raises(ParameterError, match="non-finite gradient at theta"):
        grid_law(euler(_HoledGaussian(), 0.05), tol=1e-8)
    with pytest.raises(ParameterError, match="tol must satisfy"):
        grid_law(s, tol=0.0)


def test_additive_noise_potential_agrees_with_the_symbolic_bias():
    """Euler and SGLD with Gaussian gradient noise on the quartic: the quadrature c1 equals theory.weak_order's."""
    from theory import weak_order as wo

    pot = quartic()
    for method, est in (("euler", None), ("sgld", AdditiveNoise(4.0))):
        s = euler(pot, 0.01) if est is None else Sampler(pot, est, Langevin(), 0.01)
        c1 = grid_law(s, tol=1e-10).first_order_coefficient(TH2)
        ref = float(wo.leading_bias_coefficient(pot.U, theta**2, method, 0 if est is None else 1.0, route="numeric"))
        assert abs(c1.value - ref) < 1e-7 * max(1.0, abs(ref)) and math.isfinite(c1.error)


def test_error_estimates_of_the_posterior_cubature_and_of_the_mse():
    """The posterior expectation is a cubature of pi: its error is the two grids' difference (and the mass near the
    edge), not the chain's leak; the MSE's error takes 2 |mean - target| times the target's error, not 2 |mean|.
    Both still bound the actual error against a law to tol 1e-10."""
    from simulate.models.low_dim_logistic import small_logistic_1d

    m = small_logistic_1d()
    s = sgld(m, 0.5 / m.grad_lipschitz, 3)
    law, ref = grid_law(s, np.array([0.3]), tol=1e-4), grid_law(s, np.array([0.3]), tol=1e-10)

    def _x0(x):
        return x[:, 0]

    pe, pe_ref = law.posterior_expectation(_x0), ref.posterior_expectation(_x0)
    assert abs(pe.value - pe_ref.value) <= pe.error < law.fine.leak
    ta, ta_ref = law.time_average(_x0, n_steps=200, burn_in=5), ref.time_average(_x0, n_steps=200, burn_in=5)
    assert abs(ta.mse - ta_ref.mse) <= ta.error[2] < 2 * abs(ta.mean) * law.fine.leak


def test_the_node_limit_and_slow_mixing_are_refusals(monkeypatch):
    """The grid law's two refusals that need large problems, raised on a small one by lowering their limits: the
    node limit (the adaptive grid would need more nodes) and slow mixing (powers of the kernel past J_MAX)."""
    from theory.grid import chain, law

    m = _toy()
    s = sgld(m, 0.3 / m.grad_lipschitz, 3)
    monkeypatch.setattr(law, "MAX_NODES", 12)
    with pytest.raises(GridRefusal, match="the grid law would need .* nodes"):
        grid_law(s, tol=1e-8)
    monkeypatch.undo()
    gl = grid_law(s, tol=1e-8)
    monkeypatch.setattr(chain, "J_MAX", 3)
    with pytest.raises(GridRefusal, match="has not forgotten its start after 3 steps"):
        gl.time_average(TH, n_steps=50, burn_in=2)
