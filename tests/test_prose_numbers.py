"""Numbers quoted in the notebooks' prose are the ones the cells print.

Where a markdown cell quotes a value a cell prints, the value is followed by a
marker, ``135<!-- printed: above -->`` (invisible when rendered): the nearest
code cell above (or ``below``) must print that value, as a whole token, in the
executed notebook. A change that moves the number (a new scenario, a fix in a
mechanism) then fails here instead of leaving the text to contradict the output.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
MARKER = re.compile(r"([^\s(>]+?)<!-- printed: (above|below) -->")


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _printed(cell: dict) -> str:
    """Everything a code cell printed or displayed, as plain text (HTML tags dropped)."""
    parts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            parts.append(_text(output["text"]))
        data = output.get("data", {})
        if "text/plain" in data:
            parts.append(_text(data["text/plain"]))
        if "text/html" in data:
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", _text(data["text/html"]))))
    return "\n".join(parts)


def quotes(path: Path) -> list[tuple[str, str, str]]:
    """(value, where, what the cell printed) for every marked value in the notebook's prose."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for value, where in MARKER.findall(_text(cell["source"])):
            step = -1 if where == "above" else 1
            j = i + step
            while 0 <= j < len(cells) and cells[j]["cell_type"] != "code":
                j += step
            printed = _printed(cells[j]) if 0 <= j < len(cells) else ""
            found.append((value, f"{path.name}, markdown cell {i}, the code cell {where} (cell {j})", printed))
    return found


ALL = [q for path in NOTEBOOKS for q in quotes(path)]


def test_the_prose_quotes_values_with_markers():
    assert len(ALL) >= 4, "the notebooks' prose should mark the numbers it quotes from outputs"


@pytest.mark.parametrize("value, where, printed", ALL, ids=[f"{w}: {v}" for v, w, _ in ALL])
def test_a_quoted_value_is_what_the_cell_prints(value, where, printed):
    token = re.compile(r"(?<![\w.,])" + re.escape(value) + r"(?![\w]|[.,]\d)")
    assert token.search(printed), f"{where} quotes {value!r}, but that cell prints:\n{printed[:1500]}"


# ----------------------------------------------------------------- notebooks 08-11: numbers the prose states


def test_11_the_window_is_chosen_so_the_preset_compacts_where_claude_code_did():
    """Notebook 11: 95 % of the 1,700-token window (1,615) is just above the 1,611 tokens Claude Code recorded,
    and every window from 1,644 to 1,786 tokens compacts at step 11, the step before the recorded compaction's."""
    from stmviz import StateSpace, run, sizes
    from stmviz.managers import Compaction
    from stmviz.scenarios import example_transcript, load_transcript, recorded_compactions

    session = load_transcript(example_transcript("claude_code_session"))
    (real,) = recorded_compactions(session)
    assert (real.pre_tokens, real.t, round(0.95 * 1700)) == (1611, 12, 1615)

    def first_compaction(window):
        trace = run(Compaction.claude_code(StateSpace(sizes.tokens(), 2400), window=window, percent=95), session)
        return next(step.t for step in trace if "compact" in str(step.operation))

    assert [first_compaction(w) for w in (1643, 1644, 1700, 1786, 1787)] == [10, 11, 11, 11, 12]
