"""Verdicts, the console table, and the report: results.json (everything) and report.md rendered from it alone.

``results.json`` holds every number and every word the report shows (statements, errata, exact checks, notes,
timings, parameters, the environment), so ``python -m verify.report RESULTS`` rebuilds the Markdown from it and a
rerun can compare against it. Figures are PNGs beside it, one per claim family; a run removes the figures that the
previous report in the same folder listed, so no stale figure survives.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from .checks import OneSidedCheck, OrderingCheck, family_size, format_z, vanished_se_note
from .environment import environment
from .figures import check_figure, holm_threshold
from .registry import Claim, ClaimResult, Settings
from .stats import detectable_deviation
from .verdicts import part_verdicts, unexpected_checks, verdict

#: Version of the results.json layout (4: check parts, findings and readings; per-claim figures and check figures;
#: 5: every check's ``expect`` and ``outcome``, ordering checks (kind "ordering": shown, p_contra, effect, z_favour,
#: the chains that decide them), the verdict "inconclusive", each claim's ``unexpected_checks``, the family's size
#: in hypotheses).
SCHEMA = 5

#: How the report words each registered verdict.
REGISTERED = {
    "fails": "Erratum",
    "holds as a bound": "Holds as a bound, does not predict the exact behaviour",
    "depends on reading": "Depends on reading",
    "inconclusive": "Inconclusive at this power",
}


def _jsonable(v):
    """numpy scalars/arrays and other values in check parameters, as JSON."""
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)


def _number(x: float) -> float | str:
    """JSON has no inf/NaN: keep them as strings."""
    return x if math.isfinite(x) else str(x)


def claim_record(claim: Claim, res: ClaimResult | None, figure: str | None = None,
                 check_figure: str | None = None, family: tuple[float, int] | None = None,
                 chains: int | None = None) -> dict:
    """One claim of results.json: its registry entry, verdict (with the verdict of each part), timing, the chains
    it ran with, checks, exact checks, notes, error, and the file names of its own figure and of its checks' figure
    (None when not drawn)."""
    ok = res is not None and not res.error and not claim.out_of_scope
    parts = part_verdicts(claim, res) if ok else {}
    rec = {
        "id": claim.id, "paper": claim.paper, "source": claim.source, "statement": claim.statement,
        "family": claim.family, "module": getattr(claim.run, "__module__", None), "expected": claim.expected,
        "erratum": claim.erratum, "finding": claim.finding,
        "readings": [dict(name=r.name, text=r.text, expected=r.expected, verdict=parts.get(r.name))
                     for r in claim.readings],
        "parts": {("" if p is None else p): v for p, v in parts.items()} if claim.parts else {},
        "out_of_scope": claim.out_of_scope, "verdict": verdict(claim, res),
        "seconds": None if res is None else res.seconds, "error": None if res is None else res.error,
        "compile_seconds": None if res is None else res.compile_seconds,
        "chains": chains, "chains_factor": claim.chains_factor,
        "figure": figure, "check_figure": check_figure, "notes": [] if res is None else list(res.notes),
        "checks": [] if res is None else [_check_record(k, family) for k in res.checks],
        "exact": [] if res is None else [dict(label=e.label, passed=e.passed, detail=e.detail, kind=e.kind,
                                              part=e.part, expect=e.expect, outcome=e.outcome) for e in res.exact],
        "unexpected_checks": [dict(label=k.label, part=k.part, expect=k.expect, outcome=k.outcome)
                              for k in unexpected_checks(claim, res)],
    }
    return rec


def _check_record(k, family: tuple[float, int] | None = None) -> dict:
    """One check of results.json; with ``family`` = (alpha, checks in the run) also its detectable deviation: the
    smallest |E estimate - theory| it detects with 90% power at the family's threshold (absolute, and relative to
    |theory| where theory is not 0)."""
    rec = dict(label=k.label, theory=_number(k.theory), estimate=_number(k.estimate), se=_number(k.se),
               z=_number(k.z), p=k.p, rejected=k.rejected, params=k.params, kind=k.kind, part=k.part,
               expect=k.expect, outcome=k.outcome)
    if isinstance(k, (OneSidedCheck, OrderingCheck)):
        rec.update(direction=k.direction, df=k.df)
    if isinstance(k, OrderingCheck):
        factor = k.needed_factor
        rec.update(shown=k.shown, p_contra=k.p_contra, effect=_number(k.effect), z_favour=_number(k.z_favour),
                   stated_effect=k.stated_effect, chains=k.chains, chains_needed=k.chains_needed,
                   needed_factor=None if factor is None else _number(factor), decision=k.decision_text())
    if family is not None and math.isfinite(k.se):
        mde = detectable_deviation(k.se, family[0], family[1], one_sided=isinstance(k, (OneSidedCheck, OrderingCheck)),
                                   df=getattr(k, "df", None))
        rec["mde"] = mde
        rec["mde_rel"] = mde / abs(k.theory) if k.theory != 0 and math.isfinite(k.theory) else None
    return rec


def claim_mde(rec: dict) -> float | None:
    """The claim's detectable relative deviation: the largest relative one among its checks (None if none)."""
    vals = [k["mde_rel"] for k in rec["checks"] if k.get("mde_rel") is not None]
    return max(vals) if vals else None


