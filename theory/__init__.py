"""Symbolic SG-MCMC theory (sympy), with numpy/mpmath evaluation.

Modules:
  gaussian_toy     constants A, E(B), Var(B) of the 1-D Gaussian toy model (Vollmer et al. eqs. 11-16)
  toy_moments      exact mean/variance recurrences, closed forms in k, stationary moments, h-series, stability
  vollmer_printed  the paper's printed closed forms (eqs. 17-21), kept separate for cross-checks
  toy_chain        numeric theory of one chain, also read off a simulate sampler
"""

from . import gaussian_toy, numeric, toy_chain, toy_moments, vollmer_printed
from .gaussian_toy import ToyConstants, toy_constants
from .toy_chain import ToyChain
from .toy_chain import toy_chain as chain_for

__all__ = [
    "ToyChain", "ToyConstants", "chain_for", "gaussian_toy", "numeric", "toy_chain", "toy_constants",
    "toy_moments", "vollmer_printed",
]

# weak-order expansions and the leading invariant-measure bias in 1-D (Vollmer et al. Sections 3-4)
from . import weak_order  # noqa: E402

__all__ += ["weak_order"]
