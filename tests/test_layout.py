"""The layout's promises: one direction of imports (verify -> theory -> simulate -> simulate._fast), the private fast
package reached only through its two doors, no module over 500 lines and no function over 80 outside vector code,
no import path of an earlier layout (no shims), no duplicate in any ``__all__``, no two public objects with one name,
and no file pointing to a file outside the repository."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
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


def _docstring_lines(tree: ast.AST) -> set[int]:
    """The line numbers the docstrings of a module, its classes and functions occupy."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                     str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def test_module_and_function_sizes():
    """At most 500 lines of code per module and 80 per function (outside vector code); docstrings do not count, so
    the numpydoc sections every public object carries never push code apart."""
    big, long = [], []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        tree = ast.parse(text)
        doc = _docstring_lines(tree)
        code = len(text.splitlines()) - len(doc)
        if code > 500:
            big.append(f"{rel}: {code} lines of code")
        if rel in LONG_ALLOWED:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1 - len(doc & set(range(node.lineno, node.end_lineno + 1)))
                if n > 80:
                    long.append(f"{rel}: {node.name} ({n} lines of code)")
    assert not big and not long, "\n".join(big + long)


#: Module paths of the flat layout before the packages were sorted (simulate/ by role, theory/ by mathematical
#: object): none of them may import, and nothing may serve them (no import hook, no module ``__getattr__``).
OLD_PATHS = (
    "simulate.control_variates", "simulate.covariance_estimators", "simulate.datasets", "simulate.distributed",
    "simulate.divide_conquer", "simulate.inference_data", "simulate.kl", "simulate.linear_regression",
    "simulate.logistic", "simulate.pipeline", "simulate.potentials", "simulate.runner", "simulate.saga",
    "simulate.stratified", "simulate.subsample", "simulate.toy_targets", "simulate.vr", "simulate.zv",
    "theory.baker_noise", "theory.subset_moments", "theory.gaussian_toy", "theory.toy_moments", "theory.toy_chain",
    "theory.toy_finite_time", "theory.baker_toys", "theory.sghmc_gaussian", "theory.baker_theorems",
    "theory.stratified", "theory.chen_gaussian", "theory.chen_bounds", "theory.vollmer_asymptotics",
    "theory.vollmer_printed", "theory.explore",
)


@pytest.mark.parametrize("old", OLD_PATHS)
def test_old_module_paths_do_not_import(old):
    """No file of this checkout and no import hook serves an old path (a hook's spec has no origin; an editable
    install of another checkout may still find its own copy, outside this one)."""
    spec = importlib.util.find_spec(old)
    assert spec is None or (spec.origin is not None and ROOT not in Path(spec.origin).resolve().parents), spec


def test_no_import_hooks_or_module_getattr():
    """No meta-path finder of ours, no module-level ``__getattr__`` serving old names, no ``theory.chain_for``."""
    import simulate
    import simulate.sampler
    import theory

    assert not [f for f in sys.meta_path if type(f).__module__.split(".")[0] in PACKAGES]
    for path in _modules():
        tree = ast.parse(path.read_text())
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "__getattr__" not in names, path.relative_to(ROOT)
    assert not hasattr(theory, "chain_for")
    for name in ("euler", "sgld", "msgld"):
        assert not hasattr(simulate.sampler, name)


def _all_lists():
    """(module name, its ``__all__`` as written, as a list of strings) for every module that has one."""
    for path in _modules():
        tree = ast.parse(path.read_text())
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                rel = path.relative_to(ROOT).with_suffix("")
                name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
                yield name, [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)]


def test_no_duplicates_in_any_all():
    bad = [f"{mod}: {sorted({n for n in names if names.count(n) > 1})}" for mod, names in _all_lists()
           if len(set(names)) != len(names)]
    assert not bad, "\n".join(bad)


def _public_objects():
    """{name: {id: where}} over the public modules of simulate, theory and verify: the names in a module's
    ``__all__``, or, where it has none, its top-level classes and functions not starting with "_"; an object
    re-exported by several modules counts once."""
    found: dict[str, dict[int, str]] = {}
    declared = dict(_all_lists())
    for path in _modules():
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        if any(part.startswith("_") for part in parts):  # private modules (simulate._fast, __main__, ...)
            continue
        mod = ".".join(parts)
        names = declared.get(mod)
        if names is None:
            names = [n.name for n in ast.parse(path.read_text()).body
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
        module = importlib.import_module(mod)
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, type(sys)):  # a submodule listed in a package's __all__
                continue
            found.setdefault(name, {})[id(obj)] = f"{mod}.{name}"
    return found


def test_no_two_public_objects_share_a_name():
    """One name, one object: two different public objects of simulate/theory/verify never share a name (a reader
    who meets ``Model`` or ``minibatch_noise_cov`` knows which one it is)."""
    clashes = {name: sorted(where.values()) for name, where in _public_objects().items() if len(where) > 1}
    assert not clashes, "\n".join(f"{n}: {w}" for n, w in sorted(clashes.items()))


def test_readme_imports_work():
    import simulate
    import theory

    assert callable(theory.exact_law) and callable(theory.toy.finite_time.toy_finite_time)
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
