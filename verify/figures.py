"""Figures of the report: every claim's statistical checks as theory against simulation, and tick helpers for the
claims' own figures.

:func:`check_figure` draws the checks of one claim from their results.json records, one row per check: the
simulation's estimate relative to the theory value, (estimate - theory) / |theory|, with error bars of
+- z_Holm s.e. / |theory| (z_Holm the strictest two-sided threshold of the run's Holm family), so that a bar that
misses the theory line at 0 is a rejected check (drawn red). One-sided checks get the one bar that can reject
them. Checks whose theory value is 0 are drawn in a second panel in absolute units. The axis always shows every
point and bar: when the largest deviation dwarfs the bars (errata with z in the hundreds), the scale is
arcsinh-linear (linear within a few bar widths of theory, logarithmic beyond), so small bars stay visible too.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps


def holm_threshold(alpha: float, n_checks: int) -> float:
    """The strictest two-sided critical value of a Holm family of n_checks: Phi^{-1}(1 - alpha / (2 n_checks))."""
    return float(sps.norm.isf(alpha / (2 * max(n_checks, 1))))


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _bars(c: dict, scale: float, z_crit: float) -> tuple[float, float, float]:
    """(x, lower bar, upper bar) of one check in units of ``scale``."""
    x = (c["estimate"] - c["theory"]) / scale
    e = z_crit * c["se"] / scale
    if c.get("kind") == "one-sided":  # claim est >= theory ("greater"): only theory > est + z se rejects it
        return (x, 0.0, e) if c.get("direction") == "greater" else (x, e, 0.0)
    return x, e, e


def _percent(v: float, _pos=None) -> str:
    """A relative deviation as a signed percentage (0 as '0')."""
    if v == 0:
        return "0"
    p = 100 * v
    return f"{p:+.0f}%" if abs(p) >= 10 else f"{p:+.2g}%"


def _asinh_ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """Positive ticks 1, 2, 5 x 10^k in [lo, hi], at most ``most``, keeping the largest (the far points)."""
    cand = [f * 10.0**k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for f in (1, 2, 5)]
    cand = [t for t in cand if lo <= t <= hi] or [10.0 ** math.floor(math.log10(hi))]
    step = max(1, math.ceil(len(cand) / most))
    return cand[::-1][::step][::-1]


def _panel(ax, rows: list[tuple[int, dict]], z_crit: float, relative: bool) -> None:
    xs, lo, hi = [], [], []
    for _, c in rows:
        scale = abs(c["theory"]) if relative else 1.0
        x, a, b = _bars(c, scale, z_crit)
        xs.append(x)
        lo.append(a)
        hi.append(b)
    y = np.arange(len(rows))[::-1]
    for yy, x, a, b, (_, c) in zip(y, xs, lo, hi, rows, strict=True):
        col = "#c0392b" if c.get("rejected") else "#1b5fb4"
        ax.errorbar([x], [yy], xerr=[[a], [b]], fmt="o", ms=4.5, color=col, capsize=3, lw=1.4)
        if c.get("rejected") and _finite(c.get("z")):
            # the label reaches from the point towards the theory line, so it stays inside the axes at the edges
            ax.annotate(f"z = {c['z']:+.3g}", (x, yy), xytext=(4 if x > 0 else -4, 6), textcoords="offset points",
                        ha="right" if x > 0 else "left", fontsize=7, color=col)
    ax.axvline(0.0, color="#222", lw=1.0)
    span = max(max(abs(x) + max(a, b) for x, a, b in zip(xs, lo, hi, strict=True)), 1e-300)
    width = float(np.median([max(a, b) for a, b in zip(lo, hi, strict=True)])) or span
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    if span > 25 * width:  # arcsinh scale: linear within ~width of theory, logarithmic beyond
        ax.set_xscale("asinh", linear_width=width)
        ax.set_xlim(-1.6 * span, 1.6 * span)
        pos = _asinh_ticks(3 * width, span)
        ax.xaxis.set_major_locator(FixedLocator(sorted([0.0] + pos + [-t for t in pos])))
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.set_xlim(-1.08 * span, 1.08 * span)
    ax.set_yticks(y, [f"{k}. {c['label'][:48]}" for k, c in rows], fontsize=7.5)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    if relative:
        ax.xaxis.set_major_formatter(FuncFormatter(_percent))
        ax.set_xlabel("simulation relative to theory: (estimate - theory) / |theory|", fontsize=8)
    else:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:+.2g}" if v else "0"))
        ax.set_xlabel("simulation - theory (checks whose theory value is 0)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7.5)
    for lab in ax.get_xticklabels():
        lab.set_rotation(0)
    ax.grid(axis="x", color="#e5e5e5", lw=0.6)


def check_figure(checks: list[dict], z_crit: float, n_family: int | None = None):
    """The figure of one claim's statistical checks (module docstring) from their results.json records; None when
    the claim has none."""
    import matplotlib.pyplot as plt

    rows = [(k, c) for k, c in enumerate(checks, 1) if all(_finite(c[f]) for f in ("theory", "estimate", "se"))]
    if not rows:
        return None
    rel = [(k, c) for k, c in rows if c["theory"] != 0]
    zero = [(k, c) for k, c in rows if c["theory"] == 0]
    panels = [p for p in (rel, zero) if p]
    fig, axes = plt.subplots(len(panels), 1, squeeze=False, height_ratios=[len(p) + 1.5 for p in panels],
                             figsize=(7.2, 1.25 + 0.3 * len(rows) + 0.5 * len(panels)))
    for ax, p in zip(axes[:, 0], panels, strict=True):
        _panel(ax, p, z_crit, relative=p is rel)
    fam = f", m = {n_family}" if n_family else ""
    fig.suptitle(f"Each check: the simulation against theory (the line at 0), bars +-{z_crit:.2f} s.e.\n(the "
                 f"strictest Holm threshold{fam}); a bar that misses the line is a rejected check (red)",
                 x=0.01, ha="left", fontsize=8)
    fig.tight_layout()
    return fig


def log_ticks(axis, values, fmt: str = "{:g}") -> None:
    """Put the major ticks of a log ``axis`` (ax.xaxis / ax.yaxis) at ``values`` with plain labels and no minor
    labels: legible ticks for axes that span less than a few decades."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    vals = sorted(set(float(v) for v in values))
    axis.set_major_locator(FixedLocator(vals))
    axis.set_major_formatter(FuncFormatter(lambda v, _: fmt.format(v)))
    axis.set_minor_formatter(NullFormatter())


__all__ = ["check_figure", "holm_threshold", "log_ticks"]