def summary(claims: list[dict]) -> dict:
    """Counts of verdicts against registrations (the exit-code rule of ``python -m verify``)."""
    def unexpected(c):
        return c["verdict"] not in (c["expected"], "out of scope") or bool(c.get("unexpected_checks"))

    def registered(kind):
        return sum(c["verdict"] == kind and c["expected"] == kind for c in claims)

    return {
        "claims": len(claims),
        "holds": sum(c["verdict"] == "holds" for c in claims),
        "errata_failing": registered("fails"),
        "bounds": registered("holds as a bound"),
        "readings": registered("depends on reading"),
        "inconclusive": sum(c["verdict"] == "inconclusive" for c in claims),
        "inconclusive_registered": registered("inconclusive"),
        "out_of_scope": sum(c["verdict"] == "out of scope" for c in claims),
        "errors": sum(c["verdict"] == "error" for c in claims),
        "unexpected": sum(unexpected(c) for c in claims),
        "unexpected_checks": sum(len(c.get("unexpected_checks", [])) for c in claims),
        "statistical_checks": sum(len(c["checks"]) for c in claims),
        "hypotheses": sum(2 if k.get("kind") == "ordering" else 1 for c in claims for k in c["checks"]),
        "orderings": sum(k.get("kind") == "ordering" for c in claims for k in c["checks"]),
        "exact_checks": sum(len(c["exact"]) for c in claims),
        "identity_or_consistency_checks": sum(e.get("kind", "exact") != "exact" for c in claims for e in c["exact"]),
    }


def summary_line(s: dict) -> str:
    """The summary sentence of a run: verdicts by kind."""
    return (f"{s['holds']}/{s['claims']} claims hold, {s['errata_failing']} fail as registered errata, "
            f"{s.get('bounds', 0)} hold as bounds only, {s.get('readings', 0)} depend on reading, "
            f"{s.get('inconclusive', 0)} inconclusive ({s.get('inconclusive_registered', 0)} registered so), "
            f"{s['out_of_scope']} out of scope, {s['errors']} raised an error, {s['unexpected']} unexpected"
            + (f" ({s['unexpected_checks']} checks with an unexpected outcome)" if s.get("unexpected_checks") else ""))


def _tag(part: str | None) -> str:
    return f"[{part}] " if part else ""


def _check_word(c) -> str:
    """A check's outcome as the console shows it; "(expected to fail)" for a check that carries a counter-example."""
    if isinstance(c, OrderingCheck):
        word = {"holds": "shown", "fails": "CONTRADICTED", "inconclusive": "inconclusive"}[c.outcome]
    else:
        word = "REJECTED" if c.rejected else "ok"
    return word + (" (expected to fail)" if c.expect == "fail" else "")


