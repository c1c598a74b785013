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

from .checks import OneSidedCheck
from .environment import environment
from .figures import check_figure, holm_threshold
from .registry import Claim, ClaimResult, Settings

#: Version of the results.json layout (3: per-claim figures and check figures).
SCHEMA = 3


def verdict(claim: Claim, result: ClaimResult | None) -> str:
    """holds / fails / out of scope / error (the claim raised; its traceback is in ``result.error``)."""
    if claim.out_of_scope:
        return "out of scope"
    if result is None or result.error:
        return "error"
    bad = any(c.rejected for c in result.checks) or any(not e.passed for e in result.exact)
    return "fails" if bad else "holds"


def _jsonable(v):
    """numpy scalars/arrays and other values in check parameters, as JSON."""
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)


def _number(x: float) -> float | str:
    """JSON has no inf/NaN: keep them as strings."""
    return x if math.isfinite(x) else str(x)


def claim_record(claim: Claim, res: ClaimResult | None, figure: str | None = None,
                 check_figure: str | None = None) -> dict:
    """One claim of results.json: its registry entry, verdict, timing, checks, exact checks, notes, error, and the
    file names of its own figure and of its checks' figure (None when not drawn)."""
    rec = {
        "id": claim.id, "paper": claim.paper, "source": claim.source, "statement": claim.statement,
        "family": claim.family, "module": getattr(claim.run, "__module__", None), "expected": claim.expected,
        "erratum": claim.erratum,
        "out_of_scope": claim.out_of_scope, "verdict": verdict(claim, res),
        "seconds": None if res is None else res.seconds, "error": None if res is None else res.error,
        "figure": figure, "check_figure": check_figure, "notes": [] if res is None else list(res.notes),
        "checks": [] if res is None else [_check_record(k) for k in res.checks],
        "exact": [] if res is None else [dict(label=e.label, passed=e.passed, detail=e.detail, kind=e.kind)
                                         for e in res.exact],
    }
    return rec


def _check_record(k) -> dict:
    rec = dict(label=k.label, theory=_number(k.theory), estimate=_number(k.estimate), se=_number(k.se),
               z=_number(k.z), p=k.p, rejected=k.rejected, params=k.params, kind=k.kind)
    if isinstance(k, OneSidedCheck):
        rec.update(direction=k.direction, df=k.df)
    return rec


def summary(claims: list[dict]) -> dict:
    """Counts of verdicts against expectations (the exit-code rule of ``python -m verify``)."""
    def unexpected(c):
        return c["verdict"] not in (c["expected"], "out of scope")

    return {
        "claims": len(claims),
        "holds": sum(c["verdict"] == "holds" for c in claims),
        "errata_failing": sum(c["verdict"] == "fails" and c["expected"] == "fails" for c in claims),
        "out_of_scope": sum(c["verdict"] == "out of scope" for c in claims),
        "errors": sum(c["verdict"] == "error" for c in claims),
        "unexpected": sum(unexpected(c) for c in claims),
        "statistical_checks": sum(len(c["checks"]) for c in claims),
        "exact_checks": sum(len(c["exact"]) for c in claims),
    }


def console_table(rows: list[tuple[Claim, ClaimResult | None]], settings: Settings, n_checks: int) -> str:
    lines = []
    head = f"{'claim / check':58s} {'theory':>12s} {'simulation':>12s} {'+- s.e.':>9s} {'z':>7s}  verdict"
    lines.append(head)
    lines.append("-" * len(head))
    for claim, res in rows:
        lines.append(f"{claim.id}  [{claim.source}]")
        if res is None or res.error:
            lines.append(f"    {claim.out_of_scope or 'ERROR: ' + (res.error or '').strip().splitlines()[-1]}")
            if claim.out_of_scope:
                continue
        else:
            for c in res.checks:
                v = "REJECTED" if c.rejected else "ok"
                lines.append(f"    {c.label[:54]:54s} {c.theory:12.6g} {c.estimate:12.6g} {c.se:9.2g} {c.z:+7.2f}  {v}")
            for e in res.exact:
                lines.append(f"    {e.label[:54]:54s} {'exact':>12s} {'':12s} {'':9s} {'':7s}  "
                             f"{'ok' if e.passed else 'FAILED'}")
        v = verdict(claim, res)
        note = ""
        if v not in (claim.expected, "out of scope"):
            note = f"   (UNEXPECTED: registered as '{claim.expected}')"
        if claim.expected == "fails" and v == "fails":
            note = "   (a registered erratum, as expected)"
        lines.append(f"  => {v}{note}")
    lines.append("-" * len(head))
    s = summary([claim_record(c, r) for c, r in rows])
    lines.append(f"{s['holds']}/{s['claims']} claims hold, {s['errata_failing']} fail as registered errata, "
                 f"{s['errors']} raised an error, {s['unexpected']} unexpected; "
                 f"{n_checks} statistical checks, Holm family-wise level alpha = {settings.alpha}; "
                 f"{settings.chains} chains per simulation; seed {settings.seed}")
    return "\n".join(lines)


