"""Run a selection of claims, apply Holm's procedure across all their checks, and return verdicts.

With ``settings.workers > 1`` (or ``settings.scheduler``, a Dask scheduler address) the claims run as tasks on
Dask distributed workers (a LocalCluster of single-threaded worker processes by default). Every claim draws its
random numbers from seeds fixed by the settings and its own keys (``Settings.seed_for``), so its numbers do not
depend on where it runs: the report is bit-identical to a ``workers = 1`` run. Simulations shared through
``simulation_cache`` are shared within a worker process (claims on different workers recompute them, with the
same seed and the same result). Planted bugs (monkeypatches in this process) do not reach worker processes: the
planted-bug tests and the mutant harness run with ``workers = 1``.
"""

from __future__ import annotations

import dataclasses
import time
import traceback

from simulate.runtime.backends import using_backend
from simulate.validation import ParameterError

from .checks import OrderingCheck, judge
from .registry import Claim, ClaimResult, Settings, clear_caches
from .verdicts import as_expected, part_problems


def _run_sequential(claims: list[Claim], settings: Settings) -> list[ClaimResult | None]:
    out: list[ClaimResult | None] = []
    it = claims
    if settings.progress:
        from tqdm.auto import tqdm

        it = tqdm(claims, desc="claims", unit="claim")
    for claim in it:
        if settings.progress:
            it.set_postfix_str(claim.id)
        out.append(None if claim.out_of_scope else run_one(claim, settings))
    return out


def run_one(claim: Claim, settings: Settings) -> ClaimResult:
    """Run one claim, timed by the harness; a claim that raises, or whose checks name parts it does not have
    (:func:`verify.verdicts.part_problems`), gets a result holding its traceback (verdict "error"), so the other
    claims of the run still report."""
    t0 = time.perf_counter()
    settings = settings.for_claim(claim.id, claim.chains_factor)
    try:
        with using_backend(settings.backend, fallback=True) as record:
            res = claim.run(settings)
        if not isinstance(res, ClaimResult):
            raise TypeError(f"claim {claim.id!r}: run(settings) must return a ClaimResult, got {type(res).__name__}")
        problems = part_problems(claim, res)
        if problems:
            raise ParameterError("; ".join(problems))
    except Exception:  # noqa: BLE001 - reported as the claim's verdict "error", never swallowed
        return ClaimResult(error=traceback.format_exc(), seconds=time.perf_counter() - t0)
    if not res.seconds:
        res.seconds = time.perf_counter() - t0
    res.notes += backend_notes(settings.backend, record.fell_back)
    res.compile_seconds = record.compile_seconds
    return res


def backend_notes(backend: str, fell_back: list[tuple[str, str]]) -> list[str]:
    """The notes that say which of a claim's runs did not run on the run's backend, and why (one per reason)."""
    if backend == "numpy" or not fell_back:
        return []
    reasons: dict[str, list[str]] = {}
    for name, why in fell_back:
        reasons.setdefault(why, []).append(name)
    return [f"backend: {len(names)} run(s) on numpy, not {backend} ({', '.join(sorted(set(names)))}): {why}"
            for why, names in reasons.items()]


def _claim_task(claim_id: str, settings: Settings) -> ClaimResult | bytes:
    """Run one claim on a worker; returns its result, or b"local" if the result cannot be shipped back."""
    from .registry import select

    (claim,) = select(None, [claim_id])
    res = run_one(claim, settings)
    try:
        import cloudpickle

        cloudpickle.dumps(res)
    except Exception:  # noqa: BLE001 - e.g. a figure closure over an unpicklable object: rerun in the caller
        return b"local"
    return res


def _run_distributed(claims: list[Claim], settings: Settings) -> list[ClaimResult | None]:
    from simulate.runtime.distributed import client

    remote = dataclasses.replace(settings, workers=1, scheduler=None, progress=False)
    out: list[ClaimResult | None] = [None] * len(claims)
    todo = [i for i, c in enumerate(claims) if not c.out_of_scope]
    with client(workers=settings.workers, address=settings.scheduler) as c:
        futures = {c.submit(_claim_task, claims[i].id, remote, pure=False): i for i in todo}
        from distributed import as_completed

        bar = None
        if settings.progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(futures), desc=f"claims ({settings.workers} workers)", unit="claim")
        local = []
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                res = fut.result()
            except Exception:  # noqa: BLE001 - e.g. a worker lost: the claim's verdict is "error"
                res = ClaimResult(error=traceback.format_exc())
            if isinstance(res, bytes):
                local.append(i)
            else:
                out[i] = res
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(claims[i].id)
        if bar is not None:
            bar.close()
    for i in local:
        out[i] = run_one(claims[i], remote)
    return out


def run_claims(claims: list[Claim], settings: Settings) -> list[tuple[Claim, ClaimResult | None]]:
    """Run the claims and judge every statistical check of the run in one Holm family (:func:`verify.checks.judge`:
    one hypothesis per check, two per ordering); returns (claim, result) pairs, None for a claim out of scope."""
    clear_caches()
    if settings.workers > 1 or settings.scheduler:
        results = _run_distributed(claims, settings)
    else:
        results = _run_sequential(claims, settings)
    rows: list[tuple[Claim, ClaimResult | None]] = list(zip(claims, results, strict=True))
    clear_caches()
    checks = [c for _, r in rows if r is not None and not r.error for c in r.checks]
    judge(checks, settings.alpha)
    for claim, r in rows:
        for c in [] if r is None or r.error else r.checks:
            if isinstance(c, OrderingCheck):
                c.chains = settings.for_claim(claim.id, claim.chains_factor).chains
    return rows


def all_as_expected(rows) -> bool:
    """Exit-code rule of ``python -m verify``: every claim has its registered verdict (holds; fails for an erratum;
    holds as a bound; depends on reading, each reading with its registered verdict; inconclusive where registered so)
    and every check its expected outcome (:func:`verify.verdicts.as_expected`)."""
    return all(as_expected(c, r) for c, r in rows)


all_hold = all_as_expected

__all__ = ["all_as_expected", "all_hold", "as_expected", "run_claims", "run_one"]
