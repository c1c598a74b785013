"""report.html: the verification report as one self-contained page, rendered from results.json alone (as
:func:`verify.report.render_markdown`), plus the figure files it lists.

A claim table that filters by paper and verdict (a few lines of inline script), then one section per claim: its
statement, source, verdict, erratum text, statistical checks (theory, estimate, s.e., z, p, and the deviation each
check detects with 90% power at the strictest Holm threshold, derived from its s.e.), exact checks, notes and its
figures: its checks as theory against simulation (:func:`verify.figures.check_figure`; the PNG the run wrote, or
drawn from the records) and its own figure when it draws one. Figures are embedded as base64 PNG: the file opens
offline, with no server.
"""

from __future__ import annotations

from pathlib import Path

from .checks import format_z, vanished_se_note
from .figures import check_figure, holm_threshold
from .html import esc, file_data, img, num, page, png_data, table
from .report import kind_text, outcome_word, summary_line
from .stats import detectable_deviation

#: Power at which the detectable deviation of a check is stated.
POWER = 0.9

VERDICT_CLASS = {"holds": "holds", "fails": "fails", "error": "error", "out of scope": "oos",
                 "holds as a bound": "bound", "depends on reading": "reading", "inconclusive": "inconclusive"}


def category(c: dict) -> str:
    """The filter category of a claim: holds, erratum (fails as registered), bound (holds as a bound only), reading
    (depends on reading), inconclusive, fails (unexpectedly, or readings split otherwise than registered), error,
    oos."""
    v = c["verdict"]
    if v == "fails" and c["expected"] == "fails":
        return "erratum"
    return VERDICT_CLASS.get(v, "fails")


def _badge(c: dict) -> str:
    cat = category(c)
    text = "fails (registered erratum)" if cat == "erratum" else c["verdict"]
    wrong = c["verdict"] not in (c["expected"], "out of scope")
    checks = len(c.get("unexpected_checks", []))
    extra = " unexpected" if wrong or checks else ""
    note = f" (UNEXPECTED: registered as '{c['expected']}')" if wrong else ""
    note += f" (UNEXPECTED: {checks} check(s) with another outcome than registered)" if checks else ""
    return f'<span class="badge {cat}{extra}">{esc(text)}</span>{esc(note)}'


def detectable(k: dict, alpha: float, m: int) -> float | None:
    """The deviation |E estimate - theory| this check detects with probability POWER at the strictest Holm threshold
    (:func:`verify.stats.detectable_deviation`; stored in the record as ``mde`` by runs since schema 4), from its
    s.e.; None without a finite s.e."""
    if k.get("mde") is not None:
        return float(k["mde"])
    se = k.get("se")
    if isinstance(se, str) or se is None or not se > 0:
        return None
    return detectable_deviation(float(se), alpha, m, one_sided=k.get("kind") in ("one-sided", "ordering"), power=POWER,
                               df=k.get("df"))


def _outcome_cell(k: dict) -> str:
    """The outcome of a check (holds / rejected; shown / contradicted / inconclusive), failing ones as a badge."""
    word = outcome_word(k)
    cls = {"rejected": "fails", "contradicted": "fails", "inconclusive": "inconclusive"}.get(word)
    text = f'<b class="badge {cls}">{esc(word)}</b>' if cls else esc(word)
    exp = ' <span class="note">(expected to fail)</span>' if k.get("expect") == "fail" else ""
    return f'<td class="num">{text}{exp}</td>'


def _checks_table(c: dict, alpha: float, m: int) -> str:
    rows = []
    for i, k in enumerate(c["checks"], 1):
        mde = detectable(k, alpha, m)
        part = f'[{k["part"]}] ' if k.get("part") else ""
        rows.append([f'<td class="num">{i}</td>', esc(part + k["label"]), esc(kind_text(k)),
                     f'<td class="num">{num(k["theory"], ".8g")}</td>',
                     f'<td class="num">{num(k["estimate"], ".8g")}</td>', f'<td class="num">{num(k["se"], ".3g")}</td>',
                     f'<td class="num">{esc(format_z(k["z"]))}</td>', f'<td class="num">{num(k["p"], ".3g")}</td>',
                     _outcome_cell(k),
                     f'<td class="num">{num(mde, ".3g")}</td>'])
    head = ["#", "check", "test", "theory", "simulation", "s.e.", "z", "p", "outcome",
            f"detectable deviation ({POWER:.0%} power)"]
    return table(head, rows)


