"""What a published non-asymptotic bound is, for the atlas: the constants it reads, where each was read, and the
bound itself as a function of the constants (:class:`Bound`).

Conventions. The workbench writes every Langevin step as theta' = theta + (h/2) g + sqrt(h) xi (README); the papers
of this package write the same step as theta' = theta - gamma grad f(theta) + sqrt(2 gamma) xi with f = -log pi, so
their step is ``step = h / 2`` (:attr:`Constants.step`). Underdamped Langevin MCMC (:mod:`simulate.integrators.ulmc`)
uses the time step delta = h itself. m and M are the smallest and largest eigenvalues of the Hessian of f (the
posterior precision of a linear-Gaussian model), p the dimension.

Provenance: each constant of a bound carries a :class:`Source`: ``status`` "paper" (read from a copy of the paper's
text; the place is named), "secondary" (another implementation or restatement of the same formula agrees; the
copy is named, and the constant is still *unconfirmed* against the paper) or "memory" (no copy of the paper's text
could be read; *unconfirmed*). A bound whose constants are not all "paper" is labelled "unconfirmed" in the atlas,
and no erratum is registered on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from simulate.validation import ParameterError

#: The distances a bound may bound; "w2_joint" is W2 between the joint laws of (x, v) of an underdamped chain.
METRICS = ("tv", "w2", "kl", "w2_joint")
#: The samplers of the atlas (:mod:`theory.atlas.samplers` builds each from a problem, h and n).
BOUND_SAMPLERS = ("ula", "sgld", "sgld_cv", "svrgld", "saga_ld", "ulmc", "cv_uld")
#: The laws a bound may bound: the last iterate nu_K, or the average (1/K) sum_{k=1}^K nu_k of the iterates' laws.
LAWS = ("last iterate", "average of iterates 1..K")
#: Starts: "warm" N(x*, I/M) (Dalalyan 2017's), "offset" N(x* + Delta, I/M), "point" the point x* + Delta
#: (momentum 0 for underdamped chains); Delta = 3 posterior standard deviations in every eigen-direction.
STARTS = ("warm", "offset", "point")
#: Provenance statuses (module docstring; "own": a user's own bound, :mod:`verify.bounds`).
SOURCE_STATUSES = ("paper", "secondary", "memory", "own")


@dataclass(frozen=True)
class Constants:
    """The constants of one atlas point, computed by the workbench (:mod:`theory.atlas.constants`).

    Target and step: ``m``, ``M`` (extreme eigenvalues of the Hessian of f = -log pi), ``p`` (dimension), ``h`` (the
    sampler's step in workbench units), ``step`` (the papers' step: h/2 for Langevin steps, delta = h for
    underdamped Langevin MCMC), ``K`` (iterations). Data and gradient noise: ``N``, ``n`` (minibatch size; None for
    full gradients), ``sigma2`` (Dalalyan & Karagulyan's sigma^2: sup over the steps k < K of E tr Cov(g | theta_k)
    / p, from the exact noise law along the exact law of the chain; 0 for full gradients), ``delta`` (their bias
    constant: |E(g | theta) - grad log pi(theta)| <= delta sqrt(p); 0 for unbiased estimators), ``M_datum``
    (max_i of the largest eigenvalue of the Hessian of the i-th log-likelihood term, with the prior's share 1/N),
    ``hessian_lipschitz`` (0 on a quadratic f), ``lsi`` (the log-Sobolev constant of pi; m for a Gaussian).
    Start: ``w0`` = W2(nu_0, pi), ``kl0`` = KL(nu_0 || pi) (inf for a point start), ``dist2`` = E |theta_0 - x*|^2.
    Underdamped: ``friction`` and ``u`` (inverse mass).
    """

    m: float
    M: float
    p: int
    h: float
    step: float
    K: int
    w0: float
    kl0: float
    dist2: float
    N: int | None = None
    n: int | None = None
    sigma2: float = 0.0
    delta: float = 0.0
    M_datum: float | None = None
    hessian_lipschitz: float = 0.0
    lsi: float | None = None
    friction: float | None = None
    u: float | None = None

    @property
    def kappa(self) -> float:
        """The condition number M / m."""
        return self.M / self.m


@dataclass(frozen=True)
class Source:
    """Where one constant of a bound was read: ``what`` (the constant or term), ``where`` (the copy: URL or
    repository, file and commit), ``status`` in :data:`SOURCE_STATUSES`."""

    what: str
    where: str
    status: str

    def __post_init__(self) -> None:
        if self.status not in SOURCE_STATUSES:
            raise ParameterError(f"Source {self.what!r}: status must be one of {SOURCE_STATUSES}, got {self.status!r}")


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ParameterError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class Bound:
    """A non-asymptotic bound as printed: ``value(c)`` bounds the distance ``metric`` between the law ``law`` of
    ``sampler`` started at ``start`` and the target, at the point of constants ``c``; ``outside(c)`` is None when the
    point satisfies the bound's assumptions and otherwise says which one it breaks (such a point is shown and not
    counted). ``key`` names it ("paper.theorem"), ``reference`` is the citation with the theorem, ``formula`` and
    ``assumptions`` its text, ``sources`` the provenance of its constants, ``minibatch`` the minibatch sizes the
    atlas evaluates it at (bounds with a batch size)."""

    key: str
    title: str
    reference: str
    metric: str
    sampler: str
    law: str
    start: str
    formula: str
    assumptions: str
    value: Callable[[Constants], float]
    outside: Callable[[Constants], str | None]
    sources: tuple[Source, ...] = ()
    minibatch: tuple[int, ...] = ()
    problems: tuple[str, ...] | None = None  # None: every atlas problem the sampler runs on
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.key or not isinstance(self.key, str):
            raise ParameterError(f"a bound needs a non-empty key, got {self.key!r}")
        _check_choice("metric", self.metric, METRICS)
        _check_choice("sampler", self.sampler, BOUND_SAMPLERS)
        _check_choice("law", self.law, LAWS)
        _check_choice("start", self.start, STARTS)
        if not (callable(self.value) and callable(self.outside)):
            raise ParameterError(f"bound {self.key!r}: value and outside must be callables of the Constants")

    @property
    def confirmed(self) -> bool:
        """True when every constant was read from a copy of the paper's text (or the bound is a user's own)."""
        return bool(self.sources) and all(s.status in ("paper", "own") for s in self.sources)


def step_at_most(c: Constants, limit: float, text: str) -> str | None:
    """'step = ... > limit (text)' when the papers' step exceeds ``limit``, else None."""
    return None if c.step <= limit * (1.0 + 1e-12) else f"step {c.step:.4g} > {text} = {limit:.4g}"


def finite_or_inf(x: float) -> float:
    """x as a float, +inf on overflow (a bound that overflows is vacuous, not an error)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


__all__ = ["BOUND_SAMPLERS", "LAWS", "METRICS", "SOURCE_STATUSES", "STARTS", "Bound", "Constants", "Source",
           "finite_or_inf", "step_at_most"]
