"""Vollmer, Zygalakis & Teh (2016), Section 7 and Remark 7: SGLD and mSGLD on Bayesian logistic regression.

Setting (the paper's, ../shared/notes/004.md sec. 5): d = 3, N = 1000, rows (x_i1, x_i2, 1), x_ij ~ N(0, 1),
prior N(0, I), h = 0.002 (workbench convention, the paper's own), minibatches without replacement. Labels: the
paper does not say how they were drawn; ours are y_i ~ sigma(y beta_true^T x_i) with beta_true = (1, -1, 0.5)
(simulate.models.logistic.PAPER_BETA_TRUE, seed 2016).

Reference posterior moments: tensor Gauss-Hermite quadrature in Laplace-whitened coordinates
(simulate.analysis.reference.posterior_moments_quadrature); its error, max |K=20 vs K=12 nodes|, is ~1e-14, so every
s.e. below that combines a simulation s.e. with the reference error "in quadrature" (sqrt(se^2 + err^2)) is in
practice the simulation s.e. The reference itself is checked against full-gradient MALA (claim a).

Asymptotic (stationary) biases of the posterior mean are per-chain time averages (eq. 7) after a burn-in, with the
Laplace-linear control variate of simulate.analysis.reference.laplace_cv_run (same expectation, ~20x smaller s.e. for
SGLD); s.e. across independent chains. Samplers compared at the same n share the seed, hence the minibatches and the
injected noise (common random numbers), and their differences are formed chain by chain.

Ordering statements ("grows", "better", "worse") are one-sided tests (:class:`OneSidedCheck`): the claim is
rejected only when the data contradict it significantly; the z in favour is reported.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from simulate.analysis.reference import mala_reference
from verify.api import Check, Claim, ClaimResult, ExactCheck, Settings, mean_and_se, register, simulation_cache

from ._logistic_runs import COORDS, PAPER, H, _bias_vector, _chains, _fmt, _run, _single_thread, paper_model, reference

if TYPE_CHECKING:
    from matplotlib.axes import Axes

MALA_BURN_IN, MALA_STEPS = 20, 100


# ------------------------------------------------------------------------------------------- claim (a)
@simulation_cache
def mala_run(chains: int, seed: int) -> dict:
    """Laplace-preconditioned full-gradient MALA on :func:`paper_model`: per-chain time averages of beta, beta^2."""
    with _single_thread():
        r = mala_reference(paper_model(), chains, MALA_STEPS, seed, burn_in=MALA_BURN_IN)
    return dict(avg=r.time_averages, avg_sq=r.time_averages_sq, acceptance=r.acceptance)


def _reference_claim(settings: Settings) -> ClaimResult:
    """Claim (a): quadrature vs MALA (mean, second moments) and vs the Richardson limit of Euler (new)."""
    out = ClaimResult()
    ref = reference()
    mu, err = ref["mean"], ref["err"]
    out.exact.append(ExactCheck(
        "Gauss-Hermite quadrature converged (K = 12 vs 20 nodes per axis)", err < 1e-9,
        f"max change of mean and second moments {err:.2g}", kind="consistency"))
    mr = mala_run(_chains(settings, 10, 100), settings.seed_for("logistic:mala"))
    rows = []
    for j, c in enumerate(COORDS):
        m, se = mean_and_se(mr["avg"][:, j])
        out.checks.append(Check(f"MALA E[{c}] vs quadrature", float(mu[j]), m, math.hypot(se, err)))
        m2, se2 = mean_and_se(mr["avg_sq"][:, j])
        out.checks.append(Check(f"MALA E[{c}^2] vs quadrature", float(ref["second"][j, j]), m2,
                                math.hypot(se2, err)))
        rows.append(("MALA", c, m - mu[j], se))
    e1 = _run(settings, "euler", 0, H)
    e2 = _run(settings, "euler", 0, H / 2)
    b1, s1 = _bias_vector(e1["cv"], mu)
    b2, s2 = _bias_vector(e2["cv"], mu)
    rich, se_rich = 2 * b2 - b1, np.sqrt(4 * s2**2 + s1**2 + err**2)
    for j, c in enumerate(COORDS):
        out.checks.append(Check(f"Euler 2 m(h/2) - m(h) - E[{c}] = O(h^2)", 0.0, float(rich[j]), float(se_rich[j]),
                                params=dict(bias_h=float(b1[j]), bias_h2=float(b2[j]))))
        rows.append(("Euler Richardson", c, rich[j], se_rich[j]))
    out.notes.append(f"MALA (Laplace-preconditioned, h = 1): {mr['avg'].shape[0]} chains x {MALA_STEPS} steps "
                     f"after {MALA_BURN_IN}, acceptance {mr['acceptance']:.3f}.")
    out.notes.append(
        f"Euler bias at h = {H}: {_fmt(b1)} +- {_fmt(s1)}; at h/2: {_fmt(b2)} +- {_fmt(s2)} (halves with h: O(h)).")
    out.notes.append(f"reference posterior mean {np.array2string(mu, precision=6)} (quadrature error {err:.1g}).")

    def draw(ax: Axes) -> None:
        y = np.arange(len(rows))
        ax.errorbar([r[2] for r in rows], y, xerr=[3 * r[3] for r in rows], fmt="o", ms=3)
        ax.set_yticks(y, [f"{r[0]} {r[1]}" for r in rows], fontsize=6)
        ax.axvline(0, color="k", lw=0.5)
        ax.set_xlabel("estimate - quadrature (3 s.e. bars)")
        ax.set_title("logistic regression: reference posterior mean", fontsize=8)
    out.figure = draw
    return out


register(Claim(
    id="vollmer.sec7.reference", paper=PAPER, source="Vollmer et al. 2016, Section 7 (reference posterior mean)",
    statement="The posterior mean of the Section 7 logistic regression (d = 3, N = 1000) is pinned down: Gauss-Hermite "
              "quadrature, full-gradient MALA and the h -> 0 (Richardson) limit of Euler agree within s.e.",
    family="logistic", run=_reference_claim,
))
