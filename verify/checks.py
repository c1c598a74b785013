"""The four kinds of check a claim returns; every statistical one joins the run's Holm family.

* :class:`Check`: two-sided z-test of estimate = theory, the s.e. estimated across independent chains.
* :class:`OneSidedCheck`: a bound, E[estimate] >= theory (or <= theory); it is rejected only when the estimate falls
  on the wrong side by more than chance allows (a one-sided z- or t-test: the falsification form).
* :class:`OrderingCheck`: a paper's ordering or improvement ("A is better than B", "grows with d"), which must be
  *shown*: it holds when the data support it past the family's threshold, fails when they contradict it, and is
  "inconclusive" otherwise (with the chains that would decide it).
* :class:`ExactCheck`: a deterministic comparison (enumeration, a closed form evaluated exactly). Its ``kind`` says
  what it is evidence of: "exact" (could fail: it compares two independent computations), "identity" (true by
  construction, e.g. a variance is >= 0: not evidence about the paper or the simulator) or "consistency" (theory
  against theory, e.g. a sympy derivation against a printed form).

Every check may name the ``part`` of its claim it belongs to: for a claim registered as "holds as a bound",
:data:`BOUND` (the bound's own checks; the default) or :data:`BEHAVIOUR` (whether the exact behaviour follows the
bound's prediction); for a claim registered as "depends on reading", the reading's name (no part: evidence shared
by every reading). :mod:`verify.verdicts` turns the parts into the claim's verdict.

Every check also states its expected outcome, ``expect``: "hold" (the default) or "fail" for a check that carries a
registered counter-example (an erratum's, a reading's failing evidence, the behaviour part of "holds as a bound").
A check whose outcome differs from its ``expect`` is an unexpected result that fails the run
(:func:`verify.verdicts.unexpected_checks`), so an erratum cannot mask its other checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from simulate.validation import ParameterError

from .stats import holm, mean_and_se, sample_size_factor, z_test

#: The kinds of exact check.
EXACT_KINDS = ("exact", "identity", "consistency")

#: What a check is registered to do: "hold", or "fail" (it carries a registered counter-example).
EXPECT_KINDS = ("hold", "fail")

#: The outcomes of a check: "holds", "fails", and for an :class:`OrderingCheck` "inconclusive" (neither shown nor
#: contradicted at this power).
OUTCOMES = ("holds", "fails", "inconclusive")


def _check_expect(label: str, expect: str) -> None:
    if expect not in EXPECT_KINDS:
        raise ParameterError(f"check {label!r}: expect must be one of {EXPECT_KINDS}, got {expect!r}")

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
    expect : str
        "hold" (default) or "fail": "fail" marks a check that carries a registered counter-example (an erratum's,
        a failing reading's, a bound's behaviour part); any other outcome than the expected one fails the run.

    Raises
    ------
    simulate.validation.ParameterError
        When ``se`` is not finite and positive, or ``expect`` is not one of :data:`EXPECT_KINDS`.

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
    expect: str = "hold"

    kind = "two-sided"

    def __post_init__(self) -> None:
        _check_expect(self.label, self.expect)
        self.z, self.p = z_test(self.estimate, self.se, self.theory)

    @property
    def outcome(self) -> str:
        """"fails" when Holm's procedure rejected the check, else "holds"."""
        return "fails" if self.rejected else "holds"


