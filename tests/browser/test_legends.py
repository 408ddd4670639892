"""Legends that tell kinds apart, as the browser draws them (issue 34, item 5), in JupyterLab and in Voila.

07's and 11's side-by-side figures drew "message" and "pair" in one colour, as "summary_message", "compaction" and
"core"; six kinds of removal marker had no legend entry, and the one shown had the shape of another kind's. Read
from every plotly figure plotly drew on the page (its ``_fullData`` and its legend's text): within a figure one
colour per element type and one symbol per removal kind, every removal kind in the legend once; across the page,
a type keeps its colour (the compare player's panels and the static figures alike).
"""

from __future__ import annotations

import pytest
from jlab import close_all, open_notebook, run_all

#: What plotly drew: per figure, each trace's name, legend group, whether it has a legend entry, its mode, marker
#: symbol and colours, and the legend's texts.
DRAWN = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter((gd) => gd._fullData).map((gd) => ({
  traces: gd._fullData.map((t) => ({name: t.name, group: t.legendgroup || '', legend: t.showlegend === true,
                                   mode: t.mode || '', symbol: t.marker ? String(t.marker.symbol) : '',
                                   fill: t.fillcolor || '', color: t.marker && typeof t.marker.color === 'string' ? t.marker.color : ''})),
  legend: Array.from(gd.querySelectorAll('.legendtext'), (e) => e.textContent),
}))"""

#: Figures that draw removals: enough drawn once their traces are there.
READY = "() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter((gd) => gd._fullData && gd._fullData.some((t) => String(t.name).startsWith('removed by'))).length >= 1"


def _check(figures: list[dict], where: str) -> int:
    """Assert the legend rules on every figure; returns how many figures drew removal markers."""
    colours: dict[str, set[str]] = {}
    with_removals = 0
    for k, figure in enumerate(figures):
        traces = figure["traces"]
        types = {}
        for t in traces:
            if t["group"].startswith("type-") and t["fill"]:
                colours.setdefault(t["name"], set()).add(t["fill"])
                types.setdefault(t["name"], set()).add(t["fill"])
        fills = [next(iter(c)) for c in types.values()]
        assert all(len(c) == 1 for c in types.values()), (where, k, types)
        assert len(set(fills)) == len(fills), f"{where}, figure {k}: two element types share a colour: {types}"
        kinds: dict[str, set[str]] = {}
        entries: dict[str, int] = {}
        for t in traces:
            if str(t["name"]).startswith("removed by") and "markers" in t["mode"]:
                kinds.setdefault(t["name"], set()).add(t["symbol"])
                entries[t["name"]] = entries.get(t["name"], 0) + t["legend"]
        if not kinds:
            continue
        with_removals += 1
        assert all(len(s) == 1 for s in kinds.values()), f"{where}, figure {k}: a removal kind drawn in two shapes: {kinds}"
        symbols = [next(iter(s)) for s in kinds.values()]
        assert len(set(symbols)) == len(symbols), f"{where}, figure {k}: two removal kinds share a shape: {kinds}"
        assert all(n == 1 for n in entries.values()), f"{where}, figure {k}: a removal kind not in the legend once: {entries}"
        assert set(kinds) <= set(figure["legend"]), (where, k, sorted(kinds), figure["legend"])
    mixed = {name: c for name, c in colours.items() if len(c) > 1}
    assert not mixed, f"{where}: an element type changes colour between figures: {mixed}"
    return with_removals


@pytest.mark.parametrize("name", ["07_compare.ipynb", "11_managers_you_use.ipynb"])
def test_legends_tell_kinds_apart_in_voila(voila_server, page, name):
    page.goto(f"{voila_server}/voila/render/{name}", wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_function(READY, timeout=180_000, polling=500)
    page.wait_for_timeout(1500)  # the last figures of the page settle
    assert _check(page.evaluate(DRAWN), f"voila {name}") >= 1


def test_legends_tell_kinds_apart_in_jupyterlab(jupyter_lab, page):
    open_notebook(page, jupyter_lab, "notebooks/07_compare.ipynb")
    try:
        report = run_all(page)
        assert report["errors"] == [], report["errors"]
        page.wait_for_function(READY, timeout=120_000, polling=500)
        page.wait_for_timeout(1500)
        assert _check(page.evaluate(DRAWN), "jupyterlab 07") >= 1
    finally:
        close_all(page)
