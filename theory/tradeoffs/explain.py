"""The one-line explanation of an optimum: why (h*, n*) sits where it does, computed from its numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .optimise import Optimum


def explain(opt: Optimum) -> str:
    """Why an optimum sits where it does, in one line.

    Parameters
    ----------
    opt : Optimum
        The optimum.

    Returns
    -------
    str
        What stops h* from growing (bias^2, variance, or mean-square stability), where h* sits relative to the
        stability edge, and the MSE's split at h*.
    """
    share = opt.bias2 / opt.mse if opt.mse > 0 else 0.0
    pos = opt.h / opt.edge
    which = "start-up" if abs(opt.startup_bias) >= abs(opt.stationary_bias) else "stationary"
    split = f"(at h*: bias^2 {share:.0%} of the MSE, mostly {which} bias; variance {1 - share:.0%})"
    if pos >= 0.9:
        if share >= 0.5:
            return (f"bias-limited: the optimum is at the largest stable h (h* = {pos:.3f} x the stability edge "
                    f"{opt.edge:.4g}): the {which} bias shrinks as h grows, until mean-square stability ends {split}")
        return (f"variance-limited: the optimum is at the largest stable h (h* = {pos:.3f} x the stability edge "
                f"{opt.edge:.4g}): the time average's variance shrinks as h grows, until mean-square stability ends "
                f"{split}")
    if opt.at_grid_bottom:
        return (f"bias-limited: the optimum is at the smallest h of the grid (h* = {pos:.2g} x the stability edge): "
                f"extend the grid to smaller h {split}")
    dbias, dvar = opt.slopes
    if dbias >= dvar:
        return (f"bias-limited: interior optimum h* = {pos:.2g} x the stability edge; beyond it the {which} bias^2 "
                f"grows faster than the variance falls {split}")
    return (f"variance-limited: interior optimum h* = {pos:.2g} x the stability edge; beyond it the variance grows "
            f"faster than bias^2 falls {split}")


__all__ = ["explain"]
