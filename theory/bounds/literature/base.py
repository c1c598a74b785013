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
#: Provenance statuses (module docstring; "own": a user's own bound, ``verify.bounds``).
SOURCE_STATUSES = ("paper", "secondary", "memory", "own")


@dataclass(frozen=True)
class Constants:
    """The constants of one atlas point, computed by the workbench (:mod:`theory.atlas.constants`).

    Parameters
    ----------
    m, M : float
        The smallest and largest eigenvalues of the Hessian of f = -log pi.
    p : int
        The dimension.
    h : float
        The sampler's step in workbench units.
    step : float
        The papers' step: h/2 for Langevin steps, delta = h for underdamped Langevin MCMC.
    K : int
        The number of iterations.
    w0 : float
        W2(nu_0, pi), the start's 2-Wasserstein distance to the target.
    kl0 : float
        KL(nu_0 || pi) (inf for a point start).
    dist2 : float
        ``E |theta_0 - x*|^2``.
    N : int or None
        The number of data (None for a target without data).
    n : int or None
        The minibatch size (None for full gradients).
    sigma2 : float
        Dalalyan & Karagulyan's sigma^2: sup over the steps k < K of E tr Cov(g | theta_k) / p, from the exact noise law
        along the exact law of the chain (0 for full gradients).
    delta : float
        Dalalyan & Karagulyan's bias constant: ``|E(g | theta) - grad log pi(theta)| <= delta sqrt(p)`` (0 for unbiased
        estimators).
    M_datum : float or None
        max_i of the largest eigenvalue of the Hessian of the i-th log-likelihood term, with the prior's share 1/N.
    hessian_lipschitz : float
        The Lipschitz constant of the Hessian of f (0 on a quadratic f).
    lsi : float or None
        The log-Sobolev constant of pi (m for a Gaussian; None: m).
    friction, u : float or None
        Underdamped chains: the friction and the inverse mass (None for Langevin steps).

    References
    ----------
    Dalalyan & Karagulyan (2019), Stoch. Proc. Appl. 129(12), 5278-5311, Section 4 (sigma^2 and delta); the other
    constants are those of each bound's paper (:mod:`theory.bounds.literature`).
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
    """Where one constant of a bound was read.

    Parameters
    ----------
    what : str
        The constant or term.
    where : str
        The copy it was read from: URL or repository, file and commit.
    status : str
        One of :data:`SOURCE_STATUSES` (module docstring).

    Raises
    ------
    ParameterError
        When ``status`` is not one of :data:`SOURCE_STATUSES`.
    """

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
    """A non-asymptotic bound as printed, evaluated at the atlas's points.

    ``value(c)`` bounds the distance ``metric`` between the law ``law`` of ``sampler`` started at ``start`` and the
    target, at the point of constants ``c``; ``outside(c)`` is None when the point satisfies the bound's assumptions and
    otherwise says which one it breaks (such a point is shown and not counted).

    Parameters
    ----------
    key : str
        Its name, "paper.theorem" (non-empty).
    title : str
        The title shown in the atlas.
    reference : str
        The citation, with the theorem.
    metric : str
        The distance it bounds, one of :data:`METRICS`.
    sampler : str
        The sampler it is about, one of :data:`BOUND_SAMPLERS`.
    law : str
        The law it bounds, one of :data:`LAWS`.
    start : str
        The start, one of :data:`STARTS`.
    formula, assumptions : str
        Its text.
    value : callable
        ``value(c: Constants) -> float``, the bound at a point.
    outside : callable
        ``outside(c: Constants) -> str | None``, the assumption the point breaks, or None.
    sources : tuple of Source
        The provenance of its constants.
    minibatch : tuple of int
        The minibatch sizes the atlas evaluates it at (bounds with a batch size).
    problems : tuple of str or None
        The atlas problems it is evaluated on; None: every problem the sampler runs on.
    notes : tuple of str
        Remarks shown with it.

    Raises
    ------
    ParameterError
        When ``key`` is empty, a choice is not one of its allowed values, or ``value`` or ``outside`` is not callable.
    """

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
    """The assumption "the papers' step is at most ``limit``" at ``c``.

    Parameters
    ----------
    c : Constants
        The constants of the atlas point.
    limit : float
        The largest step allowed (a relative slack of 1e-12 is allowed for rounding).
    text : str
        How the limit is written in the paper ("1/M").

    Returns
    -------
    str or None
        None when ``c.step <= limit``, else "step ... > text = limit".
    """
    return None if c.step <= limit * (1.0 + 1e-12) else f"step {c.step:.4g} > {text} = {limit:.4g}"


def finite_or_inf(x: float) -> float:
    """x as a float, +inf on overflow (a bound that overflows is vacuous, not an error).

    Parameters
    ----------
    x : float
        A number, possibly too large for a float (a Python int).

    Returns
    -------
    float
        ``float(x)``, or +inf where that overflows.
    """
    try:
        return float(x)
    except OverflowError:
        return math.inf


__all__ = ["BOUND_SAMPLERS", "LAWS", "METRICS", "SOURCE_STATUSES", "STARTS", "Bound", "Constants", "Source",
           "finite_or_inf", "step_at_most"]
