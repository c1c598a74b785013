"""Console table, Markdown report, JSON results and one figure per claim family."""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

from .registry import Claim, ClaimResult, Settings


def verdict(claim: Claim, result: ClaimResult | None) -> str:
    if claim.out_of_scope:
        return "out of scope"
    if result is None:
        return "error"
    bad = any(c.rejected for c in result.checks) or any(not e.passed for e in result.exact)
    return "fails" if bad else "holds"


def versions() -> dict:
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("sgmcmc-workbench", "numpy", "scipy", "sympy", "mpmath", "matplotlib", "scikit-learn"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    out["git"] = _git_commit()
    return out


def _git_commit() -> str:
    """The source tree's commit (with '-dirty' when tracked files differ from it), or 'unknown' outside git."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head.stdout.strip() + ("-dirty" if dirty else "")


def _jsonable(v):
    """numpy scalars/arrays and other values in check parameters, as JSON."""
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)


def console_table(rows: list[tuple[Claim, ClaimResult | None]], settings: Settings, n_checks: int) -> str:
    lines = []
    head = f"{'claim / check':58s} {'theory':>12s} {'simulation':>12s} {'+- s.e.':>9s} {'z':>7s}  verdict"
    lines.append(head)
    lines.append("-" * len(head))
    for claim, res in rows:
        lines.append(f"{claim.id}  [{claim.source}]")
        if res is None:
            lines.append(f"    {claim.out_of_scope or 'error'}")
            continue
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
    held = sum(verdict(c, r) == "holds" for c, r in rows)
    errata = sum(verdict(c, r) == "fails" and c.expected == "fails" for c, r in rows)
    unexpected = sum(verdict(c, r) not in (c.expected, "out of scope") for c, r in rows)
    lines.append(f"{held}/{len(rows)} claims hold, {errata} fail as registered errata, {unexpected} unexpected; "
                 f"{n_checks} statistical checks, Holm family-wise level alpha = {settings.alpha}; "
                 f"{settings.chains} chains per simulation; seed {settings.seed}")
    return "\n".join(lines)


def _figures(rows, outdir: Path) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families: dict[str, list] = {}
    for claim, res in rows:
        if res is not None and res.figure is not None:
            families.setdefault(claim.family, []).append((claim, res))
    paths = {}
    for fam, items in families.items():
        fig, axes = plt.subplots(1, len(items), figsize=(4.2 * len(items), 3.8), squeeze=False)
        for ax, (claim, res) in zip(axes[0], items, strict=True):
            res.figure(ax)
            ax.text(0.0, 1.08, claim.id, transform=ax.transAxes, fontsize=7, color="0.3")
        fig.tight_layout()
        path = outdir / f"{fam}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths[fam] = path.name
    return paths


def write_report(rows, settings: Settings, outdir: Path, argv: list[str], figures: bool = True) -> Path:
    outdir.mkdir(parents=True, exist_ok=True)
    figs = _figures(rows, outdir) if figures else {}
    n_checks = sum(len(r.checks) for _, r in rows if r is not None)
    md = ["# SG-MCMC workbench: verification report", ""]
    md.append(f"Command: `python -m verify {' '.join(argv)}`  ")
    md.append(f"Chains per simulation: {settings.chains}; base seed: {settings.seed}; "
              f"family-wise level alpha = {settings.alpha} (Holm over all {n_checks} statistical checks of this "
              "run, so the chance of any false 'fails' verdict is at most alpha).  ")
    md.append("Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
    md.append("")
    md.append("| claim | source | verdict | expected | checks | worst abs(z) | seconds |")
    md.append("|---|---|---|---|---|---|---|")
    for claim, res in rows:
        worst = max((abs(c.z) for c in res.checks), default=float("nan")) if res else float("nan")
        n = len(res.checks) + len(res.exact) if res else 0
        md.append(f"| `{claim.id}` | {claim.source} | **{verdict(claim, res)}** | {claim.expected} | {n} | "
                  f"{worst:.2f} | "
                  f"{res.seconds if res else 0:.1f} |")
    for claim, res in rows:
        md += ["", f"## `{claim.id}`: {verdict(claim, res)}", "", f"*{claim.source}.* {claim.statement}", ""]
        if claim.erratum:
            md.append(f"**Erratum** (registered; the verdict is expected to be 'fails'): {claim.erratum}")
            md.append("")
        if claim.out_of_scope:
            md.append(f"Out of scope: {claim.out_of_scope}")
            continue
        if res is None:
            continue
        if res.checks:
            md.append("| check | theory | simulation | s.e. | z | p | rejected |")
            md.append("|---|---|---|---|---|---|---|")
            for c in res.checks:
                md.append(f"| {c.label} | {c.theory:.8g} | {c.estimate:.8g} | {c.se:.3g} | {c.z:+.2f} | "
                          f"{c.p:.3g} | {'**yes**' if c.rejected else 'no'} |")
        for e in res.exact:
            md.append(f"- exact: {e.label}: {'passed' if e.passed else '**FAILED**'} {e.detail}")
        for note in res.notes:
            md.append(f"- {note}")
        if claim.family in figs:
            md.append(f"\n![{claim.family}]({figs[claim.family]})")
    path = outdir / "report.md"
    path.write_text("\n".join(md) + "\n")
    results = {
        "argv": argv, "settings": settings.__dict__, "versions": versions(),
        "claims": [{
            "id": c.id, "source": c.source, "verdict": verdict(c, r), "expected": c.expected,
            "checks": [] if r is None else [dict(label=k.label, theory=k.theory, estimate=k.estimate, se=k.se,
                                                 z=k.z, p=k.p, rejected=k.rejected, params=k.params)
                                            for k in r.checks],
        } for c, r in rows],
    }
    (outdir / "results.json").write_text(json.dumps(results, indent=1, default=_jsonable))
    return path
