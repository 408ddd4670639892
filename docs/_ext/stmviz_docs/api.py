"""The API reference, written from the packages' ``__all__`` before Sphinx reads the sources.

``conf.py`` names the groups (``stmviz_api_groups``: title, introduction, modules). For each module
listed, and for each public submodule of a listed package that has an ``__all__``, this writes a
page ``api/<module>.rst``: the module's docstring, an autosummary table with one row per name of
its ``__all__``, then the description (autodoc, numpydoc) of each object documented there. Every
object is described once, under one canonical name, and every table that lists it links there:

- a class, a function or a module: the shortest module path (not the top-level ``stmviz``, which
  re-exports everything) whose ``__all__`` lists it — ``stmviz.mechanisms.FIFOWindow``,
  ``stmviz.core.Element``, ``stmviz.viz.occupancy_figure``;
- a constant: the longest such path, the module that defines it, where its ``#:`` comment is.

(A name that is also a documented module's — ``stmviz.text.summarize`` is a function and a module —
goes to the next candidate.) A listed module that does not import or has no ``__all__``, or a name
in an ``__all__`` that the module lacks, is a warning (an error under ``-W``), so the reference
cannot silently miss a public name. Objects are described on their modules' pages, not one page
each: the theme builds every page's navigation from the whole table of contents, so the build time
grows with the square of the page count. Files are written only when their text changes and stale
ones are removed, so an incremental build rereads only what changed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: the folder of the generated pages, relative to the Sphinx source folder (ignored by git)
FOLDER = "api"

#: (name, id(object)) → the canonical name of the object's entry, for every name of a documented ``__all__``
CANONICAL: dict[tuple[str, int], str] = {}


@dataclass
class Group:
    """One page of the reference: a title, a paragraph, and the modules it documents."""

    slug: str
    title: str
    intro: str
    modules: list[str] = field(default_factory=list)


@dataclass
class Entry:
    """One name of one module's ``__all__``, and the canonical name under which its object is described."""

    module: str
    name: str
    obj: Any
    canonical: str = ""


def public_submodules(package: types.ModuleType) -> list[str]:
    """The public submodules of a package (no ``_`` in any part) that have an ``__all__``, sorted."""
    if not hasattr(package, "__path__"):
        return []
    found = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if "__all__" in vars(module):
            found.append(info.name)
    return sorted(found)


def collect(groups: Sequence[tuple[str, str, Sequence[str]]]) -> tuple[list[Group], dict[str, list[Entry]]]:
    """The groups with their modules expanded (a package brings its public submodules), and each module's entries.

    A module is placed under the most specific listed name that covers it, and a module object
    reached under two names (``stmviz.errors`` is ``stmviz.core.errors``) is documented once,
    under the name the table gives.
    """
    listed = [name for _, _, names in groups for name in names]
    result: list[Group] = []
    seen: dict[int, str] = {}
    named = {}  # the module objects the table names: stmviz.core's walk must not document stmviz.errors as stmviz.core.errors
    for name in listed:
        try:
            named[id(importlib.import_module(name))] = name
        except Exception:  # noqa: S110 - a module that does not import is reported below, with its group
            pass
    entries: dict[str, list[Entry]] = {}
    for title, intro, names in groups:
        group = Group(slug=slug(title), title=title, intro=intro)
        for name in names:
            try:
                module = importlib.import_module(name)
            except Exception as exc:
                logger.warning("stmviz API table: module %s does not import (%s: %s)", name, type(exc).__name__, exc,
                               type="stmviz", subtype="api")
                continue
            if "__all__" not in vars(module) and not hasattr(module, "__path__"):
                logger.warning("stmviz API table: module %s has no __all__ (a moved module's stub?): nothing to document",
                               name, type="stmviz", subtype="api")
            for member in [name] + public_submodules(module):
                if member != name and owner(member, listed) != name:
                    continue  # a more specific entry of the table covers it
                sub = importlib.import_module(member)
                if id(sub) in seen or named.get(id(sub), member) != member:
                    continue
                seen[id(sub)] = member
                group.modules.append(member)
        result.append(group)
    # every module object the table names, by identity: the alias stmviz.core.errors leads to stmviz.errors
    modules_by_id = {id(importlib.import_module(m)): m for g in result for m in g.modules}
    for group in result:
        for module_name in group.modules:
            module = importlib.import_module(module_name)
            names = list(getattr(module, "__all__", []))
            row = []
            for name in names:
                if not hasattr(module, name):
                    logger.warning("stmviz API table: %s.__all__ names %r, which the module does not have",
                                   module_name, name, type="stmviz", subtype="api")
                    continue
                row.append(Entry(module_name, name, getattr(module, name)))
            entries[module_name] = row
    assign_canonical(entries, modules_by_id)
    return result, entries


def owner(module: str, listed: Iterable[str]) -> str:
    """The most specific name of the table that is ``module`` or a package above it."""
    covering = [name for name in listed if module == name or module.startswith(name + ".")]
    return max(covering, key=len)


def kind_of(obj: Any) -> str:
    """How a name is documented: a module, an exception, a class, a function, or data."""
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "function"
    return "data"


def assign_canonical(entries: dict[str, list[Entry]], modules_by_id: dict[int, str]) -> None:
    """Give every entry the canonical name of its object's page (see the module's text)."""
    holders: dict[tuple[str, int], list[str]] = {}
    for module_name, row in entries.items():
        for entry in row:
            holders.setdefault((entry.name, id(entry.obj)), []).append(module_name)
    order = {name: k for k, name in enumerate(entries)}
    documented_modules = set(modules_by_id.values())
    for row in entries.values():
        for entry in row:
            if kind_of(entry.obj) == "module":
                entry.canonical = modules_by_id.get(id(entry.obj), entry.obj.__name__)
                continue
            held = holders[(entry.name, id(entry.obj))]
            where = [m for m in held if f"{m}.{entry.name}" not in documented_modules] or held
            inner = [m for m in where if m != "stmviz"] or where
            depth = (lambda m: (-m.count("."), order[m])) if kind_of(entry.obj) == "data" else (lambda m: (m.count("."), order[m]))
            entry.canonical = f"{min(inner, key=depth)}.{entry.name}"


