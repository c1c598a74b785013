"""What a claim module uses: the ``claim`` decorator, the result type, the three check kinds and the common statistics::

    from verify.api import ClaimResult, OneSidedCheck, claim, stationary_variance_and_se

    @claim("mypkg.sgld.variance_bound", paper="mypaper", source="My note, eq. (3)",
           statement="SGLD's stationary variance on my regression is at most (1 + h L/2) / L.")
    def variance_bound(settings):
        var, se = stationary_variance_and_se(*simulate(settings))     # the computation: its own function
        return ClaimResult(checks=[OneSidedCheck("variance <= bound", bound, var, se, direction="less")])

``@claim`` is the one way to register a claim (docs/add_a_claim.md shows the layout of a claim module: computation,
checks and figure in functions of their own). The harness does the rest: it times the claim, turns an exception into
the verdict "error", puts every statistical check (:class:`Check`, :class:`OneSidedCheck`, :class:`OrderingCheck`) of
the run into one Holm family, draws a default figure (theory against simulation with the Holm threshold as error
bars) when the claim draws none, and writes the report.
"""

from __future__ import annotations

from collections.abc import Callable

from . import registry
from .checks import (
    BEHAVIOUR,
    BOUND,
    EXACT_KINDS,
    EXPECT_KINDS,
    Check,
    ExactCheck,
    OneSidedCheck,
    OrderingCheck,
    mean_check,
)
from .registry import VERDICT_KINDS, ClaimResult, Reading, Settings, simulation_cache
from .stats import mean_and_se, stationary_variance_and_se, variance_and_se

RunFunction = Callable[[Settings], ClaimResult]


def claim(id: str, *, paper: str, source: str, statement: str, family: str | None = None,
          expected: str = "holds", erratum: str | None = None, finding: str | None = None,
          readings: tuple[Reading, ...] = (), out_of_scope: str | None = None,
          chains_factor: float = 1.0) -> Callable[[RunFunction], RunFunction]:
    """Register the decorated ``run(settings) -> ClaimResult`` as a claim (a decorator).

    Parameters
    ----------
    id : str
        Unique id (a user's own: a prefix of their package, ``mypkg.sgld.variance_bound``).
    paper : str
        The paper or package the claim belongs to (``python -m verify --paper NAME`` selects it).
    source : str
        Where the statement is printed: paper, section and equation (or "my note, bound (1)").
    statement : str
        The statement, in words, as the report shows it.
    family : str, optional
        Claims sharing one figure in the report (default: the claim alone).
    expected : str, optional
        The registered verdict, one of :data:`VERDICT_KINDS`: "holds"; "fails" with ``erratum`` (a statement the
        workbench found wrong; the checks carrying the counter-example are created with ``expect="fail"``); "holds
        as a bound" with ``finding`` (the checks of part :data:`BOUND` hold, those of part :data:`BEHAVIOUR` fail);
        "depends on reading" with ``finding`` and ``readings`` (each reading's checks name it as their part);
        "inconclusive" with ``finding`` (an ordering neither shown nor contradicted at the default chains: its
        effect, z and the chains that would decide it). A run succeeds when every claim gets its registered
        verdict and every check its expected outcome (``expect``).
    erratum, finding : str, optional
        What is wrong in the paper; what the workbench found (or why a claim stays inconclusive).
    readings : tuple of Reading, optional
        The readings of a statement registered as "depends on reading".
    out_of_scope : str, optional
        Why the claim is not checked (its run is then not called).
    chains_factor : float, optional
        Run the claim with ``settings.chains`` times this (default 1), planned from its detectable deviation: the
        chains at which its weakest check detects the deviation the claim must detect (docs/checks.md, "Power").

    Returns
    -------
    callable
        The decorator; it registers the run function and returns it unchanged.

    Raises
    ------
    simulate.validation.ParameterError
        When the id is taken (naming both modules) or the registered verdict lacks what it needs.

    References
    ----------
    Every statistical check of a run joins one family controlled by Holm, S. (1979), Scand. J. Statist. 6, 65-70.
    """

    def register_run(run: RunFunction) -> RunFunction:
        registry.register(registry.Claim(
            id=id, paper=paper, source=source, statement=statement, family=family or id, run=run,
            out_of_scope=out_of_scope, expected=expected, erratum=erratum, finding=finding, readings=tuple(readings),
            chains_factor=chains_factor))
        return run

    return register_run


__all__ = ["BEHAVIOUR", "BOUND", "EXACT_KINDS", "EXPECT_KINDS", "VERDICT_KINDS", "Check", "ClaimResult", "ExactCheck",
           "OneSidedCheck", "OrderingCheck", "Reading", "Settings", "claim", "mean_and_se", "mean_check",
           "simulation_cache", "stationary_variance_and_se", "variance_and_se"]
