"""Weak-order expansions and the leading invariant-measure bias in 1-D (Vollmer, Zygalakis & Teh 2016, Secs. 3-4).

Target pi(theta) ∝ exp(-U(theta)) on R, with U a sympy expression in :data:`theta`.  Paper notation (Section 4):
f = (1/2) grad log pi = -U'/2, fhat = (1/2) g = f + eps with E eps = 0 and Var fhat = E eps^2 = V(theta), and

    Euler   theta' = theta + h f     + sqrt(h) xi                           (eq. 42)
    SGLD    theta' = theta + h fhat  + sqrt(h) xi                           (eq. 47)
    mSGLD   theta' = theta + h fhat  + sqrt(h) (1 - (h/2) V(theta)) xi      (eq. 51)

(workbench convention theta' = theta + (h/2) g + sqrt(h) xi with g = 2 fhat.)

* :func:`generator` is L = f d/dtheta + (1/2) d^2/dtheta^2 (eq. 25); :func:`one_step_operators` derives
  E[phi(theta_1) | theta_0] = phi + h A_0 phi + h^2 A_1 phi + O(h^3) (eq. 33) by Taylor-expanding phi and taking
  the Gaussian moments of xi and symbolic moments of eps (its third and higher moments drop out at O(h^2)).
* :func:`error_operator` is L^2/2 - A_1; the paper's printed forms (50) and (53) are :func:`eq50_sgld_error_operator`
  and :func:`eq53_msgld_error_operator`.
* :func:`leading_bias_coefficient` gives c1 in lim_K (1/K) sum_k phi(theta_k) - pi(phi) = c1 h + O(h^2)
  (Theorem 3.3 = JMLR Theorem 6, eqs. 40-41), by the Poisson equation (see its docstring for the identity and the
  sign: c1 = -lambda_1 = pi((L^2/2 - A_1) psi) with L psi = phi - pi(phi)).
* :func:`invariant_expectation` computes pi_h(phi) of the discrete chain itself (Gaussian gradient noise) by a
  Nystrom discretisation of its transition kernel: reference values at finite h (new, not in the paper).

Two modules: ``operators`` (the one-step operator expansions and the paper's printed operators, Sections 3-4) and
``bias`` (the leading invariant-measure bias via the Poisson equation, numerically or symbolically).
"""

from ..schemes import METHODS
from .bias import (
    BiasDensity,
    asymptotic_variance,
    bias_density,
    expectation,
    expectation_symbolic,
    invariant_expectation,
    leading_bias_coefficient,
    leading_bias_coefficient_direct,
    poisson_derivative,
    step_variance,
)
from .operators import (
    DiffOp,
    V_fn,
    drift,
    eq43_euler_A1,
    eq49_sgld_A1,
    eq50_sgld_error_operator,
    eq52_msgld_A1,
    eq53_msgld_error_operator,
    error_operator,
    f_fn,
    generator,
    generator_squared,
    noise_moment,
    noise_scale_squared,
    one_step_operators,
    one_step_series,
    phi_fn,
    pi_phi,
    printed_error_operator,
    substitute,
    theta,
)

__all__ = [
    "BiasDensity", "DiffOp", "METHODS", "V_fn", "asymptotic_variance", "bias_density", "drift", "eq43_euler_A1",
    "eq49_sgld_A1", "eq50_sgld_error_operator", "eq52_msgld_A1", "eq53_msgld_error_operator", "error_operator",
    "expectation", "expectation_symbolic", "f_fn", "generator", "generator_squared", "invariant_expectation",
    "leading_bias_coefficient", "leading_bias_coefficient_direct", "noise_moment", "noise_scale_squared",
    "one_step_operators", "one_step_series", "phi_fn", "pi_phi", "poisson_derivative", "printed_error_operator",
    "step_variance", "substitute", "theta",
]
