"""Check a built documentation site: every internal link lands, and no page loads anything from outside.

    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python scripts/check_site.py docs/_build/html

An internal link (an ``href`` or ``src`` without a scheme) must name a file of the site and, with a
``#fragment``, an element of that page with that id. A resource a page loads — a script, a
stylesheet, an image, a frame, a font or image named by a stylesheet's ``url(...)`` — must be a file
of the site: the site works offline, from a folder or a USB stick. Links a reader follows to other
sites (``<a href="https://...">``) are allowed. Prints one line per problem; exits 1 if any.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: the tags whose attribute the browser fetches when it shows the page
LOADED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
          ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data"), ("input", "src")}
#: the tags whose attribute is a link the reader may follow
FOLLOWED = {("a", "href"), ("area", "href")}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


@dataclass
class Page:
    """What one HTML file holds: the ids it defines, the links it follows and the resources it loads."""

    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    loads: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value for name, value in attrs if value is not None}
        for name in ("id", "name") if tag in ("a", "map") else ("id",):
            if name in values:
                self.page.ids.add(values[name])
        for name, value in values.items():
            if (tag, name) in LOADED and not (tag == "link" and not loaded_link(values)):
                self.page.loads.append(value)
            elif (tag, name) in FOLLOWED or (tag, name) == ("link", "href"):
                self.page.links.append(value)
        if "srcset" in values:
            self.page.loads.extend(part.split()[0] for part in values["srcset"].split(",") if part.strip())

    handle_startendtag = handle_starttag


def loaded_link(attributes: dict[str, str]) -> bool:
    """A ``<link>`` the browser fetches (a stylesheet, an icon, a preload), not one it only names (``rel=next``)."""
    rel = set(attributes.get("rel", "").lower().split())
    return bool(rel & {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"})


def read_page(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8", errors="replace"))
    reader.close()
    return reader.page


def is_outside(url: str) -> bool:
    """A URL with a scheme or a host (``https:``, ``//cdn...``), except ``data:`` and ``blob:``, which are inline."""
    parts = urlsplit(url)
    return bool(parts.netloc) or (bool(parts.scheme) and parts.scheme not in ("data", "blob"))


def ignorable(url: str) -> bool:
    return url.startswith(("data:", "blob:", "mailto:", "javascript:")) or url in ("", "#")


def check_site(root: Path) -> list[str]:
    """Every problem of the site under ``root``, one line each: ``page: what is wrong``."""
    root = root.resolve()
    pages = {path: read_page(path) for path in sorted(root.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        where = path.relative_to(root).as_posix()
        for url in page.loads:
            if is_outside(url):
                problems.append(f"{where}: loads {url} from outside the site")
            elif not ignorable(url):
                problems.extend(f"{where}: {p}" for p in _target_problems(path, url, pages, root))
        for url in page.links:
            if not is_outside(url) and not ignorable(url):
                problems.extend(f"{where}: {p}" for p in _target_problems(path, url, pages, root))
    for css in sorted(root.rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)  # comments name URLs that nothing loads
        for match in CSS_URL.finditer(text):
            url = match.group(1) or match.group(2)
            if is_outside(url):
                problems.append(f"{css.relative_to(root).as_posix()}: loads {url} from outside the site")
            elif not ignorable(url) and not (css.parent / unquote(urlsplit(url).path)).exists():
                problems.append(f"{css.relative_to(root).as_posix()}: url({url}) names no file")
    return problems


def _target_problems(page_path: Path, url: str, pages: dict[Path, Page], root: Path) -> list[str]:
    parts = urlsplit(url)
    target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
    if target.is_dir():
        target = target / "index.html"
    if root not in target.parents and target != root:
        return [f"{url} leaves the site"]
    if not target.exists():
        return [f"{url}: no such file"]
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in pages[target].ids:
        return [f"{url}: {target.relative_to(root).as_posix()} has no element with id {fragment!r}"]
    return []


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__)
        return 2
    problems = check_site(Path(argv[0]))
    for line in problems:
        print(line)
    pages = len(list(Path(argv[0]).rglob("*.html")))
    print(f"{pages} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
