"""Cases, one Holm family over all their checks, and what a "holds" rules out (power).

A :class:`Case` names an implementation (a factory ``make(problem) -> ChainStep``), a test problem, the calls to
observe and the verdict it is expected to get. Cases with the same ``sim_key`` share one simulation, so that one run
of a library can be held against several declarations (e.g. SGHMC as its own source writes it and as Chen et al.
write it). :func:`run_cases` simulates, checks, applies Holm's procedure to every check of the run (one family, at
level ``alpha``) and attaches to every check its power figures:

* ``mde``: the smallest |deviation| of the simulated quantity from its theory value that the check detects with
  probability ``power`` (0.9) at the run's strictest Holm threshold alpha / m (m checks in the family; conservative
  for the others): (z_{1 - alpha/(2m)} + z_{power}) s.e.; ``mde_rel`` = mde / |theory|;
* ``noise_error``: the smallest relative error delta of the injected-noise standard deviation (noise sd x (1 +/-
  delta)) that moves the quantity by ``mde``. Second moments are exactly a + s^2 b in the noise scale s (b from the
  exact engine), so delta = max(sqrt(1 + mde/|b|) - 1, 1 - sqrt(1 - mde/|b|)) (infinite when |b| <= mde or b = 0:
  means do not see the noise).

A case "holds: would have detected a noise-scale error of X%" with X the smallest ``noise_error`` of its checks:
that check alone has at least 90% power against such an error.
"""

from __future__ import annotations

import math
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from simulate.validation import ParameterError, check_int, check_positive
from verify.checks import format_z
from verify.registry import Check
from verify.stats import holm

from .adapters._jax import Unavailable
from .declared import Declared
from .harness import ChainStep, Schedule, Simulation, case_checks, simulate_case
from .problems import Problem


@dataclass(frozen=True)
class Case:
    """One implementation, problem and declaration to test.

    Parameters
    ----------
    library : str
        The library's name in the report.
    algorithm : str
        The algorithm's name in the report.
    make : callable
        ``make(problem) -> ChainStep``: the implementation on a test problem.
    problem : callable
        ``problem() -> Problem``: the test problem.
    schedule : Schedule
        The calls observed.
    declared : callable, optional
        ``declared(impl.declared) -> Declared``: hold the run against another declaration than the adapter's (e.g.
        SGHMC as its source writes it and as Chen et al. write it).
    expected : str
        "holds" or "fails" (a known deviation, with its ``meaning``).
    meaning : str
        What the expected verdict means, in words.
    sim_key : str, optional
        Cases with the same key share one simulation (default: library/algorithm).
    chains : int, optional
        Chains for this case (default: the run's).

    Raises
    ------
    simulate.validation.ParameterError
        For another ``expected``.
    """

    library: str
    algorithm: str
    make: Callable[[Problem], ChainStep]
    problem: Callable[[], Problem]
    schedule: Schedule = Schedule()
    declared: Callable[[Declared], Declared] | None = None
    expected: str = "holds"
    meaning: str = ""
    sim_key: str | None = None
    chains: int | None = None

    def __post_init__(self) -> None:
        if self.expected not in ("holds", "fails"):
            raise ParameterError(f"expected must be 'holds' or 'fails', got {self.expected!r}")

    @property
    def key(self) -> str:
        return self.sim_key or f"{self.library}/{self.algorithm}"


@dataclass
class CaseResult:
    """The outcome of one case: its checks after Holm's procedure and what its verdict rules out.

    Parameters
    ----------
    case : Case
        The case.
    checks : list of verify.api.Check
        Its checks, ``rejected`` set by the run's Holm family, with power figures in ``params`` (``mde``,
        ``mde_rel``, ``noise_error``).
    declared : Declared, optional
        The declaration it was held to.
    problem : str
        The test problem's name.
    exact_source : str
        Where the exact answer came from.
    chains : int
        Chains simulated.
    seconds : float
        Time taken.
    skipped : str, optional
        Why it was skipped (a library that is not installed).
    error : str, optional
        The error of a broken implementation or declaration.
    """

    case: Case
    checks: list[Check] = field(default_factory=list)
    declared: Declared | None = None
    problem: str = ""
    exact_source: str = ""
    chains: int = 0
    seconds: float = 0.0
    skipped: str | None = None
    error: str | None = None

    @property
    def verdict(self) -> str:
        if self.skipped:
            return "skipped"
        if self.error:
            return "error"
        return "fails" if any(c.rejected for c in self.checks) else "holds"

    @property
    def as_expected(self) -> bool:
        return self.verdict == "skipped" or self.verdict == self.case.expected

    @property
    def worst(self) -> Check | None:
        return max(self.checks, key=lambda c: abs(c.z)) if self.checks else None

    @property
    def noise_error(self) -> float:
        vals = [c.params.get("noise_error", math.inf) for c in self.checks]
        return min(vals) if vals else math.inf

    def sentence(self) -> str:
        """The verdict in words, with what it rules out.

        Returns
        -------
        str
            E.g. "holds: would have detected a noise-scale error of 3.1%; worst z = +1.20 (...)".
        """
        v = self.verdict
        if v == "skipped":
            return f"skipped: {self.skipped}"
        if v == "error":
            return f"error: {self.error}"
        w = self.worst
        tail = f"worst z = {format_z(w.z)} ({w.label.split(': ', 1)[-1]})"
        if v == "holds":
            x = self.noise_error
            det = f"would have detected a noise-scale error of {100 * x:.1f}%" if math.isfinite(x) else \
                "no check is sensitive to the noise scale"
            return f"holds: {det}; {tail}"
        n_bad = sum(c.rejected for c in self.checks)
        return f"fails: {n_bad} of {len(self.checks)} checks rejected; {tail}"


