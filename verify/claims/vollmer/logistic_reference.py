"""Vollmer, Zygalakis & Teh (2016), Section 7: the reference posterior mean of the logistic regression (d = 3,
N = 1000) is pinned down three ways: Gauss-Hermite quadrature in Laplace-whitened coordinates
(simulate.analysis.reference.posterior_moments_quadrature; its error, max |K=20 vs K=12 nodes|, is ~1e-14 and enters
every s.e. in quadrature), full-gradient MALA, and the Richardson (h -> 0) limit of Euler. The setting and the
simulations are in :mod:`verify.claims.vollmer._logistic_runs`.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from simulate.analysis.reference import mala_reference
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, simulation_cache
from verify.stats import column_means_and_se

from ._logistic_runs import COORDS, PAPER, H, _chains, _fmt, _run, _single_thread, paper_model, reference

if TYPE_CHECKING:
    from matplotlib.axes import Axes

MALA_BURN_IN, MALA_STEPS = 20, 100


# ------------------------------------------------------------------------------------------- computation
@simulation_cache
def mala_run(chains: int, seed: int) -> dict:
    """Laplace-preconditioned full-gradient MALA on :func:`paper_model`: per-chain time averages of beta, beta^2."""
    with _single_thread():
        r = mala_reference(paper_model(), chains, MALA_STEPS, seed, burn_in=MALA_BURN_IN)
    return dict(avg=r.time_averages, avg_sq=r.time_averages_sq, acceptance=r.acceptance)


# ------------------------------------------------------------------------------------------- checks
def quadrature_check(err: float) -> ExactCheck:
    """The quadrature has converged (12 against 20 nodes per axis)."""
    return ExactCheck("Gauss-Hermite quadrature converged (K = 12 vs 20 nodes per axis)", err < 1e-9,
                      f"max change of mean and second moments {err:.2g}", kind="consistency")


def mala_checks(mr: dict, ref: dict) -> tuple[list[Check], list[tuple]]:
    """MALA's first and second moments against the quadrature (s.e. combined with the quadrature's error); the
    figure's rows (MALA minus quadrature, s.e.)."""
    mu, err = ref["mean"], ref["err"]
    checks, rows = [], []
    for j, c in enumerate(COORDS):
        m, se = mean_and_se(mr["avg"][:, j])
        checks.append(Check(f"MALA E[{c}] vs quadrature", float(mu[j]), m, math.hypot(se, err)))
        m2, se2 = mean_and_se(mr["avg_sq"][:, j])
        checks.append(Check(f"MALA E[{c}^2] vs quadrature", float(ref["second"][j, j]), m2, math.hypot(se2, err)))
        rows.append(("MALA", c, m - mu[j], se))
    return checks, rows


def richardson_checks(settings: Settings, ref: dict) -> tuple[list[Check], list[tuple], str]:
    """Euler's Richardson extrapolation 2 m(h/2) - m(h) against the quadrature (an O(h^2) remainder); the figure's
    rows and the note on Euler's O(h) bias."""
    mu, err = ref["mean"], ref["err"]
    b1, s1 = column_means_and_se(_run(settings, "euler", 0, H)["cv"], mu)
    b2, s2 = column_means_and_se(_run(settings, "euler", 0, H / 2)["cv"], mu)
    rich, se_rich = 2 * b2 - b1, np.sqrt(4 * s2**2 + s1**2 + err**2)
    checks, rows = [], []
    for j, c in enumerate(COORDS):
        checks.append(Check(f"Euler 2 m(h/2) - m(h) - E[{c}] = O(h^2)", 0.0, float(rich[j]), float(se_rich[j]),
                            params=dict(bias_h=float(b1[j]), bias_h2=float(b2[j]))))
        rows.append(("Euler Richardson", c, rich[j], se_rich[j]))
    note = f"Euler bias at h = {H}: {_fmt(b1)} +- {_fmt(s1)}; at h/2: {_fmt(b2)} +- {_fmt(s2)} (halves with h: O(h))."
    return checks, rows, note


def draw_reference(ax: Axes, rows: list[tuple]) -> None:
    """Each estimate minus the quadrature's posterior mean (3 s.e.)."""
    y = np.arange(len(rows))
    ax.errorbar([r[2] for r in rows], y, xerr=[3 * r[3] for r in rows], fmt="o", ms=3)
    ax.set_yticks(y, [f"{r[0]} {r[1]}" for r in rows], fontsize=6)
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("estimate - quadrature (3 s.e. bars)")
    ax.set_title("logistic regression: reference posterior mean", fontsize=8)


# ------------------------------------------------------------------------------------------- claim
@claim("vollmer.sec7.reference", paper=PAPER, source="Vollmer et al. 2016, Section 7 (reference posterior mean)",
       statement="The posterior mean of the Section 7 logistic regression (d = 3, N = 1000) is pinned down: "
                 "Gauss-Hermite quadrature, full-gradient MALA and the h -> 0 (Richardson) limit of Euler agree "
                 "within s.e.",
       family="logistic")
def reference_mean(settings: Settings) -> ClaimResult:
    """Claim (a): quadrature vs MALA (mean, second moments) and vs the Richardson limit of Euler (new)."""
    ref = reference()
    mr = mala_run(_chains(settings, 10, 100), settings.seed_for("logistic:mala"))
    mala, mala_rows = mala_checks(mr, ref)
    rich, rich_rows, euler_note = richardson_checks(settings, ref)
    return ClaimResult(
        checks=mala + rich, exact=[quadrature_check(ref["err"])],
        figure=partial(draw_reference, rows=mala_rows + rich_rows),
        notes=[f"MALA (Laplace-preconditioned, h = 1): {mr['avg'].shape[0]} chains x {MALA_STEPS} steps after "
               f"{MALA_BURN_IN}, acceptance {mr['acceptance']:.3f}.", euler_note,
               f"reference posterior mean {np.array2string(ref['mean'], precision=6)} (quadrature error "
               f"{ref['err']:.1g})."])
