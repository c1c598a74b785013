"""The atlas page: one self-contained HTML file (figures as base64 PNG, a few lines of inline script, no network
address; it opens offline) with the slack table and one panel per bound: exact distance and bound over h (at
K = 10^4) and over K (at a step inside the bound's assumptions), the slack between them shaded, violations marked,
points outside the assumptions drawn hollow; its statement, assumptions and where each constant was read.

Built as the other reports are (:mod:`verify.html`); the summary figures are also written as JSON (``atlas.json``)
and as the slack table of docs/bounds.md (:func:`slack_table`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from theory.atlas import BoundResult

from .html import esc, img, num, page, png_data, table

COUNTED = ("holds", "violated", "undecided")


def atlas_summary(result: BoundResult) -> dict:
    """The figures of one bound: counts by status, vacuous points, the tightest and loosest ratio bound / exact over
    the counted points, the median fitted orders in h."""
    b, pts = result.bound, result.points
    counted = [p for p in pts if p.status in COUNTED]
    ratios = [p.ratio for p in counted if p.lo > 0 and math.isfinite(p.ratio)]
    qe = [o.q_exact for o in result.orders]
    qb = [o.q_bound for o in result.orders]
    return {"key": b.key, "title": b.title, "metric": b.metric, "sampler": b.sampler, "law": b.law,
            "confirmed": b.confirmed, "points": len(pts), "counted": len(counted),
            **{s: sum(p.status == s for p in pts) for s in ("holds", "violated", "undecided", "outside", "error")},
            "vacuous": sum(p.vacuous for p in counted),
            "tightest": min(ratios) if ratios else None, "loosest": max(ratios) if ratios else None,
            "order_exact": float(np.median(qe)) if qe else None, "order_bound": float(np.median(qb)) if qb else None}


def _fmt(x, spec=".3g") -> str:
    return "-" if x is None else format(x, spec)


def slack_table(results: list[BoundResult]) -> str:
    """The slack table (markdown): bound, order in h of the bound against the exact order, tightest and loosest
    ratio bound / exact, violations (of the counted points), with "unconfirmed" where the constants are."""
    rows = ["| bound | distance | order in h: bound / exact | tightest ratio | loosest ratio | violations | "
            "points (counted / outside) | constants |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = atlas_summary(r)
        rows.append(f"| {s['title']} | {s['metric']} ({s['sampler']}) | {_fmt(s['order_bound'], '.2f')} / "
                    f"{_fmt(s['order_exact'], '.2f')} | {_fmt(s['tightest'])} | {_fmt(s['loosest'])} | "
                    f"{s['violated']} of {s['counted']} | {s['counted']} / {s['outside']} | "
                    f"{'confirmed' if s['confirmed'] else 'unconfirmed'} |")
    return "\n".join(rows) + "\n"


def _series(result: BoundResult, name: str, n, key: str, fixed) -> list:
    pts = [p for p in result.points if p.problem == name and p.n == n and getattr(p, "K" if key == "h" else "h")
           == fixed and p.status != "error"]
    return sorted(pts, key=lambda p: getattr(p, key))


def _draw(ax, pts, key: str, color) -> None:
    x = np.array([getattr(p, key) for p in pts])
    lo = np.array([max(p.lo, 1e-300) for p in pts])
    val = np.array([max(p.value, 1e-300) for p in pts])
    ax.loglog(x, lo, "-", color=color, lw=1.2)
    ax.loglog(x, val, "--", color=color, lw=1.0)
    ax.fill_between(x, lo, np.maximum(val, lo), color=color, alpha=0.08)
    inside = np.array([p.status != "outside" for p in pts])
    viol = np.array([p.status == "violated" for p in pts])
    ax.scatter(x[inside], val[inside], s=10, color=color)
    ax.scatter(x[~inside], val[~inside], s=10, facecolors="none", edgecolors=color)
    if viol.any():
        ax.scatter(x[viol], val[viol], s=60, marker="x", color="red", zorder=5)


def panel_figure(result: BoundResult) -> str:
    """The panel's figure as a data URI: over h at K = 10^4 (left), over K at the middle step inside the
    assumptions (right); solid: exact (its lower end), dashed: the bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10.5, 3.6))
    cells = sorted({(p.problem, p.n) for p in result.points}, key=str)
    colors = plt.cm.tab10(np.linspace(0, 1, 10))
    for i, (name, n) in enumerate(cells):
        c = colors[i % 10]
        label = name if n is None else f"{name}, n={n}"
        over_h = _series(result, name, n, "h", 10_000)
        if over_h:
            _draw(a1, over_h, "h", c)
            a1.plot([], [], color=c, label=label)
        hs = sorted({p.h for p in result.points if p.problem == name and p.n == n and p.status in COUNTED})
        if hs:
            _draw(a2, _series(result, name, n, "K", hs[len(hs) // 2]), "K", c)
    a1.set_xlabel("h (workbench step)")
    a1.set_ylabel(f"{result.bound.metric}: exact (solid), bound (dashed)")
    a1.set_title("over h at K = 10^4", fontsize=9)
    a2.set_xlabel("K")
    a2.set_title("over K at a step inside the assumptions", fontsize=9)
    if a1.get_legend_handles_labels()[0]:
        a1.legend(fontsize=6, ncol=2)
    else:
        a1.text(0.5, 0.5, "no point inside the assumptions", ha="center", transform=a1.transAxes)
    fig.tight_layout()
    return png_data(fig, dpi=80)


def _panel(result: BoundResult) -> str:
    b, s = result.bound, atlas_summary(result)
    status = "violations" if s["violated"] else ("errors" if s["error"] else "holds")
    badge = {"violations": "fails", "errors": "error", "holds": "holds"}[status]
    conf = "" if b.confirmed else ' <span class="badge erratum">constants unconfirmed</span>'
    srcs = "".join(f"<li>{esc(x.what)}: <em>{esc(x.status)}</em>, {esc(x.where)}</li>" for x in b.sources)
    orders = table(["problem", "n", "exact order", "bound order", "h used"],
                   [[esc(o.problem), num(o.n), num(o.q_exact, ".3f"), num(o.q_bound, ".3f"),
                     esc(", ".join(f"{h:.3g}" for h in o.hs))] for o in result.orders])
    errors = "".join(f"<li>{esc(p.message)}</li>" for p in result.by_status("error")[:5])
    return (f'<section class="claim" data-status="{status}" data-metric="{esc(b.metric)}">'
            f'<h2 id="{esc(b.key)}">{esc(b.title)} <span class="badge {badge}">{status}</span>{conf}</h2>'
            f"<p>{esc(b.reference)}. Bounds {esc(b.metric)} of the {esc(b.law)} of <code>{esc(b.sampler)}</code> from "
            f"the {esc(b.start)} start.</p><p><b>Bound:</b> <code>{esc(b.formula)}</code><br><b>Assumptions:</b> "
            f"{esc(b.assumptions)}</p><p class=\"note\">{s['counted']} points counted ({s['holds']} hold, "
            f"{s['violated']} violated, {s['undecided']} undecided; {s['vacuous']} vacuous), {s['outside']} outside "
            f"the assumptions, {s['error']} errors. Ratio bound/exact: tightest {_fmt(s['tightest'])}, loosest "
            f"{_fmt(s['loosest'])}.</p>{img(panel_figure(result), b.key)}"
            f"<details><summary>orders in h and provenance</summary>{orders}<ul>{srcs}</ul></details>"
            + (f"<ul>{errors}</ul>" if errors else "") + "</section>")


SCRIPT = """
function show(){var v=document.getElementById('status').value;
 document.querySelectorAll('section.claim').forEach(function(s){
  s.style.display=(v==='all'||s.dataset.status===v)?'':'none';});
 document.getElementById('shown').textContent=
  document.querySelectorAll('section.claim:not([style*="none"])').length;}
document.getElementById('status').addEventListener('change',show);show();
"""


def write_atlas_page(results: list[BoundResult], outdir: Path, seconds: float | None = None) -> Path:
    """Write ``atlas.html`` and ``atlas.json`` (the summaries) into ``outdir``; returns the page's path."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    sums = [atlas_summary(r) for r in results]
    rows = [[f'<a href="#{esc(s["key"])}">{esc(s["title"])}</a>', esc(s["metric"]), esc(s["sampler"]),
             num(s["order_bound"], ".2f"), num(s["order_exact"], ".2f"), num(s["tightest"], ".3g"),
             num(s["loosest"], ".3g"), f"{s['violated']} / {s['counted']}", str(s["vacuous"]), str(s["outside"]),
             str(s["error"]), "confirmed" if s["confirmed"] else "unconfirmed"] for s in sums]
    head = ["bound", "distance", "sampler", "order (bound)", "order (exact)", "tightest", "loosest",
            "violations / counted", "vacuous", "outside", "errors", "constants"]
    total = sum(s["points"] for s in sums)
    timing = "" if seconds is None else f" in {seconds:.1f} s"
    body = (f"<h1>Atlas of published non-asymptotic bounds against exact laws</h1><p class=\"note\">{total} points"
            f"{timing}. Exact distances from the exact engine; where only the moments of a law are known (stochastic "
            "gradients) the exact distance is an interval and a bound is violated only below its lower end. "
            "Constants not read from a copy of the paper are marked unconfirmed.</p>"
            + table(head, rows)
            + '<div class="controls"><label for="status">show</label><select id="status"><option value="all">all '
              'bounds</option><option value="violations">with violations</option><option value="holds">holding'
              '</option><option value="errors">with errors</option></select> <span id="shown"></span> shown</div>'
            + "".join(_panel(r) for r in results))
    path = outdir / "atlas.html"
    path.write_text(page("Atlas of non-asymptotic bounds", body, SCRIPT))
    (outdir / "atlas.json").write_text(json.dumps({"points": total, "seconds": seconds, "bounds": sums}, indent=1))
    return path


__all__ = ["panel_figure", "slack_table", "atlas_summary", "write_atlas_page"]
