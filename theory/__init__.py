"""SG-MCMC theory: sympy derivations and exact numerics, sorted by mathematical object.

    noise/       gradient-noise laws: minibatch sums with and without replacement (``minibatch``, ``subset_moments``),
                 stratified minibatches (``stratified``), variance-reduced estimators (``vr``: Chen et al.'s
                 Gamma, A, B, C, lambda)
    toy/         the 1-D Gaussian toy of Vollmer et al.: constants A, E(B), Var(B) (``constants``), moment
                 recurrences and closed forms (``moments``), one chain numerically (``chain``), exact finite-time
                 moments and time-average MSE (``finite_time``)
    linear_gaussian/  the exact engine: ``exact_law(sampler)`` for every sampler on every model with an
                 affine gradient (mean and covariance at every step, stationary law, stability, time-average MSE,
                 series in h, an mpmath route)
    chains/      each paper's linear-Gaussian chains (their stationary laws are the engine's,
                 ``exact_law(sampler).stationary_cov()``): a chain with a theta-free gradient noise as a sampler
                 (``additive_noise``), SGHMC's 1-D closed form (``sghmc``, sympy), linear regression's gradient-noise
                 parts and ULA's closed form (``linear_regression``), CP-SGLD's finite-T bias (``stratified``), time
                 averages under frozen-anchor noise (``chen_mse``, closed forms), the anchor gap of Chen et al.'s
                 Lemma 5/3 (``chen_anchor_gap``)
    weak_order   Vollmer et al. Sections 3-4: operator expansions and the leading invariant-measure bias in 1-D
    grid/        ``grid_law(sampler)``: the law of any sampler on a 1-D or 2-D posterior from its discretised one-step
                 kernel (exact minibatch laws), the first-order bias by quadrature, KSD of exact laws
    bounds/      the papers' bounds and budget calculus: Chen et al. (``chen``), Baker et al. Theorems 1-3 and ZV
                 (``baker``) and Lemmas 1-4 (``baker_lemmas``), Fu & Zhang Theorems 3.1-3.3 (``fu_zhang``), Vollmer
                 et al. Theorem 5.2 and Section 6, Figure 3's cheapest MSE at a cost (``vollmer``)
    printed/     each paper's printed forms, kept apart and checked against the derivations (``vollmer``, with the
                 stationary variance of eq. (9) as printed; ``chen``, ``fu_zhang``)

docs/equation_index/ maps every numbered result of each paper to its function and claim.
"""

from __future__ import annotations

from . import numeric, weak_order
from .grid import GridLaw, grid_law
from .laws import law_for, law_of, no_law, registered
from .linear_gaussian import ExactLaw, check_stable, exact_law
from .toy.chain import ToyChain
from .toy.constants import ToyConstants, toy_constants

__all__ = ["ExactLaw", "GridLaw", "ToyChain", "ToyConstants", "check_stable", "exact_law", "grid_law", "law_for",
           "law_of", "no_law", "numeric", "registered", "toy_constants", "weak_order"]
