"""SweepExplorer: a V_max slider over a finished sweep updates the bars and the table in place."""

from __future__ import annotations

import pytest

from stmviz import SCM, FIFOWindow, HiAgent
from stmviz.core.errors import InvalidArgumentError
from stmviz.sweep import sweep
from stmviz.widgets import SweepExplorer


@pytest.fixture(scope="module")
def records():
    return sweep([FIFOWindow, SCM, HiAgent], "household", v_max=[300, 600, 1200])


def test_slider_moves_the_bars_and_the_table(records):
    explorer = SweepExplorer(records)
    assert explorer.series == ["FIFOWindow", "SCM", "HiAgent"]
    assert [v for _, v in explorer.slider.options] == [300, 600, 1200]
    for v_max in (1200, 600, 300):
        explorer.slider.value = v_max
        expected = [r["evidence_recall"] for r in records if r["v_max"] == v_max]
        assert list(explorer.figure.data[0].y) == expected
        assert f"V_max = {v_max:,}" in explorer.figure.layout.title.text or str(v_max) in explorer.figure.layout.title.text
        costs = [r["cost"] for r in records if r["v_max"] == v_max]
        assert all(f"{c:,}" in explorer.table.value or str(c) in explorer.table.value for c in costs)


def test_measure_and_start(records):
    explorer = SweepExplorer(records, measure="cost", v_max=600)
    assert list(explorer.figure.data[0].y) == [r["cost"] for r in records if r["v_max"] == 600]
    explorer.show(1200)
    assert explorer.slider.value == 1200
    assert list(explorer.figure.data[0].y) == [r["cost"] for r in records if r["v_max"] == 1200]


def test_a_line_missing_at_a_v_max_shows_nothing_there():
    rows = [
        {"mechanism": "A", "scenario": "s", "v_max": 1, "evidence_recall": 0.1, "cost": 1},
        {"mechanism": "A", "scenario": "s", "v_max": 2, "evidence_recall": 0.2, "cost": 2},
        {"mechanism": "B", "scenario": "s", "v_max": 2, "evidence_recall": 0.3, "cost": 3},
    ]
    explorer = SweepExplorer(rows)
    assert list(explorer.figure.data[0].y) == [0.1, None]
    assert "—" in explorer.table.value


def test_names_are_escaped():
    rows = [{"mechanism": "<script>x</script>", "scenario": "s", "v_max": 1, "evidence_recall": 0.5, "cost": 1}]
    explorer = SweepExplorer(rows)
    assert "<script>" not in explorer.table.value and "&lt;script&gt;" in explorer.table.value
    assert "<script>" not in explorer.figure.to_json()


def test_unknown_start_is_an_error(records):
    with pytest.raises(InvalidArgumentError, match="not one of the sweep's"):
        SweepExplorer(records, v_max=999)


ROWS = [{"mechanism": m, "scenario": "s", "v_max": v, "evidence_recall": r, "cost": c}
        for m, v, r, c in (("A", 100, 0.2, 5), ("A", 200, 0.4, 9))]


def test_a_measure_outside_the_figures_list_is_refused_up_front():
    # "v_max" passed usable_records and failed later as MEASURES["v_max"]: a raw KeyError
    with pytest.raises(InvalidArgumentError, match="SweepExplorer: measure must be one of 'evidence_recall'.*got str 'v_max'"):
        SweepExplorer(ROWS, "v_max")


def test_show_refuses_a_v_max_the_sweep_did_not_run():
    explorer = SweepExplorer(ROWS)
    explorer.show(200.0)  # the same number as a float
    assert explorer.slider.value == 200
    # the slider raised traitlets' TraitError ("Invalid selection: value not found")
    with pytest.raises(InvalidArgumentError, match=r"SweepExplorer.show: V_max = 7 is not one of the sweep's \(100, 200\)"):
        explorer.show(7)
    with pytest.raises(InvalidArgumentError, match="SweepExplorer.show: v_max must be a finite number, got str '100'"):
        explorer.show("100")
    with pytest.raises(InvalidArgumentError, match="SweepExplorer: V_max = 300 is not one of"):
        SweepExplorer(ROWS, v_max=300)