def power_figures(check: Check, threshold: float, power: float = 0.9) -> None:
    """Attach mde, mde_rel and noise_error (module docstring) to ``check.params``."""
    mde = (sps.norm.isf(threshold / 2) + sps.norm.ppf(power)) * check.se
    b = abs(check.params.get("noise_b", 0.0))
    if "degenerate" in check.params:
        delta = math.inf
    elif b > 0:
        up = math.sqrt(1 + mde / b) - 1
        down = 1 - math.sqrt(1 - mde / b) if mde < b else math.inf
        delta = max(up, down)
    else:
        delta = math.inf
    check.params.update(mde=float(mde), mde_rel=float(mde / abs(check.theory)) if check.theory else math.inf,
                        noise_error=float(delta))


def _seed(seed: int, key: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(key.encode())) % (2**31 - 1)


def run_cases(cases: list[Case], chains: int = 10_000, seed: int = 20161, alpha: float = 0.01,
              power: float = 0.9, progress: Callable[[str], None] | None = None) -> list[CaseResult]:
    """Simulate (once per ``sim_key``), check and judge every case, all checks in one Holm family.

    Parameters
    ----------
    cases : list of Case
        The cases.
    chains : int
        Chains per simulation (>= 4) unless a case says otherwise.
    seed : int
        Base seed; each simulation's seed is derived from it and the case's key.
    alpha : float
        Family-wise false-alarm level, 0 < alpha < 1.
    power : float
        The power at which the detectable deviations are stated.
    progress : callable, optional
        Called with a line of text before each simulation.

    Returns
    -------
    list of CaseResult
        One per case, in order. A case whose library is missing is skipped, saying why; a broken implementation
        or declaration gets its error, and the other cases still run.

    Raises
    ------
    simulate.validation.ParameterError
        For ``chains`` < 4 or ``alpha`` outside (0, 1).

    References
    ----------
    Holm, S. (1979), Scand. J. Statist. 6, 65-70; the detectable deviation at the strictest threshold
    alpha / m is (z_{1 - alpha/(2m)} + z_power) s.e.
    """
    check_int("chains", chains, 4)
    alpha = check_positive("alpha", alpha)
    if alpha >= 1:
        raise ParameterError(f"alpha must satisfy 0 < alpha < 1, got {alpha}")
    sims: dict[str, tuple[ChainStep, Problem, Simulation] | BaseException] = {}
    results: list[CaseResult] = []
    for case in cases:
        res = CaseResult(case)
        results.append(res)
        t0 = time.perf_counter()
        try:
            if case.key not in sims:
                if progress:
                    progress(f"simulating {case.key}")
                try:
                    problem = case.problem()
                    impl = case.make(problem)
                    M = case.chains or chains
                    sims[case.key] = (impl, problem, simulate_case(impl, problem, M, case.schedule,
                                                                   _seed(seed, case.key)))
                except (Unavailable, ParameterError) as e:
                    sims[case.key] = e
            got = sims[case.key]
            if isinstance(got, Unavailable):
                res.skipped = str(got)
                continue
            if isinstance(got, BaseException):
                raise got
            impl, problem, sim = got
            dec = impl.declared if case.declared is None else case.declared(impl.declared)
            res.declared, res.problem, res.chains = dec, problem.name, sim.chains
            out = case_checks(dec, problem, sim, case.schedule, f"{case.library} {case.algorithm}")
            res.checks, res.exact_source = out.checks, out.exact.source
            res.seconds = sim.seconds + time.perf_counter() - t0
        except ParameterError as e:  # a broken implementation or declaration: reported, the others still run
            res.error = str(e)
        except Exception as e:  # noqa: BLE001 - a peer's own exception: reported with its type, never hidden
            res.error = f"{type(e).__name__}: {e} ({traceback.extract_tb(e.__traceback__)[-1].name})"
    checks = [c for r in results for c in r.checks]
    if checks:
        for c, rej in zip(checks, holm(np.array([c.p for c in checks]), alpha), strict=True):
            c.rejected = bool(rej)
        for c in checks:
            power_figures(c, alpha / len(checks), power)
    return results


__all__ = ["Case", "CaseResult", "power_figures", "run_cases"]
