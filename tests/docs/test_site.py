"""The documentation site: built offline with warnings as errors, every link landing, every public name and
notebook on a page, the notebooks' figures and players as the brief says (issue 36)."""

from __future__ import annotations

import ast
import html as html_module
import importlib
import json
import pkgutil
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import stmviz

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMAND = "python -m sphinx -W --keep-going -b html docs docs/_build/html"


def test_the_site_builds_with_warnings_as_errors(site):
    problems = [line for line in site.log.splitlines() if "WARNING" in line or "ERROR" in line]
    assert site.returncode == 0, "\n".join(problems[:40]) or site.log[-4000:]
    assert "build succeeded" in site.log
    print(f"the site built in {site.seconds:.0f} s")


def test_the_build_command_is_the_documented_one(build_command):
    assert f"`{COMMAND}`" in README, "README.md names the site's build command"
    assert COMMAND in (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert [sys.executable, *COMMAND.split()[1:-1]] == build_command


def test_every_internal_link_lands_and_nothing_is_loaded_from_outside(built, check_site):
    problems = check_site.check_site(built)
    assert problems == [], "\n".join(problems[:40])


def test_the_checker_reads_links_and_loads(built, check_site):
    """A check that finds nothing must have looked: the pages hold thousands of internal links."""
    pages = [check_site.read_page(p) for p in built.rglob("*.html")]
    assert len(pages) > 60
    assert sum(len(p.links) for p in pages) > 5000
    assert any("_static/plotly.min.js" in url for p in pages for url in p.loads)


# ------------------------------------------------------------------------------------------------- API


def documented_modules() -> list[str]:
    """stmviz, every public subpackage, every public top-level module: each with an ``__all__`` to document."""
    names = ["stmviz"]
    for info in pkgutil.walk_packages(stmviz.__path__, "stmviz."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if "__all__" in vars(module) and (hasattr(module, "__path__") or info.name.count(".") == 1):
            names.append(info.name)
    return names


class _Rows(HTMLParser):
    """The rows of a page's autosummary tables, (link text, href), and every id of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, str]] = []
        self.ids: dict[str, str] = {}
        self._table = 0
        self._cell = False
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if "id" in values:
            self.ids[values["id"]] = tag
        if tag == "table" and "autosummary" in (values.get("class") or ""):
            self._table += 1
        elif self._table and tag == "tr":
            self._cell, self._href, self._text = True, None, ""
        elif self._table and self._cell and tag == "a" and self._href is None:
            self._href = values.get("href")

    def handle_endtag(self, tag):
        if tag == "table" and self._table:
            self._table -= 1
        elif self._table and tag == "a" and self._cell and self._href is not None:
            self.rows.append((self._text.strip(), self._href))
            self._cell = False

    def handle_data(self, data):
        if self._table and self._cell and self._href is not None:
            self._text += data


def read(path: Path) -> _Rows:
    parser = _Rows()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def page_of(module_name: str, api: Path) -> Path:
    """The page that documents a module: under its own name, or an alias the same module object has."""
    module = importlib.import_module(module_name)
    names = [module_name] + sorted(n for n, m in list(sys.modules.items()) if m is module and n != module_name)
    for name in names:
        if (api / f"{name}.html").is_file():
            return api / f"{name}.html"
    raise AssertionError(f"no API page for {module_name}: add it to stmviz_api_groups in docs/conf.py")


@pytest.mark.parametrize("module_name", documented_modules())
def test_every_public_name_has_an_api_entry(built, module_name):
    """Each name of the module's ``__all__`` (read now) is a row of its page's table, linking to the entry
    that describes it: an element with that id on the page the link names."""
    page = page_of(module_name, built / "api")
    rows = read(page)
    assert f"module-{page.stem}" in rows.ids, f"{page.name} does not describe module {page.stem}"
    linked = dict(rows.rows)
    names = list(vars(importlib.import_module(module_name))["__all__"])
    missing = [n for n in names if n not in linked]
    assert not missing, f"{page.name} has no row for {missing}"
    for name in names:
        href = linked[name]
        target, _, anchor = href.partition("#")
        target_page = (page.parent / target).resolve() if target else page
        ids = read(target_page).ids
        assert anchor in ids, f"{name}: {href} names no entry"
        assert anchor.endswith(("." + name, "-" + name)) or anchor == f"module-{name}" or anchor.startswith("module-stmviz"), (name, href)


def test_the_api_pages_follow_the_package():
    """The reference's groups are the brief's: core, mechanisms, managers, scenarios and transcripts, metrics
    and sweeps, figures, widgets (and the exercises)."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(t, "id", None) == "stmviz_api_groups" for t in node.targets))
    titles = [title for title, _, _ in ast.literal_eval(table)]
    assert titles[:7] == ["core", "mechanisms", "managers", "scenarios and transcripts", "metrics and sweeps", "figures", "widgets"]


def test_a_class_entry_has_numpydoc_sections_and_its_methods(built):
    html = (built / "api" / "stmviz.mechanisms.html").read_text(encoding="utf-8")
    entry = html[html.index('id="stmviz.mechanisms.SCM"'):]
    entry = entry[: entry.index('<dl class="py class">', 10) if '<dl class="py class">' in entry[10:] else len(entry)]
    assert "Parameters" in entry and "variant" in entry
    assert 'id="stmviz.mechanisms.SCM.update"' in entry or 'id="stmviz.mechanisms.SCM.controller"' in entry


def test_a_docstring_reference_by_another_import_path_links_to_the_entry(built):
    """stmviz's docstring says :func:`run` and :class:`Trace`; both are described as stmviz.core.run / .Trace."""
    rows = read(built / "api" / "stmviz.html")
    html = (built / "api" / "stmviz.html").read_text(encoding="utf-8")
    assert 'href="stmviz.core.html#stmviz.core.run"' in html
    assert dict(rows.rows)["FIFOWindow"] == "stmviz.mechanisms.html#stmviz.mechanisms.FIFOWindow"


# ------------------------------------------------------------------------------------------------- notebooks


def notebooks() -> list[Path]:
    """The tutorials the site renders (not notebooks/start.ipynb, the page `stmviz lab` opens: the site has its own)."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted((ROOT / "notebooks" / "ru").glob("[0-9][0-9]_*.ipynb"))


def outputs(notebook: Path) -> list[dict]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [o.get("data", {}) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]


def test_every_notebook_has_a_page_in_the_notebooks_list(built):
    listing = (built / "tutorials.html").read_text(encoding="utf-8")
    assert notebooks()
    for notebook in notebooks():
        relative = notebook.relative_to(ROOT).with_suffix(".html").as_posix()
        assert (built / relative).is_file(), relative
        assert f'href="{relative}"' in listing, f"tutorials.html does not list {relative}"


@pytest.mark.parametrize("notebook", notebooks(), ids=lambda p: p.stem)
def test_a_notebook_page_shows_its_stored_outputs(built, notebook):
    """Figures as interactive plotly (their JSON, drawn by the bundled plotly.js), players as their static
    copy (figure and text), no widget view, nothing re-executed: the page shows what the notebook stored."""
    html = (built / notebook.relative_to(ROOT).with_suffix(".html")).read_text(encoding="utf-8")
    data = outputs(notebook)
    figures = sum("application/vnd.plotly.v1+json" in d for d in data)
    assert html.count('class="stmviz-plotly-spec"') == figures
    assert "application/vnd.jupyter.widget-view+json" not in html
    assert ("_static/plotly.min.js" in html) == (figures > 0)
    for bundle in data:
        if "application/vnd.jupyter.widget-view+json" in bundle and "text/html" in bundle:
            static = "".join(bundle["text/html"])
            heading = re.search(r"<h4[^>]*>(.*?)</h4>", static)
            assert heading and heading.group(1) in html, "the player's static copy is on the page"


def test_math_is_mathml_with_no_script(built):
    html = (built / "notebooks" / "01_definition1_state_space.html").read_text(encoding="utf-8")
    assert "<math" in html and "\\Omega" not in html.split("<pre")[0]
    for page in built.rglob("*.html"):
        scripts = re.findall(r"<script[^>]*>", page.read_text(encoding="utf-8"))
        assert not [tag for tag in scripts if "mathjax" in tag.lower()], page


# ------------------------------------------------------------------------------------------------- pages


def test_the_start_page_gives_the_readme_commands(built):
    commands = re.findall(r"```bash\n(.*?)\n```", README[:800], re.DOTALL)
    assert len(commands) == 2
    source = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    html = (built / "index.html").read_text(encoding="utf-8")
    for command in commands:
        assert command in source
    text = html_module.unescape(re.sub(r"<[^>]+>", "", html))
    for command in commands:
        assert command in text, command
    for page in ("paper.html", "tutorials.html", "api/index.html", "architecture.html", "fidelity.html", "benchmarks.html"):
        assert f'href="{page}"' in html, page


def test_the_paper_page_names_stmviz_beside_the_symbols(built):
    html = (built / "paper.html").read_text(encoding="utf-8")
    for entry in ("stmviz.core.Element", "stmviz.core.StateSpace", "stmviz.core.State", "stmviz.core.Operation",
                  "stmviz.core.Context", "stmviz.core.ModelInput", "stmviz.core.run", "stmviz.core.Trace",
                  "stmviz.core.Mechanism.update", "stmviz.core.Mechanism.project", "stmviz.contract.check_mechanism"):
        assert f'#{entry}"' in html, f"paper.html links no entry {entry}"
    assert html.count("<math") >= 3
    assert 'src="_images/loop.png"' in html