def slug(title: str) -> str:
    """A file name for a group's title: ``"scenarios and transcripts"`` → ``scenarios-and-transcripts``."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def heading(text: str, mark: str = "=") -> str:
    return f"{text}\n{mark * max(len(text), 3)}\n"


def description(entry: Entry, documented: set[int]) -> str:
    """autodoc's description of one object (numpydoc reads its docstring's sections).

    A class shows its own members and those it takes from a stmviz base that has no entry of its
    own (a helper base in a private module): ``:inherited-members:`` names every other base, whose
    members are documented on that base's entry (``Mechanism``) or are Python's (``object``).
    """
    name = entry.canonical.rpartition(".")[2]
    kind = kind_of(entry.obj)
    directive = {"class": "autoclass", "exception": "autoexception", "function": "autofunction", "data": "autodata"}[kind]
    options = ""
    if kind in ("class", "exception"):
        options = "   :members:\n"
        helpers = [c for c in entry.obj.__mro__[1:] if c.__module__.startswith("stmviz") and id(c) not in documented]
        if helpers:
            others = [c.__name__ for c in entry.obj.__mro__[1:] if c not in helpers]
            options += f"   :inherited-members: {', '.join(dict.fromkeys(others))}\n"
    return f".. {directive}:: {name}\n{options}"


def relative(canonical: str, module_name: str) -> str:
    """An autosummary row, relative to the page's module where it can be (autosummary asks for that),
    with ``~`` where the object's page is elsewhere, so the row shows the name as ``__all__`` has it."""
    prefix = module_name + "."
    name = canonical.removeprefix(prefix)
    return name if "." not in name else f"~{name}"


def module_page(module_name: str, entries: list[Entry], documented: set[int]) -> str:
    """The page of one module: its docstring, then one table row per name of its ``__all__``."""
    lines = [heading(module_name), f".. automodule:: {module_name}\n", f".. currentmodule:: {module_name}\n"]
    if entries:
        lines.append(heading("Public names", "-"))
        lines.append(f"What ``from {module_name} import *`` gives (its ``__all__``), in that order.\n")
        lines.append(".. autosummary::\n   :nosignatures:\n")
        lines.extend(f"   {relative(entry.canonical, module_name)}" for entry in entries)
        lines.append("")
        own = [e for e in entries if e.canonical == f"{module_name}.{e.name}" and kind_of(e.obj) != "module"]
        if own:
            lines.extend(description(entry, documented) for entry in own)
    return "\n".join(lines) + "\n"


def summary_line(module_name: str) -> str:
    """The first line of a module's docstring: what its row in the group's list says."""
    doc = inspect.getdoc(importlib.import_module(module_name)) or ""
    return doc.strip().split("\n")[0].strip()


def group_page(group: Group) -> str:
    lines = [heading(group.title[:1].upper() + group.title[1:]), group.intro.strip() + "\n"]
    for module_name in group.modules:
        line = summary_line(module_name)
        lines.append(f"- :doc:`{module_name}`" + (f" — {line}" if line else ""))
    lines.append("")
    lines.append(".. toctree::\n   :hidden:\n")
    lines.extend(f"   {m}" for m in group.modules)
    return "\n".join(lines) + "\n"


def index_page(groups: Sequence[Group]) -> str:
    lines = [
        ".. _api:\n",
        heading("API reference"),
        "Every public name of stmviz, from the docstrings (numpy style, in the paper's notation). "
        "The pages follow the package: each module's page lists the names of its ``__all__``; "
        "a name that a package re-exports (``from stmviz import FIFOWindow``) links to the one page "
        "that documents it.\n",
    ]
    for group in groups:
        lines.append(f"- :doc:`{group.slug}` — {group.intro.strip().split('. ')[0].rstrip('.')}.")
    lines.append("")
    lines.append(".. toctree::\n   :hidden:\n")
    lines.extend(f"   {group.slug}" for group in groups)
    return "\n".join(lines) + "\n"


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def generate(srcdir: Path, groups_table: Sequence[tuple[str, str, Sequence[str]]]) -> list[Path]:
    """Write the reference's pages under ``srcdir/api``; return the files written (stale ones are removed)."""
    groups, entries = collect(groups_table)
    CANONICAL.clear()
    for row in entries.values():
        for entry in row:
            CANONICAL[(entry.name, id(entry.obj))] = entry.canonical
    documented = {id(entry.obj) for row in entries.values() for entry in row}
    folder = srcdir / FOLDER
    pages: dict[Path, str] = {folder / "index.rst": index_page(groups)}
    for group in groups:
        pages[folder / f"{group.slug}.rst"] = group_page(group)
        for module_name in group.modules:
            pages[folder / f"{module_name}.rst"] = module_page(module_name, entries[module_name], documented)
    for path, text in pages.items():
        write_if_changed(path, text)
    if folder.is_dir():
        for stale in set(folder.rglob("*.rst")) - set(pages):
            stale.unlink()
    return sorted(pages)


def on_config_inited(app: Sphinx, config: Config) -> None:
    generate(Path(app.srcdir), config.stmviz_api_groups)


def setup(app: Sphinx) -> None:
    app.add_config_value("stmviz_api_groups", [], "env", types=[list])
    app.connect("config-inited", on_config_inited)
