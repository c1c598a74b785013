"""``.. public-api:: package``: the API reference of a package's public names, read from its ``__all__``.

Each name is documented under the path a user imports it from (``simulate.run``, ``theory.exact_law``), so a
docstring's ``:func:`simulate.run``` resolves, and grouped by the module that holds it (``simulate.models``,
``simulate.estimators``, ...), titled by that module's one-line summary. A name added to ``__all__`` appears by
itself; a name removed disappears. Options: ``:only:`` and ``:exclude:`` (space-separated group modules) split a
large package over several pages; ``:depth:`` is how many dotted parts of the holding module name a group (default:
one below the package); ``:first:`` lists groups to put before the others (in ``__all__``'s order); ``:overview:``
puts the package's own docstring first. Each group is headed by its module's name and one-line summary.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types

from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective


def _summary(module_name: str) -> str:
    doc = inspect.getdoc(importlib.import_module(module_name)) or ""
    first = doc.strip().split("\n\n")[0].replace("\n", " ").split(". ")[0].rstrip(".:")
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"``\1``", first)  # a summary line links nowhere


def _data_doc(package: str, name: str) -> list[str]:
    """The ``#:`` comment of the module under ``package`` that defines the constant ``name`` (the deepest module
    holding the same object), or a note that it has none."""
    from sphinx.pycode import ModuleAnalyzer

    obj = getattr(importlib.import_module(package), name)
    holders = sorted((m for m, mod in list(sys.modules.items()) if (m == package or m.startswith(package + "."))
                      and getattr(mod, name, None) is obj), key=lambda m: m.count("."), reverse=True)
    for mod in holders:
        doc = ModuleAnalyzer.for_module(mod).find_attr_docs().get(("", name))
        if doc:
            return [line for line in doc if line.strip()]
    return ["(no description)"]


def _group(package: str, obj: object, depth: int) -> str:
    holder = getattr(obj, "__module__", None) or package
    if not holder.startswith(package + "."):
        return package
    return ".".join(holder.split(".")[: package.count(".") + 1 + depth])


def public_groups(package: str, depth: int = 1) -> dict[str, list[tuple[str, str]]]:
    """``{group module: [(name, autodoc directive), ...]}`` for the names of ``package.__all__`` (in that order),
    leaving out submodules (a namespace, not an object)."""
    mod = importlib.import_module(package)
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in dict.fromkeys(mod.__all__):
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            continue
        kind = ("autoclass" if inspect.isclass(obj) else
                "autofunction" if callable(obj) else "autodata")
        groups.setdefault(_group(package, obj, depth), []).append((name, kind))
    return groups


class PublicAPI(SphinxDirective):
    required_arguments = 1
    option_spec = {"only": directives.unchanged, "exclude": directives.unchanged, "first": directives.unchanged,
                   "depth": directives.nonnegative_int, "overview": directives.flag}

    def run(self):
        package = self.arguments[0]
        only = set(self.options.get("only", "").split())
        exclude = set(self.options.get("exclude", "").split())
        lines = [f".. automodule:: {package}", "   :no-members:", ""] if "overview" in self.options else []
        lines += [f".. currentmodule:: {package}", ""]
        groups = public_groups(package, self.options.get("depth", 1))
        first = [g for g in self.options.get("first", "").split() if g in groups]
        for group in first + [g for g in groups if g not in first]:
            members = groups[group]
            if (only and group not in only) or group in exclude:
                continue
            if group != package:  # a page of one group is headed by the page's own title
                title = f"``{group}``"
                lines += [title, "-" * len(title), "", _summary(group) + ".", ""]
            for name, kind in members:
                if kind == "autodata":  # a constant: its ``#:`` comment where it is defined is its docstring
                    lines += [f".. py:data:: {name}", ""] + [f"   {t}" for t in _data_doc(package, name)] + [""]
                    continue
                lines += [f".. {kind}:: {name}"] + (["   :members:"] if kind == "autoclass" else []) + [""]
        self.state_machine.insert_input(lines, f"<public-api {package}>")
        return []


def setup(app):
    app.add_directive("public-api", PublicAPI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
