"""Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) and Figure 3: the minimal cost of Euler, SGLD and mSGLD
for a target MSE2 on the toy.

* The costs read off the figure (docs/papers/vollmer.md sec. 9) are judged by the smallest exact MSE2 that any
  (n, r < 1) reaches at that cost (theory.bounds.vollmer.cheapest_mse2, new), with the simulator checked against the
  closed form at each minimiser (z-tests, s.e. across chains). docs/verdicts.md gives the diagnosis: the cost unit,
  the MSE target and theta_0 are pinned by Euler's curve, which the workbench reproduces. A smaller data variance
  does not explain the plotted points: evaluated at the paper's own (n, r, M) with the minibatch noise switched off
  (Euler at the same r and M, the limit of every smaller data variance) they still miss their targets.
* The two findings of Section 6.1 (SGLD's gain over Euler shrinks as the target falls, its n growing; mSGLD gains on
  SGLD) and where mSGLD overtakes SGLD, from the exact minimal costs (leading-order steps, each optimum re-checked with
  the exact closed form and with simulated chains).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate.runtime.runner import run
from theory import exact_law
from theory.bounds.vollmer import cheapest_mse2, minimal_cost, reaches
from theory.toy.finite_time import toy_finite_time
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se, simulation_cache

from .toy import PAPER, default_model, make_sampler

FIG3_POINTS = (("sgld", 550, 1e-3), ("sgld", 5000, 1e-4), ("msgld", 3000, 1e-3), ("msgld", 11_000, 1e-4))
#: The cost is flat in n near its minimum; this grid holds the minimisers of an 18-value grid on 1..1000 (n = 5, 40,
#: 100, 120 for the four points), so its minima are the same at half the cost.
FIG3_NS = (2, 5, 10, 20, 40, 100, 120, 300, 1000)
#: The paper's points as read off Figure 3 (a)-(c): (method, n, M = cost / n, target); r was read as 0.66-0.73.
READ_OFF = (("sgld", 13, 42, 1e-3), ("msgld", 100, 30, 1e-3), ("msgld", 100, 110, 1e-4))
READ_R = (0.66, 0.68, 0.70, 0.73)
#: The targets of the findings (MSE2 <= eps, the figure's axis) and the minibatch grid of the minimal costs.
FINDING_EPS = (1e-3, 5e-4, 2e-4, 1e-4, 1e-5)
FINDING_NS = (10, 20, 40, 80, 160, 320)
#: The figure's crossover read off Figure 3(a): mSGLD cheaper than SGLD below about this MSE2.
PLOTTED_CROSSOVER = 4e-5


# ------------------------------------------------------------------------------------------ computation
@simulation_cache
def fig3_run(method: str, n: int, r: float, M: int, chains: int, seed: int):
    """Chains of the toy sampler from theta_0 = 0 for M states (theta_0 included, as in eq. 22)."""
    return run(make_sampler(method, r, n, False), chains, M, seed=seed, theta0=0.0)


@cache
def finding_costs() -> dict:
    """{eps: {method: MinimalCost}} for Euler, SGLD and mSGLD at each target of FINDING_EPS (n over FINDING_NS;
    leading-order steps, dps 25)."""
    x = default_model().data[:, 0]
    out = {}
    for eps in FINDING_EPS:
        row = {"euler": minimal_cost("euler", x, eps, None, dps=25, exact=False)}
        for m in ("sgld", "msgld"):
            row[m] = min((minimal_cost(m, x, eps, [n], dps=25, exact=False) for n in FINDING_NS), key=lambda c: c.cost)
        out[eps] = row
    return out


# ------------------------------------------------------------------------------------------ checks
def noise_free_checks() -> list[ExactCheck]:
    """Each read-off point with the minibatch noise switched off (Euler at the same r and M): does it reach its
    target for some r in the read range? (The counter-examples to the data-variance explanation.)"""
    x = default_model().data[:, 0]
    out = []
    for method, n, M, target in READ_OFF:
        ratios = {r: float(toy_finite_time("euler", x, None, r=r).mse2(M)) / target for r in READ_R}
        with_noise = float(toy_finite_time(method, x, n, r=0.7).mse2(M)) / target
        out.append(ExactCheck(
            f"{method.upper()} read-off point n = {n}, M = {M} (MSE2 <= {target:g}): with the minibatch noise "
            f"switched off (any smaller data variance) it reaches its target for some r in {READ_R[0]}..{READ_R[-1]}",
            min(ratios.values()) <= 1.0,
            "noise-free MSE2 / target at r = " + ", ".join(f"{r}: {q:.3f}" for r, q in ratios.items())
            + f"; with the data's noise at r = 0.7: {with_noise:.2f}", expect="fail"))
    return out


def crossover_check(costs: dict) -> ExactCheck:
    """Where mSGLD becomes cheaper than SGLD against the figure's reading (the counter-example)."""
    cheaper = [e for e, row in costs.items() if row["msgld"].cost < row["sgld"].cost]
    return ExactCheck(
        f"mSGLD becomes cheaper than SGLD only below MSE2 ~ {PLOTTED_CROSSOVER:g} (Figure 3(a))",
        max(cheaper) <= PLOTTED_CROSSOVER * 2,
        "exact minimal costs SGLD / mSGLD: " + "; ".join(f"{e:g}: {r['sgld'].cost:.4g} / {r['msgld'].cost:.4g}"
                                                       for e, r in costs.items())
        + f"; mSGLD is cheaper from {max(cheaper):g} down", expect="fail")


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
               "a finer step or n grid can only raise a cost. Nor does a smaller data variance: at the paper's own "
               "read-off points (SGLD n = 13, M = 42; mSGLD n = 100, M = 30 and 110) the MSE2 with the minibatch "
               "noise switched off is still 1.36-1.75x, 2.57-3.31x and 2.43-3.05x the targets over the plotted r = "
               "0.66-0.73. The plotted crossover (mSGLD cheaper than SGLD below about 4e-5) lies between 5e-4 and "
               "2e-4 exactly (mSGLD already costs 0.85x SGLD's at 2e-4). Section 6.1's two findings hold "
               "(vollmer.fig3.findings); the source of the plotted costs is not identifiable from the text.")
