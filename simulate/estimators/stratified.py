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
    """One step's index sets B_i ((b_i, M) each) and, for a model whose gradient draws itself, the generator.

    Parameters
    ----------
    sets : list of numpy.ndarray
        The global indices of each B_i, (b_i, M).
    rng : numpy.random.Generator or None
        The generator, for a model whose gradient draws itself; else None.
    """

    sets: list[np.ndarray]
    rng: np.random.Generator | None


@dataclass(frozen=True)
class Stratified(EstimatorBase):
    """Fu & Zhang eq. (10): grad log p(theta) + sum_i (n_i/b_i) sum_{j in B_i} grad log p(x_j | theta).

    ``sizes`` are the b_i; B_i is drawn without replacement inside C_i (Algorithm 1) unless ``replace=True``.

    Parameters
    ----------
    strata : Strata
        The clusters C_i.
    sizes : tuple of int
        b_i, one per cluster, 1 <= b_i (<= n_i without replacement).
    replace : bool, default False
        Draw each B_i with replacement.

    Raises
    ------
    ParameterError
        For sizes of another length or out of range, or a replace that is not a bool.

    References
    ----------
    Fu & Zhang (2017), eq. (10), Algorithm 1 and Lemma 3.4.
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
        """Check that the strata cover the model's N data.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When the strata's N is not the model's.
        """
        if model.n_data != self.strata.n_data:
            raise ParameterError(f"strata cover N = {self.strata.n_data} data but the model has {model.n_data}")

    def weights(self) -> np.ndarray:
        """The multipliers n_i / b_i of eq. (10), shape (k,).

        Returns
        -------
        numpy.ndarray, shape (k,)
            n_i / b_i.
        """
        return self.strata.sizes / np.asarray(self.sizes, dtype=np.float64)

    def draw_sets(self, rng: np.random.Generator, n_chains: int) -> list[np.ndarray]:
        """Global indices of B_i, one (b_i, M) array per cluster (drawn cluster by cluster).

        Parameters
        ----------
        rng : numpy.random.Generator
            The stream (advanced).
        n_chains : int
            M, the number of chains.

        Returns
        -------
        list of numpy.ndarray
            One (b_i, M) array of global indices per cluster.
        """
        out = []
        for members, bi in zip(self.strata.members, self.sizes, strict=True):
            out.append(relabel(members, sample_indices(rng, members.size, bi, n_chains, self.replace)))
        return out

    def draws_ahead(self, model: Model) -> bool:
        """False for a model whose gradient consumes random numbers itself (LDA's Gibbs sums).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
            Whether :meth:`draw` depends on the step number only (not on theta or the state).
        """
        return not isinstance(model, StochasticGradientModel)

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> StratifiedDraws:
        """The clusters' index sets; for a :class:`simulate.contracts.StochasticGradientModel` also the generator,
        which ``apply`` hands to the model's gradient.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        StratifiedDraws
            The index sets (and the generator, for a stochastic-gradient model).
        """
        sets = self.draw_sets(rng, n_chains)
        return StratifiedDraws(sets, rng if isinstance(model, StochasticGradientModel) else None)

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[StratifiedDraws, float]]:
        """Every value :meth:`draw` can return (index sets the same for all M chains), with its probability: the
        product over clusters of each cluster's minibatches (independent draws).

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).

        Returns
        -------
        list of (object, float)
            (draw, probability) pairs, the same for all chains; the probabilities sum to 1.

        Raises
        ------
        ParameterError
            For a model that draws inside its gradient.
        """
        if isinstance(model, StochasticGradientModel):
            raise ParameterError(f"{type(model).__name__} draws random numbers inside its gradient: its estimates "
                                 "cannot be enumerated")
        per = [[(members.take(t), p) for t, p in index_support(members.size, bi, self.replace, n_chains)]
               for members, bi in zip(self.strata.members, self.sizes, strict=True)]
        return [(StratifiedDraws([c[0] for c in combo], None), float(np.prod([c[1] for c in combo])))
                for combo in itertools.product(*per)]

    def apply(self, model: Model, theta: np.ndarray, state, draws: StratifiedDraws):
        """Eq. (10) on this step's index sets.

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : object
            The estimator's state.
        draws : StratifiedDraws
            This step's draws, from :meth:`draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate of grad log posterior at theta.
        state : object
            The new state.

        References
        ----------
        Fu & Zhang (2017), eq. (10).
        """
        return self.combine(model, theta, draws.sets, draws.rng), state

    def combine(self, model: Model, theta: np.ndarray, draws: Sequence[np.ndarray], rng=None) -> np.ndarray:
        """Eq. (10) for given index sets (the deterministic part; used by exact enumeration too).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        draws : sequence of numpy.ndarray
            The index sets B_i, (b_i, M) each.
        rng : numpy.random.Generator, optional
            For a model that draws inside its gradient.

        Returns
        -------
        numpy.ndarray, shape (M, d)
            The estimate.

        References
        ----------
        Fu & Zhang (2017), eq. (10).
        """
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
        """f_i = 1 with replacement, (n_i - b_i)/(n_i - 1) without (0 for n_i = 1).

        Returns
        -------
        numpy.ndarray, shape (k,)
            f_i.

        References
        ----------
        Fu & Zhang (2017), Lemma 3.4 (with replacement); the factor without replacement is the standard one (Cochran
        1977, Thm. 2.2).
        """
        n = self.strata.sizes.astype(np.float64)
        if self.replace:
            return np.ones_like(n)
        bi = np.asarray(self.sizes, dtype=np.float64)
        return np.where(n > 1, (n - bi) / np.maximum(n - 1, 1), 0.0)

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """Exact Cov of the estimate given theta: sum_i (n_i^2/b_i) f_i S_i(theta), (M, d, d) or (d, d).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d), optional
            The points; None where the covariance does not depend on theta.

        Returns
        -------
        numpy.ndarray
            (M, d, d), or (d, d) without theta.

        Raises
        ------
        ParameterError
            For a model that draws inside its gradient, or no theta where the covariance depends on it.

        References
        ----------
        Fu & Zhang (2017), Lemma 3.4 (with replacement); without replacement new.
        """
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
    """The eq. (10) estimator with b_i from :func:`allocate`.

    Parameters
    ----------
    strata : Strata
        The clusters.
    b : int
        The total sample size, k <= b <= N.
    allocation : str or sequence of int, default "neyman"
        The rule of :func:`allocate`, or the b_i.
    replace : bool, default False
        Draw each B_i with replacement.

    Returns
    -------
    Stratified
        The estimator.

    Raises
    ------
    ParameterError
        For an invalid allocation.

    References
    ----------
    Fu & Zhang (2017), eq. (10) and Theorem 3.2.
    """
    return Stratified(strata, tuple(allocate(strata, b, allocation).tolist()), replace)


__all__ = ["Stratified", "StratifiedDraws", "stratified_estimator"]
