"""The players' step text shows everything and the charts stay put, in JupyterLab and in Voila (issue 34, items 1, 8, 9).

At 03 t = 8 and 05 t = 17 (the steps the issue names) and at three window widths: the step text's box keeps its
height and scrolls when its text is longer (scrolling reveals its last line; opened, the collapsed list of removed
elements is reachable to its last element), no chart overlaps the box, and the occupancy chart's x-range is the one
it had at t = 0. In JupyterLab, 03's trace table fits the page without wrapping a row.
"""

from __future__ import annotations

import pytest
from jlab import close_all, go_to_step, open_notebook, player_root, run_all, wait_player_at

CASES = [("03_fifo_context_window.ipynb", 8), ("05_hiagent.ipynb", 17)]
WIDTHS = [720, 1024, 1400]

#: The step box as drawn: its rectangle and scroll sizes, the charts' rectangles, the occupancy x-range.
BOX = """(root) => {
  const box = root.querySelector('.stmviz-step-box');
  const rect = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const plots = Array.from(root.querySelectorAll('.js-plotly-plot'));
  return {box: rect(box), clientHeight: box.clientHeight, scrollHeight: box.scrollHeight,
          overflowY: getComputedStyle(box).overflowY, charts: plots.map(rect),
          range: Array.from(plots[0]._fullLayout.xaxis.range)};
}"""

#: Scroll the step box to its end; is its last line inside the box's visible rectangle?
LAST_LINE_SEEN = """(root) => {
  const box = root.querySelector('.stmviz-step-box');
  box.scrollTop = box.scrollHeight;
  // the lines drawn: not those inside a collapsed <details> (Chrome still gives them rectangles)
  const lines = Array.from(root.querySelectorAll('.stmviz-step div')).filter((d) => !d.closest('details:not([open])'));
  const last = lines[lines.length - 1].getBoundingClientRect();  // the last line drawn (deepest, last in order)
  const r = box.getBoundingClientRect();
  return {top: last.top, bottom: last.bottom, boxTop: r.top, boxBottom: r.bottom, scrollTop: box.scrollTop};
}"""


def _overlaps(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] - 1 and b["left"] < a["right"] - 1 and a["top"] < b["bottom"] - 1 and b["top"] < a["bottom"] - 1


def _check_box(page, root, start_range, label: str, screenshots) -> list[bool]:
    """Check the box at three widths; returns, per width, whether its text was longer than the box."""
    scrolled = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(900)  # plotly refits on the resize event
        root.scroll_into_view_if_needed()
        drawn = root.evaluate(BOX)
        assert drawn["overflowY"] == "scroll", drawn
        for chart in drawn["charts"]:
            assert not _overlaps(drawn["box"], chart), (label, width, drawn)
        assert [round(x, 3) for x in drawn["range"]] == [round(x, 3) for x in start_range], (label, width, drawn["range"])
        longer = drawn["scrollHeight"] > drawn["clientHeight"] + 1
        scrolled.append(longer)
        seen = root.evaluate(LAST_LINE_SEEN)
        assert seen["top"] >= seen["boxTop"] - 1 and seen["bottom"] <= seen["boxBottom"] + 1, (label, width, seen)
        if longer:
            assert seen["scrollTop"] > 0, (label, width, seen)
        root.screenshot(path=str(screenshots / f"step_text_{label}_{width}.png"))
    # a collapsed group opens in the box, which then scrolls to its last element
    summaries = root.locator(".stmviz-step details > summary")
    for i in range(summaries.count()):
        summaries.nth(i).click()
    if summaries.count():
        page.wait_for_timeout(300)
        drawn = root.evaluate(BOX)
        assert drawn["scrollHeight"] > drawn["clientHeight"], (label, drawn)
        seen = root.evaluate(LAST_LINE_SEEN)
        assert seen["top"] >= seen["boxTop"] - 1 and seen["bottom"] <= seen["boxBottom"] + 1, (label, seen)
        for chart in drawn["charts"]:
            assert not _overlaps(drawn["box"], chart), (label, drawn)
    return scrolled


