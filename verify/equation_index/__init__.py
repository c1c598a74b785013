"""Per-paper equation index: every numbered result of a paper -> the theory functions -> the claims -> the verdict.

The data live in ``verify/equation_index/<paper>.json``, one entry per numbered result (theorem, lemma, proposition,
corollary, remark with a claim, algorithm, numbered figure or table, and the numbered equations that carry a
checked statement).  Each entry has ``id`` (the paper's numbering, e.g. "Theorem 3"), optional ``version`` (Chen et
al.: "V1" or "V2") and ``aliases`` (the other version's or the arXiv numbering), a short ``statement``, and exactly
one status: ``claims`` (registered claim ids), ``out_of_scope`` (the reason) or ``cited`` (whose result it is).
An optional ``note`` adds context.

``python -m verify.equation_index`` renders docs/equation_index/<paper>.md from the data and the registry: the
verdict of each claim comes from its registration (holds, erratum, out of scope), and the theory functions from the
names the claim's runner uses (:func:`theory_functions`). Each page links the paper's digest, docs/papers/<paper>.md.
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Iterator
from pathlib import Path

from simulate.validation import ParameterError

HERE = Path(__file__).resolve().parent
PAPERS = ("chen", "baker", "fu_zhang", "vollmer", "brosse")
STATUSES = ("claims", "out_of_scope", "cited")
FIELDS = {"id", "version", "aliases", "statement", "note", *STATUSES}


def load(paper: str) -> dict:
    """The index of one paper (the parsed JSON)."""
    if paper not in PAPERS:
        raise ParameterError(f"paper must be one of {PAPERS}, got {paper!r}")
    return json.loads((HERE / f"{paper}.json").read_text())


def problems(paper: str, registry: dict) -> list[str]:
    """Everything wrong with a paper's index against the registry: unknown fields, not exactly one status, claim ids
    that are not registered or belong to another paper, duplicate (version, id), and registered claims of the paper
    that no entry lists (the index must stay complete)."""
    out, seen, listed = [], set(), set()
    for k, e in enumerate(load(paper)["results"]):
        where = f"{paper} entry {k} ({e.get('id', '?')})"
        unknown = set(e) - FIELDS
        if unknown:
            out.append(f"{where}: unknown fields {sorted(unknown)}")
        if not e.get("id") or not e.get("statement"):
            out.append(f"{where}: needs an id and a statement")
        status = [s for s in STATUSES if s in e]
        if len(status) != 1:
            out.append(f"{where}: needs exactly one of {STATUSES}, has {status}")
        key = (e.get("version", ""), e.get("id"))
        if key in seen:
            out.append(f"{where}: duplicate (version, id) {key}")
        seen.add(key)
        for cid in e.get("claims", []):
            c = registry.get(cid)
            if c is None:
                out.append(f"{where}: claim {cid!r} is not registered")
            elif c.paper != paper:
                out.append(f"{where}: claim {cid!r} belongs to paper {c.paper!r}")
            listed.add(cid)
        if "claims" in e and not e["claims"]:
            out.append(f"{where}: an empty claims list (use out_of_scope or cited)")
    missing = sorted(cid for cid, c in registry.items() if c.paper == paper and cid not in listed)
    out.extend(f"{paper}: registered claim {cid!r} is in no entry of the index" for cid in missing)
    return out


def registered_verdict(claim) -> str:
    """The verdict a claim is registered with: 'out of scope', 'erratum', 'holds as a bound', 'depends on reading'
    (with each reading's verdict) or 'holds'."""
    if claim.out_of_scope:
        return "out of scope"
    if claim.expected == "fails":
        return "erratum"
    if claim.expected == "depends on reading":
        return "depends on reading (" + "; ".join(f"{r.name}: {r.expected}" for r in claim.readings) + ")"
    return claim.expected


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _is_function(obj) -> bool:
    return callable(obj) and not isinstance(obj, (type, types.ModuleType))


def theory_functions(run, _seen: set | None = None) -> list[str]:
    """Names of ``theory`` functions (module path below ``theory``, then the name) the claim runner refers to: in its
    code, the code of the functions nested in it and, recursively, the helper functions of the claim's own package
    it calls. These are the closed forms the claim evaluates."""
    code = getattr(run, "__code__", None)
    if code is None:
        return []
    seen = set() if _seen is None else _seen
    seen.add(code)
    glob = getattr(run, "__globals__", {})
    package = (getattr(run, "__module__", None) or "").rpartition(".")[0]
    found = set()
    for co in _code_objects(code):
        names = set(co.co_names)
        for name in names:
            obj = glob.get(name)
            if callable(obj) and hasattr(obj, "__wrapped__"):  # a cached helper (functools.cache, simulation_cache)
                obj = inspect.unwrap(obj)
            module = getattr(obj, "__module__", None) or ""
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith("theory"):
                short = obj.__name__.removeprefix("theory.")
                found.update(f"{short}.{attr}" for attr in names if _is_function(getattr(obj, attr, None)))
            elif _is_function(obj) and module.startswith("theory"):
                found.add(f"{module.removeprefix('theory.')}.{getattr(obj, '__name__', name)}")
            elif (isinstance(obj, types.FunctionType) and package and module.startswith(package)
                  and obj.__code__ not in seen):
                found.update(theory_functions(obj, seen))
    return sorted(found)


def render(paper: str, registry: dict) -> str:
    """Markdown table of one paper's index (result -> functions -> claims -> verdicts)."""
    data = load(paper)
    lines = [f"# Equation index: {data['title']}", "",
             f"Generated by `python -m verify.equation_index` from `verify/equation_index/{paper}.json` and the claim "
             "registry; do not edit by hand.", "",
             f"The paper's digest (definitions, settings, errata): [docs/papers/{paper}.md](../papers/{paper}.md).", ""]
    for v, src in data.get("versions", {}).items():
        lines.append(f"* {v + ': ' if v else ''}{src}")
    lines += ["", "| result | statement | theory functions | claims | verdict |", "|---|---|---|---|---|"]
    for e in data["results"]:
        rid = (f"{e['version']} " if e.get("version") else "") + e["id"]
        if e.get("aliases"):
            rid += " (" + "; ".join(e["aliases"]) + ")"
        stmt = e["statement"] + (f" *Note:* {e['note']}" if e.get("note") else "")
        if "claims" in e:
            funcs = sorted({f for cid in e["claims"] for f in theory_functions(registry[cid].run)})
            claims = "<br>".join(f"`{cid}`" for cid in e["claims"])
            verdicts = "<br>".join(registered_verdict(registry[cid]) for cid in e["claims"])
        else:
            funcs, claims = [], "none"
            verdicts = ("out of scope: " + e["out_of_scope"]) if "out_of_scope" in e else ("cited: " + e["cited"])
        cells = [rid, stmt, "<br>".join(f"`{f}`" for f in funcs) or "-", claims, verdicts]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_all(out_dir: Path, registry: dict) -> list[Path]:
    """Render every paper's index into ``out_dir``; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for paper in PAPERS:
        p = out_dir / f"{paper}.md"
        p.write_text(render(paper, registry))
        paths.append(p)
    return paths


__all__ = ["PAPERS", "load", "problems", "render", "registered_verdict", "theory_functions", "write_all"]
