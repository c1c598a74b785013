"""Sympy symbols shared by the toy-model derivations (Vollmer, Zygalakis & Teh 2016, Section 2)."""

import sympy as sp

h = sp.Symbol("h", positive=True)  #: step size (workbench convention: drift h/2 grad log pi, noise N(0, h))
A = sp.Symbol("A", positive=True)  #: (1/2)(1/sigma0^2 + N/sigma_x^2), eq. (15)
EB = sp.Symbol("E_B", real=True)  #: E(B) = sum_i x_i / (2 sigma_x^2)
VB = sp.Symbol("V_B", nonnegative=True)  #: Var(B), eq. (16)
k = sp.Symbol("k", integer=True, nonnegative=True)  #: step index
m0 = sp.Symbol("m_0", real=True)  #: E theta_0
v0 = sp.Symbol("v_0", nonnegative=True)  #: Var theta_0
N = sp.Symbol("N", positive=True, integer=True)  #: data-set size
n = sp.Symbol("n", positive=True, integer=True)  #: minibatch size
var_x = sp.Symbol("VarX", nonnegative=True)  #: unbiased empirical variance of x_1..x_N
sigma_x = sp.Symbol("sigma_x", positive=True)
sigma0 = sp.Symbol("sigma_0", positive=True)
