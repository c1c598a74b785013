"""One self-contained HTML page for the explorer: the precomputed grid as JSON, the page's own CSS and JavaScript
inline (no CDN, no server, no network: it works from a file), drawn as SVG markup by the script."""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

#: Largest page written (the issue's budget).
MAX_BYTES = 5_000_000


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_json(data: dict) -> str:
    """JSON safe inside <script>: no '</' can close the element."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def render_page(data: dict) -> str:
    """The explorer page for ``data`` (:func:`verify.explore.grid.explorer_data`)."""
    approx = (f'<p class="sub"><b>Approximation:</b> {html.escape(data["approximation"])}</p>'
              if data.get("approximation") else "")
    t = data["timing"]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Step-size / minibatch explorer: {html.escape(data["model"])}</title>
<style>{_asset("explorer.css")}</style></head>
<body>
<h1>Step size and minibatch size under a budget: exact answers</h1>
<p class="sub">Model: {html.escape(data["model"])}. Every number is the exact law's
(<code>{html.escape(data.get("law", "theory.exact_law"))}</code>):
the mean, variance and MSE of the time average (1/L) &sum;<sub>k=b</sub><sup>b+L-1</sup> &phi;(&theta;<sub>k</sub>)
as an estimate of its posterior expectation, with the steps L (and burn-in b, {data["burn_in"]:.0%} of the steps)
that the budget buys at the chosen n; chains start at &theta;<sub>0</sub> = {html.escape(data["theta0"])}.
h runs over fractions of each n's mean-square stability edge. Precomputed in {t["seconds"]:.1f} s
({t["workers"]} process{"es" if t["workers"] > 1 else ""}); moving a control only looks values up.</p>
{approx}
<div class="controls">
 <label for="objective">objective</label><div><select id="objective"></select></div>
 <label for="sampler">sampler</label><div><select id="sampler"></select></div>
 <label for="N">N (data)</label><div><input type="range" id="N" min="0" step="1"><output id="N-out"></output></div>
 <label for="budget">budget</label>
 <div><input type="range" id="budget" min="0" step="1"><output id="budget-out"></output></div>
 <label for="n">minibatch n</label><div><input type="range" id="n" min="0" step="1"><output id="n-out"></output></div>
 <label for="h">step size h</label><div><input type="range" id="h" min="0" step="1"><output id="h-out"></output></div>
</div>
<div class="answer">Optimum at this budget (smallest exact MSE over the grid of n and h):
 <b id="optimum"></b><button id="to-optimum" type="button">go to the optimum</button><br>
 <span id="explanation"></span>
 <p id="cell-note" class="cellnote"></p></div>
<div class="layout">
 <div>
  <div class="panel"><h2>Bias&sup2;, variance and MSE against h at this n and budget</h2><div id="curves"></div>
   <p class="note">Dashed vertical line: the current h (dots: its values); star: the best h for this n; red: the
   mean-square stability edge (beyond it the chain has no stationary law). <span id="vollmer-note"></span></p></div>
  <div class="panel"><h2>Best MSE over h against n, at this budget (L = budget / cost per step)</h2>
   <div id="nplot"></div><p class="note">Star: the optimum at this budget; dashed line: the current n; purple: the
   minibatch size Chen et al.'s Corollary 4 predicts from its bound (with unit big-O constants; drawn for SGLD on the
   1-D Gaussian model, where its constant Gamma is known).</p></div>
 </div>
 <div>
  <div class="panel"><h2>At the current point</h2><div id="readout"></div></div>
  <div class="panel"><h2>MSE over n and h at this budget</h2><div id="heat"></div></div>
 </div>
</div>
<h2>Best (n, h) per budget and sampler (N and objective as chosen)</h2>
<div id="table"></div>
<p class="note">Vollmer et al. Section 6.1 (cost at fixed accuracy on this toy): SGLD gains over Euler at low
accuracy and its best n grows to N as the accuracy demanded grows; mSGLD keeps a constant speed-up. The table and
the n-panel show the exact counterpart under a budget.</p>
<script id="explorer-data" type="application/json">{_script_json(data)}</script>
<script>{_asset("explorer.js")}</script>
</body></html>
"""


def write_page(data: dict, path: Path) -> Path:
    """Write the page to ``path`` (parents created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(data), encoding="utf-8")
    return path


__all__ = ["MAX_BYTES", "render_page", "write_page"]