def subsampled_costs(settings: Settings) -> ClaimResult:
    out, engine_gap = ClaimResult(), 0.0
    for method, cost, target in FIG3_POINTS:
        check, reach, gap = cost_point_checks(method, cost, target, settings)
        out.add(check, reach)
        engine_gap = max(engine_gap, gap)
    out.exact.append(ExactCheck(
        "the exact MSE2 at the four minimisers (theory.toy.finite_time) = the exact engine's time-average MSE",
        engine_gap < 1e-10, f"largest relative difference {engine_gap:.2e}", kind="consistency"))
    out.exact += [*noise_free_checks(), crossover_check(finding_costs())]
    out.notes += [euler_note(), "read-off points of mSGLD use n = 100, the middle of the plotted 60-120: at n = 60 "
                                "(M = 50) the noise-free 1e-3 point would reach its target for r >= 0.73 (0.99x)"]
    return out


def findings_checks(costs: dict) -> list[ExactCheck]:
    """Finding 1 (SGLD's gain over Euler shrinks as eps falls, its n growing) and finding 2 (mSGLD's cost relative
    to SGLD's falls as eps falls), and each optimum re-checked with the exact closed form."""
    eps = sorted(costs, reverse=True)
    gain = [costs[e]["euler"].cost / costs[e]["sgld"].cost for e in eps]
    ns = [costs[e]["sgld"].n for e in eps]
    rel = [costs[e]["msgld"].cost / costs[e]["sgld"].cost for e in eps]
    x = default_model().data[:, 0]
    exact_ok, where = True, []
    for e in eps:
        for m in ("sgld", "msgld"):
            c = costs[e][m]
            at_m, before = reaches(m, x, c.n, c.r, round(c.M), e, dps=25)
            exact_ok &= at_m and not before
            where.append(f"{m} {e:g}: n = {c.n}, r = {c.r:.3f}, M = {round(c.M)}")
    return [
        ExactCheck("finding 1: as the target falls, SGLD's gain over Euler (cost ratio) decreases and its optimal n "
                   "grows", all(b < a for a, b in zip(gain, gain[1:], strict=False)) and ns[-1] > ns[0],
                   "MSE2 target " + ", ".join(f"{e:g}: gain {g:.3g}, n = {n}" for e, g, n in zip(eps, gain, ns,
                                                                                          strict=True))),
        ExactCheck("finding 2: as the target falls, mSGLD gains efficiency over SGLD (mSGLD / SGLD cost decreases)",
                   all(b < a for a, b in zip(rel, rel[1:], strict=False)),
                   ", ".join(f"{e:g}: {q:.3f} (mSGLD n = {costs[e]['msgld'].n})" for e, q in zip(eps, rel,
                                                                                             strict=True))),
        ExactCheck("each reported optimum reaches its target in the exact closed form, one state fewer does not",
                   exact_ok, "; ".join(where), kind="consistency")]


def optimum_checks(costs: dict, settings: Settings) -> list[Check]:
    """The simulator at the SGLD and mSGLD optima of the two largest targets: MSE2 = the exact value there."""
    x = default_model().data[:, 0]
    chains = max(500, settings.chains // 10)  # minibatches of 80-160 drawn without replacement: the slow part
    out = []
    for e in (1e-3, 1e-4):
        for m in ("sgld", "msgld"):
            c = costs[e][m]
            M = round(c.M)
            res = fig3_run(m, c.n, c.r, M, chains, settings.seed_for(f"vollmer.fig3.findings.{m}.{e}"))
            ch = toy_finite_time(m, x, c.n, r=c.r)
            est, se = mean_and_se((res.time_averages["theta2"][:, 0] - float(ch.target2)) ** 2)
            out.append(Check(f"{m.upper()} optimum for MSE2 <= {e:g} (n = {c.n}, r = {c.r:.3f}, M = {M}): simulated "
                             "MSE2 (exact)", float(ch.mse2(M)), est, se, dict(n=c.n, r=c.r, M=M, chains=chains)))
    return out


@claim("vollmer.fig3.findings", paper=PAPER,
       source="Vollmer et al. 2016, Section 6.1, eq. (69), Figure 3, findings 1-2",
       statement="As the target MSE2 falls, (1) SGLD's gain over Euler in computational cost decreases, because its "
                 "optimal n increases; (2) mSGLD gains efficiency over SGLD.",
       family="sections56")
def findings(settings: Settings) -> ClaimResult:
    costs = finding_costs()
    out = ClaimResult(exact=findings_checks(costs), notes=[
        "minimal costs over n in " + str(FINDING_NS) + " and r < 1 (leading-order steps, each optimum re-checked "
        "exactly); the cost is flat in n near its minimum, so the optimal n is only resolved to the grid; where "
        "mSGLD overtakes SGLD, and the plotted costs, are judged in vollmer.fig3.subsampled_costs"])
    return out.add(*optimum_checks(costs, settings))
