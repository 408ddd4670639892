"""The TracePlayer in JupyterLab, in a real browser: Play, pause, keyboard, typed value, one step forward.

Each notebook is run in full; the player at its end is then driven through
its controls, and what the browser shows (slider readout, the occupancy
figure's step marker, the state bar's title, the step label, the token view
of π(ω_t)) is compared with the same run computed here, in the test process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from jlab import close_all, open_notebook, player_root, player_state, run_all, wait_player_at

from stmviz import AgentFold, SCM, StateSpace, Trace, load_scenario, run, sizes
from stmviz.core.formatting import format_number
from stmviz.viz.occupancy import occupancy_data
from stmviz.viz.tokens import tokens_html


def _scm() -> Trace:  # as in notebooks/04_scm.ipynb
    scenario = load_scenario("long_dialogue")
    return run(SCM(StateSpace(sizes.tokens(), v_max=scenario.v_max), k=3), scenario)


def _agentfold() -> Trace:  # as in notebooks/06_agentfold.ipynb
    scenario = load_scenario("web_research")
    return run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)


@dataclass
class Expected:
    """What the player must show at t, from the same run computed in the test process."""

    trace: Trace

    def __post_init__(self) -> None:
        self.totals = occupancy_data(self.trace).total
        self._tokens: dict[int, int] = {}

    def tokens(self, t: int) -> int:
        if t not in self._tokens:
            self._tokens[t] = tokens_html(self.trace.project(t), max_tokens=1500).count('class="stmviz-token"')
        return self._tokens[t]

    def check(self, shown: dict, t: int, *, tokens: bool = True) -> None:
        assert shown["readout"] == t, shown
        assert shown["shape_x"] == t and shown["marker_x"] == t, shown
        assert shown["marker_y"] == pytest.approx(self.totals[t]), (shown, self.totals[t])
        assert f"Σμ = {format_number(self.trace.size_at(t), 4)}" in shown["info"], shown["info"]
        assert shown["state_title"] and f"Σμ = {format_number(self.trace.size_at(t), 4)}" in shown["state_title"], shown
        if tokens:
            assert shown["tokens"] == self.tokens(t), (shown["tokens"], self.tokens(t), t)


NOTEBOOKS: dict[str, Callable[[], Trace]] = {
    "04_scm.ipynb": _scm,
    "06_agentfold.ipynb": _agentfold,
}


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_player_in_jupyterlab(jupyter_lab, page, screenshots, name):
    expected = Expected(NOTEBOOKS[name]())
    n = len(expected.trace)
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    try:
        report = run_all(page)
        assert report["errors"] == [], report["errors"]
        root = player_root(page)
        start = wait_player_at(root, 0, tokens=expected.tokens(0))
        expected.check(start, 0)
        assert start["plots"] == (3 if "agentfold" in name else 2), start

        # Play: the readout and the occupancy marker advance together
        buttons = root.locator(".widget-play button")  # play/pause, stop, repeat
        buttons.nth(0).click()
        page.wait_for_function(
            "(root) => { const r = root.querySelector('.widget-slider .widget-readout');"
            " const occ = root.querySelector('.js-plotly-plot');"
            " const s = (occ.layout.shapes || []).find(s => s.name === 'step');"
            " return parseInt(r.textContent, 10) >= 3 && Number(s.x0) >= 2; }",
            arg=root.element_handle(),
            timeout=60_000,
        )
        # pause (ipywidgets 8: the same button toggles play / pause): t stops, the token view catches up
        assert buttons.nth(0).locator("i.fa-pause").count() == 1
        buttons.nth(0).click()
        paused = wait_player_at(root)["readout"]
        assert 2 <= paused < n
        page.wait_for_timeout(1500)  # several Play intervals (400 ms): a running Play would have moved on
        still = wait_player_at(root, paused, tokens=expected.tokens(paused))
        expected.check(still, paused)
        assert still["tokens_text"] != start["tokens_text"]

        # keyboard on the slider handle: two steps right, one left
        handle = root.locator(".widget-slider .noUi-handle").first
        handle.focus()
        handle.press("ArrowRight")
        handle.press("ArrowRight")
        handle.press("ArrowLeft")
        moved = wait_player_at(root, paused + 1, tokens=expected.tokens(paused + 1))
        expected.check(moved, paused + 1)
        assert moved["state_title"] != still["state_title"] or moved["info"] != still["info"]
        assert moved["tokens_text"] != still["tokens_text"]

        # type a value into the slider's readout
        target = min(n - 1, max(paused + 5, n // 2))
        readout = root.locator(".widget-slider .widget-readout").first
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(target))
        page.keyboard.press("Enter")
        typed = wait_player_at(root, target, tokens=expected.tokens(target))
        expected.check(typed, target)

        # step ▶: exactly one step
        root.get_by_role("button", name="step ▶").click()
        one = wait_player_at(root, target + 1, tokens=expected.tokens(target + 1))
        page.wait_for_timeout(800)
        expected.check(player_state(root), target + 1)
        # ◀ step back: exactly one step
        root.get_by_role("button", name="◀ step").click()
        expected.check(wait_player_at(root, target, tokens=expected.tokens(target)), target)
        assert one["tokens_text"] != typed["tokens_text"]

        assert page.dialogs == [], page.dialogs
        assert page.page_errors == [], page.page_errors
        # a tall window so that the whole player fits in JupyterLab's scrolling notebook for the screenshot
        page.set_viewport_size({"width": 1400, "height": 2200})
        root.scroll_into_view_if_needed()
        page.wait_for_timeout(700)  # JupyterLab and plotly re-lay out after the resize
        stem = name.removesuffix(".ipynb")
        top, plots = root.bounding_box(), root.locator(".js-plotly-plot")
        last = plots.last.bounding_box()
        # the controls, the step label and the figures (the token view below is long)
        clip = {"x": top["x"], "y": top["y"], "width": top["width"], "height": last["y"] + last["height"] - top["y"]}
        page.screenshot(path=str(screenshots / f"player_{stem}.png"), clip=clip)
        if "agentfold" in name:
            plots.nth(2).screenshot(path=str(screenshots / f"hierarchy_{stem}.png"))
    finally:
        close_all(page)
