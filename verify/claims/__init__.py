"""Claim modules; importing this package registers every claim."""

from . import vollmer_toy  # noqa: F401
