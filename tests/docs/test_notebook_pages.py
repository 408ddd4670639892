"""How docs/_ext/stmviz_docs/notebooks.py turns a notebook's stored outputs into the site's (no build needed)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")

from stmviz_docs import notebooks as site

FIGURE = {"data": [{"type": "bar", "x": [1], "y": [2], "name": "</script><script>alert(1)</script>"}],
          "layout": {"height": 300}, "config": {"responsive": True}}
PLAYER = {
    "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2, "version_minor": 0},
    "application/vnd.plotly.v1+json": FIGURE,
    "text/html": "<div class='stmviz-static'><h4>FIFOWindow at t = 0 of 25</h4></div>",
    "text/plain": "TracePlayer(FIFOWindow: ω_0 of ω_0 … ω_25)",
}


def result(data):
    return {"output_type": "execute_result", "data": data, "metadata": {}, "execution_count": 1}


def test_a_player_becomes_its_static_copy_figure_then_text():
    shown = site.site_outputs([result(PLAYER)], "figure-x-3")
    assert [list(o["data"]) for o in shown] == [["text/html"], ["text/html"]]
    assert 'class="stmviz-plotly" id="figure-x-3-0"' in shown[0]["data"]["text/html"]
    assert shown[1]["data"]["text/html"] == PLAYER["text/html"]


def test_a_figure_is_its_json_in_a_block_no_script_can_escape():
    html = site.site_outputs([result({"application/vnd.plotly.v1+json": FIGURE, "text/plain": "Figure"})], "f")[0]["data"]["text/html"]
    assert html.count("</script>") == 1 and "<\\/script><script>alert(1)<\\/script>" in html
    spec = html[html.index('spec">') + len('spec">'): html.rindex("</script>")]
    assert json.loads(spec) == FIGURE
    assert "min-height:300px" in html


def test_a_widget_without_a_static_copy_says_it_needs_a_kernel():
    data = {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/plain": ["SweepExplorer(children=(Sel…"]}
    html = site.site_outputs([result(data)], "f")[0]["data"]["text/html"]
    assert "<strong>SweepExplorer</strong> is a live widget" in html and "stmviz lab" in html
    hostile = {"application/vnd.jupyter.widget-view+json": {}, "text/plain": "<img src=x onerror=alert(1)>("}
    assert "<img" not in site.site_outputs([result(hostile)], "f")[0]["data"]["text/html"]


def test_other_outputs_are_kept_as_stored():
    stream = {"output_type": "stream", "name": "stdout", "text": "Σμ = 11\n"}
    table = result({"text/html": "<table></table>", "text/plain": "table"})
    assert site.site_outputs([stream, table], "f") == [stream, table]


def notebook(title: str) -> str:
    return json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "\n", "Text."]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_with_a_russian_twin_links_to_it_and_back(tmp_path):
    (tmp_path / "notebooks" / "ru").mkdir(parents=True)
    (tmp_path / "notebooks" / "03_fifo.ipynb").write_text(notebook("3 · FIFO"), encoding="utf-8")
    (tmp_path / "notebooks" / "ru" / "03_fifo.ipynb").write_text(notebook("3 · Окно FIFO"), encoding="utf-8")
    english = json.loads(site.for_the_site(notebook("3 · FIFO"), "notebooks/03_fifo", tmp_path))
    russian = json.loads(site.for_the_site(notebook("3 · Окно FIFO"), "notebooks/ru/03_fifo", tmp_path))
    assert english["cells"][0]["source"] == "# 3 · FIFO\n\n*[Русская версия](ru/03_fifo.ipynb)*\n\nText."
    assert russian["cells"][0]["source"] == "# 3 · Окно FIFO\n\n*[English version](../03_fifo.ipynb)*\n\nText."
    alone = json.loads(site.for_the_site(notebook("4 · SCM"), "notebooks/04_scm", tmp_path))
    assert alone["cells"][0]["source"] == ["# 4 · SCM\n", "\n", "Text."]


def test_the_notebooks_list_gets_a_russian_section_when_russian_notebooks_exist(tmp_path):
    app = SimpleNamespace(srcdir=str(tmp_path), env=SimpleNamespace(doc2path=lambda name: tmp_path / f"{name}.md"))
    source = ["# The notebooks\n"]
    site.on_source_read(app, "tutorials", source)
    assert source == ["# The notebooks\n"]
    (tmp_path / "notebooks" / "ru").mkdir(parents=True)
    (tmp_path / "notebooks" / "ru" / "00_start_here.ipynb").write_text(notebook("Начало"), encoding="utf-8")
    site.on_source_read(app, "tutorials", source)
    assert "## На русском" in source[0] and "notebooks/ru/*" in source[0]


def test_the_notebooks_are_copied_into_the_sources_without_their_text_twins(tmp_path):
    repository, sources = tmp_path / "repo", tmp_path / "repo" / "docs"
    (repository / "notebooks" / "ru").mkdir(parents=True)
    for name in ("notebooks/00_a.ipynb", "notebooks/00_a.md", "notebooks/ru/00_a.ipynb"):
        (repository / name).write_text(notebook(name), encoding="utf-8")
    (sources / "notebooks").mkdir(parents=True)
    (sources / "notebooks" / "99_gone.ipynb").write_text("{}", encoding="utf-8")
    copies = site.copy_notebooks(repository, sources)
    assert [p.relative_to(sources).as_posix() for p in copies] == ["notebooks/00_a.ipynb", "notebooks/ru/00_a.ipynb"]
    assert sorted(p.relative_to(sources).as_posix() for p in (sources / "notebooks").rglob("*") if p.is_file()) == [
        "notebooks/00_a.ipynb", "notebooks/ru/00_a.ipynb"]
    before = (sources / "notebooks" / "00_a.ipynb").stat().st_mtime_ns
    site.copy_notebooks(repository, sources)
    assert (sources / "notebooks" / "00_a.ipynb").stat().st_mtime_ns == before, "an unchanged copy is not rewritten"


def test_the_real_notebooks_keep_every_output_kind_known(tmp_path):
    """Every output the committed notebooks hold is one the site shows: no widget view or plotly JSON is left
    for myst-nb, which would skip it (a warning under -W) or show nothing."""
    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        page = json.loads(site.for_the_site(path.read_text(encoding="utf-8"), f"notebooks/{path.stem}", tmp_path))
        for cell in page["cells"]:
            for output in cell.get("outputs", []):
                kinds = set(output.get("data", {}))
                assert not kinds & {"application/vnd.jupyter.widget-view+json", "application/vnd.plotly.v1+json"}, (path.name, kinds)


def test_a_notebook_added_or_removed_makes_every_notebook_read_again():
    """Their links to each other are resolved when read: a cached page would keep a link made while its target was missing."""
    env = SimpleNamespace(found_docs={"index", "tutorials", "notebooks/00_start_here", "notebooks/ru/00_start_here"})
    assert site.on_env_get_outdated(None, env, set(), {"paper"}, set()) == []
    again = ["notebooks/00_start_here", "notebooks/ru/00_start_here", "tutorials"]
    assert site.on_env_get_outdated(None, env, {"notebooks/ru/00_start_here"}, set(), set()) == again
    assert site.on_env_get_outdated(None, env, set(), set(), {"notebooks/ru/01_definition1_state_space"}) == again
