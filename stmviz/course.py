"""The notebooks' sources: one jupytext MyST Markdown file per notebook, read into the notebook it builds.

Every notebook in ``notebooks/`` is built from one jupytext source, ``NAME.md`` (a MyST Markdown
notebook: the prose as Markdown, each code cell a ``{code-cell}`` block), by
``python scripts/build_notebooks.py``; ``notebooks/jupytext.toml`` pairs the two files, so JupyterLab
with jupytext opens either as one notebook. :func:`read_source` reads a source into the notebook it
describes, with the cell ids the built notebook has; :func:`source_differences` says where a notebook
and its source disagree.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._optional import require
from .core.errors import FormatError, InvalidArgumentError
from .core.guards import choice, items, text
from .io.files import as_path, read_bytes

__all__ = [
    "LANGUAGES",
    "sources_folder",
    "source_paths",
    "read_source",
    "source_differences",
]

#: The languages of the notebooks: ``en`` in ``notebooks/``, ``ru`` in ``notebooks/ru/``.
LANGUAGES = ("en", "ru")

_SOURCE = re.compile(r"^\d\d_\w+\.md$")


def _jupytext() -> Any:
    return require("jupytext", package="jupytext", extra="course", why="reading a notebook's source (NAME.md)")


def _nbformat() -> Any:
    return require("nbformat", package="nbformat", extra="course", why="writing notebooks")


# ----------------------------------------------------------------- the sources


def sources_folder(lang: str = "en") -> Path:
    """The folder of the notebooks' sources in language ``lang``: a checkout's ``notebooks/`` (``notebooks/ru/``),
    or the copy a wheel installs in ``share/stmviz/sources``.

    >>> sources_folder().name in ("notebooks", "sources")
    True
    """
    lang = choice(lang, "lang", LANGUAGES, where="course")
    here = Path(__file__).resolve().parent
    places = [here.parent / "notebooks", Path(sys.prefix) / "share" / "stmviz" / "sources"]
    for base in places:
        folder = base if lang == "en" else base / lang
        if folder.is_dir() and any(_SOURCE.match(p.name) for p in folder.iterdir()):
            return folder
    where = " or ".join(str(p if lang == "en" else p / lang) for p in places)
    raise InvalidArgumentError(
        f"course: no notebook sources (NN_name.md) for lang={lang!r} in {where}"
        + ("; the Russian notebooks are not written yet: use lang='en'" if lang == "ru" else
           "; reinstall stmviz, or run from a clone of its repository")
    )


def source_paths(lang: str = "en", names: Iterable[str] = ()) -> list[Path]:
    """The sources ``NN_name.md`` in language ``lang``, in order; with ``names``, those whose name starts with one.

    >>> [p.name for p in source_paths(names=["01"])]
    ['01_definition1_state_space.md']
    """
    folder = sources_folder(lang)
    wanted = [text(n, "a notebook name", where="course", example="01") for n in items(names, "names", what="names")]
    found = sorted(p for p in folder.iterdir() if _SOURCE.match(p.name))
    chosen = [p for p in found if not wanted or any(p.stem.startswith(n) for n in wanted)]
    unknown = [n for n in wanted if not any(p.stem.startswith(n) for p in found)]
    if unknown:
        raise InvalidArgumentError(
            f"course: no notebook named {unknown[0]!r} in {folder}; the notebooks are "
            f"{', '.join(p.stem for p in found)} (give a number such as 01, or a name)"
        )
    return chosen


def read_source(path: str | Path) -> Any:
    """The notebook a source ``NN_name.md`` describes: its cells, with ids ``NN-kk``, and no outputs.

    The ids are the built notebook's (``01-00``, ``01-01``, … for ``01_definition1_state_space``), so
    a notebook and its source can be compared cell by cell, and a Russian twin has the ids of the
    English one. The metadata is what jupytext keeps in a paired ``.ipynb``: the kernelspec and
    jupytext's own, without the text file's ``text_representation``.

    >>> nb = read_source(source_paths(names=["01"])[0])
    >>> nb.cells[0].cell_type, nb.cells[1].id, nb.metadata.kernelspec.name
    ('markdown', '01-01', 'python3')
    """
    path = as_path(path, "notebook source")
    raw = read_bytes(path, what="notebook source (MyST Markdown)", error=FormatError)
    try:
        nb = _jupytext().reads(raw.decode("utf-8"), fmt="md:myst")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: the notebook source is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except Exception as exc:  # jupytext's own errors: a malformed header or directive
        raise FormatError(f"{path}: not a MyST Markdown notebook jupytext can read: {exc}") from None
    prefix = path.stem[:2]
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"{prefix}-{k:02d}"
    representation = nb.metadata.get("jupytext", {})
    representation.pop("text_representation", None)
    if not representation:
        nb.metadata.pop("jupytext", None)
    return nb


def source_differences(source: str | Path, notebook: str | Path) -> list[str]:
    """How a notebook differs from what its source builds: one line per difference, none when they agree.

    Compared: the number of cells, each cell's type, source, id and metadata, and the kernel. Not
    compared: the outputs (only running the source makes them) and jupytext's own metadata.

    >>> pair = source_paths(names=["01"])[0]
    >>> source_differences(pair, pair.with_suffix(".ipynb"))
    []
    """
    notebook = as_path(notebook, "notebook")
    built = read_source(source)
    raw = read_bytes(notebook, what="notebook", error=FormatError)
    try:
        found = _nbformat().reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:
        raise FormatError(f"{notebook}: not a notebook nbformat can read: {type(exc).__name__}") from None
    lines = []
    if len(found.cells) != len(built.cells):
        lines.append(f"{notebook.name}: {len(found.cells)} cells, its source {len(built.cells)}")
    for k, (want, got) in enumerate(zip(built.cells, found.cells)):
        for field in ("cell_type", "id", "source", "metadata"):
            if want.get(field) != got.get(field):
                lines.append(f"{notebook.name}: cell {k} ({want.get('id')}): its {field} differs from the source's "
                             f"({_brief_field(got.get(field))} against {_brief_field(want.get(field))})")
    for field in ("name", "language"):
        want_kernel = built.metadata.get("kernelspec", {}).get(field)
        got_kernel = found.metadata.get("kernelspec", {}).get(field)
        if want_kernel != got_kernel:
            lines.append(f"{notebook.name}: kernelspec {field} {got_kernel!r}, its source's {want_kernel!r}")
    return lines


def _brief_field(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