@pytest.mark.parametrize("name, t", CASES)
def test_step_text_scrolls_and_nothing_overlaps_it_in_jupyterlab(jupyter_lab, page, screenshots, name, t):
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    try:
        report = run_all(page)
        assert report["errors"] == [], report["errors"]
        root = player_root(page)
        wait_player_at(root, 0)
        start = root.evaluate(BOX)["range"]
        go_to_step(page, root, t)
        scrolled = _check_box(page, root, start, f"lab_{name[:2]}", screenshots)
        assert scrolled[0], "at the narrowest width the step text is longer than its box: it must scroll"
    finally:
        close_all(page)


@pytest.mark.parametrize("name, t", CASES)
def test_step_text_scrolls_and_nothing_overlaps_it_in_voila(voila_server, page, screenshots, name, t):
    page.goto(f"{voila_server}/voila/render/{name}", wait_until="domcontentloaded", timeout=180_000)
    root = player_root(page, timeout=180_000)
    wait_player_at(root, 0, timeout=120_000)
    start = root.evaluate(BOX)["range"]
    go_to_step(page, root, t)
    scrolled = _check_box(page, root, start, f"voila_{name[:2]}", screenshots)
    assert scrolled[0], "at the narrowest width the step text is longer than its box: it must scroll"


#: The plain-text outputs of a JupyterLab notebook: text lines against drawn line boxes (a wrapped row adds boxes).
PRE_LINES = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output pre'), (pre) => {
  const range = document.createRange();
  range.selectNodeContents(pre);
  const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
  return {text: pre.textContent, lines: pre.textContent.replace(/\\n$/, '').split('\\n').length, boxes: tops.size};
})"""


def test_the_trace_table_of_03_does_not_wrap_in_jupyterlab(jupyter_lab, page):
    """03 printed `trace.table(width=30)`, rows ~250 characters wide: JupyterLab wrapped it and the why column
    fell onto the next line. Its rows now fit a 1400 px window."""
    open_notebook(page, jupyter_lab, "notebooks/03_fifo_context_window.ipynb")
    try:
        run_all(page)
        outputs = page.evaluate(PRE_LINES)
        tables = [o for o in outputs if o["text"].lstrip().startswith("t ") and "operation" in o["text"].splitlines()[0]]
        assert len(tables) >= 2, [o["text"][:80] for o in outputs]  # the small window's and the support chat's
        for table in tables:  # every trace table a student sees in 03, each row on its own lines
            assert table["boxes"] == table["lines"], table
    finally:
        close_all(page)


#: The x-ranges of every occupancy chart of the compare player (the first chart of each panel) as drawn.
PANEL_RANGES = """(root) => Array.from(root.querySelectorAll('.stmviz-compare-panel'), (panel) => {
  const gd = panel.querySelector('.js-plotly-plot');
  return gd && gd._fullLayout ? Array.from(gd._fullLayout.xaxis.range).map((x) => Math.round(x * 1000) / 1000) : null;
})"""


def test_the_compare_players_panels_share_one_fixed_x_range_in_voila(voila_server, page):
    """07's compare player: its four panels had different x-ranges at the same t, and each moved while stepping."""
    page.goto(f"{voila_server}/voila/render/07_compare.ipynb", wait_until="domcontentloaded", timeout=180_000)
    root = page.locator(".jp-OutputArea-output:has(.stmviz-compare-grid)").first
    root.wait_for(state="attached", timeout=180_000)
    root.scroll_into_view_if_needed(timeout=60_000)
    page.wait_for_function(f"(r) => {{ const v = ({PANEL_RANGES})(r); return v.length >= 2 && v.every((x) => x); }}",
                           arg=root.element_handle(), timeout=120_000)
    seen = []
    for _ in range(3):
        ranges = root.evaluate(PANEL_RANGES)
        assert len({tuple(r) for r in ranges}) == 1, ranges
        seen.append(tuple(ranges[0]))
        root.get_by_role("button", name="step ▶").click()
        page.wait_for_timeout(1500)
    assert len(set(seen)) == 1, seen