def _figures(c: dict, folder: Path | None, z_crit: float, m: int, draw: bool) -> str:
    out = []
    uri = file_data(folder / c["check_figure"]) if folder is not None and c.get("check_figure") else None
    if uri is None and draw and c["checks"]:
        fig = check_figure(c["checks"], z_crit, m)
        uri = png_data(fig) if fig is not None else None
    if uri:
        out.append(img(uri, f"{c['id']}: its checks, simulation against theory"))
    own = file_data(folder / c["figure"]) if folder is not None and c.get("figure") else None
    if own:
        out.append(img(own, f"{c['id']}: the claim's own figure"))
    return f'<div class="figs">{"".join(out)}</div>' if out else ""


def _claim_section(c: dict, folder: Path | None, alpha: float, m: int, z_crit: float, draw: bool) -> str:
    parts = [f'<h2 id="{esc(c["id"])}"><code>{esc(c["id"])}</code> {_badge(c)}</h2>',
             f'<p><i>{esc(c["source"])}.</i> {esc(c["statement"])}</p>']
    if c.get("erratum"):
        parts.append(f'<div class="erratumbox"><b>Erratum</b> (registered; the verdict is expected to be '
                     f'"fails"): {esc(c["erratum"])}</div>')
    if c.get("finding"):
        parts.append(f'<div class="erratumbox"><b>Finding</b>: {esc(c["finding"])}</div>')
    if c.get("readings"):
        items = "".join(f"<li><b>{esc(r['name'])}</b> (registered {esc(r['expected'])}; verdict "
                        f"{esc(r.get('verdict') or '-')}): {esc(r['text'])}</li>" for r in c["readings"])
        parts.append(f"<p>Readings of the claim, each judged by its own checks:</p><ul>{items}</ul>")
    if c.get("parts") and not c.get("readings"):
        items = "".join(f"<li>{esc(p or 'shared checks')}: {esc(v)}</li>" for p, v in c["parts"].items())
        parts.append(f"<p>Verdicts of the claim's parts:</p><ul>{items}</ul>")
    if c.get("out_of_scope"):
        parts.append(f'<p class="note">Out of scope: {esc(c["out_of_scope"])}</p>')
    if c.get("error"):
        parts.append(f'<p><b>The claim raised an error</b> (verdict "error"):</p><pre>{esc(c["error"].rstrip())}</pre>')
    if c.get("unexpected_checks"):
        items = "".join(f"<li><b>UNEXPECTED</b> (fails the run): {esc(u['label'])}"
                        f"{esc(' [' + u['part'] + ']') if u.get('part') else ''}: registered to "
                        f"{esc(u['expect'])}, outcome {esc(u['outcome'])}</li>" for u in c["unexpected_checks"])
        parts.append(f'<ul class="erratumbox">{items}</ul>')
    if c["checks"]:
        parts.append(_checks_table(c, alpha, m))
        why = [f'<li class="note">check {i}: {esc(w)}</li>' for i, k in enumerate(c["checks"], 1)
               if (w := vanished_se_note(k["theory"], k["estimate"], k["se"]))]
        why += [f'<li class="note">check {i} (ordering): {esc(k["decision"])}</li>'
                for i, k in enumerate(c["checks"], 1) if k.get("kind") == "ordering"]
        parts.append(f"<ul>{''.join(why)}</ul>" if why else "")
    if c["exact"]:
        items = []
        for e in c["exact"]:
            kind = e.get("kind", "exact")
            tag = kind if kind == "exact" else f"{kind} (not evidence about the paper or the simulator)"
            ok = "passed" if e["passed"] else '<b class="badge fails">FAILED</b>'
            ok += " (expected to fail)" if e.get("expect") == "fail" else ""
            tag = f"[{e['part']}] {tag}" if e.get("part") else tag
            items.append(f"<li>{esc(tag)}: {esc(e['label'])}: {ok} {esc(e['detail'])}</li>")
        parts.append(f"<ul>{''.join(items)}</ul>")
    if c["notes"]:
        parts.append("<ul>" + "".join(f'<li class="note">{esc(n)}</li>' for n in c["notes"]) + "</ul>")
    parts.append(_figures(c, folder, z_crit, m, draw))
    secs = "" if c.get("seconds") is None else f'<p class="note">{c["seconds"]:.1f} s</p>'
    attrs = f'data-paper="{esc(c["paper"])}" data-verdict="{category(c)}"'
    return f'<section class="claim" {attrs}>{"".join(parts)}{secs}</section>'


