"""Claim registry: closed forms from the papers checked against simulation with honest statistics."""

from .registry import REGISTRY, Check, Claim, ClaimResult, ExactCheck, Settings, load_all, select
from .runner import all_hold, run_claims

__all__ = ["REGISTRY", "Check", "Claim", "ClaimResult", "ExactCheck", "Settings", "all_hold", "load_all",
           "run_claims", "select"]
