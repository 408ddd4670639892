"""Notebook 00's worked example: the checker it runs tells each try's fault apart, as the notebook's prose says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from wrong_answers import assert_exactly

from stmviz.exercises import check_room_left
from stmviz.exercises.start import ROOM_CRITERIA

TRIES = [
    ("counts the elements (the notebook's first try)", lambda sizes, v_max: v_max - len(sizes),
     {"the total size": "the number of elements is not their size"}),
    ("negative room (the notebook's second try)", lambda sizes, v_max: v_max - sum(sizes),
     {"never below 0": "clip at zero"}),
    ("the distinct sizes", lambda sizes, v_max: max(v_max - sum(set(sizes)), 0),
     {"the total size": "add up the sizes"}),
    ("the used room, not the free", lambda sizes, v_max: sum(sizes),
     {"the total size": "add up the sizes", "the empty state": "the room is V_max"}),
    ("a sentence", lambda sizes, v_max: f"{v_max - sum(sizes)} tokens left", {"a number": "return the room as a number"}),
    ("nothing fits when empty", lambda sizes, v_max: max(v_max - sum(sizes), 0) if sizes else 0,
     {"the empty state": "the room is V_max"}),
]


@pytest.mark.parametrize("thought, answer, faults", TRIES, ids=[t[0] for t in TRIES])
def test_a_wrong_try_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_room_left(answer), faults, ROOM_CRITERIA)


def test_the_fix_passes_and_the_notebook_shows_each_kind_of_line():
    assert check_room_left(lambda sizes, v_max: max(v_max - sum(sizes), 0)).ok
    nb = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))
    shown = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"])
    for mark in ("  ✗ ", "hint:", "  · ", "every criterion is met ✓"):
        assert mark in shown, f"notebook 00's worked example should show {mark!r}"
