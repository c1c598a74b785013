"""The conformance table (Markdown, for the README and output/conformance/report.md) and the JSON record."""

from __future__ import annotations

import json
import math
import platform
from importlib import metadata
from pathlib import Path

from .suite import CaseResult

PEERS = ("jax", "blackjax", "sgmcmcjax", "torch", "posteriors")


def versions() -> dict:
    """The run's environment (:func:`verify.environment.environment`) and the peers' versions."""
    from verify.environment import environment

    out = environment()
    for pkg in PEERS:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    out["machine"] = f"{platform.machine()}, {platform.processor() or 'cpu'}"
    return out


def _pct(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{100 * x:.1f}%"


def summary_table(results: list[CaseResult]) -> str:
    """One row per case: verdict, worst z, detectable noise-scale error, smallest detectable relative deviation."""
    lines = ["| library | algorithm | problem | verdict | worst z | detectable noise-scale error | "
             "smallest detectable rel. deviation (a variance) | expected | what it means |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.case
        w = r.worst
        var_rel = [k.params["mde_rel"] for k in r.checks if k.params.get("kind") == "var" and k.se > 0]
        lines.append(
            f"| {c.library} | {c.algorithm} | {r.problem or '-'} | **{r.verdict}** | "
            f"{'-' if w is None else f'{w.z:+.2f}'} | {_pct(r.noise_error)} | "
            f"{_pct(min(var_rel)) if var_rel else '-'} | {c.expected} | "
            f"{(r.skipped or r.error or c.meaning or '').replace('|', '/')} |")
    return "\n".join(lines)


def markdown(results: list[CaseResult], settings: dict) -> str:
    n = sum(len(r.checks) for r in results)
    out = ["# Conformance of peer SG-MCMC implementations with the exact law of what they declare", "",
           f"Settings: {settings}. All {n} checks form one Holm family at level alpha = {settings['alpha']}; "
           "detectable deviations are for 90% power at the strictest Holm threshold alpha/m.", "",
           summary_table(results), "", "## Per case", ""]
    for r in results:
        c = r.case
        out.append(f"### {c.library}: {c.algorithm} ({r.problem or '-'})")
        out.append("")
        out.append(r.sentence())
        if r.declared is not None:
            out += ["", f"Declared: {r.declared.describe()}. Library parameters: {r.declared.convention}. "
                        f"Exact answer: {r.exact_source}. {r.chains} chains, {r.seconds:.1f} s."]
        if r.checks:
            out += ["", "| check | theory | estimate | s.e. | z | rejected | detectable deviation (rel.) | "
                        "detectable noise-scale error |", "|---|---|---|---|---|---|---|---|"]
            for k in r.checks:
                out.append(f"| {k.label.split(': ', 1)[-1]} | {k.theory:.6g} | {k.estimate:.6g} | {k.se:.3g} | "
                           f"{k.z:+.2f} | {'yes' if k.rejected else ''} | {k.params['mde']:.3g} "
                           f"({_pct(k.params['mde_rel'])}) | {_pct(k.params['noise_error'])} |")
        out.append("")
    return "\n".join(out)


def _json(v):
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if hasattr(v, "tolist"):
        return v.tolist()
    return v


def write(results: list[CaseResult], settings: dict, out_dir: Path) -> Path:
    """Write report.md and results.json into ``out_dir``; returns the report's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.md").write_text(markdown(results, settings))
    rec = {"settings": settings, "versions": versions(), "cases": [
        {"library": r.case.library, "algorithm": r.case.algorithm, "problem": r.problem, "verdict": r.verdict,
         "expected": r.case.expected, "sentence": r.sentence(), "seconds": r.seconds, "chains": r.chains,
         "declared": None if r.declared is None else r.declared.describe(),
         "convention": None if r.declared is None else r.declared.convention, "exact_source": r.exact_source,
         "checks": [{"label": k.label, "theory": k.theory, "estimate": k.estimate, "se": k.se, "z": k.z, "p": k.p,
                     "rejected": k.rejected, **{p: _json(v) for p, v in k.params.items()}} for k in r.checks]}
        for r in results]}
    (out_dir / "results.json").write_text(json.dumps(rec, indent=1, default=str))
    return out_dir / "report.md"


__all__ = ["markdown", "summary_table", "versions", "write"]
