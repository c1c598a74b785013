"""A claim's verdict from its checks, and the rule a run succeeds by (every claim has its registered verdict and
every check its expected outcome).

A check's outcome is "holds", "fails" or, for an ordering (:class:`~verify.checks.OrderingCheck`), "inconclusive"
(neither shown nor contradicted at this power). A part of a claim (its checks of one part) *fails* when one of its
checks fails, is *inconclusive* when none fails and an ordering is undecided, and *holds* otherwise. Then:

* ``holds`` / ``fails`` / ``inconclusive``: the verdict of the claim's checks. A tie is never "holds": an ordering
  that is not shown leaves the claim inconclusive, with its effect, z and the chains that would decide it.
* ``holds as a bound``: the checks of part :data:`~verify.checks.BOUND` hold and those of part
  :data:`~verify.checks.BEHAVIOUR` (does the exact behaviour follow the bound's prediction?) fail. A failing bound
  makes the verdict ``fails``; a behaviour that follows the prediction makes it ``holds``; an undecided bound or
  behaviour makes it ``inconclusive``.
* ``depends on reading``: the checks shared by every reading hold, and each reading's checks give its own verdict,
  equal to the one registered for it. Every reading with one verdict gives that verdict; readings that split
  otherwise than registered give ``depends on reading (not as registered)``.
* ``out of scope`` (with the reason) and ``error`` (the claim raised, or its checks name parts it does not have).

Exit-code rule (:func:`as_expected`): the verdict is the registered one, and every check has its expected outcome
(``expect``): a check registered to hold that fails, or one registered to fail (it carries the counter-example)
that does not, is an *unexpected check* (:func:`unexpected_checks`) and fails the run whatever the claim's
registered verdict, so an erratum cannot mask a slip elsewhere in its checks. An inconclusive claim fails the run
unless it is registered ``expected="inconclusive"`` with its reason (``finding``); one registered so that is
decided later fails the run too, until its registration is updated.
"""

from __future__ import annotations

from .checks import BOUND
from .registry import Claim, ClaimResult

#: The verdict of readings that split otherwise than registered.
READINGS_NOT_AS_REGISTERED = "depends on reading (not as registered)"


def part_problems(claim: Claim, result: ClaimResult) -> list[str]:
    """What is wrong with the parts a result's checks name: a part the claim does not have, or a part of the claim
    with no check (its verdict would then be empty)."""
    allowed = set(claim.parts)
    named = {c.part for c in [*result.checks, *result.exact]}
    out = [f"claim {claim.id}: check part {p!r} is not one of {sorted(allowed)}" for p in sorted(named - {None}
                                                                                                   - allowed)]
    if claim.expected == "holds as a bound":
        named = {BOUND if p is None else p for p in named}
    out += [f"claim {claim.id}: part {p!r} has no check" for p in claim.parts if p not in named]
    return out


def _combined(checks) -> str:
    """fails if any check fails, else inconclusive if any is undecided, else holds."""
    outcomes = {c.outcome for c in checks}
    return "fails" if "fails" in outcomes else ("inconclusive" if "inconclusive" in outcomes else "holds")


def part_verdicts(claim: Claim, result: ClaimResult) -> dict[str | None, str]:
    """holds / fails / inconclusive of each part of a result (None: the checks that name no part)."""
    checks = [*result.checks, *result.exact]
    default = BOUND if claim.expected == "holds as a bound" else None
    parts: dict[str | None, list] = {}
    for c in checks:
        parts.setdefault(default if c.part is None else c.part, []).append(c)
    for p in claim.parts:
        parts.setdefault(p, [])
    return {p: _combined(cs) for p, cs in parts.items()}


def verdict(claim: Claim, result: ClaimResult | None) -> str:
    """The claim's verdict (module docstring)."""
    if claim.out_of_scope:
        return "out of scope"
    if result is None or result.error:
        return "error"
    parts = part_verdicts(claim, result)
    if claim.expected == "holds as a bound":
        bound, behaviour = parts.get(BOUND), parts.get("behaviour")
        if bound != "holds":
            return bound
        return {"holds": "holds", "fails": "holds as a bound"}.get(behaviour, "inconclusive")
    if claim.expected == "depends on reading":
        if parts.get(None, "holds") != "holds":
            return parts[None]
        got = [parts[r.name] for r in claim.readings]
        if len(set(got)) == 1:
            return got[0]
        if all(g == r.expected for g, r in zip(got, claim.readings, strict=True)):
            return "depends on reading"
        return READINGS_NOT_AS_REGISTERED
    return _combined([*result.checks, *result.exact])


def unexpected_checks(claim: Claim, result: ClaimResult | None) -> list:
    """The checks whose outcome is not their registered ``expect``: registered to hold and failing, or registered
    to fail (carrying the counter-example) and not failing. An ordering registered to hold that is inconclusive is
    not listed here: it makes the claim's verdict inconclusive instead.

    Parameters
    ----------
    claim : Claim
        The registered claim.
    result : ClaimResult or None
        Its result (None or an error: no checks to judge).

    Returns
    -------
    list of Check or ExactCheck
        In the order of the report.
    """
    if result is None or result.error or claim.out_of_scope:
        return []
    return [c for c in [*result.checks, *result.exact]
            if (c.expect == "hold" and c.outcome == "fails") or (c.expect == "fail" and c.outcome != "fails")]


def as_expected(claim: Claim, result: ClaimResult | None) -> bool:
    """True when the verdict is the registered one (out of scope always counts as expected) and no check has an
    unexpected outcome (:func:`unexpected_checks`)."""
    v = verdict(claim, result)
    return (v == "out of scope" or v == claim.expected) and not unexpected_checks(claim, result)


__all__ = ["READINGS_NOT_AS_REGISTERED", "as_expected", "part_problems", "part_verdicts", "unexpected_checks",
           "verdict"]