def _unexpected_line(claim: Claim, k) -> str:
    what = "registered to fail (it carries the counter-example), but holds" if k.expect == "fail" else (
        "registered to hold, but fails")
    return f'{claim.id}: check "{_tag(k.part)}{k.label}" {what}' + (
        f" ({k.outcome})" if k.outcome == "inconclusive" else "")


def _console_claim(claim: Claim, res: ClaimResult) -> list[str]:
    lines = []
    for c in res.checks:
        lab = (_tag(c.part) + c.label)[:54]
        lines.append(f"    {lab:54s} {c.theory:12.6g} {c.estimate:12.6g} {c.se:9.2g} {format_z(c.z):>8s}  "
                     f"{_check_word(c)}")
        if isinstance(c, OrderingCheck) and c.outcome != "holds":
            lines.append(f"      ({c.decision_text()})")
        why = vanished_se_note(c.theory, c.estimate, c.se)
        if why:
            lines.append(f"      ({why})")
    for e in res.exact:
        lab = (_tag(e.part) + e.label)[:54]
        word = ("ok" if e.passed else "FAILED") + (" (expected to fail)" if e.expect == "fail" else "")
        lines.append(f"    {lab:54s} {e.kind:>12s} {'':12s} {'':9s} {'':8s}  {word}")
    parts = part_verdicts(claim, res) if claim.parts else {}
    for r in claim.readings:
        lines.append(f"    reading {r.name}: {parts.get(r.name)} (registered: {r.expected})")
    lines += [f"    !! UNEXPECTED: {_unexpected_line(claim, k)}" for k in unexpected_checks(claim, res)]
    return lines


def console_table(rows: list[tuple[Claim, ClaimResult | None]], settings: Settings, n_checks: int) -> str:
    """The console's table of a run: every check with its outcome, each claim's verdict against its registration,
    the summary line and, last, every check with an unexpected outcome named."""
    lines = []
    head = f"{'claim / check':58s} {'theory':>12s} {'simulation':>12s} {'+- s.e.':>9s} {'z':>8s}  verdict"
    lines.append(head)
    lines.append("-" * len(head))
    unexpected = []
    for claim, res in rows:
        lines.append(f"{claim.id}  [{claim.source}]")
        if res is None or res.error:
            lines.append(f"    {claim.out_of_scope or 'ERROR: ' + (res.error or '').strip().splitlines()[-1]}")
            if claim.out_of_scope:
                continue
        else:
            lines += _console_claim(claim, res)
            unexpected += [_unexpected_line(claim, k) for k in unexpected_checks(claim, res)]
        v = verdict(claim, res)
        note = ""
        if v not in (claim.expected, "out of scope"):
            note = f"   (UNEXPECTED: registered as '{claim.expected}')"
        elif claim.expected == "fails":
            note = "   (a registered erratum, as expected)"
        elif claim.expected != "holds" and v == claim.expected:
            note = "   (as registered)"
        lines.append(f"  => {v}{note}")
    lines.append("-" * len(head))
    s = summary([claim_record(c, r) for c, r in rows])
    lines.append(f"{summary_line(s)}; {n_checks} statistical checks ({s['hypotheses']} hypotheses), Holm "
                 f"family-wise level alpha = {settings.alpha}; {settings.chains} chains per simulation; seed "
                 f"{settings.seed}" + ("" if settings.backend == "numpy" else f"; simulations on {settings.backend}"))
    if unexpected:
        lines.append(f"UNEXPECTED CHECKS ({len(unexpected)}; each fails the run):")
        lines += [f"  {u}" for u in unexpected]
    return "\n".join(lines)


def _fmt(x, spec: str) -> str:
    return x if isinstance(x, str) else format(x, spec)


