"""Sphinx configuration of the reference site (``make docs`` builds it into output/site, warnings as errors).

The site is this folder: every Markdown page here (MyST) plus the API reference in ``api/``, rendered from the
numpydoc docstrings. The table of contents is in ``index.md``; its globs pick up new pages by themselves (a new page
at the top level lands in "More" unless a glob above claims it; a page in a new sub-folder needs one line there).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the workbench of this checkout, not an installed copy
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "SG-MCMC theory workbench"
author = "the SG-MCMC theory workbench contributors"
copyright = "the SG-MCMC theory workbench contributors, MIT licence"
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "numpydoc",
    "public_api",  # _ext/public_api.py: a package's __all__, grouped by the module that holds each name
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "examples", "**/.ipynb_checkpoints"]

# every cross-reference must resolve (numpy, scipy and the standard library have no inventory offline: their names
# are listed below instead of fetched)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sympy|mpmath|matplotlib|dask|arviz|jax|torch|pandas|sklearn)(\..*)?"),
    (r"py:.*", r"(collections\.abc|typing|types|dataclasses|pathlib|concurrent\.futures|enum|fractions)\..*"),
    (r"py:class", r"(int|float|complex|bool|str|bytes|object|tuple|list|dict|set|frozenset|None|callable|Callable"
                  r"|Sequence|Mapping|Iterable|Iterator|Any|Path|ndarray|array_like|array|optional|default"
                  r"|Generator|Protocol|Enum|Exception|ValueError|TypeError|RuntimeError|ArithmeticError)"),
]

# MyST: Markdown pages with anchors for "#section" links and fenced directives (```{automodule} ...)
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# API reference: numpydoc reads the Parameters / Returns / Raises / References sections
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the types are in the numpydoc sections; annotations stay in the source
numpydoc_show_class_members = False  # autodoc lists the members; numpydoc's own table would list them twice
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# The numpydoc gate: an object documented on the site is validated when the module that holds it (its __module__; for
# a constant, the module documenting it) is in NUMPYDOC_CHECKED, whatever path it is documented under
# (``simulate.sgld`` is held by simulate.samplers): it must have a docstring with a one-line summary, Parameters (all
# of them; a Protocol's in its members), Returns and no unknown sections.
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "GL08", "SS01", "GL06", "GL07"}
NUMPYDOC_CHECKED = ["verify.api", "verify.checks", "verify.registry", "verify.stats", "verify.conformance", "theory",
                    "simulate"]
# the machinery behind a documented door: public modules the API reference leaves out (docs/_ext/public_api.py): the
# runtime's internals, and the exact engine's modules but the contract a law returns (its door is theory.exact_law)
public_api_internal = ["simulate.runtime.dispatch", "simulate.runtime.pipeline", "simulate.runtime.divergence",
                       "theory.linear_gaussian.*", "+theory.linear_gaussian.contract"]


def _inside(module: str, prefixes) -> bool:
    return any(module == m or module.startswith(m + ".") for m in prefixes)


def _validated_paths() -> list[str]:
    """Every path ``module.name`` under which an object of a checked module can be documented: the public modules of
    the documented packages, each with the names of its ``__all__`` (or the classes and functions it defines)."""
    import importlib
    import inspect
    import types

    from public_api import public_modules

    paths = []
    for package in ("simulate", "theory", "verify.api", "verify.conformance"):
        for module in public_modules(package, public_api_internal):
            mod = importlib.import_module(module)
            names = getattr(mod, "__all__", None) or [n for n, o in vars(mod).items() if not n.startswith("_")]
            for name in names:
                obj = getattr(mod, name)
                if isinstance(obj, types.ModuleType):
                    continue
                code = inspect.isclass(obj) or inspect.isroutine(obj)
                holder = obj.__module__ if code and isinstance(getattr(obj, "__module__", None), str) else module
                if holder and _inside(holder, NUMPYDOC_CHECKED):
                    # a Protocol has no constructor to document: its members only
                    members_only = inspect.isclass(obj) and getattr(obj, "_is_protocol", False)
                    paths.append(re.escape(f"{module}.{name}") + (r"[.]" if members_only else r"([.]|$)"))
    return sorted(set(paths))


# numpydoc takes a function's first parameter named ``cls`` for a classmethod's and calls its entry "unknown"
# (theory.law_for(cls, ...) takes a class): a docstring that documents ``cls : type`` is spared that one check
numpydoc_validation_overrides = {"PR02": [r"(^|\n)\s*cls : type\b"]}
numpydoc_validation_exclude = {rf"^(?!({'|'.join(_validated_paths())}))",
                               r"[.]__init__$"}  # a class's parameters are in its own docstring

html_theme = "furo"
html_title = "SG-MCMC theory workbench"
html_show_sourcelink = False
html_copy_source = False
html_show_search_summary = False  # the summaries are fetched, which a page opened from a file may not do
html_static_path: list[str] = []


def _fill_toctrees(app, docname, source):
    """index.md's toctrees, completed from the files present: a glob that matches no page yet (a page another branch
    adds) is dropped, and the toctree whose only entry is ``*`` lists the top-level pages no other entry claims.
    Sphinx warns about an empty glob and expands ``*`` per toctree (it would list every page twice)."""
    if docname != root_doc:
        return
    here = Path(app.srcdir)

    def pages(pattern: str) -> list[str]:
        found = {str(p.relative_to(here).with_suffix("")) for ext in source_suffix for p in here.glob(pattern + ext)}
        return sorted(found - {root_doc})

    text, claimed = source[0], set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, flags=re.S):
        claimed.update(page for line in block.splitlines() if line and not line.startswith(":") and line != "*"
                       for page in pages(line))
    rest = [p for p in pages("*") if p not in claimed]

    def fill(match: re.Match) -> str:
        lines = [line for line in match.group(1).splitlines() if line.startswith(":") or not line or
                 (line != "*" and pages(line))]
        if "*" in match.group(1).splitlines():
            lines += rest
        entries = [line for line in lines if line and not line.startswith(":")]
        return f"```{{toctree}}\n{chr(10).join(lines)}\n```" if entries else ""

    source[0] = re.sub(r"```\{toctree\}\n(.*?)```", fill, text, flags=re.S)


def setup(app):
    app.connect("source-read", _fill_toctrees)
