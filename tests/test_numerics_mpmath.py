"""Float64 evaluations of the closed forms agree with mpmath at 50 digits to 1e-10 relative over the documented
ranges: r = A h from 1e-8 up to 2 - 1e-5 (the stability edge is r = 2), chain lengths up to 1e9 (cancellation in
1 - rho^L). The mpmath reference evaluates the same closed form on the same float inputs, so only the float64
evaluation is tested."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

import theory.toy.finite_time as tft
from theory.chains import chen_mse
from theory.noise import vr as vr_noise
from theory.numeric import lambdify_toy
from theory.schemes import METHODS
from theory.toy import moments as tm
from theory.toy.chain import ToyChain
from theory.toy.constants import ToyConstants

RTOL = 1e-10
R_GRID = (1e-8, 1e-5, 1e-2, 0.3, 1.0, 1.7, 1.999, 2 - 1e-5)
K_GRID = (0, 1, 2, 3, 10, 1000, 10**6, 10**9)
A_V, EB_V = 500.5, 520.0
VB_GRID = (0.0, 2.4e3, 2.4e5)


def _rel(x: float, ref) -> float:
    ref = float(ref)
    return abs(x - ref) / abs(ref) if ref != 0 else abs(x)


def _mp(f, *args):
    with mpmath.workdps(50):
        return f(*[mpmath.mpf(a) for a in args])


@pytest.mark.parametrize("method", METHODS)
def test_toy_moments_stationary_forms_lambdified(method):
    worst = 0.0
    for name in ("toy_stationary_mean", "stationary_variance", "asymptotic_bias_theta2", "excess_over_euler"):
        e = getattr(tm, name)(method)
        f, g = lambdify_toy(e), lambdify_toy(e, "mpmath")
        for r, vb in itertools.product(R_GRID, VB_GRID):
            args = (A_V, EB_V, vb, r / A_V, 0, 0.0, 0.0)
            ref = _mp(g, *args)
            if float(ref) == 0.0:  # e.g. the excess over Euler of Euler itself
                assert float(f(*args)) == 0.0
                continue
            worst = max(worst, _rel(float(f(*args)), ref))
    assert worst < RTOL, worst


@pytest.mark.parametrize("method", METHODS)
def test_toy_chain_finite_k_moments_up_to_1e9_steps(method):
    gm, gv = lambdify_toy(tm.mean_at_step(method), "mpmath"), lambdify_toy(tm.variance_at_step(method), "mpmath")
    worst = 0.0
    for r, vb in itertools.product(R_GRID, VB_GRID):
        h = r / A_V
        ch = ToyChain(method, ToyConstants(A=A_V, EB=EB_V, VB=vb, N=1000, n=10, replace=False), h)
        for k, (m0, v0) in itertools.product(K_GRID, ((0.3, 0.0), (-2.0, 0.01))):
            worst = max(worst, _rel(float(ch.mean(k, m0)), _mp(gm, A_V, EB_V, vb, h, k, m0, v0)))
            worst = max(worst, _rel(float(ch.variance(k, v0)), _mp(gv, A_V, EB_V, vb, h, k, m0, v0)))
    assert worst < RTOL, worst


def test_toy_chain_vectorized_over_k_matches_scalar():
    ch = ToyChain("sgld", ToyConstants(A=A_V, EB=EB_V, VB=2.4e3, N=1000, n=10, replace=False), 1.5 / A_V)
    ks = np.array(K_GRID, dtype=float)
    np.testing.assert_array_equal(ch.variance(ks, 0.01), [float(ch.variance(k, 0.01)) for k in ks])
    np.testing.assert_array_equal(ch.mean(ks, 0.3), [float(ch.mean(k, 0.3)) for k in ks])


GD = vr_noise.GaussianData.of(1.0 + np.random.default_rng(0).standard_normal(1000))


def _sgld_mse_ref(h: float, L: int, n: int, theta0: float) -> float:
    """docs/papers/chen.md sec. 5: closed form of the SGLD MSE (phi = theta) in mpmath at 50 digits, on the same float
    inputs."""
    V = vr_noise.sgld_noise_variance(GD, n, False)
    with mpmath.workdps(50):
        x = mpmath.mpf(h) * mpmath.mpf(GD.P) / 2
        rho, hh, q = 1 - x, mpmath.mpf(h), L - 1
        e0 = mpmath.mpf(float(theta0) - float(GD.mu[0]))
        bias = e0 * (1 - rho**L) / (x * L)
        sw2 = (q - 2 * rho * (1 - rho**q) / x + rho**2 * (1 - rho ** (2 * q)) / (1 - rho**2)) / x**2
        return bias**2 + (hh + hh * hh / 4 * mpmath.mpf(V)) * sw2 / mpmath.mpf(L) ** 2


@pytest.mark.parametrize("r", (1e-9,) + R_GRID)
def test_chen_sgld_mse_closed_form_up_to_L_1e9(r):
    h = r * 4 / GD.P / 2  # r = h P / 2 = 1 - rho in (0, 2)
    worst = max(_rel(chen_mse.mse_theta_sgld(GD, h, L, 10, theta0=0.3), _sgld_mse_ref(h, L, 10, 0.3))
                for L in (1, 2, 3, 10, 1000, 10**6, 10**9))
    assert worst < RTOL, worst


@pytest.mark.parametrize("r", (1e-8, 1e-3, 1.0, 2 - 1e-5))
def test_chen_mse_theta_sum_form(r):
    """The O(L) form (any epoch length) against the same sums in mpmath; epoch 1 equals the closed form."""
    h, L, V = r * 2 / GD.P, 2000, 3.7e4
    with mpmath.workdps(50):
        x = mpmath.mpf(h) * mpmath.mpf(GD.P) / 2
        rho, hh = 1 - x, mpmath.mpf(h)
        e0 = mpmath.mpf(0.3 - float(GD.mu[0]))
        w = [(1 - rho ** (L - 1 - j)) / x for j in range(L - 1)]
        for epoch in (1, 7):
            s_ep = [mpmath.fsum(w[i:i + epoch]) for i in range(0, L - 1, epoch)]
            ref = (e0 * (1 - rho**L) / (x * L)) ** 2 + (hh * mpmath.fsum(v * v for v in w)
                                                       + hh * hh / 4 * V * mpmath.fsum(s * s for s in s_ep)) / L**2
            assert _rel(chen_mse.mse_theta(GD, h, L, V, epoch, theta0=0.3), ref) < RTOL
    n = 10
    Vn = vr_noise.sgld_noise_variance(GD, n, False)
    assert _rel(chen_mse.mse_theta(GD, h, L, Vn, 1, 0.3), chen_mse.mse_theta_sgld(GD, h, L, n, theta0=0.3)) < RTOL


@pytest.mark.parametrize("method,r", [("sgld", 1e-6), ("sgld", 0.5), ("msgld", 1.99), ("euler", 2 - 1e-5)])
def test_toy_finite_time_default_precision_is_enough_up_to_1e9(method, r):
    """toy_finite_time evaluates in mpmath at dps = 60: its float values agree with a 150-digit evaluation."""
    x = np.random.default_rng(3).exponential(size=20)
    lo = tft.toy_finite_time(method, x, 3, r=r, theta0=0.7)
    hi = tft.toy_finite_time(method, x, 3, r=r, theta0=0.7, dps=150)
    for M in (1, 2, 10, 1000, 10**6, 10**9):
        for q in ("mse1", "mse2", "ere"):
            a, b = float(lo.evaluate(q, M)), hi.evaluate(q, M)
            assert _rel(a, b) < RTOL, (q, M, a, b)
