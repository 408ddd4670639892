"""The exported HTML page of a run plays from disk (file://) in Chromium with every network request blocked."""

from __future__ import annotations

import pytest
from jlab import EXPORT_FRAME as FRAME, open_offline

import stmviz
import stmviz.viz
from stmviz import FIFOWindow, StateSpace, load_scenario, run, sizes


@pytest.mark.parametrize("writer", ["stmviz.viz.export_html", "stmviz.export_html"])
def test_export_plays_offline(browser, tmp_path, screenshots, writer):
    scenario = load_scenario("tool_chat")
    trace = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    path = tmp_path / "run.html"
    written = stmviz.viz.export_html(trace, path) if writer == "stmviz.viz.export_html" else stmviz.export_html(trace, path)
    assert written == path and path.stat().st_size > 1_000_000  # plotly.js is inside
    context, page, blocked = open_offline(browser, path)
    try:
        start = page.evaluate(FRAME)
        assert start["cursor"] == 0 and start["active"] == 0 and start["frames"] == len(trace) + 1, start
        page.locator(".updatemenu-button").filter(has_text="play").click()
        page.wait_for_function(
            "() => { const gd = document.getElementById('stmviz-trace');"
            " const c = gd.data.find(d => d.meta && d.meta.role === 'cursor');"
            " return Number(c.x[0]) >= 3 && gd._fullLayout.sliders[0].active >= 3; }",
            timeout=60_000,
        )
        assert page.page_errors == [], page.page_errors
        page.locator(".updatemenu-button").filter(has_text="pause").click()
        page.wait_for_timeout(700)  # the animation stops at a frame boundary
        paused = page.evaluate(FRAME)
        page.wait_for_timeout(1000)  # frames come every 250 ms while playing
        still = page.evaluate(FRAME)
        assert still == paused, (paused, still)
        t = paused["cursor"]
        assert 3 <= t <= len(trace)
        assert paused["label"] == str(t), paused
        assert f"t = {t} of {len(trace)}" in paused["title"], paused
        assert paused["title"] != start["title"]
        if writer == "Trace.to_html":
            page.screenshot(path=str(screenshots / "export_offline.png"))
        assert blocked == [], f"the exported page tried the network: {blocked}"
        assert page.dialogs == [], page.dialogs
        # plotly.js rejects the promise of the animation that "pause" interrupts, with no reason, and its
        # updatemenu button does not catch it: Chromium reports one "undefined" page error. Nothing else.
        assert set(page.page_errors) <= {"undefined"}, page.page_errors
    finally:
        context.close()
