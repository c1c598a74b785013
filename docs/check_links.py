"""Check a built site offline: every internal link and resource resolves (file and ``#anchor``), and no page loads
anything from the network (a script, style sheet or image with an absolute URL would fail offline).

    python docs/check_links.py output/site        # `make docs` runs it after the build; exit status 1 on a problem

Links to other sites (``<a href="https://...">``) are not followed: nothing here touches the network.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    """The links, resources and anchors of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []  # (tag.attribute, value)
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.anchors.add(value)
            elif name in ("href", "src") and value is not None:
                self.links.append((f"{tag}.{name}", value))


def _parse(path: Path, cache: dict[Path, _Page]) -> _Page:
    if path not in cache:
        cache[path] = page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
    return cache[path]


def site_problems(site: Path) -> list[str]:
    """Every broken internal link or anchor and every network resource of the HTML pages under ``site``.

    Parameters
    ----------
    site : pathlib.Path
        The folder of the built site (``output/site``).

    Returns
    -------
    list of str
        One line per problem, ``page: tag.attribute -> target: what is wrong``; empty when the site is whole.
    """
    site = Path(site).resolve()
    cache: dict[Path, _Page] = {}
    problems = []
    for page_path in sorted(site.rglob("*.html")):
        page = _parse(page_path, cache)
        for where, value in page.links:
            url = urlsplit(value)
            name = f"{page_path.relative_to(site)}: {where} -> {value}"
            if url.scheme or value.startswith("//"):
                if url.scheme in ("http", "https", "ftp") and where != "a.href":
                    problems.append(f"{name}: a resource loaded from the network")
                continue
            target = (page_path.parent / unquote(url.path)).resolve() if url.path else page_path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: no such file")
            elif url.fragment and target.suffix == ".html":
                if unquote(url.fragment) not in _parse(target, cache).anchors:
                    problems.append(f"{name}: no anchor #{url.fragment}")
    return problems


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "output/site")
    if not (site / "index.html").is_file():
        sys.exit(f"{site}/index.html does not exist: build the site first (make docs)")
    problems = site_problems(site)
    print("\n".join(problems) or f"{site}: every internal link and anchor resolves; nothing loads from the network")
    sys.exit(1 if problems else 0)
