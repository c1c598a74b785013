"""Claim modules; importing this package registers every claim."""

from . import (  # noqa: F401
    chen,
    vollmer_finite_time,
    vollmer_logistic,
    vollmer_sections56,
    vollmer_toy,
    vollmer_weak_order,
)
