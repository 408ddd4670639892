"""Notebooks 00-03 as a student meets them: a screen of prose at most before the first code cell, two checked
exercises in each of 01-03 with a prediction first, placed before the cell whose output it predicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from stmviz import course

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ["00_start_here", "01_definition1_state_space", "02_definition2_mechanism", "03_fifo_context_window"]
PREDICTIONS = {"01": "check_which_fit", "02": "check_window_prediction", "03": "check_eviction_prediction"}


@pytest.mark.parametrize("name", NAMES)
def test_at_most_a_screen_of_prose_before_the_first_code_cell(name):
    nb = course.read_source(NOTEBOOKS / f"{name}.md")
    first = next(k for k, c in enumerate(nb.cells) if c.cell_type == "code")
    lines = sum(len(c.source.splitlines()) for c in nb.cells[:first])
    assert lines <= 25, f"{name}: {lines} lines of Markdown before the first code cell"


@pytest.mark.parametrize("name", NAMES[1:])
def test_two_exercises_the_first_a_prediction_before_its_run(name):
    nb = course.read_source(NOTEBOOKS / f"{name}.md")
    found = course.find_exercises(nb, name)
    assert len(found) >= 2
    prediction = found[0]
    assert prediction.checker == PREDICTIONS[name[:2]]
    # the cell after the key's Markdown cell runs what was predicted: the prediction comes first
    ran = nb.cells[prediction.checker_cell + 2]
    assert ran.cell_type == "code" and ("run(" in ran.source or "in space20" in ran.source)