def _fmt(x, spec: str) -> str:
    return x if isinstance(x, str) else format(x, spec)


def _claim_markdown(c: dict) -> list[str]:
    md = ["", f"## `{c['id']}`: {c['verdict']}", "", f"*{c['source']}.* {c['statement']}", ""]
    if c["erratum"]:
        md += [f"**Erratum** (registered; the verdict is expected to be 'fails'): {c['erratum']}", ""]
    if c["out_of_scope"]:
        md.append(f"Out of scope: {c['out_of_scope']}")
        return md
    if c["error"]:
        md += ["**The claim raised an error** (verdict 'error'):", "", "```", c["error"].rstrip(), "```"]
        return md
    if c["checks"]:
        md.append("| # | check | test | theory | simulation | s.e. | z | p | rejected |")
        md.append("|---|---|---|---|---|---|---|---|---|")
        for i, k in enumerate(c["checks"], 1):
            md.append(f"| {i} | {k['label']} | {_test_kind(k)} | {_fmt(k['theory'], '.8g')} | "
                      f"{_fmt(k['estimate'], '.8g')} | {_fmt(k['se'], '.3g')} | {_fmt(k['z'], '+.2f')} | "
                      f"{k['p']:.3g} | {'**yes**' if k['rejected'] else 'no'} |")
    for e in c["exact"]:
        kind = e.get("kind", "exact")
        tag = "exact" if kind == "exact" else f"{kind} (not evidence about the paper or the simulator)"
        md.append(f"- {tag}: {e['label']}: {'passed' if e['passed'] else '**FAILED**'} {e['detail']}")
    for note in c["notes"]:
        md.append(f"- {note}")
    for key, what in (("check_figure", "checks: simulation vs theory"), ("figure", "the claim's figure")):
        if c.get(key):
            md.append(f"\n![{c['id']}: {what}]({c[key]})")
    return md


def _test_kind(k: dict) -> str:
    """'two-sided', or the one-sided claim as 'sim >= theory' / 'sim <= theory' (with t degrees of freedom)."""
    if k.get("kind") != "one-sided":
        return "two-sided"
    rel = ">=" if k.get("direction") == "greater" else "<="
    return f"one-sided: sim {rel} theory" + (f" (t, {k['df']} d.f.)" if k.get("df") else "")


def render_markdown(results: dict) -> str:
    """report.md from a results.json dictionary alone."""
    st, s = results["settings"], results["summary"]
    env = results.get("environment", results.get("versions", {}))
    md = ["# SG-MCMC workbench: verification report", ""]
    md.append(f"Command: `python -m verify {' '.join(results['argv'])}`  ")
    md.append(f"Chains per simulation: {st['chains']}; base seed: {st['seed']}; family-wise level alpha = "
              f"{st['alpha']} (Holm over all {s['statistical_checks']} statistical checks of this run, so the chance "
              "of any false 'fails' verdict is at most alpha).  ")
    md.append(f"{s['holds']}/{s['claims']} claims hold, {s['errata_failing']} fail as registered errata, "
              f"{s['out_of_scope']} out of scope, {s['errors']} raised an error, {s['unexpected']} unexpected.  ")
    md.append("Environment: " + ", ".join(f"{k} {v}" for k, v in env.items() if k != "cpu_flags" and v != ""))
    md.append("")
    md.append("| claim | source | verdict | expected | checks | worst abs(z) | seconds |")
    md.append("|---|---|---|---|---|---|---|")
    for c in results["claims"]:
        zs = [abs(k["z"]) for k in c["checks"] if not isinstance(k["z"], str)]
        worst = f"{max(zs):.2f}" if zs else "-"
        secs = "-" if c["seconds"] is None else f"{c['seconds']:.1f}"
        md.append(f"| `{c['id']}` | {c['source']} | **{c['verdict']}** | {c['expected']} | "
                  f"{len(c['checks']) + len(c['exact'])} | {worst} | {secs} |")
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

    m = sum(len(r.checks) for _, r in rows if r is not None and not r.error)
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
    claims = [claim_record(c, r, **figs.get(c.id, {})) for c, r in rows]
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
