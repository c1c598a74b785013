"""The stratified gradient estimator of Fu & Zhang (AISTATS 2017), eq. (10), for clustering-based preprocessing.

:class:`Stratified`: grad log p(theta) + sum_i (n_i/b_i) sum_{j in B_i} grad log p(x_j | theta), B_i a size-b_i
subset of cluster C_i (:class:`simulate.estimators.strata.Strata`) drawn independently per cluster, without
replacement (Algorithm 1, the default) or with replacement, vectorized over chains (one
:func:`simulate.estimators.subsample.sample_indices` call per cluster). It follows the estimator contract, so it
composes with every integrator (:mod:`simulate.samplers`: ``cp_sgld`` (Algorithm 1), ``cp_sghmc`` (Sec. 4.2) and
CP-SGRLD, ``sgrld`` with strata). Its exact noise covariance is sum_i (n_i^2/b_i) f_i S_i(theta), S_i the per-datum
gradient covariance in cluster i (divisor n_i) and f_i = 1 (with replacement, Lemma 3.4) or (n_i - b_i)/(n_i - 1)
(without). :func:`stratified_estimator` takes the b_i from :func:`simulate.estimators.allocation.allocate`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..contracts import Model, StochasticGradientModel
from ..validation import ParameterError, check_int
from .allocation import allocate
from .base import EstimatorBase
from .strata import Strata
from .subsample import index_support, relabel, sample_indices


class StratifiedDraws(NamedTuple):
    """One step's index sets B_i ((b_i, M) each) and, for a model whose gradient draws itself, the generator."""

    sets: list[np.ndarray]
    rng: np.random.Generator | None