def _summary_table(claims: list[dict]) -> str:
    rows, attrs = [], []
    for c in claims:
        zs = [abs(k["z"]) for k in c["checks"] if not isinstance(k["z"], str)]
        worst = esc(format_z(max(zs)).lstrip("+")) if zs else "-"
        rows.append([f'<a href="#{esc(c["id"])}"><code>{esc(c["id"])}</code></a>', esc(c["paper"]), esc(c["source"]),
                     _badge(c), esc(c["expected"]), f'<td class="num">{len(c["checks"])} + {len(c["exact"])}</td>',
                     f'<td class="num">{worst}</td>',
                     f'<td class="num">{"-" if c["seconds"] is None else format(c["seconds"], ".1f")}</td>'])
        attrs.append(f'data-paper="{esc(c["paper"])}" data-verdict="{category(c)}"')
    head = ["claim", "paper", "source", "verdict", "expected", "checks (statistical + exact)", "worst |z|", "seconds"]
    return table(head, rows, attrs, cls="claims")


FILTER_JS = """
(function () {
  const paper = document.getElementById("paper"), verdict = document.getElementById("verdict");
  const count = document.getElementById("shown");
  function apply() {
    let shown = 0, total = 0;
    document.querySelectorAll("[data-paper]").forEach(function (el) {
      const ok = (paper.value === "all" || el.dataset.paper === paper.value) &&
                 (verdict.value === "all" || el.dataset.verdict === verdict.value);
      el.hidden = !ok;
      if (el.tagName === "TR") { total += 1; if (ok) shown += 1; }
    });
    count.textContent = shown + " of " + total + " claims shown";
  }
  paper.addEventListener("change", apply);
  verdict.addEventListener("change", apply);
  apply();
})();
"""


def _controls(claims: list[dict]) -> str:
    papers = sorted({c["paper"] for c in claims})
    cats = [("holds", "holds"), ("erratum", "fails: registered erratum"), ("bound", "holds as a bound"),
            ("reading", "depends on reading"), ("inconclusive", "inconclusive"), ("fails", "fails: unexpected"),
            ("error", "error"),
            ("oos", "out of scope")]
    popt = "".join(f'<option value="{esc(p)}">{esc(p)}</option>' for p in papers)
    vopt = "".join(f'<option value="{v}">{esc(t)}</option>' for v, t in cats)
    return ('<div class="controls"><label for="paper">paper</label><select id="paper"><option value="all">all'
            f'</option>{popt}</select><label for="verdict">verdict</label><select id="verdict"><option '
            f'value="all">all</option>{vopt}</select><span id="shown" class="note"></span></div>')


def render_html(results: dict, folder: Path | None = None, figures: bool = True) -> str:
    """report.html from a results.json dictionary (and the figure files it lists, in ``folder``); ``figures``:
    draw a check figure from its records where the run wrote none."""
    st, s = results["settings"], results["summary"]
    m = max(int(s.get("hypotheses", s["statistical_checks"])), 1)
    z_crit = holm_threshold(st["alpha"], m)
    claims = results["claims"]
    env = results.get("environment", results.get("versions", {}))
    folder = None if folder is None else Path(folder)
    head = ["<h1>SG-MCMC workbench: verification report</h1>",
            f"<p>Command: <code>python -m verify {esc(' '.join(results['argv']))}</code><br>"
            f"Chains per simulation: {st['chains']}; base seed: {st['seed']}; family-wise level alpha = {st['alpha']} "
            f"(Holm over all {s['statistical_checks']} statistical checks, "
            f"{s.get('hypotheses', s['statistical_checks'])} hypotheses as an ordering tests two, so the chance of "
            "any false 'fails' verdict or falsely shown ordering "
            f"is at most alpha; strictest threshold |z| > {z_crit:.2f}).</p>",
            f'<p class="box">{esc(summary_line(s))}.</p>',
            "<details><summary>Environment</summary><p class='note'>"
            + esc(", ".join(f"{k} {v}" for k, v in env.items() if k != "cpu_flags" and v != "")) + "</p></details>"]
    if "rerun" in results:
        r = results["rerun"]
        head.append(f'<p class="box">Rerun of {esc(r.get("source"))}: reproduced {esc(r.get("reproduced"))}.</p>')
    head += ["<h2>Claims</h2>", _controls(claims), _summary_table(claims), "<h2>Each claim</h2>",
             '<p class="note">Checks figure: one row per statistical check, the simulation relative to the theory '
             f"value (the vertical line), bars +- {z_crit:.2f} s.e. (the Holm threshold), red when rejected. "
             f"Detectable deviation: the |E estimate - theory| a check finds with {POWER:.0%} power at that "
             "threshold, (z_threshold + z_power) s.e.</p>"]
    body = "".join(head) + "".join(_claim_section(c, folder, st["alpha"], m, z_crit, figures) for c in claims)
    return page("SG-MCMC workbench: verification report", body, FILTER_JS)


__all__ = ["POWER", "category", "detectable", "render_html"]
