"""The first-order bias by quadrature (theory.grid.bias): the density correction rho of docs/grid_law.md solves its
equation symbolically, and the quadrature agrees with the slope of grid_law and with theory.weak_order."""

from __future__ import annotations

import pytest
import sympy as sp

from simulate import euler, msgld, sgld
from simulate.models.low_dim_logistic import breast_cancer_2d, small_logistic_1d
from simulate.validation import ParameterError
from theory.grid import grid_law
from theory.grid.bias import bias_slope

x, y = sp.symbols("x y", real=True)


def _generator(U, rho, xs):
    """L rho = (1/2) b . grad rho + (1/2) Delta rho, b = -grad U."""
    return sum(-sp.diff(U, v) * sp.diff(rho, v) / 2 + sp.diff(rho, v, 2) / 2 for v in xs)


def _euler_a1_adjoint_over_pi(U, xs):
    """A_1^dagger(pi) / pi for Euler's A_1 phi = (1/8) b^T grad^2 phi b + (1/4) b . grad Delta phi
    + (1/8) Delta^2 phi."""
    pi = sp.exp(-U)
    b = [-sp.diff(U, v) for v in xs]
    lap = lambda e: sum(sp.diff(e, v, 2) for v in xs)  # noqa: E731
    t1 = sum(sp.diff(b[i] * b[j] * pi, xs[i], xs[j]) for i in range(len(xs)) for j in range(len(xs))) / 8
    t2 = -sum(lap(sp.diff(b[i] * pi, xs[i])) for i in range(len(xs))) / 4
    t3 = lap(lap(pi)) / 8
    return sp.simplify((t1 + t2 + t3) / pi)


@pytest.mark.parametrize("U,xs", [(x**4 / 4 + x**2 / 3 - x / 5, (x,)),
                                  (x**4 / 4 + x * y / 3 + y**2 / 2 + y**3 / 7, (x, y))])
def test_euler_density_correction_solves_its_equation(U, xs):
    """rho_E = |grad U|^2/8 - Delta U/4 satisfies L rho_E = -A_1^dagger(pi)/pi (docs/grid_law.md), in 1-D and 2-D."""
    rho = sum(sp.diff(U, v) ** 2 for v in xs) / 8 - sum(sp.diff(U, v, 2) for v in xs) / 4
    assert sp.simplify(_generator(U, rho, xs) + _euler_a1_adjoint_over_pi(U, xs)) == 0


def test_noise_density_correction_solves_its_equation_in_1d():
    """rho_N' = (Sigma U' - Sigma')/4 satisfies L rho_N = -(1/8) (Sigma pi)'' / pi."""
    U, S = x**4 / 4 + x / 3, 1 + x**2 / 2 + sp.sin(x) / 5
    rho_prime = (S * sp.diff(U, x) - sp.diff(S, x)) / 4
    L_rho = -sp.diff(U, x) * rho_prime / 2 + sp.diff(rho_prime, x) / 2
    rhs = -sp.diff(S * sp.exp(-U), x, 2) / (8 * sp.exp(-U))
    assert sp.simplify(L_rho - rhs) == 0


@pytest.mark.slow
def test_quadrature_equals_the_slope_of_the_exact_law_with_minibatch_noise():
    """On the N = 12 logistic regression with n = 3 of 12 (state-dependent, non-Gaussian noise): c1 by quadrature equals
    the h -> 0 slope of grid_law, for SGLD and mSGLD (whose c1 is Euler's)."""
    m = small_logistic_1d()
    L = m.grad_lipschitz
    phi = (lambda t: t[:, 0] ** 2)  # noqa: E731
    c1 = {}
    for name, make in (("euler", lambda h: euler(m, h)), ("sgld", lambda h: sgld(m, h, 3)),
                       ("msgld", lambda h: msgld(m, h, 3))):
        c1[name] = grid_law(make(0.1 / L), tol=1e-10).first_order_coefficient(phi)
        slope = bias_slope(make, phi, [0.01 / L, 0.02 / L, 0.04 / L], tol=1e-11)
        assert abs(slope.value - c1[name].value) < 2e-3 * abs(c1[name].value) + 2 * slope.error, name
    assert abs(c1["msgld"].value - c1["euler"].value) < 1e-8 * abs(c1["euler"].value)
    assert abs(c1["sgld"].value - c1["euler"].value) > 0.01 * abs(c1["euler"].value)


@pytest.mark.slow
def test_2d_cubature_equals_the_slope_of_the_exact_law_on_the_breast_cancer_posterior():
    """2-D: Euler's c1 = Cov_pi(phi, |grad U|^2/8 - Delta U/4) by cubature on the real-data logistic posterior equals
    the h -> 0 slope of grid_law (quadratic extrapolation from h L = 0.1, 0.2, 0.4), for phi = theta_0 and theta_1^2;
    mSGLD's c1 is Euler's; SGLD's 2-D noise term needs a weighted Poisson solve and is refused (the slope is its
    route)."""
    m = breast_cancer_2d()
    L = m.grad_lipschitz
    c1 = []
    for phi in (lambda t: t[:, 0], lambda t: t[:, 1] ** 2):
        c1.append(grid_law(euler(m, 0.1 / L), tol=1e-6).first_order_coefficient(phi))
        slope = bias_slope(lambda h: euler(m, h), phi, [0.1 / L, 0.2 / L, 0.4 / L], tol=1e-6)
        assert abs(slope.value - c1[-1].value) < 1e-3 * abs(c1[-1].value) + 2 * slope.error
    c1_m = grid_law(msgld(m, 0.5 / L, 10, True), tol=1e-3).first_order_coefficient(lambda t: t[:, 0])
    assert abs(c1_m.value - c1[0].value) < 1e-6 * abs(c1[0].value) + c1_m.error + c1[0].error
    with pytest.raises(ParameterError, match="Poisson"):
        grid_law(sgld(m, 0.5 / L, 10, True), tol=1e-3).first_order_coefficient(lambda t: t[:, 0])
