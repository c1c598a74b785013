"""The one-line explanation of an optimum: why (h*, n*) sits where it does, computed from its numbers only.

Rules (each checked against its numbers by ``tests/test_explore_real_data.py`` on a grid of cases):

* the limiting term is the larger share of the MSE at h*: "bias-limited" when bias^2 >= 50% of the MSE, else
  "variance-limited";
* the position: "at the largest stable h" when h* >= 0.9 x the stability edge, "at the smallest h of the grid" when
  h* is the grid's first point, "at the variance-inflation limit" when the limit excluded a better point, else
  "interior";
* which bias dominates (start-up, E(average) - E_stationary phi, or stationary, E_stationary phi - target) is named
  only when bias^2 is at least 5% of the MSE;
* the shares printed are the optimum's own (rounded to whole per cent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .optimise import Optimum

#: bias^2 share of the MSE below which the explanation does not say which bias dominates.
NAMED_BIAS_SHARE = 0.05
#: h* / edge from which an optimum is "at the largest stable h".
EDGE_POSITION = 0.9


def explain(opt: Optimum) -> str:
    """Why an optimum sits where it does, in one line (rules in the module docstring).

    Parameters
    ----------
    opt : Optimum
        The optimum.

    Returns
    -------
    str
        The limiting term, the position of h* relative to the stability edge and the grid, and the MSE's split.
    """
    share = opt.bias2 / opt.mse if opt.mse > 0 else 0.0
    pos = opt.h / opt.edge
    which = "start-up" if abs(opt.startup_bias) >= abs(opt.stationary_bias) else "stationary"
    named = f", mostly {which} bias" if share >= NAMED_BIAS_SHARE else ""
    split = f"(at h*: bias^2 {share:.0%} of the MSE{named}; variance {1 - share:.0%})"
    limit = "bias-limited" if share >= 0.5 else "variance-limited"
    if getattr(opt, "constrained", False):
        return (f"{limit}: at the variance-inflation limit, h* = {pos:.2g} x the stability edge; a point with a "
                f"smaller "
                f"MSE has a stationary variance beyond the limit, so its samples would misrepresent the posterior "
                f"{split}")
    if pos >= EDGE_POSITION:
        why = ("the time average's variance falls as h grows" if share < 0.5 else
               f"the {which} bias^2 dominates the MSE")
        return (f"{limit}: at the largest stable h, h* = {pos:.3f} x the stability edge {opt.edge:.4g}; {why}, until "
                f"mean-square stability ends {split}")
    if opt.at_grid_bottom:
        return (f"{limit}: at the smallest h of the grid (h* = {pos:.2g} x the stability edge): the MSE may fall "
                f"further at smaller h; extend the grid (--fractions) {split}")
    dbias, dvar = opt.slopes
    trend = (f"beyond it bias^2 grows ({dbias:+.2g} per unit log h) faster than the variance falls ({dvar:+.2g})"
             if dbias > 0 and dvar < 0 else "the MSE rises on both sides")
    return f"{limit}: interior optimum h* = {pos:.2g} x the stability edge; {trend} {split}"


__all__ = ["EDGE_POSITION", "NAMED_BIAS_SHARE", "explain"]
