"""The layout's promises: one direction of imports (verify -> theory -> simulate -> simulate._fast), the private fast
package reached only through its two doors, no module over 500 lines and no function over 80 outside vector code,
the previous release's module paths still importing with a warning that names the new place, and no file pointing to
a file outside the repository."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulate", "theory", "verify")
ORDER = {"simulate": 0, "theory": 1, "verify": 2}
#: Vector or generated code exempt from the function-length rule (explicit LLVM IR, fixed-order kernels).
LONG_ALLOWED = {"simulate/_fast/_simd.py"}


def _modules():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return out


def test_imports_go_one_way():
    bad = []
    for path in _modules():
        here = path.relative_to(ROOT).parts[0]
        for mod in _imports(path):
            top = mod.split(".")[0]
            if top in ORDER and ORDER[top] > ORDER[here]:
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_fast_package_only_through_its_two_doors():
    bad = []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("simulate/_fast/"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                names = [a.name for a in node.names]
                if "_fast" in mod and not (mod.endswith("_fast") and set(names) <= {"draws", "kernels"}) \
                        and not mod.endswith(("_fast.draws", "_fast.kernels")):
                    bad.append(f"{rel}: from {mod} import {', '.join(names)}")
    assert not bad, "\n".join(bad)


def test_module_and_function_sizes():
    big, long = [], []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        if len(text.splitlines()) > 500:
            big.append(f"{rel}: {len(text.splitlines())} lines")
        if rel in LONG_ALLOWED:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long.append(f"{rel}: {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not big and not long, "\n".join(big + long)


@pytest.mark.parametrize("old,name", [("simulate.logistic", "LogisticRegressionModel"), ("simulate.vr", "vrsgld"),
                                      ("simulate.runner", "run"), ("theory.toy_finite_time", "toy_finite_time"),
                                      ("theory.chen_gaussian", "mse_theta"), ("theory.stratified", "thm31_bound")])
def test_previous_module_paths_import_with_a_warning(old, name, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)  # another test may have imported it already
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
        assert callable(getattr(mod, name))
    assert any(issubclass(w.category, DeprecationWarning) and "moved to" in str(w.message) for w in caught)


def test_readme_imports_still_work():
    import simulate
    import theory

    assert callable(theory.chain_for) and callable(theory.exact_law)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert callable(theory.toy_finite_time.toy_finite_time)
    for name in ("GaussianMeanModel", "sgld", "run", "LinearRegressionModel", "Stratified", "allocate", "kmeans_strata",
                 "sghmc", "sgld_cv"):
        assert callable(getattr(simulate, name)), name


#: Pointers to files a clone does not have: the design sketch, the papers' text files and their digests kept beside
#: the repository (built from parts so that this file does not match itself).
OUTSIDE = re.compile("|".join([r"DESIGN" + r"\.md", r"shared" + r"/(?:notes|papers)", r"\.\./" + "shared",
                               r"\b\d{3}_[0-9a-f]{16}\b"]))
RELATIVE = re.compile(r"(?:\.\./)+[\w./-]*")


def test_no_file_points_outside_the_repository():
    """Every tracked .py, .md, .ipynb, .txt and .json file cites sources (paper, section, equation; docs/) instead of
    pointing to a file outside the repository: no path to the design sketch or the papers' text files and digests,
    and no relative path that climbs out of the repository."""
    files = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.ipynb", "*.txt", "*.json"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    bad = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file():
            continue
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            found = [m.group(0) for m in OUTSIDE.finditer(line)]
            found += [m.group(0) for m in RELATIVE.finditer(line)
                      if not (path.parent / m.group(0)).resolve().is_relative_to(ROOT.resolve())]
            bad += [f"{rel}:{no}: {f}" for f in found]
    assert not bad, "\n".join(bad)
