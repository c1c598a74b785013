"""Clustering-based preprocessing (CP) for SG-MCMC: Fu & Zhang (AISTATS 2017); docs/papers/fu_zhang.md.

Three pieces, each usable alone:

* :func:`kmeans_strata` -- k-means (scikit-learn ``KMeans``, Lloyd, seeded, stopped after ``max_iter`` Lloyd
  iterations: the paper's "early termination", Sec. 3.3) giving clusters C_1..C_k of the N data (eq. 9);
  :meth:`Strata.from_labels` for a user-given partition.
* :func:`allocate` -- per-cluster sample sizes b_i: ``"neyman"`` (Theorem 3.2, eq. 14: b_i proportional to
  n_i sqrt(v_i), v_i the within-cluster data variance), ``"proportional"`` (b_i proportional to n_i) or a
  user-given integer vector. Rounding rule (stated here because the paper gives none, docs/papers/fu_zhang.md sec. 2):
  the continuous target is the capped optimum b_i* = clip(lambda w_i, 1, n_i) with lambda such that
  sum_i b_i* = b (for Neyman weights this is the exact minimiser of sum_i n_i^2 v_i / b_i under 1 <= b_i <= n_i,
  the KKT solution; a zero weight w_i = 0 gets b_i = 1, the least that keeps eq. 10 unbiased); then every b_i is
  floored and the b - sum floor(b_i*) remaining units go to the largest fractional parts (ties: lower index).
  The result satisfies 1 <= b_i <= n_i and sum_i b_i = b; b < k or b > N raises ParameterError.
* :class:`Stratified` -- the stratified gradient estimator of eq. (10),
  grad log p(theta) + sum_i (n_i/b_i) sum_{j in B_i} grad log p(x_j | theta), B_i a size-b_i subset of C_i drawn
  independently per cluster, without replacement (Algorithm 1, the default) or with replacement, vectorized over
  chains (one :func:`simulate.estimators.subsample.sample_indices` call per cluster). It follows the estimator
  contract, so it composes with every integrator (:mod:`simulate.samplers`: ``cp_sgld`` (Algorithm 1), ``cp_sghmc``
  (Sec. 4.2) and CP-SGRLD, ``sgrld`` with strata). Its exact noise covariance is
  sum_i (n_i^2/b_i) f_i S_i(theta), S_i the per-datum gradient covariance in cluster i (divisor n_i) and
  f_i = 1 (with replacement, Lemma 3.4) or (n_i - b_i)/(n_i - 1) (without; docs/papers/fu_zhang.md sec. 5).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from ..contracts import Model, StochasticGradientModel
from ..validation import ParameterError, check_finite_array, check_int
from .base import EstimatorBase
from .subsample import sample_indices

ALLOCATIONS = ("neyman", "proportional", "uniform")


@dataclass(frozen=True)
class Strata:
    """A partition of range(N) into k non-empty clusters (eq. 9).

    ``labels`` (N,): cluster of each datum; ``members``: the indices of each cluster (sorted);
    ``within_var`` (k,): v_i = (1/n_i) sum_{j in C_i} ||x_j - mu_i||^2, the paper's V(C_i) (NaN without features);
    ``seconds``: time spent clustering; ``n_iter``: Lloyd iterations run; ``inertia``: sum_i n_i v_i (WCSS).
    """

    labels: np.ndarray
    members: tuple[np.ndarray, ...]
    within_var: np.ndarray
    seconds: float = 0.0
    n_iter: int = 0

    @property
    def k(self) -> int:
        return len(self.members)

    @property
    def n_data(self) -> int:
        return int(self.labels.shape[0])

    @property
    def sizes(self) -> np.ndarray:
        """n_i, shape (k,)."""
        return np.array([m.size for m in self.members], dtype=np.int64)

    @property
    def inertia(self) -> float:
        return float(np.sum(self.sizes * self.within_var))

    @classmethod
    def from_labels(cls, labels, features=None, seconds: float = 0.0, n_iter: int = 0) -> Strata:
        """Strata from cluster labels 0..k-1 (every label must occur); v_i from ``features`` (N, p) if given."""
        lab = np.asarray(labels)
        if lab.ndim != 1 or lab.size == 0 or not np.issubdtype(lab.dtype, np.integer):
            raise ParameterError(f"labels must be a non-empty 1-D integer array, got dtype {lab.dtype}, "
                                 f"shape {lab.shape}")
        k = int(lab.max()) + 1
        if lab.min() < 0:
            raise ParameterError("labels must be >= 0")
        counts = np.bincount(lab, minlength=k)
        if np.any(counts == 0):
            raise ParameterError(f"labels must use every cluster 0..{k - 1}; empty clusters: "
                                 f"{np.flatnonzero(counts == 0).tolist()}")
        order = np.argsort(lab, kind="stable")
        members = tuple(np.split(order, np.cumsum(counts)[:-1]))
        if features is None:
            v = np.full(k, np.nan)
        else:
            F = check_finite_array("features", features, ndim=(1, 2))
            F = F[:, None] if F.ndim == 1 else F
            if F.shape[0] != lab.size:
                raise ParameterError(f"features must have {lab.size} rows to match labels, got {F.shape[0]}")
            v = np.array([within_variance(F[m]) for m in members])
        return cls(lab.astype(np.int64), members, v, seconds, n_iter)

    @classmethod
    def single(cls, n_data: int, features=None) -> Strata:
        """One cluster holding every datum (k = 1: CP reduces to plain SGLD, Fu & Zhang Fig. 1)."""
        return cls.from_labels(np.zeros(check_int("n_data", n_data, 1), dtype=np.int64), features)


def within_variance(F: np.ndarray) -> float:
    """v = (1/n) sum_j ||x_j - mean||^2 of the rows of F (the paper's V(C_i), Theorem 3.2)."""
    c = F - F.mean(axis=0)
    return float(np.einsum("ij,ij->", c, c) / F.shape[0])


def kmeans_strata(features, k: int, *, max_iter: int = 10, seed: int = 0, n_init: int = 1) -> Strata:
    """k-means clusters of the rows of ``features`` (Fu & Zhang Sec. 3.2-3.3, Algorithm 1 line 1).

    scikit-learn ``KMeans(algorithm="lloyd", init="k-means++", tol=0)`` stopped after ``max_iter`` Lloyd
    iterations (early termination, Sec. 3.3; the paper does not give its count), seeded by ``seed``.
    """
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    F = check_finite_array("features", features, ndim=(1, 2))
    F = F[:, None] if F.ndim == 1 else F
    k = check_int("k", k, 1, F.shape[0])
    max_iter = check_int("max_iter", max_iter, 1)
    n_init = check_int("n_init", n_init, 1)
    t0 = time.perf_counter()
    if k == 1:
        labels = np.zeros(F.shape[0], dtype=np.int64)
        n_iter = 0
    else:
        km = KMeans(n_clusters=k, init="k-means++", n_init=n_init, max_iter=max_iter, tol=0.0,
                    random_state=seed, algorithm="lloyd")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            labels = km.fit_predict(F).astype(np.int64)
        n_iter = int(km.n_iter_)
        if np.unique(labels).size < k:
            raise ParameterError(f"k-means found fewer than k = {k} non-empty clusters (too few distinct points); "
                                 "choose a smaller k")
    seconds = time.perf_counter() - t0
    return Strata.from_labels(labels, F, seconds=seconds, n_iter=n_iter)


# ---------------------------------------------------------------------------------------------- allocation


def continuous_allocation(weights, sizes, b: float) -> np.ndarray:
    """Capped proportional allocation b_i* = clip(lambda w_i, 1, n_i) with sum_i b_i* = b (KKT of eq. 14 with bounds).

    Zero weights get b_i* = 1. Requires k <= b <= N.
    """
    w = check_finite_array("weights", weights, ndim=(1,))
    n = np.asarray(sizes, dtype=np.float64)
    if np.any(w < 0):
        raise ParameterError("weights must be >= 0")
    if n.shape != w.shape or np.any(n < 1):
        raise ParameterError(f"sizes must be >= 1 with the shape of weights {w.shape}, got {n.shape}")
    k, N = w.size, float(n.sum())
    if not k <= b <= N:
        raise ParameterError(f"b must satisfy k <= b <= N, i.e. {k} <= b <= {N:g} (every cluster needs b_i >= 1, "
                             f"and b_i <= n_i), got {b}")
    pos = w > 0
    cap = float(np.sum(n[pos]) + np.sum(~pos))
    if b > cap:  # all weighted clusters full: the rest goes to the zero-weight clusters in proportion to n_i
        out = np.where(pos, n, 1.0)
        zero = ~pos
        extra = b - out.sum()
        room = n[zero] - 1.0
        out[zero] += extra * room / room.sum()
        return out

    def total(lam: float) -> float:
        return float(np.where(pos, np.clip(lam * w, 1.0, n), 1.0).sum()) - b

    if total(0.0) >= 0:  # b == k
        return np.ones(k)
    hi = float(np.max(n[pos] / w[pos]))
    lam = brentq(total, 0.0, hi, xtol=1e-14 * hi, rtol=1e-15, maxiter=500)
    out = np.where(pos, np.clip(lam * w, 1.0, n), 1.0)
    return out * (b / out.sum()) if abs(out.sum() - b) > 1e-9 else out


def round_allocation(target, sizes, b: int) -> np.ndarray:
    """Largest-remainder rounding of a continuous allocation with 1 <= target_i <= n_i, sum target = b."""
    t = np.asarray(target, dtype=np.float64)
    n = np.asarray(sizes, dtype=np.int64)
    fl = np.floor(t + 1e-9).astype(np.int64)
    fl = np.clip(fl, 1, n)
    r = int(b - fl.sum())
    if r < 0:
        raise ParameterError("target must sum to b")  # pragma: no cover - guarded by continuous_allocation
    frac = np.where(fl < n, t - fl, -np.inf)
    order = np.lexsort((np.arange(t.size), -frac))
    fl[order[:r]] += 1
    if np.any(fl > n) or fl.sum() != b:
        raise ParameterError("rounding failed: no feasible integer allocation")  # pragma: no cover
    return fl


def allocation_weights(strata: Strata, rule: str) -> np.ndarray:
    """w_i of the continuous allocation: Theorem 3.2 (n_i sqrt(v_i)), proportional (n_i) or uniform (1)."""
    n = strata.sizes.astype(np.float64)
    if rule == "neyman":
        if np.any(np.isnan(strata.within_var)):
            raise ParameterError("allocation='neyman' needs the within-cluster data variances (build the strata "
                                 "with features)")
        return n * np.sqrt(strata.within_var)
    if rule == "proportional":
        return n
    if rule == "uniform":
        return np.ones_like(n)
    raise ParameterError(f"allocation must be one of {ALLOCATIONS} or an integer vector, got {rule!r}")


def allocate(strata: Strata, b: int, rule: str | Sequence[int] = "neyman") -> np.ndarray:
    """Integer per-cluster sample sizes b_i (1 <= b_i <= n_i, sum = b) by ``rule`` (see the module docstring)."""
    n = strata.sizes
    if not isinstance(rule, str):
        bi = np.asarray(rule)
        if bi.shape != (strata.k,) or not np.issubdtype(bi.dtype, np.integer):
            raise ParameterError(f"allocation vector must be {strata.k} integers, got {bi!r}")
        if np.any(bi < 1) or np.any(bi > n):
            raise ParameterError(f"allocation must satisfy 1 <= b_i <= n_i = {n.tolist()}, got {bi.tolist()}")
        if b is not None and int(bi.sum()) != b:
            raise ParameterError(f"allocation must sum to b = {b}, got {int(bi.sum())}")
        return bi.astype(np.int64)
    b = check_int("b", b, 1)
    if not strata.k <= b <= strata.n_data:
        raise ParameterError(f"b must satisfy k <= b <= N, i.e. {strata.k} <= b <= {strata.n_data} (every cluster "
                             f"needs b_i >= 1, and b_i <= n_i), got {b}")
    return round_allocation(continuous_allocation(allocation_weights(strata, rule), n, b), n, b)


# ---------------------------------------------------------------------------------------------- the estimator


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
            local = sample_indices(rng, members.size, bi, n_chains, self.replace)
            out.append(members.take(local))
        return out

    def draws_ahead(self, model: Model) -> bool:
        """False for a model whose gradient consumes random numbers itself (LDA's Gibbs sums)."""
        return not isinstance(model, StochasticGradientModel)

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> StratifiedDraws:
        """The clusters' index sets; for a :class:`simulate.contracts.StochasticGradientModel` also the generator,
        which ``apply`` hands to the model's gradient."""
        sets = self.draw_sets(rng, n_chains)
        return StratifiedDraws(sets, rng if isinstance(model, StochasticGradientModel) else None)

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


__all__ = [
    "ALLOCATIONS", "Strata", "Stratified", "StratifiedDraws", "allocate", "allocation_weights", "continuous_allocation",
    "kmeans_strata", "round_allocation", "stratified_estimator", "within_variance",
]
