"""``python -m verify``: run the claim registry, print a table, write a report.

Exit code 0 only when every claim has its registered verdict: holds; fails for a registered erratum (with its
counter-example); holds as a bound (the bound holds, the exact behaviour differs); depends on reading (each reading
with its registered verdict); inconclusive only where registered so, with the reason. Every check must also have its
registered outcome: one registered to hold that fails (or one carrying a counter-example that holds) fails the run,
named on the console and in the report, whatever its claim's verdict. A claim that raises gets the verdict "error"
(its traceback in the report) and the exit code is 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path

from simulate.runtime.backends import jax_module
from simulate.validation import ParameterError, check_int

from .checks import family_size
from .environment import differences
from .harness import all_as_expected, run_claims
from .registry import ENTRY_POINT_ERRORS, Settings, claims_of_modules, load_modules, select
from .report import console_table, write_report

#: Default report folder of a run; a rerun never writes here.
DEFAULT_OUT = Path("output/verify")
#: Largest relative difference a rerun in another environment accepts as rounding (README, "Reproducibility").
ROUNDING = 1e-9


def _integer(name: str, lo: int):
    """An argparse type: an integer >= lo, with an error naming the option and its range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= {lo}, got {text!r}") from None
        try:
            return check_int(name, value, lo)
        except ParameterError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def _alpha(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha must be a number with 0 < alpha < 1, got {text!r}") from None
    if not 0.0 < a < 1.0:
        raise argparse.ArgumentTypeError(f"--alpha must satisfy 0 < alpha < 1, got {text}")
    return a


def _fraction(text: str) -> float:
    try:
        r = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--target-mde must be a number with 0 < R < 1, got {text!r}") from None
    if not 0.0 < r < 1.0:
        raise argparse.ArgumentTypeError(f"--target-mde must satisfy 0 < R < 1, got {text}")
    return r


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify", description=__doc__)
    p.add_argument("--paper", action="append", help="run only this paper's claims (repeatable)")
    p.add_argument("--claim", action="append", help="run only this claim id (repeatable)")
    p.add_argument("--module", action="append", metavar="MODULE",
                   help="load the claims of this importable module, e.g. my_pkg.my_claims (repeatable); alone it "
                        "runs only that module's claims, with --paper / --claim it selects among all (add built-in "
                        "papers with --paper NAME); installed packages can register theirs under the entry-point "
                        "group 'sgmcmc_workbench.claims'")
    p.add_argument("--chains", type=_integer("--chains", 4), default=Settings.chains, help="chains per simulation")
    p.add_argument("--seed", type=_integer("--seed", 0), default=Settings.seed, help="base seed")
    p.add_argument("--alpha", type=_alpha, default=Settings.alpha, help="family-wise false-alarm level")
    p.add_argument("--workers", type=_integer("--workers", 1), default=Settings.workers,
                   help="run the claims on K Dask worker processes (a LocalCluster); results are bit-identical "
                        "to --workers 1")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the claims on an existing Dask cluster (scheduler address, e.g. tcp://host:8786)")
    p.add_argument("--out", default=None, help=f"report folder (default: {DEFAULT_OUT}; for --rerun a new folder "
                                               "beside the report it reruns, REPORT-rerun-TIME)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true",
                   help="list the claims (with the deviation each detects, from the last report in --out) and exit")
    p.add_argument("--target-mde", type=_fraction, default=None, metavar="R",
                   help="choose the chains of each claim so that every check detects a relative deviation R (e.g. "
                        "0.01) with 90%% power; a pilot run (or the report in --out) sets the scale, and the plan "
                        "with its estimated time is printed before the run starts")
    p.add_argument("--backend", choices=("numpy", "jax"), default=Settings.backend,
                   help="where the simulations run: numpy (bit for bit, the default) or jax (simulate.run(..., "
                        "backend='jax') on the device JAX sees; a run it does not cover runs on numpy, and the "
                        "claim's notes say so)")
    p.add_argument("--rerun", metavar="REPORT",
                   help="re-run the claims of a report (its results.json or folder) with its settings and compare "
                        "every number; writes a new report folder, never over the one it reruns")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # bad options (argparse printed the message) or --help: an exit code, not an exception
        return int(e.code or 0)
    if args.rerun:
        return rerun(args.rerun, args.out, not args.no_progress, args.workers, args.scheduler)
    try:
        modules = load_modules(args.module)
        claims = select(args.paper, args.claim) if args.paper or args.claim or not modules else _own(modules)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for ep, err in ENTRY_POINT_ERRORS:
        print(f"warning: the claims of entry point {ep} could not be loaded: {err}", file=sys.stderr)
    out = Path(args.out) if args.out else DEFAULT_OUT
    if args.list:
        mdes = _last_mdes(out)
        for c in claims:
            det = f"detects {100 * mdes[c.id]:.2g}%" if mdes.get(c.id) is not None else ""
            print(f"{c.id:45s} {det:16s} {c.source}")
        return 0
    settings = Settings(chains=args.chains, seed=args.seed, alpha=args.alpha, progress=not args.no_progress,
                        workers=args.workers, scheduler=args.scheduler, backend=args.backend)
    if args.backend != "numpy":
        try:
            jax_module()
        except ParameterError as e:
            print(f"error: --backend {args.backend}: {e}", file=sys.stderr)
            return 2
    if args.target_mde is not None:
        settings = plan_for_target(claims, settings, args.target_mde, out)
    rows = run_claims(claims, settings)
    n_checks = sum(len(r.checks) for _, r in rows if r is not None and not r.error)
    print(console_table(rows, settings, n_checks))
    path = write_report(rows, settings, out, argv, figures=not args.no_figures, extra={"modules": modules})
    print(_report_line("report", path))
    return 0 if all_as_expected(rows) else 1


def _own(modules: list[str]):
    """The claims of the ``--module`` modules alone (``--module`` without ``--paper`` / ``--claim``), saying how to
    add the built-in ones."""
    claims = claims_of_modules(modules)
    if not claims:
        raise ParameterError(f"--module {' '.join(modules)} registered no claims (a claim module registers its "
                             "claims with verify.api.claim when it is imported)")
    papers = sorted({c.paper for c in claims})
    print(f"running the {len(claims)} claims of {', '.join(modules)} only; to run built-in claims beside them, "
          f"select papers: {' '.join(f'--paper {p}' for p in papers)} --paper vollmer ... "
          "(python -m verify --list names them)", file=sys.stderr)
    return claims


def _report_line(what: str, md: Path) -> str:
    """The last line of a run: where its report is, both renderings (report.md and report.html) named."""
    return f"{what}: {md} and {md.with_name('report.html')} (open it in a browser)"


def _last_mdes(out: Path) -> dict[str, float | None]:
    """Each claim's detectable relative deviation in the report already in ``out`` (empty if there is none)."""
    from .report import claim_mde

    try:
        old = json.loads((out / "results.json").read_text())
        return {c["id"]: claim_mde(c) for c in old["claims"]}
    except (OSError, ValueError, KeyError):
        return {}


def plan_for_target(claims, settings: Settings, target: float, out: Path) -> Settings:
    """Chains per claim so that its least sensitive check detects a relative deviation ``target`` with 90% power:
    chains ~ pilot chains (pilot mde / target)^2 (the pilot chains of each claim: the run's times its
    ``chains_factor``), from the report in ``out`` when it has the claims at this seed, else from a pilot run at
    2000 chains, on the run's backend. Its time estimate scales the pilot's seconds apart from compilation (a JAX
    program compiles once whatever the chains) by the chains. Prints the plan and its estimated time; returns the
    settings to run with."""
    from .report import claim_mde, claim_record

    try:
        old = json.loads((out / "results.json").read_text())
        assert old["settings"]["seed"] == settings.seed
        assert old["settings"].get("backend", "numpy") == settings.backend  # the pilot's seconds are the backend's
        base = int(old["settings"]["chains"])
        pilot = {c["id"]: (claim_mde(c), c["seconds"] or 0.0, c.get("chains") or base,
                           c.get("compile_seconds") or 0.0) for c in old["claims"]}
        assert all(c.id in pilot for c in claims)
        source = f"the report in {out} ({base} chains)"
    except (OSError, ValueError, KeyError, AssertionError, TypeError):
        base = 2000
        print(f"--target-mde: pilot run of {len(claims)} claims at {base} chains ...")
        rows = run_claims(claims, dataclasses.replace(settings, chains=base, progress=False))
        m = family_size([k for _, r in rows if r is not None and not r.error for k in r.checks])
        pilot = {c.id: (claim_mde(claim_record(c, r, None, (settings.alpha, m))), r.seconds if r else 0.0,
                        max(4, round(base * c.chains_factor)), r.compile_seconds if r else 0.0) for c, r in rows}
        source = f"a pilot run at {base} chains"
    plan, total = [], 0.0
    for c in claims:
        mde, secs, ran, fixed = pilot.get(c.id, (None, 0.0, base, 0.0))
        chains = (settings.for_claim(c.id, c.chains_factor).chains if mde is None
                  else max(4, math.ceil(ran * (mde / target) ** 2)))
        est = fixed + (secs - fixed) * chains / ran  # the backend's measured rate; compilation does not scale
        total += est
        plan.append((c.id, chains))
        print(f"  {c.id:45s} {'-' if mde is None else f'{100 * mde:.2g}%':>8s} -> {chains:>10d} chains  ~{est:8.1f} s")
    print(f"--target-mde {target:g}: scale from {source}; estimated time {total / 60:.1f} min (linear in chains, "
          f"compilation apart; backend {settings.backend})")
    return dataclasses.replace(settings, chains_by_claim=tuple(plan))


def _rerun_folder(source: Path, out: str | None) -> Path:
    """The folder a rerun writes to: ``out``, or a new one beside the report it reruns (``<report folder>-rerun-
    <UTC time>``, wherever the command runs from); never the source's folder, never DEFAULT_OUT, never a folder
    that already holds files."""
    if out is None:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        report = source.resolve().parent
        folder = report.with_name(f"{report.name}-rerun-{stamp}")
        k = 1
        while folder.exists():
            k += 1
            folder = report.with_name(f"{report.name}-rerun-{stamp}-{k}")
        return folder
    folder = Path(out)
    if folder.resolve() in (source.parent.resolve(), DEFAULT_OUT.resolve()):
        raise ParameterError(f"--out must differ from the report being rerun and from {DEFAULT_OUT}, got {out!r}")
    if folder.exists() and any(folder.iterdir()):
        raise ParameterError(f"--out must be a new or empty folder (a rerun never overwrites a report), got {out!r}")
    return folder


def _load_report(report: str) -> tuple[Path, dict]:
    path = Path(report)
    if path.is_dir():
        path = path / "results.json"
    try:
        old = json.loads(path.read_text())
        old["settings"], [c["id"] for c in old["claims"]]  # noqa: B018 - the fields a rerun needs
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ParameterError(f"--rerun needs a results.json written by python -m verify ({path}): {e!r}") from None
    return path, old


def _compare(old: dict, rows) -> tuple[list[str], float, list[str]]:
    """(differences as text, largest relative difference of a number, claims whose verdict changed).

    A check is identified by its claim, its part and its label: the readings of a claim that depends on reading ask
    the same question under each reading, so their checks share labels and differ in part."""
    new = {(c.id, k.part, k.label): (k.theory, k.estimate, k.se) for c, r in rows if r is not None for k in r.checks}
    diffs, worst = [], 0.0
    for c in old["claims"]:
        for k in c["checks"]:
            key = (c["id"], k.get("part"), k["label"])
            where = f"{key[0]} / {key[2]}" + (f" (part {key[1]})" if key[1] is not None else "")
            rec = tuple(float(k[f]) for f in ("theory", "estimate", "se"))
            now = new.get(key)
            if now == rec:
                continue
            if now is None:
                diffs.append(f"{where}: missing in the rerun")
                worst = math.inf
                continue
            rel = max(abs(a - b) / max(abs(a), abs(b), 1e-300) for a, b in zip(rec, now, strict=True))
            worst = max(worst, rel)
            diffs.append(f"{where}: recorded {rec}, now {now} (relative {rel:.2g})")
    n_old = sum(len(c["checks"]) for c in old["claims"])
    if len(new) != n_old:
        diffs.append(f"the report has {n_old} checks, the rerun {len(new)}")
        worst = math.inf
    from .report import verdict

    was = {c["id"]: c["verdict"] for c in old["claims"]}
    changed = [f"{c.id}: {was[c.id]} -> {verdict(c, r)}" for c, r in rows if was.get(c.id) != verdict(c, r)]
    return diffs, worst, changed


def rerun(report: str, out: str | None, progress: bool, workers: int = 1, scheduler: str | None = None) -> int:
    """Re-run a recorded report with its settings and compare theory, estimate and s.e. of every check.

    Exit 0 when every number is reproduced bit for bit, or, where an entry of the environment that can change a
    number differs, to within ROUNDING relative with no verdict changed; 1 otherwise; 2 for bad input."""
    try:
        path, old = _load_report(report)
        load_modules(old.get("modules", []))
        claims = select(None, [c["id"] for c in old["claims"]])
        folder = _rerun_folder(path, out)
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    env_diff = differences(old.get("environment", old.get("versions", {})))
    if env_diff:
        print("the environment differs from the report's in what can change a number:", *env_diff, sep="\n  ")
    else:
        print("same environment as the report (every entry that can change a number)")
    st = old["settings"]
    settings = Settings(chains=st["chains"], seed=st["seed"], alpha=st["alpha"], progress=progress,
                        workers=max(1, workers), scheduler=scheduler, backend=st.get("backend", "numpy"))
    rows = run_claims(claims, settings)
    diffs, worst, changed = _compare(old, rows)
    n_old = sum(len(c["checks"]) for c in old["claims"])
    ok = not diffs or (env_diff and worst <= ROUNDING and not changed)
    outcome = {"source": str(path), "environment_differences": env_diff, "differences": diffs[:200],
               "largest_relative_difference": worst if math.isfinite(worst) else "inf",
               "verdicts_changed": changed, "reproduced": "bit for bit" if not diffs else
               ("to rounding" if ok else "no")}
    md = write_report(rows, settings, folder, ["--rerun", str(report)], figures=False,
                      extra={"rerun": outcome, "modules": old.get("modules", [])})
    print(_report_line("rerun report", md))
    if not diffs:
        print(f"reproduced bit for bit: {n_old} checks of {len(claims)} claims (seed {settings.seed}, "
              f"{settings.chains} chains)")
    elif ok:
        print(f"reproduced to rounding: {len(diffs)} of {n_old} numbers differ, by at most {worst:.2g} relative "
              f"(<= {ROUNDING:g}), as the environment differs; no verdict changed")
    else:
        print(f"NOT reproduced: {len(diffs)} differences (largest relative {worst:.2g})", *diffs[:20], sep="\n")
        if changed:
            print("verdicts changed:", *changed, sep="\n  ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
