"""A saved notebook, opened untrusted and offline in JupyterLab, shows its players' static copies: no CDN, no blank gap.

The notebook is written here with the outputs a kernel would have saved (the
players' display bundles, without widget state) and is not signed, so
JupyterLab opens it untrusted: the widget view (an unsafe renderer) cannot
show, and the bundle's plotly-mimetype figure must, drawn by JupyterLab's own
plotly.js, with every request off the loopback server blocked.
"""

from __future__ import annotations

import json

import nbformat
from jlab import close_all, open_notebook, put_notebook

from stmviz import AgentFold, FIFOWindow, StateSpace, load_scenario, run, sizes
from stmviz.widgets import TracePlayer, compare_player


def saved_notebook() -> dict:
    scenario = load_scenario("web_research")
    fold = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    fifo = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    nb = nbformat.v4.new_notebook()
    for i, (source, shown) in enumerate(
        [("TracePlayer(fold, t=7)", TracePlayer(fold, t=7)), ("compare_player([fifo, fold], t=9)", compare_player([fifo, fold], t=9))],
        start=1,
    ):
        bundle = shown._repr_mimebundle_()
        cell = nbformat.v4.new_code_cell(source, execution_count=i)
        cell.outputs = [nbformat.v4.new_output("execute_result", data=bundle, execution_count=i)]
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.loads(nbformat.writes(nb))


def test_saved_players_render_untrusted_and_offline(jupyter_lab, browser, screenshots):
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    outside: list[str] = []

    def guard(route):
        url = route.request.url
        if url.startswith(jupyter_lab) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    put_notebook(jupyter_lab, "saved.ipynb", saved_notebook())
    try:
        open_notebook(page, jupyter_lab, "saved.ipynb")
        assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.cells.get(0).trusted") is False
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-RenderedPlotly .main-svg').length >= 2", timeout=60_000
        )
        titles = page.evaluate(
            "() => Array.from(document.querySelectorAll('.jp-RenderedPlotly'), gd => gd._fullLayout.title.text)"
        )
        assert any("t = 7 of" in t for t in titles) and any("t = 9 of" in t for t in titles), titles
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.jp-RenderedPlotly')).every("
            " gd => Math.abs(gd._fullLayout.width - gd.clientWidth) <= 2)",
            timeout=30_000,
        )
        assert page.locator("text=Error displaying widget").count() == 0
        assert not any("cdn.plot.ly" in url for url in outside), outside
        assert errors == [], errors
        page.screenshot(path=str(screenshots / "saved_untrusted.png"), full_page=True)
    finally:
        close_all(page)
        context.close()
