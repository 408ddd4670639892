"""A Russian notebook's player speaks Russian in a real browser: its step text, its buttons and the titles of its
charts, at the steps where the English test (test_step_text.py) looks, in JupyterLab.

The step text lives in the widget's state, which the stored notebook does not keep, so only a running kernel shows
it: this is where the language cell (``stmviz.set_language("ru")``) is seen to reach the player.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from jlab import close_all, go_to_step, open_notebook, player_root, run_all

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from russian_text import english_sentences  # noqa: E402

CASES = [("ru/03_fifo_context_window.ipynb", 8), ("ru/05_hiagent.ipynb", 17)]

#: What a student reads on the player: step text, buttons' labels and tooltips, the charts' titles and axes.
READ = """(root) => {
  const texts = [];
  const step = root.querySelector('.stmviz-step');
  if (step) {  // without the operations (code: their names and parameters stay as written)
    const copy = step.cloneNode(true);
    for (const c of copy.querySelectorAll('code')) c.remove();
    for (const d of copy.querySelectorAll('details')) d.setAttribute('open', '');
    for (const d of copy.querySelectorAll('div')) if (!d.querySelector('div')) texts.push(d.textContent);
  }
  for (const b of root.querySelectorAll('button')) { texts.push(b.innerText); if (b.title) texts.push(b.title); }
  for (const p of root.querySelectorAll('.js-plotly-plot')) {
    const l = p.layout || {};
    const t = (x) => (x && typeof x === 'object') ? (x.text || '') : (x || '');
    texts.push(t(l.title));
    for (const k of Object.keys(l)) if (/^[xy]axis/.test(k)) texts.push(t(l[k].title));
    for (const tr of p.data || []) if (tr.showlegend !== false && tr.name) texts.push(tr.name);
  }
  return texts.map((s) => s.replace(/<[^>]+>/g, ' ').trim()).filter((s) => s);
}"""


@pytest.mark.parametrize("name, t", CASES)
def test_a_russian_player_shows_no_english_sentence(jupyter_lab, page, screenshots, name, t):
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    try:
        report = run_all(page)
        assert report["errors"] == [], report["errors"]
        root = player_root(page)
        go_to_step(page, root, t)
        texts = root.evaluate(READ)
        step = root.locator(".stmviz-step").inner_text()
        assert any("шаг" in line or "Шаг" in line for line in step.splitlines()), step  # it says the step in Russian
        # the agent's own words (content is never translated) are quoted «…» or shown in an element's label,
        # e#<id> '<content>': what is around them is checked
        english = [s for text in texts for s in english_sentences(re.sub(r"e#[0-9a-f]{8} '.*?'(?= — |, |$)", " ",
                                                                          re.sub(r"«.*?»", " ", text, flags=re.S)))]
        assert english == [], english
        root.screenshot(path=str(screenshots / f"russian_player_{Path(name).stem}_{t}.png"))
    finally:
        close_all(page)