@dataclass
class OneSidedCheck(Check):
    """A one-sided check of an inequality, E[estimate] >= theory (``direction="greater"``) or <= theory ("less").

    z = (estimate - theory)/se as for :class:`Check`; p is one-sided, P(T <= z) for "greater" (small only when the
    estimate is significantly below the bound) and P(T >= z) for "less", T standard normal, or Student t with ``df``
    degrees of freedom when the s.e. comes from few independent replicates. Holm's procedure then rejects the claim
    only when the data contradict it; a large z in favour is reported, not required.

    Parameters
    ----------
    label, theory, estimate, se, params, z, p, rejected, part, expect
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
        _check_one_sided(self)
        law = sps.norm if self.df is None else sps.t(self.df)
        self.p = float(law.cdf(self.z) if self.direction == "greater" else law.sf(self.z))


def _check_one_sided(c) -> None:
    """Validate expect, direction, se and df of a one-sided or ordering check and set its z."""
    _check_expect(c.label, c.expect)
    if c.direction not in ("greater", "less"):
        raise ParameterError(f"direction must be 'greater' or 'less', got {c.direction!r}")
    if not (np.isfinite(c.se) and c.se > 0):
        raise ParameterError(f"se must be finite and > 0, got {c.se!r}")
    if c.df is not None and (isinstance(c.df, bool) or not isinstance(c.df, int) or c.df < 1):
        raise ParameterError(f"df must be an integer >= 1 or None, got {c.df!r}")
    c.z = float((c.estimate - c.theory) / c.se)


@dataclass
class OrderingCheck(Check):
    """A paper's ordering or improvement ("A is better than B", "grows with d"), which must be *shown*.

    The statement is written as an effect: ``estimate`` (e.g. a paired difference A - B, or a value against a
    threshold ``theory``) with its standard error across independent chains, and ``direction``, the side of
    ``theory`` that supports the statement ("greater": E[estimate] > theory; "less": E[estimate] < theory). The
    effect in favour is ``effect = +-(estimate - theory)``, positive when the data lean towards the statement, and
    ``z_favour = effect / se``. Two one-sided tests judge it, both in the run's Holm family:

    * ``p`` tests H0 "the ordering does not hold" (effect <= 0): P(T >= z_favour). Holm rejecting it *shows* the
      ordering (outcome "holds", ``shown``);
    * ``p_contra`` tests the opposite H0' (effect >= 0): P(T <= z_favour). Holm rejecting it *contradicts* the
      ordering (outcome "fails", ``rejected``);
    * neither: "inconclusive" at this power. A tie never holds. The report gives the effect, its z and how many
      times the chains would have to grow to decide it (``needed_factor``; from ``stated_effect`` where the claim
      gives the paper's effect size, else from the observed effect, through the s.e.'s 1/sqrt(chains) scaling).

    T is standard normal, or Student t with ``df`` degrees of freedom when the s.e. comes from few replicates.

    Family-wise error: an ordering contributes *two* hypotheses to the Holm family (H0 and H0'; the family size m
    counts both). Holm's procedure bounds the chance of rejecting any true hypothesis of the family by alpha under
    any dependence between the tests (Holm 1979): the first true hypothesis it rejects has p <= alpha / m0, m0 the
    number of true ones, and the union bound over them gives alpha. A falsely shown ordering (H0 true, rejected) and
    a falsely contradicted one (H0' true, rejected) are both such rejections, so they are covered with every false
    "fails" of the run by the same alpha. At most one of the two is ever rejected: p + p_contra = 1 and Holm never
    rejects a p-value above alpha < 1/2.

    Parameters
    ----------
    label, theory, estimate, se, params, part, expect
        As for :class:`Check`: ``theory`` is the tie (0 for a difference, the threshold for "stays above 1").
    direction : str
        "greater" (the statement: E[estimate] > theory) or "less" (E[estimate] < theory).
    df : int, optional
        Degrees of freedom of a Student t reference (an s.e. from df + 1 replicates); None: normal.
    stated_effect : float, optional
        The paper's stated effect, as E[estimate] - theory (on the supporting side of ``theory``); used to plan the
        chains that decide an inconclusive ordering, and reported beside the interval of the observed effect.
    z, p, p_contra : float
        Computed: z = (estimate - theory)/se (as for every check) and the two one-sided p-values.
    shown, rejected : bool
        Filled by the harness (``verify.checks.judge``): whether Holm rejected H0 (shown) or H0' (contradicted).
    needed_factor : float, optional
        Filled by the harness: how many times the present chains (or replicates) detect the effect that decides the
        ordering with 90% power at the family's strictest one-sided threshold (``verify.stats.sample_size_factor``).
    chains : int, optional
        Filled by the harness: the chains the claim ran with (``Settings.chains`` for the claim).

    Raises
    ------
    simulate.validation.ParameterError
        For another ``direction`` or ``expect``, an ``se`` that is not finite and positive, ``df`` < 1, or a
        ``stated_effect`` that is not finite or not on the supporting side.

    References
    ----------
    Holm, S. (1979), A simple sequentially rejective multiple test procedure, Scand. J. Statist. 6, 65-70 (the
    step-down procedure and its family-wise error bound under arbitrary dependence).
    """

    direction: str = "greater"
    df: int | None = None
    stated_effect: float | None = None
    p_contra: float = 1.0
    shown: bool = False
    needed_factor: float | None = None
    chains: int | None = None

    kind = "ordering"

    def __post_init__(self) -> None:
        _check_one_sided(self)
        if self.stated_effect is not None:
            if not math.isfinite(self.stated_effect) or self.sign * self.stated_effect <= 0:
                raise ParameterError(f"check {self.label!r}: stated_effect must be finite and on the side of theory "
                                     f"that supports the statement ({self.direction}), got {self.stated_effect!r}")
        law = sps.norm if self.df is None else sps.t(self.df)
        self.p = float(law.sf(self.z_favour))
        self.p_contra = float(law.cdf(self.z_favour))

    @property
    def sign(self) -> int:
        """+1 when estimates above ``theory`` support the statement, -1 when estimates below do."""
        return 1 if self.direction == "greater" else -1

    @property
    def effect(self) -> float:
        """The observed effect in favour of the statement, sign (estimate - theory)."""
        return self.sign * (self.estimate - self.theory)

    @property
    def z_favour(self) -> float:
        """The z of the effect in favour: positive when the data lean towards the statement."""
        return self.sign * self.z

    @property
    def outcome(self) -> str:
        """"holds" (shown), "fails" (contradicted) or "inconclusive"."""
        return "holds" if self.shown else ("fails" if self.rejected else "inconclusive")

    @property
    def chains_needed(self) -> int | None:
        """The chains (replicates, for a t-test) that would decide the ordering with 90% power, or None."""
        if self.needed_factor is None or not math.isfinite(self.needed_factor):
            return None
        units = self.df + 1 if self.df is not None else self.chains
        return None if units is None else max(2, math.ceil(units * self.needed_factor))

    def decision_text(self) -> str:
        """The ordering's outcome in words, with its effect, z and (when inconclusive) the chains that decide it.

        Returns
        -------
        str
            "shown", "contradicted" or "inconclusive at this power", with the effect in favour, its standard error
            and z, the paper's effect where one is stated, and the chains that would decide an inconclusive ordering.
        """
        what = {"holds": "shown", "fails": "contradicted", "inconclusive": "inconclusive at this power"}[self.outcome]
        text = f"{what}: effect in favour {self.effect:.4g} +- {self.se:.2g} (z in favour {format_z(self.z_favour)})"
        if self.stated_effect is not None:
            stated = self.sign * self.stated_effect
            text += (f"; the paper's effect {stated:.4g} is {format_z((self.effect - stated) / self.se)} s.e. from "
                     "the observed one")
        if self.outcome != "inconclusive":
            return text
        unit = "replicates" if self.df is not None else "chains"
        basis = "the paper's effect" if self.stated_effect is not None else "the observed effect"
        f = self.needed_factor
        if f is None or not math.isfinite(f):
            return text + "; no number of chains decides a zero effect"
        n = self.chains_needed
        at = f" (~{n} {unit})" if n else ""
        if f <= 1:
            return text + f"; the present {unit} would detect {basis} with 90% power ({f:.3g}x{at})"
        return text + f"; {basis} is detected with 90% power at {f:.3g}x the {unit}{at}"


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
    expect : str
        "hold" (default) or "fail", as for :class:`Check`.

    Raises
    ------
    simulate.validation.ParameterError
        For another ``kind`` or ``expect``.
    """

    label: str
    passed: bool
    detail: str = ""
    kind: str = "exact"
    part: str | None = None
    expect: str = "hold"

    def __post_init__(self) -> None:
        _check_expect(self.label, self.expect)
        if self.kind not in EXACT_KINDS:
            raise ParameterError(f"kind must be one of {EXACT_KINDS}, got {self.kind!r}")
        self.passed = bool(self.passed)

    @property
    def outcome(self) -> str:
        """"holds" when the check passed, else "fails"."""
        return "holds" if self.passed else "fails"


def mean_check(label: str, theory: float, values: np.ndarray, params: dict | None = None, *,
               direction: str | None = None, df: int | None = None, ordering: bool = False,
               expect: str = "hold") -> Check | ExactCheck:
    """The check of the mean of per-chain (or per-replicate) values against ``theory``.

    Parameters
    ----------
    label : str
        What is checked.
    theory : float
        The value (two-sided), the bound (one-sided) or the tie (an ordering) the mean is compared with.
    values : array_like
        One value per independent chain or replicate.
    params : dict, optional
        Settings shown with the check.
    direction : {None, "greater", "less"}
        None for a two-sided :class:`Check`; else a :class:`OneSidedCheck` of mean >= theory ("greater") or
        mean <= theory ("less"), or with ``ordering`` an :class:`OrderingCheck` (mean > theory, or < theory, shown).
    df : int, optional
        Degrees of freedom of a Student t reference for a one-sided or ordering check (R - 1 for R replicates).
    ordering : bool
        The statement is an ordering that must be shown (:class:`OrderingCheck`), not a bound.
    expect : str
        "hold" or "fail" (:class:`Check`).

    Returns
    -------
    Check, OneSidedCheck, OrderingCheck or ExactCheck
        A statistical check; or, when every value is the same (s.e. 0, no test possible), an :class:`ExactCheck`
        labelled as judged exactly (an ordering then holds only strictly: a tie is never shown).
    """
    m, se = mean_and_se(values)
    n = np.asarray(values).size
    if direction is None:
        if se > 0:
            return Check(label, theory, m, se, params or {}, expect=expect)
        return ExactCheck(label + " (all chains equal: judged exactly)", m == theory,
                          f"every chain gives {m:.6g}, theory {theory:.6g}", expect=expect)
    if se > 0:
        kind = OrderingCheck if ordering else OneSidedCheck
        return kind(label, theory, m, se, params or {}, direction=direction, df=df, expect=expect)
    if ordering:
        holds = m > theory if direction == "greater" else m < theory
    else:
        holds = m >= theory if direction == "greater" else m <= theory
    return ExactCheck(f"{label} (degenerate: all {n} replicates equal {m:.6g}; judged exactly)", holds,
                      f"{'tie' if ordering else 'bound'} {theory:.6g}", expect=expect)


def family_size(checks) -> int:
    """The number of hypotheses a list of statistical checks puts into the Holm family (an ordering puts two)."""
    return sum(2 if isinstance(c, OrderingCheck) else 1 for c in checks)


def judge(checks: list[Check], alpha: float) -> int:
    """Apply Holm's procedure to the statistical checks of a run (one family) and record each check's result.

    Parameters
    ----------
    checks : list of Check, OneSidedCheck or OrderingCheck
        Every statistical check of the run.
    alpha : float
        The family-wise level.

    Returns
    -------
    int
        The family size m (hypotheses: one per check, two per :class:`OrderingCheck`).

    Notes
    -----
    Sets ``rejected`` of every check and, of an ordering, ``shown`` and ``needed_factor`` (the chains that decide it:
    from its ``stated_effect`` where given, else from the observed effect).
    """
    pvals = []
    for c in checks:
        pvals.append(c.p)
        if isinstance(c, OrderingCheck):
            pvals.append(c.p_contra)
    m = len(pvals)
    rejected = iter(holm(np.array(pvals, dtype=np.float64), alpha) if pvals else [])
    for c in checks:
        first = bool(next(rejected))
        if isinstance(c, OrderingCheck):
            c.shown, c.rejected = first, bool(next(rejected))
            effect = c.stated_effect if c.stated_effect is not None else c.estimate - c.theory
            c.needed_factor = sample_size_factor(effect, c.se, alpha, m, df=c.df)
        else:
            c.rejected = first
    return m


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


__all__ = ["BEHAVIOUR", "BOUND", "EXACT_KINDS", "EXPECT_KINDS", "OUTCOMES", "ROUNDING_SE", "Check", "ExactCheck",
           "OneSidedCheck", "OrderingCheck", "family_size", "format_z", "judge", "mean_check", "vanished_se_note"]