def _registered_markdown(c: dict) -> list[str]:
    """The registered verdict's text: the erratum, or the finding with each reading and its evidence's verdict."""
    md = []
    if c["erratum"]:
        md += [f"**Erratum** (registered; the verdict is expected to be 'fails'): {c['erratum']}", ""]
    kind = c.get("expected", "holds")
    if c.get("finding") and kind in REGISTERED:
        md += [f"**{REGISTERED[kind]}** (registered verdict): {c['finding']}", ""]
    if kind == "holds as a bound" and c.get("parts"):
        md += [f"- the bound's checks (part 'bound'): {c['parts'].get('bound')}; the exact behaviour against the "
               f"bound's prediction (part 'behaviour'): {c['parts'].get('behaviour')}", ""]
    for r in c.get("readings", []):
        md.append(f"- Reading {r['name']}: {r['text']} Verdict under it: **{r['verdict']}** (registered: "
                  f"{r['expected']}; evidence: the checks marked [{r['name']}]).")
    if c.get("readings"):
        md.append("")
    return md


def _claim_markdown(c: dict) -> list[str]:
    md = ["", f"## `{c['id']}`: {c['verdict']}", "", f"*{c['source']}.* {c['statement']}", ""]
    if c.get("chains_factor", 1.0) != 1.0:
        md += [f"Chains: {c['chains']} ({c['chains_factor']:g}x the run's, planned from the detectable deviation).",
               ""]
    md += _registered_markdown(c)
    if c["out_of_scope"]:
        md.append(f"Out of scope: {c['out_of_scope']}")
        return md
    if c["error"]:
        md += ["**The claim raised an error** (verdict 'error'):", "", "```", c["error"].rstrip(), "```"]
        return md
    for u in c.get("unexpected_checks", []):
        what = "registered to fail (it carries the counter-example) but holds" if u["expect"] == "fail" else (
            "registered to hold but fails")
        md.append(f"- **UNEXPECTED** (fails the run): check {_tag(u.get('part'))}{u['label']}: {what}")
    if c["checks"]:
        md.append("| # | check | test | theory | simulation | s.e. | z | p | outcome | detects |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        for i, k in enumerate(c["checks"], 1):
            rel = k.get("mde_rel")
            det = f"{100 * rel:.2g}%" if rel is not None else (f"{k['mde']:.2g}" if "mde" in k else "-")
            label = (_tag(k.get("part")) + k["label"]).replace("|", "\\|")  # a pipe would end the cell
            md.append(f"| {i} | {label} | {kind_text(k)} | {_fmt(k['theory'], '.8g')} | "
                      f"{_fmt(k['estimate'], '.8g')} | {_fmt(k['se'], '.3g')} | {format_z(k['z'])} | "
                      f"{k['p']:.3g} | {outcome_text(k)} | {det} |")
        md += [f"- check {i}: {why}" for i, k in enumerate(c["checks"], 1)
               if (why := vanished_se_note(k["theory"], k["estimate"], k["se"]))]
        md += [f"- check {i} (ordering): {k['decision']}" for i, k in enumerate(c["checks"], 1)
               if k.get("kind") == "ordering"]
    for e in c["exact"]:
        kind = e.get("kind", "exact")
        tag = "exact" if kind == "exact" else f"{kind} (not evidence about the paper or the simulator)"
        exp = " (expected to fail)" if e.get("expect") == "fail" else ""
        md.append(f"- {_tag(e.get('part'))}{tag}: {e['label']}: {'passed' if e['passed'] else '**FAILED**'}{exp} "
                  f"{e['detail']}")
    for note in c["notes"]:
        md.append(f"- {note}")
    for key, what in (("check_figure", "checks: simulation vs theory"), ("figure", "the claim's figure")):
        if c.get(key):
            md.append(f"\n![{c['id']}: {what}]({c[key]})")
    return md


def outcome_word(k: dict) -> str:
    """A check record's outcome in a word: holds / rejected, or for an ordering shown / contradicted / inconclusive
    (records before schema 5, without orderings, read from ``rejected``)."""
    if k.get("kind") == "ordering":
        return {"holds": "shown", "fails": "contradicted", "inconclusive": "inconclusive"}[k["outcome"]]
    return "rejected" if k["rejected"] else "holds"


def outcome_text(k: dict) -> str:
    """:func:`outcome_word` for Markdown (a failing outcome in bold), with "(expected to fail)" for a check that
    carries a counter-example."""
    word = outcome_word(k)
    word = f"**{word}**" if word in ("rejected", "contradicted") else word
    return word + (" (expected to fail)" if k.get("expect") == "fail" else "")


def kind_text(k: dict) -> str:
    """'two-sided'; a bound as 'one-sided: sim >= theory' / 'sim <= theory'; an ordering as 'ordering: sim > theory
    shown' (with t degrees of freedom)."""
    t = f" (t, {k['df']} d.f.)" if k.get("df") else ""
    if k.get("kind") == "ordering":
        return f"ordering: sim {'>' if k.get('direction') == 'greater' else '<'} theory, shown{t}"
    if k.get("kind") != "one-sided":
        return "two-sided"
    return f"one-sided: sim {'>=' if k.get('direction') == 'greater' else '<='} theory{t}"


def render_markdown(results: dict) -> str:
    """report.md from a results.json dictionary alone."""
    st, s = results["settings"], results["summary"]
    env = results.get("environment", results.get("versions", {}))
    md = ["# SG-MCMC workbench: verification report", ""]
    md.append(f"Command: `python -m verify {' '.join(results['argv'])}`  ")
    on = "" if st.get("backend", "numpy") == "numpy" else f"simulations on {st['backend']}; "
    md.append(f"Chains per simulation: {st['chains']}; base seed: {st['seed']}; {on}family-wise level alpha = "
              f"{st['alpha']} (Holm over all {s['statistical_checks']} statistical checks of this run, "
              f"{s.get('hypotheses', s['statistical_checks'])} hypotheses (an ordering tests two), so the chance "
              "of any false 'fails' verdict is at most alpha).  ")
    md.append("'detects': the smallest deviation from theory a check would detect with 90% power at the family's "
              "threshold, relative to the theory value (absolute where it is 0); a claim's is its checks' largest.  ")
    md.append(f"{summary_line(s)}.  ")
    if "identity_or_consistency_checks" in s:
        md.append(f"{s['exact_checks']} exact checks, of which {s['identity_or_consistency_checks']} are identities "
                  "or theory-against-theory consistency checks (labelled; not evidence about the paper or the "
                  "simulator).  ")
    md.append("Environment: " + ", ".join(f"{k} {v}" for k, v in env.items() if k != "cpu_flags" and v != ""))
    md.append("")
    md.append("| claim | source | verdict | expected | checks | worst abs(z) | detects (90% power) | seconds |")
    md.append("|---|---|---|---|---|---|---|---|")
    for c in results["claims"]:
        zs = [abs(k["z"]) for k in c["checks"] if not isinstance(k["z"], str)]
        worst = format_z(max(zs)).lstrip("+") if zs else "-"
        secs = "-" if c["seconds"] is None else f"{c['seconds']:.1f}"
        mde = claim_mde(c)
        det = "-" if mde is None else f"{100 * mde:.2g}%"
        md.append(f"| `{c['id']}` | {c['source']} | **{c['verdict']}** | {c['expected']} | "
                  f"{len(c['checks']) + len(c['exact'])} | {worst} | {det} | {secs} |")
    for c in results["claims"]:
        md += _claim_markdown(c)
    return "\n".join(md) + "\n"


def _figures(rows, outdir: Path, alpha: float) -> dict[str, dict[str, str]]:
    """Per claim: its own figure (``fig-<id>.png``, when it draws one) and its checks as theory against simulation
    (``checks-<id>.png``, :func:`verify.figures.check_figure`); a figure is never shown under a claim it does not
    draw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = family_size([k for _, r in rows if r is not None and not r.error for k in r.checks])
    z_crit = holm_threshold(alpha, m)
    paths: dict[str, dict[str, str]] = {}
    for claim, res in rows:
        if res is None or res.error:
            continue
        out = paths.setdefault(claim.id, {})
        if res.figure is not None:
            fig, ax = plt.subplots(figsize=(6.4, 4.0))
            res.figure(ax)
            ax.text(0.0, 1.06, claim.id, transform=ax.transAxes, fontsize=7, color="0.35")
            fig.tight_layout()
            fig.savefig(outdir / f"fig-{claim.id}.png", dpi=100)
            plt.close(fig)
            out["figure"] = f"fig-{claim.id}.png"
        fig = check_figure([_check_record(k) for k in res.checks], z_crit, m) if res.checks else None
        if fig is not None:
            fig.savefig(outdir / f"checks-{claim.id}.png", dpi=100)
            plt.close(fig)
            out["check_figure"] = f"checks-{claim.id}.png"
    return paths


def _remove_stale_figures(outdir: Path) -> None:
    """Delete the figures listed by the results.json already in ``outdir`` (an earlier run's), and nothing else."""
    old = outdir / "results.json"
    try:
        listed = {c.get(k) for c in json.loads(old.read_text()).get("claims", []) for k in ("figure", "check_figure")}
    except (OSError, ValueError, AttributeError):
        return
    for name in listed:
        if name and Path(name).name == name:
            (outdir / name).unlink(missing_ok=True)


def write_report(rows, settings: Settings, outdir: Path, argv: list[str], figures: bool = True,
                 extra: dict | None = None) -> Path:
    """Write results.json, report.md and report.html (both rendered from it) and the figures into ``outdir``;
    returns report.md's path. ``extra``: further top-level entries for results.json (e.g. a rerun's source and
    comparison)."""
    from .report_html import render_html

    outdir.mkdir(parents=True, exist_ok=True)
    _remove_stale_figures(outdir)
    figs = _figures(rows, outdir, settings.alpha) if figures else {}
    n_checks = family_size([k for _, r in rows if r is not None and not r.error for k in r.checks])
    claims = [claim_record(c, r, **figs.get(c.id, {}), family=(settings.alpha, n_checks),
                           chains=settings.for_claim(c.id, c.chains_factor).chains) for c, r in rows]
    results = {"schema": SCHEMA, "argv": argv, "settings": dict(settings.__dict__), "environment": environment(),
               "summary": summary(claims), "claims": claims, **(extra or {})}
    (outdir / "results.json").write_text(json.dumps(results, indent=1, default=_jsonable))
    path = outdir / "report.md"
    path.write_text(render_markdown(results))
    (outdir / "report.html").write_text(render_html(json.loads((outdir / "results.json").read_text()), outdir),
                                        encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m verify.report RESULTS [OUT]``: rebuild report.md (OUT ending in .md) or report.html (OUT ending
    in .html) from a results.json; without OUT both, beside it."""
    from .report_html import render_html

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2):
        print("usage: python -m verify.report RESULTS.json [OUT.md | OUT.html]", file=sys.stderr)
        return 2
    src = Path(argv[0])
    src = src / "results.json" if src.is_dir() else src
    outs = [Path(argv[1])] if len(argv) == 2 else [src.with_name("report.md"), src.with_name("report.html")]
    try:
        results = json.loads(src.read_text())
        texts = [render_html(results, src.parent) if o.suffix == ".html" else render_markdown(results) for o in outs]
    except (OSError, ValueError, KeyError) as e:
        print(f"error: RESULTS must be a results.json written by python -m verify ({src}): {e!r}", file=sys.stderr)
        return 2
    for out, text in zip(outs, texts, strict=True):
        out.write_text(text, encoding="utf-8")
        print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
