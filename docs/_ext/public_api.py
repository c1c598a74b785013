"""``.. public-api:: package``: the API reference of a package's public names, read from its ``__all__``.

Each name is documented under the path a user imports it from (``simulate.run``, ``theory.exact_law``), so a
docstring's ``:func:`simulate.run``` resolves, and grouped by the module that holds it (``simulate.models``,
``simulate.estimators``, ...), titled by that module's one-line summary. A name added to ``__all__`` appears by
itself; a name removed disappears. Options: ``:only:`` and ``:exclude:`` (space-separated group modules) split a
large package over several pages; ``:depth:`` is how many dotted parts of the holding module name a group (default:
one below the package); ``:first:`` lists groups to put before the others (in ``__all__``'s order); ``:overview:``
puts the package's own docstring first. Each group is headed by its module's name and one-line summary (a page of
one ``:only:`` group by the summary alone: the page's title names it) and is the target of ``:mod:`group```.

``:with-modules:`` adds, to each group, the public names of the public modules under it that the package's
``__all__`` does not hold, each documented under the module that holds it (``simulate.validation.check_int``) and
headed by that module's name and summary where it is below the group. A public module: no part of its name starts
with "_" and the config value ``public_api_internal`` does not exclude it (an entry names a module, or ``pkg.*``
every module below pkg but those an entry ``+pkg.mod`` names). Its public names: its ``__all__``, else the classes and
functions it defines. A name re-exported from another documented module is documented there only (a constant in the
module whose ``__all__`` holds it and which describes it with a ``#:`` comment). So every object of a public module
has one entry.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
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


def _is_code(obj: object) -> bool:
    """A class or function defined in a module (a sympy ``Function("f")`` is a class of no module: a constant)."""
    return (inspect.isclass(obj) or inspect.isroutine(obj)) and isinstance(getattr(obj, "__module__", None), str)


def _kind(obj: object) -> str:
    return "autodata" if not _is_code(obj) else "autoclass" if inspect.isclass(obj) else "autofunction"


def _has_attr_doc(module: str, name: str) -> bool:
    from sphinx.pycode import ModuleAnalyzer

    try:
        return ("", name) in ModuleAnalyzer.for_module(module).find_attr_docs()
    except Exception:  # noqa: BLE001 - no source to analyse: not described there
        return False


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
        kind = _kind(obj)
        groups.setdefault(_group(package, obj, depth), []).append((name, kind))
    return groups


def _internal(module: str, internal) -> bool:
    """Private (a part starts with "_"), or under an ``internal`` prefix; ``"pkg.*"`` makes every module below pkg
    internal except those that ``"+pkg.mod"`` entries name public."""
    if any(part.startswith("_") for part in module.split(".")):
        return True
    if any(p.startswith("+") and (module == p[1:] or module.startswith(p[1:] + ".")) for p in internal):
        return False
    return any(module.startswith(p[:-1]) if p.endswith(".*") else (module == p or module.startswith(p + "."))
               for p in internal if not p.startswith("+"))


def public_modules(package: str, internal=()) -> list[str]:
    """The public modules under ``package`` (the package first, then depth first in name order)."""
    mod = importlib.import_module(package)
    found = [package]
    if hasattr(mod, "__path__"):
        found += [info.name for info in pkgutil.walk_packages(mod.__path__, package + ".")
                  if not _internal(info.name, internal)]
    return [m for m in found if not _internal(m, internal) or m == package]


def module_names(module: str, documented: set[str], skip: set[tuple[str, int]]) -> list[tuple[str, str]]:
    """``[(name, autodoc directive), ...]`` of ``module``'s public names it documents (see the module docstring):
    defined there, or held by a module outside ``documented``; those whose ``(name, id(object))`` is in ``skip``
    left out."""
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, o in vars(mod).items() if not n.startswith("_") and getattr(o, "__module__", None) == module
                 and (inspect.isclass(o) or inspect.isroutine(o))]
    out = []
    for name in dict.fromkeys(names):
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType) or (name, id(obj)) in skip:
            continue
        if _is_code(obj):
            holder = getattr(obj, "__module__", None)
        else:  # a constant: the documented module that describes it (``#:``), else the deepest that holds it
            holders = sorted((m for m in documented if getattr(sys.modules.get(m), name, None) is obj
                              and name in getattr(sys.modules.get(m), "__all__", ())),
                             key=lambda m: (-m.count("."), m))
            described = [m for m in holders if _has_attr_doc(m, name)]
            holder = (described or holders or [module])[0]
        if holder != module and holder in documented:
            continue
        out.append((name, _kind(obj)))
    return out


def _entries(package: str, name: str, kind: str) -> list[str]:
    if kind == "autodata":  # a constant: its ``#:`` comment where it is defined is its docstring
        return [f".. py:data:: {name}", ""] + [f"   {t}" for t in _data_doc(package, name)] + [""]
    return [f".. {kind}:: {name}"] + (["   :members:"] if kind == "autoclass" else []) + [""]


class PublicAPI(SphinxDirective):
    required_arguments = 1
    option_spec = {"only": directives.unchanged, "exclude": directives.unchanged, "first": directives.unchanged,
                   "depth": directives.nonnegative_int, "overview": directives.flag, "with-modules": directives.flag}

    def run(self):
        package = self.arguments[0]
        only = set(self.options.get("only", "").split())
        exclude = set(self.options.get("exclude", "").split())
        depth = self.options.get("depth", 1)
        lines = [f".. automodule:: {package}", "   :no-members:", ""] if "overview" in self.options else []
        lines += [f".. currentmodule:: {package}", ""]
        groups = public_groups(package, depth)
        extra = self._module_names(package, depth) if "with-modules" in self.options else {}
        for group in extra:
            groups.setdefault(group, [])
        first = [g for g in self.options.get("first", "").split() if g in groups]
        for group in first + [g for g in groups if g not in first]:
            if (only and group not in only) or group in exclude:
                continue
            if group != package and len(only) != 1:  # a page of one group is headed by the page's own title
                title = f"``{group}``"
                lines += [title, "-" * len(title), ""]
            if group != package:  # the module's target, for :mod: (the names stay under the package's path)
                lines += [_summary(group) + ".", "", f".. py:module:: {group}", "", f".. currentmodule:: {package}", ""]
            for name, kind in groups[group]:
                lines += _entries(package, name, kind)
            for module, members in extra.get(group, {}).items():
                if module != group:
                    title = f"``{module}``"
                    lines += [title, "^" * len(title), "", _summary(module) + ".", "", f".. py:module:: {module}", ""]
                lines += [f".. currentmodule:: {module}", ""]
                for name, kind in members:
                    lines += _entries(module, name, kind)
                lines += [f".. currentmodule:: {package}", ""]
        self.state_machine.insert_input(lines, f"<public-api {package}>")
        return []

    def _module_names(self, package: str, depth: int) -> dict[str, dict[str, list[tuple[str, str]]]]:
        """``{group: {module: names}}``: the public names of the public modules under ``package`` that its
        ``__all__`` does not hold (``:with-modules:``), each under the module that holds it."""
        internal = tuple(self.env.config.public_api_internal)
        top = importlib.import_module(package)
        skip = {(n, id(getattr(top, n))) for n in top.__all__}
        documented = set(public_modules(package.split(".")[0], internal))  # on this page or another
        out: dict[str, dict[str, list[tuple[str, str]]]] = {}
        for module in public_modules(package, internal):
            members = module_names(module, documented, skip) if module != package else []
            if members:
                group = ".".join(module.split(".")[: package.count(".") + 1 + depth])
                out.setdefault(group, {})[module] = members
        return out


def setup(app):
    app.add_directive("public-api", PublicAPI)
    app.add_config_value("public_api_internal", [], "env")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
