"""Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) and Figure 3: the minimal cost of Euler, SGLD and mSGLD
for a target MSE2 on the toy. The costs read off the figure (docs/papers/vollmer.md sec. 9) are judged by the smallest
exact MSE2 that any (n, r < 1) reaches at that cost (theory.bounds.vollmer.cheapest_mse2, new), with the simulator
checked against the closed form at each minimiser (z-tests, s.e. across chains). docs/verdicts.md gives the diagnosis:
the cost unit, the MSE target and theta_0 are pinned by Euler's curve, which the workbench reproduces.
"""

from __future__ import annotations

import numpy as np

from simulate.runtime.runner import run
from theory import exact_law
from theory.bounds.vollmer import cheapest_mse2, minimal_cost
from theory.toy.finite_time import toy_finite_time
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, simulation_cache

from .toy import PAPER, default_model, make_sampler

FIG3_POINTS = (("sgld", 550, 1e-3), ("sgld", 5000, 1e-4), ("msgld", 3000, 1e-3), ("msgld", 11_000, 1e-4))
#: The cost is flat in n near its minimum; this grid holds the minimisers of an 18-value grid on 1..1000 (n = 5, 40,
#: 100, 120 for the four points), so its minima are the same at half the cost.
FIG3_NS = (2, 5, 10, 20, 40, 100, 120, 300, 1000)


# ------------------------------------------------------------------------------------------ computation
@simulation_cache
def fig3_run(method: str, n: int, r: float, M: int, chains: int, seed: int):
    """Chains of the toy sampler from theta_0 = 0 for M states (theta_0 included, as in eq. 22)."""
    return run(make_sampler(method, r, n, False), chains, M, seed=seed, theta0=0.0)


# ------------------------------------------------------------------------------------------ checks
def cost_point_checks(method: str, cost: int, target: float, settings: Settings) -> tuple[Check, ExactCheck, float]:
    """One read-off point: the simulator at the cheapest (n, r) against the closed form, whether that point reaches
    the target, and the relative gap between the closed form and the exact engine there."""
    x = default_model().data[:, 0]
    c = cheapest_mse2(method, x, cost, FIG3_NS)
    # the simulator at the cheapest point: per-chain (S2 - target)^2, S2 the average of theta_0..theta_{M-1}
    res = fig3_run(method, c.n, c.r, c.M, settings.chains, settings.seed_for(f"fidelity2.fig3.{method}.{cost}"))
    ch = toy_finite_time(method, x, c.n, r=c.r)
    est, se = mean_and_se((res.time_averages["theta2"][:, 0] - float(ch.target2)) ** 2)
    check = Check(f"{method.upper()} at n = {c.n}, r = {c.r:.3f}, M = {c.M}: MSE2 (closed form)",
                  float(ch.mse2(c.M)), est, se, dict(n=c.n, r=c.r, M=c.M))
    law = exact_law(make_sampler(method, c.r, c.n, False), theta0=np.zeros(1))
    engine = law.time_average_mse(quadratic=np.eye(1), n_steps=c.M, target=float(ch.target2))
    reach = ExactCheck(
        f"{method.upper()}: cost M n = {cost} reaches MSE2 <= {target:g} (Fig. 3 read-off) for some n, r < 1",
        c.mse2 <= target,
        f"smallest exact MSE2 at this cost over n in {FIG3_NS}, r in [1e-3, 0.999]: {c.mse2:.3g} "
        f"({c.mse2 / target:.1f}x the target) at n = {c.n}, r = {c.r:.3f}, M = {c.M}", expect="fail")
    return check, reach, abs(engine / float(ch.mse2(c.M)) - 1)


def euler_note() -> str:
    """Euler's read-off is reproduced: what pins the cost unit, the target and theta_0."""
    eu = minimal_cost("euler", default_model().data[:, 0], 1e-3, None)
    return (f"Euler's read-off (3.5e4 at 1e-3) is reproduced: minimal cost {eu.cost:.3g} (r = {eu.r:.3f}, "
            f"M = {eu.M:.0f}); the cost unit (M n gradient evaluations), the MSE target (MSE2 <= the axis "
            "value) and theta_0 = 0 are pinned by it; the readings tried are tabulated in docs/verdicts.md "
            "(Vollmer et al. Figure 3)")


# ------------------------------------------------------------------------------------------ claim
@claim("vollmer.fig3.subsampled_costs", paper=PAPER,
       source="Vollmer et al. 2016, Section 6.1, eq. (69), Figure 3 (values read off the plot, "
              "docs/papers/vollmer.md sec. 9)",
       statement="On the toy (N = 1000, x_i ~ N(1, 1), theta_0 = 0) SGLD reaches MSE2 <= 1e-3 at cost ~550 and 1e-4 "
                 "at ~5e3, mSGLD 1e-3 at ~3e3 and 1e-4 at ~1.1e4 (Figure 3(a)).",
       family="sections56", expected="fails",
       erratum="No (n, r < 1) reaches these MSE2 values at these costs on the paper's toy: the smallest exact MSE2 is "
               "5.9e-3 at cost 550 and 7.1e-4 at 5e3 for SGLD (6-7x the targets), 1.6e-3 at 3e3 and 3.2e-4 at 1.1e4 "
               "for mSGLD, while Euler's curve is reproduced (3.2e4 vs the paper's 3.5e4 at 1e-3). The cost unit "
               "(M n gradient evaluations), the target (MSE2 <= the axis value) and theta_0 = 0 are pinned by Euler; "
               "sampling with replacement, r < 2 or theta_0 = mu do not help SGLD/mSGLD without breaking Euler, and "
               "a finer step or n grid can only raise a cost. The qualitative findings (SGLD's gain shrinks, "
               "mSGLD's optimal n stays moderate) hold (notebook vollmer_finite_time_and_cost); the source of the "
               "discrepancy is not identifiable from the text (a data variance about 1/8 fits SGLD's two points but "
               "not mSGLD's).")
def subsampled_costs(settings: Settings) -> ClaimResult:
    out, engine_gap = ClaimResult(), 0.0
    for method, cost, target in FIG3_POINTS:
        check, reach, gap = cost_point_checks(method, cost, target, settings)
        out.add(check, reach)
        engine_gap = max(engine_gap, gap)
    out.exact.append(ExactCheck(
        "the exact MSE2 at the four minimisers (theory.toy.finite_time) = the exact engine's time-average MSE",
        engine_gap < 1e-10, f"largest relative difference {engine_gap:.2e}", kind="consistency"))
    out.notes.append(euler_note())
    return out
