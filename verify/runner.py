"""Run a selection of claims, apply Holm's procedure across all their checks, and return verdicts."""

from __future__ import annotations

import numpy as np

from .registry import Claim, ClaimResult, Settings, clear_caches
from .report import verdict
from .stats import holm


def run_claims(claims: list[Claim], settings: Settings) -> list[tuple[Claim, ClaimResult | None]]:
    clear_caches()
    rows: list[tuple[Claim, ClaimResult | None]] = []
    it = claims
    if settings.progress:
        from tqdm.auto import tqdm

        it = tqdm(claims, desc="claims", unit="claim")
    for claim in it:
        if settings.progress:
            it.set_postfix_str(claim.id)
        rows.append((claim, None if claim.out_of_scope else claim.run(settings)))
    clear_caches()
    checks = [c for _, r in rows if r is not None for c in r.checks]
    if checks:
        rejected = holm(np.array([c.p for c in checks]), settings.alpha)
        for c, rej in zip(checks, rejected, strict=True):
            c.rejected = bool(rej)
    return rows


def as_expected(claim: Claim, result: ClaimResult | None) -> bool:
    """True when the verdict is the registered expectation (out of scope always counts as expected)."""
    v = verdict(claim, result)
    return v == "out of scope" or v == claim.expected


def all_as_expected(rows) -> bool:
    """Exit-code rule of ``python -m verify``: every claim holds, or fails where it is a registered erratum."""
    return all(as_expected(c, r) for c, r in rows)


all_hold = all_as_expected
