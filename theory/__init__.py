"""SG-MCMC theory: sympy derivations and exact numerics, sorted by mathematical object.

    noise/       gradient-noise laws: minibatch sums with and without replacement (``minibatch``, ``subset_moments``),
                 stratified minibatches (``stratified``), variance-reduced estimators (``vr``: Chen et al.'s
                 Gamma, A, B, C, lambda)
    toy/         the 1-D Gaussian toy of Vollmer et al.: constants A, E(B), Var(B) (``constants``), moment
                 recurrences and closed forms (``moments``), one chain numerically (``chain``), exact finite-time
                 moments and time-average MSE (``finite_time``)
    linear_gaussian/  the exact engine: ``exact_law(sampler)`` (also ``chain_for(sampler)``) for every sampler on
                 every model with an affine gradient (mean and covariance at every step, stationary law, stability,
                 time-average MSE, series in h, an mpmath route)
    chains/      each paper's linear-Gaussian chains: their stationary laws are engine calls, with the paper-style
                 closed forms beside them (checked equal to the engine): Gaussian targets (``gaussian_targets``),
                 SGHMC (``sghmc``), linear regression (``linear_regression``), stratified minibatches and CP-SGLD's
                 finite-T bias (``stratified``), time averages under frozen-anchor noise (``chen_mse``, closed
                 forms), the anchor gap of Chen et al.'s Lemma 5/3 (``chen_anchor_gap``)
    weak_order   Vollmer et al. Sections 3-4: operator expansions and the leading invariant-measure bias in 1-D
    grid/        ``grid_law(sampler)``: the law of any sampler on a 1-D or 2-D posterior from its discretised one-step
                 kernel (exact minibatch laws), the first-order bias by quadrature, KSD of exact laws
    bounds/      the papers' bounds and budget calculus: Chen et al. (``chen``), Baker et al. Theorems 1-3 and ZV
                 (``baker``) and Lemmas 1-4 (``baker_lemmas``), Fu & Zhang Theorems 3.1-3.3 (``fu_zhang``), Vollmer
                 et al. Theorem 5.2 and Section 6, Figure 3's cheapest MSE at a cost (``vollmer``)
    printed/     each paper's printed forms, kept apart and checked against the derivations (``vollmer``, with the
                 stationary variance of eq. (9) as printed; ``chen``, ``fu_zhang``)

docs/equation_index/ maps every numbered result of each paper to its function and claim. Module paths of the
previous layout (``theory.baker_noise``, ``theory.toy_finite_time``, ...) still import, with a DeprecationWarning,
for one release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

from . import numeric, weak_order
from .grid import GridLaw, grid_law
from .linear_gaussian import ExactLaw, exact_law
from .toy.chain import ToyChain
from .toy.constants import ToyConstants, toy_constants


def chain_for(sampler, theta0=None, cov0=None) -> ExactLaw:
    """The theory of a simulator sampler: its exact law (:func:`exact_law`: E theta_k, Cov theta_k, the stationary
    law, stability, time-average MSE) for every sampler on a model with an affine gradient, started at
    theta_0 ~ N(theta0, cov0). Vollmer et al.'s closed forms for the 1-D toy (eqs. 14-21: ``stationary_variance``,
    ``bias_theta2``, the constants A, E(B), Var(B)) are :func:`theory.toy.chain.toy_chain` (a :class:`ToyChain`),
    checked equal to the engine in tests/test_linear_gaussian_closed_forms.py."""
    return exact_law(sampler, theta0, cov0)


__all__ = ["ExactLaw", "GridLaw", "ToyChain", "ToyConstants", "chain_for", "exact_law", "grid_law", "numeric",
           "toy_constants", "weak_order"]

#: Module paths of the previous layout -> the modules that now hold their names.
_MOVED = {
    "baker_noise": ("noise.minibatch",),
    "subset_moments": ("noise.subset_moments",),
    "gaussian_toy": ("toy.constants",),
    "toy_moments": ("toy.moments",),
    "toy_chain": ("toy.chain",),
    "toy_finite_time": ("toy.finite_time", "toy.finite_time_sympy", "toy.data_average"),
    "baker_toys": ("chains.gaussian_targets",),
    "sghmc_gaussian": ("chains.sghmc",),
    "baker_theorems": ("chains.linear_regression", "bounds.baker"),
    "stratified": ("noise.stratified", "bounds.fu_zhang", "chains.stratified", "printed.fu_zhang"),
    "chen_gaussian": ("noise.vr", "chains.chen_mse", "printed.chen"),
    "chen_bounds": ("bounds.chen",),
    "vollmer_asymptotics": ("bounds.vollmer",),
    "vollmer_printed": ("printed.vollmer",),
}


class _MovedModule(types.ModuleType):
    """Stands for a module of the old layout: attributes are looked up in the modules that now hold them."""

    def __init__(self, name: str, targets: tuple[str, ...]) -> None:
        super().__init__(name)
        self.__targets = tuple(f"{__name__}.{t}" for t in targets)

    def __getattr__(self, item: str):
        for target in self.__targets:
            mod = importlib.import_module(target)
            if hasattr(mod, item):
                return getattr(mod, item)
        raise AttributeError(f"module {self.__name__!r} (moved to {', '.join(self.__targets)}) has no {item!r}")


def _warn(old: str) -> None:
    new = ", ".join(f"{__name__}.{t}" for t in _MOVED[old])
    warnings.warn(f"{__name__}.{old} moved to {new}; the old path works for this release only", DeprecationWarning,
                  stacklevel=3)


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        head, _, tail = fullname.partition(".")
        if head == __name__ and tail in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return _MovedModule(spec.name, _MOVED[spec.name.partition(".")[2]])

    def exec_module(self, module) -> None:
        _warn(module.__name__.partition(".")[2])


if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
    sys.meta_path.append(_MovedFinder())


def __getattr__(name: str):
    """``theory.toy_finite_time`` and the other old module attributes, with a warning."""
    if name in _MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
