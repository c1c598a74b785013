"""Building blocks of the workbench's self-contained HTML reports (verification, mutants, calibration): one file
each, CSS and script inline, figures as base64 PNG, no network address anywhere (they open from a file, offline)."""

from __future__ import annotations

import base64
import html
import io
import math

#: Shared style of the reports.
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1280px;
  padding: 12px 22px 48px; color: #1d2125; background: #fafafa; line-height: 1.4; }
h1 { font-size: 1.45em; margin: 8px 0; } h2 { font-size: 1.15em; margin: 22px 0 6px; }
h3 { font-size: 1.02em; margin: 14px 0 4px; }
code { font-size: 0.92em; background: #f0f0f0; padding: 0 3px; border-radius: 3px; }
table { border-collapse: collapse; background: #fff; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 0.85em; font-weight: 600; }
.holds { background: #d8f0d8; color: #175d17; } .fails { background: #f8d7d4; color: #8c1b11; }
.erratum { background: #fde8c8; color: #7a4300; } .error { background: #e9d5f5; color: #5b1f80; }
.oos { background: #e4e4e4; color: #444; } .bound { background: #dcebf7; color: #1b4d7a; }
.reading { background: #efe6d2; color: #5a4513; } .unexpected { outline: 2px solid #c00; }
.inconclusive { background: #f3f0c8; color: #5c5400; }
.box { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; margin: 8px 0; }
.erratumbox { background: #fff7e8; border-left: 4px solid #e0a030; padding: 6px 12px; margin: 6px 0; }
.note { color: #555; font-size: 0.9em; }
.controls { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; margin: 10px 0; }
.controls label { margin-right: 6px; font-weight: 600; } .controls select { margin-right: 18px; }
img.fig { max-width: 100%; border: 1px solid #eee; background: #fff; margin: 4px 8px 4px 0; }
section.claim { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 4px 16px 10px;
  margin: 14px 0; }
pre { background: #f6f6f6; padding: 6px; overflow-x: auto; font-size: 0.85em; }
details summary { cursor: pointer; }
"""


def esc(text) -> str:
    """HTML-escaped text (None as an empty string)."""
    return "" if text is None else html.escape(str(text))


def num(x, spec: str = ".6g") -> str:
    """A number as text (strings such as 'inf' as they are)."""
    if isinstance(x, str):
        return esc(x)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def page(title: str, body: str, script: str = "") -> str:
    """A complete HTML document: the shared style, ``body`` and an optional inline ``script``."""
    js = f"<script>{script}</script>" if script else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
            f"<style>{CSS}</style></head><body>{body}{js}</body></html>\n")


def table(head: list[str], rows: list[list[str]], attrs: list[str] | None = None, cls: str = "") -> str:
    """An HTML table from already-escaped cells; ``attrs``: extra attributes of each row (e.g. data-*)."""
    h = "".join(f"<th>{c}</th>" for c in head)
    body = []
    for i, r in enumerate(rows):
        a = f" {attrs[i]}" if attrs else ""
        body.append(f"<tr{a}>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in r) + "</tr>")
    return f'<table class="{cls}"><thead><tr>{h}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def png_data(fig, dpi: int = 100) -> str:
    """A matplotlib figure as a data: URI (base64 PNG); closes the figure."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def file_data(path) -> str | None:
    """A PNG file as a data: URI, None if it cannot be read."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    return "data:image/png;base64," + base64.b64encode(raw).decode("ascii")


def img(uri: str, alt: str) -> str:
    return f'<img class="fig" src="{uri}" alt="{esc(alt)}">'


__all__ = ["CSS", "esc", "file_data", "img", "num", "page", "png_data", "table"]
