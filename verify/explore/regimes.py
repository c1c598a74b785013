"""The papers' regimes overlaid on the explorer page, where they apply.

* Chen et al. Corollary 4 (V1) / Corollary 1 (V2), :func:`theory.bounds.chen.corollary_case`: under a budget
  T = n L, SGLD's optimised bound prefers n = N for T < T1 = (27/8) Gamma^3 N^6 and n = 1 for T > T2 = T1 N (unit
  big-O constants). Gamma is the paper's per-datum noise constant, known in closed form for the 1-D Gaussian model
  (:func:`theory.noise.vr.gaussian_gamma`), so the overlay is drawn there, for SGLD with and without replacement.
* Vollmer et al. Theorem 5.2 with the toy's constants and Remark 8 (the ingredients of Section 6.1's cost
  analysis), :func:`theory.bounds.vollmer.asymptotic_mse_constants`: MSE2(L, h) ~ c1^2 h^2 + C_v/(L h), minimised at
  h* = (C_v / (2 c1^2 L))^(1/3); for the time average of theta^2 on the Gaussian toy (sigma_x = sigma0 = 1)
  with SGLD (with and without replacement) and mSGLD.
"""

from __future__ import annotations

import numpy as np

from simulate.models.gaussian import GaussianMeanModel
from theory.bounds import chen as cb
from theory.bounds.vollmer import asymptotic_mse_constants
from theory.noise import vr as vr_noise

#: Samplers each overlay applies to.
CHEN_SAMPLERS = ("sgld", "sgld_wr")
VOLLMER_SAMPLERS = {"sgld": ("sgld", False), "sgld_wr": ("sgld", True), "msgld": ("msgld", False)}


def _toy(model) -> bool:
    m = model.model
    return isinstance(m, GaussianMeanModel) and m.dim == 1 and m.sigma_x == 1.0 and m.sigma0 == 1.0


def chen_overlay(models: list, budgets) -> list[dict | None]:
    """Per N: Gamma, T1, T2 and Corollary 4's predicted n per budget (N, 1, or None: 'an endpoint, depending');
    None where Gamma has no closed form here."""
    out: list[dict | None] = []
    for spec in models:
        if not _toy(spec):
            out.append(None)
            continue
        N = spec.n_data
        g = vr_noise.gaussian_gamma(vr_noise.GaussianData.of(spec.model.data))
        t1, t2 = (float(e.subs({cb.N: N, cb.Gamma: g})) for e in cb.regime_thresholds())
        pred = [cb.corollary_case(N, float(T), g) for T in budgets]
        out.append({"gamma": g, "T1": t1, "T2": t2, "predicted": [None if p == 0 else int(p) for p in pred],
                    "samplers": list(CHEN_SAMPLERS)})
    return out


def vollmer_overlay(model, objective, sampler: str, surfaces: list) -> dict | None:
    """Theorem 5.2's asymptotic MSE on each surface's (n, h) grid and Remark 8's h* per (budget, n); None where it
    does not apply (not the toy, not theta^2, not SGLD / mSGLD)."""
    if not (_toy(model) and objective.kind == "quadratic" and objective.vector is None and sampler in VOLLMER_SAMPLERS):
        return None
    method, replace = VOLLMER_SAMPLERS[sampler]
    data = model.model.data[:, 0]
    s0 = surfaces[0]
    consts = [asymptotic_mse_constants(method, data, int(n), replace) for n in s0.n]
    c1 = np.array([c for c, _ in consts])
    cv = np.array([v for _, v in consts])
    curves, hstar = [], []
    for s in surfaces:
        L = np.where(s.n_steps > 0, s.n_steps, np.nan).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            curves.append(c1[:, None] ** 2 * s.h**2 + cv[:, None] / (L[:, None] * s.h))
            hstar.append((cv / (2 * c1**2 * L)) ** (1.0 / 3.0))
    from .grid import _round

    return {"c1": _round(c1), "cv": _round(cv), "mse": [_round(c) for c in curves], "hstar": [_round(h) for h in hstar],
            "source": "Vollmer et al. Theorem 5.2 (toy constants) and Remark 8"}


def regime_words(chen: dict | None, budget: float, b: int, N: int) -> str:
    """Corollary 4's prediction at one budget in words (for the console)."""
    if chen is None:
        return "Chen et al. Corollary 4: not drawn (Gamma has no closed form for this model here)"
    p = chen["predicted"][b]
    what = f"n = {p}" if p is not None else "n = 1 or N (between the thresholds)"
    return (f"Chen et al. Corollary 4 (unit constants): {what} at T = {budget:.3g} (T1 = {chen['T1']:.3g}, "
            f"T2 = {chen['T2']:.3g}, N = {N})")


__all__ = ["CHEN_SAMPLERS", "VOLLMER_SAMPLERS", "chen_overlay", "regime_words", "vollmer_overlay"]
