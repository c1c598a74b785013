"""Symbolic SG-MCMC theory (sympy), with numpy/mpmath evaluation.

Modules:
  chen_bounds         Chen et al. (vrSG-MCMC): Lemma 1 / Theorem 3 bounds, budget calculus, Corollary 4 regimes
  chen_gaussian       Chen et al. on the Gaussian mean model: Gamma, A, lambda, B, C; exact finite-L MSE of SGLD/vrSGLD
  gaussian_toy        constants A, E(B), Var(B) of the 1-D Gaussian toy model (Vollmer et al. eqs. 11-16)
  toy_moments         exact mean/variance recurrences, closed forms in k, stationary moments, h-series, stability
  vollmer_printed     the paper's printed closed forms (eqs. 17-21), kept separate for cross-checks
  toy_chain           numeric theory of one chain, also read off a simulate sampler
  subset_moments      exact moments of minibatch sums, with and without replacement (App. 10.1)
  toy_finite_time     exact finite-time moments, MSE of time averages, ERE; closed forms in M (eq. 22, App. 10)
  vollmer_asymptotics Theorem 5.2 constants, MSE-optimal step, Section 6 cost and large-N scalings
  weak_order          Sections 3-4: one-step operator expansions and the leading invariant-measure bias in 1-D
  baker_noise         Baker et al.: exact gradient-noise covariances of SGLD, SGLD-CV, SAGA, SVRG; N-scaling
  baker_theorems      Baker et al.: stationary covariances on linear regression, Theorems 1-3
  baker_toys          Baker et al. Sec. 3: exact SGLD/SGHMC laws on the Gaussian toy (momentum refreshes included)
  sghmc_gaussian      SGHMC (Chen et al. 2014 eq. 15) on Gaussian targets: exact stationary law, small-step series
  stratified          Fu & Zhang: Lemmas 3.2-3.4, Theorems 3.1-3.2, stationary laws under stratified minibatches
"""

from . import (
    baker_noise,
    baker_theorems,
    baker_toys,
    chen_bounds,
    chen_gaussian,
    gaussian_toy,
    numeric,
    sghmc_gaussian,
    stratified,
    subset_moments,
    toy_chain,
    toy_finite_time,
    toy_moments,
    vollmer_asymptotics,
    vollmer_printed,
    weak_order,
)
from .gaussian_toy import ToyConstants, toy_constants
from .linear_gaussian import exact_law as exact_law  # the exact engine on affine models
from .toy_chain import ToyChain
from .toy_chain import toy_chain as chain_for

__all__ = [
    "ToyChain", "ToyConstants", "baker_noise", "baker_theorems", "baker_toys", "chain_for", "chen_bounds",
    "chen_gaussian", "gaussian_toy", "numeric", "sghmc_gaussian", "stratified", "subset_moments", "toy_chain",
    "toy_constants", "toy_finite_time", "toy_moments", "vollmer_asymptotics", "vollmer_printed", "weak_order",
]
