"""Which public functions of simulate/ and theory/ does a default ``python -m verify`` execute?

Runs the registry under coverage.py (or reads a coverage data file), lists every public function and method of the
two packages (modules and names not starting with "_"), and compares the ones no claim executes with the allow-list
``verify/coverage_allowlist.txt`` (one ``module:qualname  reason`` per line). Exit 1 when a public function is
neither exercised nor allow-listed, or when an allow-listed one is exercised (a stale entry).

    python benchmarks/verify_coverage.py              # runs python -m verify under coverage (a few minutes)
    python benchmarks/verify_coverage.py --data .coverage   # reuse a coverage data file
    make coverage

``--write`` also rewrites docs/verify_coverage.md, the measured list kept in the repository.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulate", "theory")
ALLOWLIST = ROOT / "verify" / "coverage_allowlist.txt"
DOC = ROOT / "docs" / "verify_coverage.md"


def _declaration_only(fn: ast.FunctionDef) -> bool:
    """A Protocol's or abstract method's body: a docstring and/or ``...`` / ``pass`` / ``raise NotImplementedError``
    (nothing to execute)."""
    body = [b for b in fn.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
    return all(isinstance(b, ast.Pass) or (isinstance(b, ast.Raise) and "NotImplementedError" in ast.unparse(b))
               for b in body)


def public_functions() -> dict[str, tuple[Path, int, int]]:
    """'module:qualname' -> (file, first body line, last line) for public functions and methods, leaving out
    declarations without a body (Protocol and abstract methods)."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            if any(part.startswith("_") for part in rel.parts[1:]):
                continue  # private modules and __init__ re-exports
            module = ".".join(rel.parts)
            tree = ast.parse(path.read_text())
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                    out[f"{module}:{node.name}"] = (path, node.body[0].lineno, node.end_lineno)
                elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    for item in node.body:
                        if (isinstance(item, ast.FunctionDef) and not item.name.startswith("_")
                                and not _declaration_only(item)):
                            out[f"{module}:{node.name}.{item.name}"] = (path, item.body[0].lineno, item.end_lineno)
    return out


def read_allowlist(path: Path = ALLOWLIST) -> dict[str, str]:
    """'module:qualname' -> reason; blank lines and lines starting with '#' are skipped."""
    out = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        if not reason.strip():
            raise ValueError(f"{path.name}:{n}: {name} needs a reason")
        out[name] = reason.strip()
    return out


def executed_lines(data_file: Path) -> dict[Path, set[int]]:
    from coverage import CoverageData

    data = CoverageData(basename=str(data_file))
    data.read()
    return {Path(f).resolve(): set(data.lines(f) or ()) for f in data.measured_files()}


def run_verify(data_file: Path, extra: list[str]) -> None:
    cmd = [sys.executable, "-m", "coverage", "run", f"--data-file={data_file}",
           f"--source={','.join(PACKAGES)}", "-m", "verify", "--no-figures", "--no-progress",
           "--out", "output/coverage/verify", *extra]
    subprocess.run(cmd, cwd=ROOT, check=False)


def classify(lines: dict[Path, set[int]]) -> tuple[list[str], list[str]]:
    """(exercised, not exercised) public functions."""
    hit, missed = [], []
    for name, (path, first, last) in public_functions().items():
        ran = lines.get(path.resolve(), set())
        (hit if any(first <= k <= last for k in ran) else missed).append(name)
    return hit, missed


def write_doc(hit: list[str], missed: list[str], allow: dict[str, str]) -> None:
    lines = ["# What a default `python -m verify` executes", "",
             "Measured by `make coverage` (`benchmarks/verify_coverage.py`): coverage.py over a default run, "
             "function by function, for the public functions and methods of `simulate/` and `theory/`. "
             f"{len(hit)} of {len(hit) + len(missed)} are executed by the claims; the others are listed below with "
             "the reason from `verify/coverage_allowlist.txt` (numba kernels and private modules are not counted).",
             "", "| function | why no claim runs it |", "|---|---|"]
    lines += [f"| `{m}` | {allow.get(m, '**not allow-listed**')} |" for m in sorted(missed)]
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, help="an existing coverage data file (skip the run)")
    p.add_argument("--write", action="store_true", help=f"rewrite {DOC.relative_to(ROOT)}")
    args, extra = p.parse_known_args(argv)
    data = args.data
    if data is None:
        data = ROOT / "output" / "coverage" / ".coverage"
        data.parent.mkdir(parents=True, exist_ok=True)
        run_verify(data, extra)
    hit, missed = classify(executed_lines(data))
    allow = read_allowlist()
    unlisted = sorted(set(missed) - set(allow))
    stale = sorted(set(allow) & set(hit))
    unknown = sorted(set(allow) - set(hit) - set(missed))
    print(f"{len(hit)} of {len(hit) + len(missed)} public functions of {', '.join(PACKAGES)} run under "
          f"python -m verify; {len(missed)} do not ({len(missed) - len(unlisted)} allow-listed)")
    for title, names in (("not exercised and not allow-listed", unlisted), ("allow-listed but exercised", stale),
                         ("allow-listed but not a public function", unknown)):
        if names:
            print(f"{title}:", *names, sep="\n  ")
    if args.write:
        write_doc(hit, missed, allow)
    return 1 if unlisted or stale or unknown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
