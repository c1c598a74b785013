"""Claim registry: closed forms from the papers checked against simulation with honest statistics."""

from .registry import REGISTRY, Check, Claim, ClaimResult, ExactCheck, Settings, load_all, select
from .runner import all_as_expected, all_hold, as_expected, run_claims

__all__ = ["REGISTRY", "Check", "Claim", "ClaimResult", "ExactCheck", "Settings", "all_as_expected", "all_hold",
           "as_expected", "load_all",
           "run_claims", "select"]
