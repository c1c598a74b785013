"""Figures of the report: every claim's statistical checks as theory against simulation, and tick helpers for the
claims' own figures.

:func:`check_figure` draws the checks of one claim from their results.json records, one row per check: the
simulation's estimate relative to the theory value, (estimate - theory) / |theory|, with error bars of
+- z_Holm s.e. / |theory| (z_Holm the strictest two-sided threshold of the run's Holm family), so that a bar that
misses the theory line at 0 is a rejected check (drawn red). One-sided checks get the one bar that can reject
them. Checks whose theory value is 0 are drawn in a second panel in absolute units. The axis always shows every
point and bar: when the largest deviation dwarfs the bars (errata with z in the hundreds), the scale is
arcsinh-linear (linear within a few bar widths of theory, logarithmic beyond), so small bars stay visible too.
Every check's label is shown whole (wrapped over up to three lines beside its row), and a legend below the axes says
what the points, bars, colours and the line at 0 are.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
from scipy import stats as sps

from .checks import format_z


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


def _asinh_ticks(lo: float, hi: float, width: float, most: int = 4) -> list[float]:
    """Positive ticks 1, 2, 5 x 10^k in [lo, hi] for an arcsinh axis of linear width ``width``: from the largest (the
    far points) down, each at least a quarter of the axis's half-length (in arcsinh units) from the last and from 0,
    so that no two labels collide; at most ``most``."""
    cand = [f * 10.0**k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for f in (1, 2, 5)]
    cand = sorted([t for t in cand if lo <= t <= hi] or [10.0 ** math.floor(math.log10(hi))], reverse=True)
    gap = math.asinh(1.6 * hi / width) / 4
    kept = [cand[0]]
    for t in cand[1:]:
        if len(kept) < most and math.asinh(kept[-1] / width) - math.asinh(t / width) >= gap <= math.asinh(t / width):
            kept.append(t)
    return kept[::-1]


#: Characters per line of a check's label beside its row, and the most lines (a longer label ends with "...").
LABEL_WIDTH, LABEL_LINES = 46, 3


def _label(k: int, text: str) -> str:
    lines = textwrap.wrap(f"{k}. {text}", LABEL_WIDTH, subsequent_indent="   ") or [f"{k}."]
    if len(lines) > LABEL_LINES:
        lines = lines[:LABEL_LINES]
        lines[-1] = lines[-1][: LABEL_WIDTH - 3] + "..."
    return "\n".join(lines)


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
            ax.annotate(f"z = {format_z(c['z'])}", (x, yy), xytext=(4 if x > 0 else -4, 6),
                        textcoords="offset points", ha="right" if x > 0 else "left", fontsize=8, color=col)
    ax.axvline(0.0, color="#222", lw=1.0)
    span = max(max(abs(x) + max(a, b) for x, a, b in zip(xs, lo, hi, strict=True)), 1e-300)
    width = float(np.median([max(a, b) for a, b in zip(lo, hi, strict=True)])) or span
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

    if span > 25 * width:  # arcsinh scale: linear within ~width of theory, logarithmic beyond
        ax.set_xscale("asinh", linear_width=width)
        ax.set_xlim(-1.6 * span, 1.6 * span)
        pos = _asinh_ticks(3 * width, span, width)
        ax.xaxis.set_major_locator(FixedLocator(sorted([0.0] + pos + [-t for t in pos])))
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.set_xlim(-1.08 * span, 1.08 * span)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, symmetric=True))
    ax.set_yticks(y, [_label(k, c["label"]) for k, c in rows], fontsize=8)
    for lab in ax.get_yticklabels():
        lab.set_multialignment("left")  # a wrapped label reads as a paragraph
    ax.set_ylim(-0.7, len(rows) - 0.3)
    if relative:
        ax.xaxis.set_major_formatter(FuncFormatter(_percent))
        ax.set_xlabel("simulation relative to theory: (estimate - theory) / |theory|", fontsize=9)
    else:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:+.2g}" if v else "0"))
        ax.set_xlabel("simulation - theory (checks whose theory value is 0)", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
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
    heights = [sum(0.3 + 0.13 * _label(k, c["label"]).count("\n") for k, c in p) + 0.75 for p in panels]
    fig, axes = plt.subplots(len(panels), 1, squeeze=False, height_ratios=heights, layout="constrained",
                             figsize=(8.4, sum(heights) + 1.35))
    for ax, p in zip(axes[:, 0], panels, strict=True):
        _panel(ax, p, z_crit, relative=p is rel)
    fig.suptitle("Each check: the simulation against theory", x=0.02, ha="left", fontsize=10)
    fig.legend(*_legend(z_crit, n_family), loc="outside lower left", fontsize=8, frameon=False, ncols=2)
    return fig


def _legend(z_crit: float, n_family: int | None) -> tuple[list, list[str]]:
    """The legend's entries: a check that holds, a rejected one (with what the bar is), and the theory line."""
    from matplotlib.lines import Line2D

    fam = f", m = {n_family}" if n_family else ""
    handles = [Line2D([], [], color="#1b5fb4", marker="o", ms=4.5, lw=1.4),
               Line2D([], [], color="#c0392b", marker="o", ms=4.5, lw=1.4),
               Line2D([], [], color="#222", lw=1.0)]
    labels = [f"simulation, bar +-{z_crit:.2f} s.e. (the strictest Holm threshold{fam})",
              "a rejected check: its bar misses the theory line",
              "theory (0: simulation equal to theory)"]
    return handles, labels


def log_ticks(axis, values, fmt: str = "{:g}") -> None:
    """Put the major ticks of a log ``axis`` (ax.xaxis / ax.yaxis) at ``values`` with plain labels and no minor
    labels: legible ticks for axes that span less than a few decades."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    vals = sorted(set(float(v) for v in values))
    axis.set_major_locator(FixedLocator(vals))
    axis.set_major_formatter(FuncFormatter(lambda v, _: fmt.format(v)))
    axis.set_minor_formatter(NullFormatter())


__all__ = ["check_figure", "holm_threshold", "log_ticks"]
