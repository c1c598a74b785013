"""What happens as N grows with the step gamma = eta/N (Brosse et al.'s abstract and the caption of their Figure 5:
"LMC and SGLDFP concentrate to the posterior mean with a covariance matrix of the order 1/N, SGLD and SGD are at a
distance of order 1 and do not concentrate"; "SGLD behaves like SGD"). Exact on nested regressions with
N = 100 ... 10^4: W2 to the posterior exactly for LMC (Gaussian), Gelbrich's lower bound for SGLD, SGLDFP and SGD
(only their moments are known), and the synchronous-coupling upper bounds of :mod:`theory.chains.brosse`. An order
in N is the least-squares slope of log(distance) against log N, judged against the statement with a tolerance of
0.1 (the slopes are exact numbers, not estimates)."""

from __future__ import annotations

import numpy as np

from theory.chains.brosse import coupling_bounds, invariant_covariances
from theory.distances import gelbrich_w2, w2_gaussian
from verify.api import ClaimResult, ExactCheck, claim, simulation_cache

from ._common import N_GRID, P_BATCH, PAPER, SRC, gamma, regression

#: Largest distance of a fitted slope from the stated order.
SLOPE_TOLERANCE = 0.1


@simulation_cache
def _table() -> dict[str, np.ndarray]:
    """Per N of N_GRID: W2(pi_LMC, pi), Gelbrich bounds for SGLDFP, SGLD, SGD against pi, the coupling bounds,
    tr C_LMC and tr C_SGLDFP."""
    rows = []
    for N in N_GRID:
        m = regression(N)
        C = invariant_covariances(m, gamma(N), P_BATCH)
        mu, S = m.posterior_mean, m.posterior_cov
        cb = coupling_bounds(C)
        w_lmc = w2_gaussian(mu, C["lmc"], mu, S)
        rows.append({"lmc": w_lmc, "fp_lo": gelbrich_w2(mu, C["sgldfp"], mu, S),
                     "fp_hi": w_lmc + cb["sgldfp-lmc"], "sgld_lo": gelbrich_w2(mu, C["sgld"], mu, S),
                     "sgd_lo": gelbrich_w2(mu, C["sgd"], mu, S), "sgld_sgd_hi": cb["sgld-sgd"],
                     "tr_lmc": float(np.trace(C["lmc"])), "tr_fp": float(np.trace(C["sgldfp"]))})
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def _slope(y: np.ndarray) -> float:
    return float(np.polyfit(np.log(N_GRID), np.log(y), 1)[0])


def _slope_check(label: str, y: np.ndarray, order: float) -> ExactCheck:
    q = _slope(y)
    return ExactCheck(f"{label} ~ N^{order:g}", abs(q - order) <= SLOPE_TOLERANCE,
                      f"fitted slope {q:.3f} over N = {N_GRID[0]}..{N_GRID[-1]}; values "
                      + ", ".join(f"{v:.3g}" for v in y))


def _figure(t):
    def draw(ax):
        for key, label in (("lmc", "W2(LMC, pi)"), ("fp_hi", "W2(SGLDFP, pi) <= (coupling)"),
                           ("sgld_lo", "W2(SGLD, pi) >= (Gelbrich)"), ("sgld_sgd_hi", "W2(SGLD, SGD) <= (coupling)")):
            ax.loglog(N_GRID, t[key], marker="o", label=label)
        ax.set_xlabel("N (gamma = eta/N)")
        ax.set_ylabel("W2")
        ax.legend(fontsize=7)

    return draw


@claim("brosse.large_n.lmc_sgldfp_concentrate", paper=PAPER, source=f"{SRC}, abstract and Fig. 5 (Proposition 5)",
       statement="With gamma = eta/N, LMC and SGLDFP concentrate on the posterior mean: their invariant covariances "
       "are O(1/N) and their W2 distance to the posterior is O(N^-1/2).", family="brosse.large_n")
def lmc_sgldfp_concentrate(settings) -> ClaimResult:
    t = _table()
    out = ClaimResult(figure=_figure(t))
    out.exact += [_slope_check("tr C_LMC", t["tr_lmc"], -1.0), _slope_check("tr C_SGLDFP", t["tr_fp"], -1.0),
                  _slope_check("W2(pi_LMC, pi) (exact)", t["lmc"], -0.5),
                  _slope_check("W2(pi_SGLDFP, pi) upper bound (coupling with LMC)", t["fp_hi"], -0.5),
                  _slope_check("W2(pi_SGLDFP, pi) lower bound (Gelbrich)", t["fp_lo"], -0.5)]
    return out


@claim("brosse.large_n.sgld_does_not_concentrate", paper=PAPER, source=f"{SRC}, abstract and Fig. 5",
       statement="With gamma = eta/N, SGLD's invariant law stays at a W2 distance of order 1 from the posterior "
       "(it does not concentrate), and so does SGD's.", family="brosse.large_n")
def sgld_does_not_concentrate(settings) -> ClaimResult:
    t = _table()
    out = ClaimResult(figure=_figure(t))
    for key, label in (("sgld_lo", "W2(pi_SGLD, pi)"), ("sgd_lo", "W2(pi_SGD, pi)")):
        q = _slope(t[key])
        out.exact.append(ExactCheck(f"{label} lower bound (Gelbrich) does not fall with N (slope >= "
                                    f"-{SLOPE_TOLERANCE:g}, and its value at N = {N_GRID[-1]} >= at N = {N_GRID[0]})",
                                    q >= -SLOPE_TOLERANCE and t[key][-1] >= t[key][0],
                                    f"fitted slope {q:.3f}; values " + ", ".join(f"{v:.3g}" for v in t[key])))
    return out


@claim("brosse.large_n.sgld_behaves_like_sgd", paper=PAPER, source=f"{SRC}, abstract and Fig. 5 (Theorem 6)",
       statement="With gamma = eta/N, the invariant laws of SGLD and SGD merge: W2(pi_SGLD, pi_SGD) = O(N^-1/2), while "
       "both stay at distance of order 1 from the posterior.", family="brosse.large_n")
def sgld_behaves_like_sgd(settings) -> ClaimResult:
    t = _table()
    out = ClaimResult(figure=_figure(t))
    out.exact.append(_slope_check("W2(pi_SGLD, pi_SGD) upper bound (coupling)", t["sgld_sgd_hi"], -0.5))
    ratio = t["sgld_sgd_hi"] / t["sgld_lo"]
    q = _slope(ratio)
    out.exact.append(ExactCheck("W2(pi_SGLD, pi_SGD) / W2(pi_SGLD, pi) -> 0: the coupling bound over the Gelbrich "
                                "bound falls at least like N^-1/2", q <= -0.5 + SLOPE_TOLERANCE,
                                f"fitted slope {q:.3f}; ratios " + ", ".join(f"{r:.3g}" for r in ratio)))
    return out
