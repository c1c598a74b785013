"""Claim registry: closed forms from the papers checked against simulation with honest statistics.

Claim modules use :mod:`verify.api`; ``python -m verify`` runs the registry (:mod:`verify.harness`), writes the
report (:mod:`verify.report`) and reruns reports.
"""

from .checks import Check, ExactCheck, OneSidedCheck, OrderingCheck
from .harness import all_as_expected, all_hold, as_expected, run_claims
from .registry import REGISTRY, Claim, ClaimResult, Settings, load_all, select

__all__ = ["REGISTRY", "Check", "Claim", "ClaimResult", "ExactCheck", "OneSidedCheck", "OrderingCheck", "Settings",
           "all_as_expected", "all_hold", "as_expected", "load_all", "run_claims", "select"]
