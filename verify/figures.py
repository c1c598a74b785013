"""The default figure of a claim that draws none: theory against simulation, with the Holm threshold as error bars.

Each statistical check is a point: the simulation's estimate divided by the theory value (1 is perfect agreement),
with error bars of +- z_Holm s.e. (z_Holm the strictest two-sided threshold of the run's Holm family, so a bar that
misses 1 is a rejected check); a check whose theory value is 0 is drawn as estimate - theory in units of its s.e.
on a second axis. One-sided checks are drawn with a one-sided bar.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from .checks import OneSidedCheck


def holm_threshold(alpha: float, n_checks: int) -> float:
    """The strictest two-sided critical value of a Holm family of n_checks: Phi^{-1}(1 - alpha / (2 n_checks))."""
    return float(sps.norm.isf(alpha / (2 * max(n_checks, 1))))


def default_figure(checks: list, z_crit: float) -> Callable:
    """``draw(ax)`` for :func:`verify.report.write_report`: the checks as estimate/theory with +- z_crit s.e."""
    rel = [c for c in checks if c.theory != 0 and np.isfinite(c.theory)]
    zero = [c for c in checks if not (c.theory != 0 and np.isfinite(c.theory))]

    def draw(ax) -> None:
        x = np.arange(len(rel))
        for i, c in enumerate(rel):
            r, e = c.estimate / c.theory, z_crit * c.se / abs(c.theory)
            lo, hi = e, e
            if isinstance(c, OneSidedCheck):  # only the side that can reject the claim
                lo, hi = (e, 0.0) if (c.direction == "greater") == (c.theory > 0) else (0.0, e)
            ax.errorbar(i, r, yerr=[[lo], [hi]], fmt="o", ms=4, color="C3" if c.rejected else "C0", capsize=2)
        ax.axhline(1.0, color="0.4", lw=0.8, ls="--")
        ax.set_ylabel(f"simulation / theory (bars: +- {z_crit:.2f} s.e.)")
        ax.set_xticks(x)
        ax.set_xticklabels([str(i + 1) for i in x], fontsize=7)
        ax.set_xlabel("check (numbered as in the table)")
        if zero:
            ax2 = ax.twinx()
            for j, c in enumerate(zero):
                ax2.errorbar(len(rel) + j, (c.estimate - c.theory) / c.se, yerr=z_crit, fmt="s", ms=4, capsize=2,
                             color="C3" if c.rejected else "C2")
            ax2.axhline(0.0, color="C2", lw=0.6, ls=":")
            ax2.set_ylabel("z of checks with theory 0", color="C2")
            ax.set_xticks(np.arange(len(rel) + len(zero)))
            ax.set_xticklabels([str(i + 1) for i in range(len(rel) + len(zero))], fontsize=7)

    return draw


__all__ = ["default_figure", "holm_threshold"]
