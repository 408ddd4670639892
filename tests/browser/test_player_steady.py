"""The player's charts stay in place while it plays: the step text above them has a fixed height.

The step text changes length from step to step (a removal lists its reasons); when the box grew with
it, the first chart moved by up to 230 px between steps (00: 493 → 267 px; 05: 173 → 399 → 192 → 361).
"""

from __future__ import annotations

import pytest
from jlab import close_all, open_notebook, player_root, run_all, wait_player_at

#: Where the first chart (the occupancy figure) sits, measured from the top of the player, and t.
FIRST_CHART = """(root) => {
  const occ = root.querySelector('.js-plotly-plot');
  const readout = root.querySelector('.widget-slider .widget-readout');
  return [parseInt(readout.textContent.trim(), 10),
          Math.round(occ.getBoundingClientRect().top - root.getBoundingClientRect().top)];
}"""


@pytest.mark.parametrize("name", ["00_start_here.ipynb", "05_hiagent.ipynb"])
def test_the_first_chart_does_not_move_while_playing(jupyter_lab, page, screenshots, name):
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    try:
        report = run_all(page)
        assert report["errors"] == [], report["errors"]
        root = player_root(page)
        wait_player_at(root, 0)
        places = {}
        play = root.locator(".widget-play button").nth(0)
        play.click()
        for _ in range(400):  # sample while Play runs, until a dozen steps were seen
            t, top = root.evaluate(FIRST_CHART)
            places.setdefault(t, set()).add(top)
            if len(places) >= 12:
                break
            page.wait_for_timeout(100)
        play.click()  # pause
        assert len(places) >= 12, places
        tops = sorted(set().union(*places.values()))
        assert max(tops) - min(tops) <= 1, f"the first chart moved between steps: {places}"
        root.screenshot(path=str(screenshots / f"steady_{name.removesuffix('.ipynb')}.png"))
    finally:
        close_all(page)
