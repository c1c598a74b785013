"""The reference site (``make docs``): it builds offline with every warning an error, every internal link and
anchor resolves, nothing loads from the network, every public name of the documented packages and of every public
module of simulate and theory has its entry, and a page added to docs/ joins the table of contents by itself."""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest
from _site import build_site, docs_module

# one worker builds the reference site once for every test that opens it (pytest-xdist's --dist loadgroup)
pytestmark = pytest.mark.xdist_group("site")

# the packages whose ``__all__`` the API reference documents (docs/api/*.rst)
DOCUMENTED = ("simulate", "theory", "theory.tradeoffs", "verify.api", "verify.conformance")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory)


@pytest.mark.slow
def test_site_builds_and_every_internal_link_resolves(site):
    assert docs_module("check_links").site_problems(site) == []
    for page in ("index", "add_a_sampler", "add_a_claim", "test_your_own_bound", "conformance", "equation_index/chen",
                 "api/index", "api/simulate", "api/theory", "api/tradeoffs", "api/verify_api", "api/conformance"):
        assert (site / f"{page}.html").is_file(), page


@pytest.mark.slow
def test_every_public_name_has_an_entry(site):
    ids = set()
    for page in (site / "api").glob("*.html"):
        ids |= set(docs_module("check_links")._parse(page, {}).anchors)
    missing = [f"{pkg}.{name}" for pkg in DOCUMENTED for name in importlib.import_module(pkg).__all__
               if not isinstance(getattr(importlib.import_module(pkg), name), types.ModuleType)
               and f"{pkg}.{name}" not in ids]
    assert missing == []


@pytest.mark.slow
def test_every_public_module_of_simulate_and_theory_is_on_the_site(site):
    """Each public name of each public module (docs/_ext/public_api.py; conf.public_api_internal leaves out the
    machinery behind a documented door) has an entry under some path that holds it."""
    conf = docs_module("conf")
    public_api = importlib.import_module("public_api")  # docs/_ext, on sys.path once conf is loaded
    ids = set()
    for page in (site / "api").glob("*.html"):
        ids |= set(docs_module("check_links")._parse(page, {}).anchors)
    modules = [m for pkg in ("simulate", "theory") for m in public_api.public_modules(pkg, conf.public_api_internal)]
    missing = []
    for module in modules:
        mod = importlib.import_module(module)
        for name, _kind in public_api.module_names(module, set(), set()):
            obj = getattr(mod, name)
            paths = {f"{m}.{name}" for m in modules if getattr(importlib.import_module(m), name, None) is obj}
            if not paths & ids:
                missing.append(f"{module}.{name}")
    assert missing == []


def test_a_new_page_joins_the_table_of_contents(tmp_path):
    conf = docs_module("conf")
    for page in ("architecture.md", "engine.md", "papers/vollmer.md", "a_new_page.md", "index.md"):
        (tmp_path / page).parent.mkdir(exist_ok=True)
        (tmp_path / page).write_text("# page\n")
    source = [(Path(conf.__file__).parent / "index.md").read_text()]
    conf._fill_toctrees(types.SimpleNamespace(srcdir=str(tmp_path)), "index", source)
    entries = [line for line in source[0].splitlines() if line and not line.startswith((":", "`"))]
    # globs that match no page are dropped (papers/index*, grid_law*, ...); "*" lists the pages nothing else claims
    assert entries == ["architecture", "engine*", "papers/*", "a_new_page"]
