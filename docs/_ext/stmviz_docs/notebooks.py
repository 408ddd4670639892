"""The notebooks on the site: rendered from their stored outputs (never run), figures interactive, players static.

myst-nb renders a notebook's saved outputs (``nb_execution_mode = "off"``). Before it reads one,
this module rewrites the notebook's JSON in memory (Sphinx's ``source-read`` event; the file on
disk is untouched):

- a plotly figure (``application/vnd.plotly.v1+json``, which myst-nb does not know) becomes a
  block of HTML holding the figure's JSON, drawn by ``_static/stmviz-plotly.js`` with the plotly.js
  of the installed ``plotly`` package, copied into ``_static`` (never from a CDN);
- a player's display bundle (a widget view, which needs a kernel, with its static copy beside it)
  becomes its static copy: the figure at the player's t, then its step in words and π(ω_t) as
  tokens (``TracePlayer._repr_mimebundle_`` writes both for front ends without a kernel);
- a widget without a static copy (``SweepExplorer``) becomes a note saying it needs a kernel;
- a notebook with a twin in the other language (``notebooks/ru/<name>.ipynb`` beside
  ``notebooks/<name>.ipynb``) links to it under its title.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

PLOTLY = "application/vnd.plotly.v1+json"
WIDGET = "application/vnd.jupyter.widget-view+json"
HTML = "text/html"
#: the folder of the notebooks, in the repository and (a copy, ignored by git) in the Sphinx sources
FOLDER = "notebooks"
#: the folder of the Russian notebooks inside it
RUSSIAN = "ru"
NUMBERED = "[0-9][0-9]_*.ipynb"  # the tutorials; notebooks/start.ipynb, the JupyterLab start page, is not one
LANGUAGE_LINKS = {"en": "Русская версия", "ru": "English version"}


def figure_html(spec: dict[str, Any], anchor: str) -> str:
    """A plotly figure as HTML: its JSON in a data block, drawn by ``stmviz-plotly.js`` when the page loads.

    The JSON sits in a ``<script type="application/json">``, which the browser never runs; ``</``
    is written ``<\\/`` (the same string in JSON), so no text of the figure can close that element.
    """
    layout = spec.get("layout") or {}
    height = layout.get("height") if isinstance(layout.get("height"), (int, float)) else 450
    text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")
    return (
        f'<div class="stmviz-plotly" id="{html.escape(anchor)}" style="min-height:{int(height)}px">'
        f'<script type="application/json" class="stmviz-plotly-spec">{text}</script></div>'
    )


def widget_note(plain: Any) -> str:
    """What stands for a widget that has no static copy: its class and how to use it."""
    text = "".join(plain) if isinstance(plain, list) else str(plain or "")
    match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\(", text)
    name = match.group(1) if match else "This widget"
    return (
        '<div class="stmviz-widget-note"><p><strong>' + html.escape(name) + "</strong> is a live widget: it needs a "
        "running kernel. Open this notebook in JupyterLab (<code>stmviz lab</code>) to use it.</p></div>"
    )


def site_outputs(outputs: list[dict[str, Any]], anchor: str) -> list[dict[str, Any]]:
    """A code cell's outputs as the site shows them (see the module's text)."""
    shown: list[dict[str, Any]] = []
    for k, output in enumerate(outputs):
        data = output.get("data")
        if not isinstance(data, dict):
            shown.append(output)
            continue
        if WIDGET in data:
            if PLOTLY in data:
                shown.append(display({HTML: figure_html(data[PLOTLY], f"{anchor}-{k}")}))
            if HTML in data:
                shown.append(display({HTML: data[HTML]}))
            if PLOTLY not in data and HTML not in data:
                shown.append(display({HTML: widget_note(data.get("text/plain"))}))
            continue
        if PLOTLY in data:
            shown.append({**output, "data": {HTML: figure_html(data[PLOTLY], f"{anchor}-{k}")}})
            continue
        shown.append(output)
    return shown


def display(data: dict[str, Any]) -> dict[str, Any]:
    return {"output_type": "display_data", "data": data, "metadata": {}}


def language_link(notebook: dict[str, Any], docname: str, srcdir: Path) -> None:
    """Under the notebook's title, a link to the same notebook in the other language, if it exists."""
    parts = docname.split("/")
    if parts[:2] == [FOLDER, RUSSIAN] and len(parts) == 3:
        language, twin, target = "ru", srcdir / FOLDER / f"{parts[2]}.ipynb", f"../{parts[2]}.ipynb"
    elif parts[0] == FOLDER and len(parts) == 2:
        language, twin, target = "en", srcdir / FOLDER / RUSSIAN / f"{parts[1]}.ipynb", f"{RUSSIAN}/{parts[1]}.ipynb"
    else:
        return
    if not twin.is_file():
        return
    link = f"\n\n*[{LANGUAGE_LINKS[language]}]({target})*\n"
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            title, newline, rest = source.partition("\n")
            cell["source"] = title + link + (rest if newline else "") if title.startswith("# ") else link.lstrip() + "\n" + source
            return


