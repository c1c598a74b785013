"""What a claim module uses: the ``claim`` decorator, the result type and the three check kinds.

    from verify.api import Check, ClaimResult, claim, mean_and_se

    @claim("mypkg.sgld.variance_bound", paper="mypaper", source="My note, eq. (3)",
           statement="SGLD's stationary variance on my regression is at most (1 + h L/2) / L.")
    def variance_bound(settings):
        ...                                   # simulate with settings.chains chains, seed settings.seed_for(...)
        return ClaimResult(checks=[OneSidedCheck("variance <= bound", bound, est, se, direction="less")])

The harness does the rest: it times the claim, turns an exception into the verdict "error", puts every statistical
check (:class:`Check`, :class:`OneSidedCheck`) of the run into one Holm family, draws a default figure (theory against
simulation with the Holm threshold as error bars) when the claim draws none, and writes the report.
"""

from __future__ import annotations

from collections.abc import Callable

from .checks import BEHAVIOUR, BOUND, EXACT_KINDS, Check, ExactCheck, OneSidedCheck
from .registry import VERDICT_KINDS, Claim, ClaimResult, Reading, Settings, register, simulation_cache
from .stats import mean_and_se, stationary_variance_and_se, variance_and_se

RunFunction = Callable[[Settings], ClaimResult]


def claim(id: str, *, paper: str, source: str, statement: str, family: str | None = None,
          expected: str = "holds", erratum: str | None = None, finding: str | None = None,
          readings: tuple[Reading, ...] = (), out_of_scope: str | None = None) -> Callable[[RunFunction], RunFunction]:
    """Register the decorated ``run(settings) -> ClaimResult`` as claim ``id`` (``family``: claims sharing one figure,
    default the claim alone). ``expected`` is one of :data:`VERDICT_KINDS`: "fails" with ``erratum`` for a statement
    the workbench found wrong; "holds as a bound" with ``finding`` (checks of part BOUND hold, those of part
    BEHAVIOUR fail); "depends on reading" with ``finding`` and ``readings`` (each reading's checks name it as part)."""

    def register_run(run: RunFunction) -> RunFunction:
        register(Claim(id=id, paper=paper, source=source, statement=statement, family=family or id, run=run,
                       out_of_scope=out_of_scope, expected=expected, erratum=erratum, finding=finding,
                       readings=tuple(readings)))
        return run

    return register_run


__all__ = ["BEHAVIOUR", "BOUND", "EXACT_KINDS", "VERDICT_KINDS", "Check", "Claim", "ClaimResult", "ExactCheck",
           "OneSidedCheck", "Reading", "Settings", "claim", "mean_and_se", "register", "simulation_cache",
           "stationary_variance_and_se", "variance_and_se"]
