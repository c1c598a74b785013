"""A claim's verdict from its checks, and the rule a run succeeds by (every claim has its registered verdict).

* ``holds`` / ``fails``: no check rejected or failed / some check did.
* ``holds as a bound``: the checks of part :data:`~verify.checks.BOUND` hold and those of part
  :data:`~verify.checks.BEHAVIOUR` (does the exact behaviour follow the bound's prediction?) fail. A failing bound
  makes the verdict ``fails``; a behaviour that follows the prediction makes it ``holds``.
* ``depends on reading``: the checks shared by every reading hold, and each reading's checks give its own verdict,
  equal to the one registered for it. Every reading holding gives ``holds``, every reading failing ``fails``; readings
  that split otherwise than registered give ``depends on reading (not as registered)``.
* ``out of scope`` (with the reason) and ``error`` (the claim raised, or its checks name parts it does not have).
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


def _failed(checks) -> bool:
    return any(getattr(c, "rejected", False) or not getattr(c, "passed", True) for c in checks)


def part_verdicts(claim: Claim, result: ClaimResult) -> dict[str | None, str]:
    """holds / fails of each part of a result (None: the checks that name no part)."""
    checks = [*result.checks, *result.exact]
    default = BOUND if claim.expected == "holds as a bound" else None
    parts: dict[str | None, list] = {}
    for c in checks:
        parts.setdefault(default if c.part is None else c.part, []).append(c)
    for p in claim.parts:
        parts.setdefault(p, [])
    return {p: "fails" if _failed(cs) else "holds" for p, cs in parts.items()}


def verdict(claim: Claim, result: ClaimResult | None) -> str:
    """The claim's verdict (module docstring)."""
    if claim.out_of_scope:
        return "out of scope"
    if result is None or result.error:
        return "error"
    parts = part_verdicts(claim, result)
    if claim.expected == "holds as a bound":
        if parts.get(BOUND) == "fails":
            return "fails"
        return "holds" if parts.get("behaviour") == "holds" else "holds as a bound"
    if claim.expected == "depends on reading":
        if parts.get(None) == "fails":
            return "fails"
        got = [parts[r.name] for r in claim.readings]
        if len(set(got)) == 1:
            return got[0]
        if all(g == r.expected for g, r in zip(got, claim.readings, strict=True)):
            return "depends on reading"
        return READINGS_NOT_AS_REGISTERED
    return "fails" if "fails" in parts.values() else "holds"


def as_expected(claim: Claim, result: ClaimResult | None) -> bool:
    """True when the verdict is the registered one (out of scope always counts as expected)."""
    v = verdict(claim, result)
    return v == "out of scope" or v == claim.expected


__all__ = ["READINGS_NOT_AS_REGISTERED", "as_expected", "part_problems", "part_verdicts", "verdict"]
