"""Mutation testing of the verification: realistic bugs planted one at a time, each of which some claim must kill.

A mutant is registered by a module in this package (every module is auto-imported) with :func:`register_mutant`:
``patch()`` returns a context manager that plants the bug while it is active (typically ``unittest.mock.patch``
on a simulator function or method), and ``claims`` names the claim ids expected to turn to "fails" under it.
``python -m verify.mutants`` runs the harness and prints the kill matrix.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    id: str
    description: str
    patch: Callable[[], AbstractContextManager]
    claims: tuple[str, ...]


MUTANTS: dict[str, Mutant] = {}


def register_mutant(m: Mutant) -> Mutant:
    if m.id in MUTANTS:
        raise ValueError(f"duplicate mutant id {m.id!r}")
    if not m.claims:
        raise ValueError(f"mutant {m.id!r} names no claim expected to kill it")
    MUTANTS[m.id] = m
    return m


def load_mutants() -> dict[str, Mutant]:
    """Import every mutant module of this package (they register themselves) and return the registry."""
    for name in sorted(mod.name for mod in pkgutil.iter_modules(__path__)):
        if not name.startswith("_"):
            importlib.import_module(f"{__name__}.{name}")
    return MUTANTS