def for_the_site(text: str, docname: str, srcdir: Path) -> str:
    """A notebook's JSON rewritten for the site (see the module's text)."""
    notebook = json.loads(text)
    stem = re.sub(r"[^a-z0-9]+", "-", docname.lower()).strip("-")
    for number, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") == "code" and cell.get("outputs"):
            cell["outputs"] = site_outputs(cell["outputs"], f"figure-{stem}-{number}")
    language_link(notebook, docname, srcdir)
    return json.dumps(notebook, ensure_ascii=False)


def copy_notebooks(repository: Path, srcdir: Path) -> list[Path]:
    """Copy the repository's tutorial notebooks (``NN_*.ipynb``, ``ru/NN_*.ipynb``) into ``srcdir/notebooks``; return the copies.

    Sphinx reads sources only inside its source folder, and resolves a link's path through a symbolic
    link (so a link to ``notebooks/`` would break the notebooks' links to each other). A copy is
    written only when its bytes change; a copy whose notebook is gone is removed.
    """
    folder = srcdir / FOLDER
    wanted: dict[Path, Path] = {}
    for notebook in [*sorted((repository / FOLDER).glob(NUMBERED)), *sorted((repository / FOLDER / RUSSIAN).glob(NUMBERED))]:
        wanted[folder / notebook.relative_to(repository / FOLDER)] = notebook
    for copy, notebook in wanted.items():
        data = notebook.read_bytes()
        if not copy.is_file() or copy.read_bytes() != data:
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
    if folder.is_dir():
        for stale in set(folder.rglob("*.ipynb")) - set(wanted):
            stale.unlink()
    return sorted(wanted)


def on_config_inited(app: Sphinx, config: Any) -> None:
    copy_notebooks(Path(app.srcdir).parent, Path(app.srcdir))


def russian_notebooks(srcdir: Path) -> list[Path]:
    return sorted((srcdir / FOLDER / RUSSIAN).glob("*.ipynb"))


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    srcdir = Path(app.srcdir)
    if app.env.doc2path(docname).suffix == ".ipynb":
        source[0] = for_the_site(source[0], docname, srcdir)
    elif docname == "tutorials" and russian_notebooks(srcdir):
        source[0] += "\n## На русском\n\n```{toctree}\n:glob:\n:maxdepth: 1\n\nnotebooks/ru/*\n```\n"


def on_env_get_outdated(app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """When a notebook comes or goes, every notebook and the list are read again: their links to each other
    (``01_definition1_state_space.ipynb``) are resolved when a page is read, and a cached page would keep a
    link made while its target was missing."""
    if not any(name.startswith(FOLDER + "/") for name in added | removed):
        return []
    return sorted(name for name in env.found_docs if name.startswith(FOLDER + "/") or name == "tutorials")


def on_page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """On a page that holds a figure only: plotly.js, then the script that draws the figures."""
    if "stmviz-plotly-spec" in context.get("body", ""):
        app.add_js_file("plotly.min.js", priority=600, loading_method="defer")
        app.add_js_file("stmviz-plotly.js", priority=601, loading_method="defer")


def on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    """Copy the installed plotly package's plotly.js into ``_static`` (what the figures' pages load)."""
    if exception is not None or app.builder.format != "html":
        return
    import plotly

    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    target = Path(app.outdir) / "_static" / "plotly.min.js"
    if not target.exists() or target.stat().st_size != source.stat().st_size:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def setup(app: Sphinx) -> None:
    app.connect("config-inited", on_config_inited)
    app.connect("source-read", on_source_read)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("html-page-context", on_page_context)
    app.connect("build-finished", on_build_finished)
