"""The three kinds of check a claim returns; every statistical one (two- or one-sided) joins the run's Holm family.

* :class:`Check`: two-sided z-test of estimate = theory, the s.e. estimated across independent chains.
* :class:`OneSidedCheck`: the claim is an inequality, E[estimate] >= theory (or <= theory); it is rejected only when
  the estimate falls on the wrong side by more than chance allows (a one-sided z- or t-test).
* :class:`ExactCheck`: a deterministic comparison (enumeration, a closed form evaluated exactly). Its ``kind`` says
  what it is evidence of: "exact" (could fail: it compares two independent computations), "identity" (true by
  construction, e.g. a variance is >= 0: not evidence about the paper or the simulator) or "consistency" (theory
  against theory, e.g. a sympy derivation against a printed form).

Every check may name the ``part`` of its claim it belongs to: for a claim registered as "holds as a bound",
:data:`BOUND` (the bound's own checks; the default) or :data:`BEHAVIOUR` (whether the exact behaviour follows the
bound's prediction); for a claim registered as "depends on reading", the reading's name (no part: evidence shared
by every reading). :mod:`verify.verdicts` turns the parts into the claim's verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from simulate.validation import ParameterError

from .stats import mean_and_se, z_test

#: The kinds of exact check.
EXACT_KINDS = ("exact", "identity", "consistency")

#: The two parts of a claim registered as "holds as a bound": the bound's checks, and the exact behaviour's.
BOUND, BEHAVIOUR = "bound", "behaviour"


@dataclass
class Check:
    """A two-sided statistical check of E[estimate] = theory: z = (estimate - theory) / se, p = 2 P(Z > abs(z)).

    Parameters
    ----------
    label : str
        What is compared, as the report shows it.
    theory : float
        The closed form's (or exact engine's) value.
    estimate : float
        The simulation's estimate.
    se : float
        Its standard error, estimated across independent chains (finite and > 0).
    params : dict
        The parameters of this comparison, recorded in results.json.
    z, p : float
        Computed: the z-statistic and its two-sided normal p-value.
    rejected : bool
        Filled by the harness: whether Holm's procedure over the run's family rejected it.
    part : str, optional
        The part of the claim the check belongs to (:data:`BOUND`, :data:`BEHAVIOUR` or a reading's name).

    Raises
    ------
    simulate.validation.ParameterError
        When ``se`` is not finite and positive.

    References
    ----------
    Holm, S. (1979), A simple sequentially rejective multiple test procedure, Scand. J. Statist. 6, 65-70.
    """

    label: str
    theory: float
    estimate: float
    se: float
    params: dict = field(default_factory=dict)
    z: float = 0.0
    p: float = 1.0
    rejected: bool = False
    part: str | None = None

    kind = "two-sided"

    def __post_init__(self) -> None:
        self.z, self.p = z_test(self.estimate, self.se, self.theory)


@dataclass
class OneSidedCheck(Check):
    """A one-sided check of an inequality, E[estimate] >= theory (``direction="greater"``) or <= theory ("less").

    z = (estimate - theory)/se as for :class:`Check`; p is one-sided, P(T <= z) for "greater" (small only when the
    estimate is significantly below the bound) and P(T >= z) for "less", T standard normal, or Student t with ``df``
    degrees of freedom when the s.e. comes from few independent replicates. Holm's procedure then rejects the claim
    only when the data contradict it; a large z in favour is reported, not required.

    Parameters
    ----------
    label, theory, estimate, se, params, z, p, rejected, part
        As for :class:`Check` (``p`` here one-sided).
    direction : str
        "greater" (the claim: E[estimate] >= theory) or "less".
    df : int, optional
        Degrees of freedom of a Student t reference distribution (an s.e. from few replicates); None: normal.

    Raises
    ------
    simulate.validation.ParameterError
        For another ``direction``, an ``se`` that is not finite and positive, or ``df`` < 1.
    """

    direction: str = "greater"
    df: int | None = None

    kind = "one-sided"

    def __post_init__(self) -> None:
        if self.direction not in ("greater", "less"):
            raise ParameterError(f"direction must be 'greater' or 'less', got {self.direction!r}")
        if not (np.isfinite(self.se) and self.se > 0):
            raise ParameterError(f"se must be finite and > 0, got {self.se!r}")
        if self.df is not None and (isinstance(self.df, bool) or not isinstance(self.df, int) or self.df < 1):
            raise ParameterError(f"df must be an integer >= 1 or None, got {self.df!r}")
        self.z = float((self.estimate - self.theory) / self.se)
        law = sps.norm if self.df is None else sps.t(self.df)
        self.p = float(law.cdf(self.z) if self.direction == "greater" else law.sf(self.z))


@dataclass
class ExactCheck:
    """A deterministic check: passed or failed outright, outside the Holm family.

    Parameters
    ----------
    label : str
        What is compared.
    passed : bool
        The outcome.
    detail : str
        The numbers behind it, as the report shows them.
    kind : str
        "exact" (two independent computations that could disagree), "identity" (true by construction: not
        evidence about the paper or the simulator) or "consistency" (theory against theory); :data:`EXACT_KINDS`.
    part : str, optional
        The part of the claim it belongs to, as for :class:`Check`.

    Raises
    ------
    simulate.validation.ParameterError
        For another ``kind``.
    """

    label: str
    passed: bool
    detail: str = ""
    kind: str = "exact"
    part: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXACT_KINDS:
            raise ParameterError(f"kind must be one of {EXACT_KINDS}, got {self.kind!r}")
        self.passed = bool(self.passed)


def mean_check(label: str, theory: float, values: np.ndarray, params: dict | None = None, *,
               direction: str | None = None, df: int | None = None) -> Check | ExactCheck:
    """The check of the mean of per-chain (or per-replicate) values against ``theory``.

    Parameters
    ----------
    label : str
        What is checked.
    theory : float
        The value (two-sided) or the bound (one-sided) the mean is compared with.
    values : array_like
        One value per independent chain or replicate.
    params : dict, optional
        Settings shown with the check.
    direction : {None, "greater", "less"}
        None for a two-sided :class:`Check`; else a :class:`OneSidedCheck` of mean >= theory ("greater") or
        mean <= theory ("less").
    df : int, optional
        Degrees of freedom of a Student t reference for the one-sided check (R - 1 for R replicates).

    Returns
    -------
    Check, OneSidedCheck or ExactCheck
        A statistical check; or, when every value is the same (s.e. 0, no z-test possible), an :class:`ExactCheck`
        labelled as judged exactly.
    """
    m, se = mean_and_se(values)
    n = np.asarray(values).size
    if direction is None:
        if se > 0:
            return Check(label, theory, m, se, params or {})
        return ExactCheck(label + " (all chains equal: judged exactly)", m == theory,
                          f"every chain gives {m:.6g}, theory {theory:.6g}")
    if se > 0:
        return OneSidedCheck(label, theory, m, se, params or {}, direction=direction, df=df)
    holds = m >= theory if direction == "greater" else m <= theory
    return ExactCheck(f"{label} (degenerate: all {n} replicates equal {m:.6g}; judged exactly)", holds,
                      f"bound {theory:.6g}")


#: An s.e. this small relative to the values it compares is floating-point rounding, not sampling error: a real
#: standard error across M chains is sd / sqrt(M), and sd / |value| = 1e-12 would take 1e24 chains of a statistic
#: with relative spread 1. Below it the chains have collapsed to one value.
ROUNDING_SE = 1e-12


def format_z(z: float | str) -> str:
    """A z-statistic as text: two decimals below 1e4 in size, scientific from there on (not "1000000000000000.00").

    Parameters
    ----------
    z : float or str
        The statistic, or a string such as ``"inf"`` as results.json stores a non-finite one.

    Returns
    -------
    str
        ``"+1.96"``, ``"-3.20e+15"`` or the string as given.
    """
    if isinstance(z, str) or not math.isfinite(z):
        return str(z)
    return f"{z:+.2f}" if abs(z) < 1e4 else f"{z:+.2e}"


def vanished_se_note(theory: float | str, estimate: float | str, se: float | str) -> str | None:
    """Why a z is huge when every chain collapsed to a point: the sentence a report prints beside such a check.

    Parameters
    ----------
    theory, estimate, se : float or str
        The check's values (strings for non-finite ones, as results.json stores them).

    Returns
    -------
    str or None
        The explanation when ``se`` is below :data:`ROUNDING_SE` times the larger of ``|theory|`` and
        ``|estimate|``, else None.
    """
    if any(isinstance(v, str) for v in (theory, estimate, se)):
        return None
    scale = max(abs(theory), abs(estimate))
    if not (se <= ROUNDING_SE * scale):
        return None
    return (f"the s.e. vanished ({se:.2g}, {se / scale:.1g} of the value): every chain reached the same value to "
            "rounding (the chains collapsed to a point, e.g. a step with no injected noise or a map with a fixed "
            "point), so z measures floating-point rounding, not sampling error; the check compares the point with "
            "the theory to machine precision")


__all__ = ["BEHAVIOUR", "BOUND", "EXACT_KINDS", "ROUNDING_SE", "Check", "ExactCheck", "OneSidedCheck", "format_z",
           "mean_check", "vanished_se_note"]
