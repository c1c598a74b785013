"""The kill matrix of ``python -m verify.mutants`` as a self-contained HTML page: a heat map (mutant x claim, killed /
ran and passed / raised / not run), the control row of the correct code, the kill rate, and each mutant's planted
bug in words. Rendered from the JSON record the harness writes (``--json``), so it can be rebuilt from it alone:
``python -m verify.mutants._report RECORD.json OUT.html``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..html import esc, page, table

#: Cell classes: (symbol of the text matrix, colour, words).
CELLS = {"K": ("#2e8b3e", "killed: the claim's verdict changed"), ".": ("#e9ecef", "ran: verdict as registered"),
         "E": ("#e69b2a", "raised an error (a loud detection)"), " ": ("#ffffff", "not run for this mutant")}


def _cell(row: dict, cid: str) -> str:
    c = row["cells"].get(cid)
    return " " if c is None else ("E" if c["verdict"] == "error" else "K" if c["killed"] else ".")


def _heatmap(record: dict) -> str:
    claims, rows = record["claims"], record["rows"]
    cw, ch, left, top = 22, 20, 330, 40
    w, h = left + cw * len(claims) + 20, top + ch * len(rows) + 10
    out = []
    for j in range(len(claims)):
        out.append(f'<text x="{left + j * cw + cw / 2}" y="{top - 8}" font-size="11" text-anchor="middle">{j + 1}'
                   "</text>")
    for i, r in enumerate(rows):
        y = top + i * ch
        word = "control" if r["mutant"] == "(correct code)" else ("killed" if r["killed"] else "SURVIVED")
        out.append(f'<text x="{left - 8}" y="{y + 14}" font-size="12" text-anchor="end">{esc(r["mutant"])} '
                   f"({word})</text>")
        for j, cid in enumerate(claims):
            sym = _cell(r, cid)
            c = r["cells"].get(cid, {})
            tip = f"{r['mutant']} x {cid}: {CELLS[sym][1]}"
            if c:
                tip += f"; verdict {c['verdict']} (registered {c.get('expected') or '-'}), worst |z| {c['worst_z']:.2f}"
            out.append(f'<rect x="{left + j * cw}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{CELLS[sym][0]}" '
                       f'stroke="#bbb"><title>{esc(tip)}</title></rect>')
            if sym in "KE":
                out.append(f'<text x="{left + j * cw + cw / 2 - 1}" y="{y + 14}" font-size="11" fill="#fff" '
                           f'text-anchor="middle">{sym}</text>')
    return f'<svg width="{w}" height="{h}" role="img" aria-label="kill matrix">{"".join(out)}</svg>'


def render_kill_matrix(record: dict) -> str:
    """The HTML page of one mutation run (the record of ``python -m verify.mutants --json``)."""
    st = record["settings"]
    mrows = [r for r in record["rows"] if r["mutant"] != "(correct code)"]
    control = [r for r in record["rows"] if r["mutant"] == "(correct code)"]
    ctrl = "not run" if not control else ("passes" if not any(r["killed"] for r in control) else "FAILS")
    legend = "".join(f'<span style="display:inline-block;width:14px;height:14px;background:{col};border:1px solid '
                     f'#bbb;vertical-align:middle"></span> {esc(words)} &nbsp; ' for col, words in CELLS.values())
    desc = record.get("descriptions", {})
    mut_rows = [[f"<code>{esc(r['mutant'])}</code>", esc(desc.get(r["mutant"], "")),
                 "yes" if r["killed"] else "<b>NO</b>", f'<td class="num">{r["seconds"]:.1f}</td>',
                 esc((r.get("error") or "").strip().splitlines()[-1] if r.get("error") else "")] for r in mrows]
    claim_rows = [[f'<td class="num">{j + 1}</td>', f"<code>{esc(c)}</code>",
                   f'<td class="num">{sum(_cell(r, c) in "KE" for r in mrows)}</td>']
                  for j, c in enumerate(record["claims"])]
    body = [
        "<h1>Mutation testing: which claims kill which planted bugs</h1>",
        f'<p class="box">Kill rate: <b>{record["killed"]}/{record["mutants"]}</b> mutants killed; control run of the '
        f'correct code: <b>{ctrl}</b>. {st["chains"]} chains, seed {st["seed"]}, alpha {st["alpha"]} per run; '
        f'sentinel claims: {esc(", ".join(record.get("sentinels", [])) or "none")}; '
        f'{record["seconds"]:.0f} s wall.</p>',
        "<p class='note'>A mutant is killed when at least one of its claims gets a verdict other than the registered "
        "one (the rule that makes <code>python -m verify</code> exit non-zero). Hover a cell for the verdict and the "
        "worst |z|.</p>", f"<p>{legend}</p>", _heatmap(record),
        "<h2>Claims (columns)</h2>", table(["#", "claim", "mutants it kills"], claim_rows),
        "<h2>Mutants (rows)</h2>", table(["mutant", "planted bug", "killed", "seconds", "error"], mut_rows)]
    return page("Mutation testing: kill matrix", "".join(body))


def main(argv: list[str] | None = None) -> int:
    """``python -m verify.mutants._report RECORD.json OUT.html``: rebuild the page from a record."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m verify.mutants._report RECORD.json OUT.html", file=sys.stderr)
        return 2
    Path(argv[1]).write_text(render_kill_matrix(json.loads(Path(argv[0]).read_text())), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