@dataclass(frozen=True)
class Stratified(EstimatorBase):
    """Fu & Zhang eq. (10): grad log p(theta) + sum_i (n_i/b_i) sum_{j in B_i} grad log p(x_j | theta).

    ``sizes`` are the b_i; B_i is drawn without replacement inside C_i (Algorithm 1) unless ``replace=True``.
    """

    strata: Strata
    sizes: tuple[int, ...]
    replace: bool = False

    name = "stratified"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes", tuple(int(s) for s in self.sizes))
        if len(self.sizes) != self.strata.k:
            raise ParameterError(f"sizes must have k = {self.strata.k} entries, got {len(self.sizes)}")
        if self.replace is not True and self.replace is not False:
            raise ParameterError(f"replace must be True or False, got {self.replace!r}")
        n = self.strata.sizes
        for i, s in enumerate(self.sizes):
            check_int(f"sizes[{i}]", s, 1, None if self.replace else int(n[i]))

    @property
    def b(self) -> int:
        return int(sum(self.sizes))

    def check(self, model: Model) -> None:
        if model.n_data != self.strata.n_data:
            raise ParameterError(f"strata cover N = {self.strata.n_data} data but the model has {model.n_data}")

    def weights(self) -> np.ndarray:
        """The multipliers n_i / b_i of eq. (10), shape (k,)."""
        return self.strata.sizes / np.asarray(self.sizes, dtype=np.float64)

    def draw_sets(self, rng: np.random.Generator, n_chains: int) -> list[np.ndarray]:
        """Global indices of B_i, one (b_i, M) array per cluster (drawn cluster by cluster)."""
        out = []
        for members, bi in zip(self.strata.members, self.sizes, strict=True):
            out.append(relabel(members, sample_indices(rng, members.size, bi, n_chains, self.replace)))
        return out

    def draws_ahead(self, model: Model) -> bool:
        """False for a model whose gradient consumes random numbers itself (LDA's Gibbs sums)."""
        return not isinstance(model, StochasticGradientModel)

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> StratifiedDraws:
        """The clusters' index sets; for a :class:`simulate.contracts.StochasticGradientModel` also the generator,
        which ``apply`` hands to the model's gradient."""
        sets = self.draw_sets(rng, n_chains)
        return StratifiedDraws(sets, rng if isinstance(model, StochasticGradientModel) else None)

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[StratifiedDraws, float]]:
        """Every value :meth:`draw` can return (index sets the same for all M chains), with its probability: the
        product over clusters of each cluster's minibatches (independent draws)."""
        if isinstance(model, StochasticGradientModel):
            raise ParameterError(f"{type(model).__name__} draws random numbers inside its gradient: its estimates "
                                 "cannot be enumerated")
        per = [[(members.take(t), p) for t, p in index_support(members.size, bi, self.replace, n_chains)]
               for members, bi in zip(self.strata.members, self.sizes, strict=True)]
        return [(StratifiedDraws([c[0] for c in combo], None), float(np.prod([c[1] for c in combo])))
                for combo in itertools.product(*per)]

    def apply(self, model: Model, theta: np.ndarray, state, draws: StratifiedDraws):
        """Eq. (10) on this step's index sets."""
        return self.combine(model, theta, draws.sets, draws.rng), state

    def combine(self, model: Model, theta: np.ndarray, draws: Sequence[np.ndarray], rng=None) -> np.ndarray:
        """Eq. (10) for given index sets (the deterministic part; used by exact enumeration too)."""
        w = self.weights()
        if isinstance(model, StochasticGradientModel):  # one pass over all clusters' data (one Gibbs pass for LDA)
            rows = np.repeat(w[:len(draws)], [d.shape[0] for d in draws])
            g = model.grad_log_lik_weighted_sum(theta, np.concatenate(list(draws), axis=0), rows, rng)
            g += model.grad_log_prior(theta)
            return g
        g = None
        for i, idx in enumerate(draws):
            s = model.grad_log_lik_sum(theta, idx)
            s *= w[i]
            if g is None:
                g = s
            else:
                g += s
        g += model.grad_log_prior(theta)
        return g

    def finite_population_factors(self) -> np.ndarray:
        """f_i = 1 with replacement, (n_i - b_i)/(n_i - 1) without (0 for n_i = 1)."""
        n = self.strata.sizes.astype(np.float64)
        if self.replace:
            return np.ones_like(n)
        bi = np.asarray(self.sizes, dtype=np.float64)
        return np.where(n > 1, (n - bi) / np.maximum(n - 1, 1), 0.0)

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """Exact Cov of the estimate given theta: sum_i (n_i^2/b_i) f_i S_i(theta), (M, d, d) or (d, d)."""
        if isinstance(model, StochasticGradientModel):
            raise ParameterError(f"{type(model).__name__}: the Gibbs-estimated gradient has no closed-form covariance")
        const = theta is None
        if const:
            if not model.grad_cov_is_constant:
                raise ParameterError("theta is required: this model's gradient covariance depends on theta")
            theta = np.zeros((1, model.dim))
        theta = np.asarray(theta, dtype=np.float64)
        n = self.strata.sizes
        coef = n * n / np.asarray(self.sizes, dtype=np.float64) * self.finite_population_factors()
        cov = np.zeros((theta.shape[0], model.dim, model.dim))
        for members, c in zip(self.strata.members, coef, strict=True):
            if c == 0.0:
                continue
            idx = np.broadcast_to(members[:, None], (members.size, theta.shape[0]))
            g = model.grad_log_lik(theta, idx)
            g = g - g.mean(axis=0)
            cov += np.einsum("nmi,nmj->mij", g, g) * (c / members.size)
        return cov[0] if const else cov

    def grads_per_step(self, model: Model) -> float:
        return float(self.b)


def stratified_estimator(strata: Strata, b: int, allocation: str | Sequence[int] = "neyman",
                         replace: bool = False) -> Stratified:
    """The eq. (10) estimator with b_i from :func:`allocate`."""
    return Stratified(strata, tuple(allocate(strata, b, allocation).tolist()), replace)


__all__ = ["Stratified", "StratifiedDraws", "stratified_estimator"]
