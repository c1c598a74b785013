"""The reference site, built once per test session the way ``make docs`` builds it (Sphinx, offline, nitpicky,
warnings as errors), for tests/test_site.py and the browser test."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_BUILT: dict[str, Path] = {}


def docs_module(name: str):
    """``docs/<name>.py`` as a module (docs/ is not a package): ``conf``, ``check_links``."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_site(tmp_path_factory) -> Path:
    """The built site's folder; skips (saying why) without Sphinx, fails with Sphinx's warnings when the build
    fails."""
    for tool in ("sphinx", "myst_parser", "numpydoc", "furo"):
        if importlib.util.find_spec(tool) is None:
            pytest.skip(f"{tool} is not installed: pip install -e '.[docs]' (make test installs it)")
    if "site" not in _BUILT:
        out = tmp_path_factory.mktemp("site")
        cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-n", "-W", "-q", "-d", str(out / "doctrees"),
               str(DOCS), str(out / "html")]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, f"make docs would fail:\n{done.stderr[-6000:]}"
        _BUILT["site"] = out / "html"
    return _BUILT["site"]
