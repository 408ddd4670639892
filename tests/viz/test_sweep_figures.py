"""Figures of a sweep: lines per mechanism against V_max, the Pareto front of cost against quality, escaping."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stmviz import SCM, FIFOWindow
from stmviz.core.errors import InvalidArgumentError
from stmviz.sweep import sweep
from stmviz.viz import pareto_figure, pareto_front, recall_figure
from stmviz.viz.occupancy import COMPARE_COLORS
from stmviz.viz.sweep import series_of


@pytest.fixture(scope="module")
def records():
    return sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600, 1200], k=[1, 3])


def test_recall_figure_has_one_line_per_mechanism_and_setting(records):
    fig = recall_figure(records)
    assert [d.name for d in fig.data] == ["FIFOWindow", "SCM k=1", "SCM k=3"]
    for d in fig.data:
        assert list(d.x) == [300, 600, 1200]
    fifo = [r["evidence_recall"] for r in records if r["mechanism"] == "FIFOWindow"]
    assert list(fig.data[0].y) == fifo
    # one colour per mechanism, told apart by dashes within it
    assert fig.data[0].line.color == COMPARE_COLORS[0]
    assert fig.data[1].line.color == fig.data[2].line.color == COMPARE_COLORS[1]
    assert fig.data[1].line.dash != fig.data[2].line.dash
    assert recall_figure(records, "answer_recall").data[0].y == tuple(r["answer_recall"] for r in records[:3])


def test_pareto_figure_marks_the_front(records):
    fig = pareto_figure(records)
    roles = [d.meta["role"] for d in fig.data]
    assert roles == ["runs", "runs", "front"]
    front = fig.data[-1].meta["indices"]
    assert front == pareto_front(records)
    assert list(fig.data[-1].x) == [records[i]["cost"] for i in front]
    assert sum(len(d.x) for d in fig.data[:2]) == len(records)


def test_several_scenarios_name_their_lines():
    rows = sweep([FIFOWindow], ["tool_chat", "household"], v_max=[600, 1200])
    assert [d.name for d in recall_figure(rows).data] == ["FIFOWindow · tool_chat", "FIFOWindow · household"]


def test_names_are_escaped():
    rows = [
        {"mechanism": "<img src=x onerror=alert(1)>", "scenario": "<b>s</b>", "v_max": v, "evidence_recall": 0.5, "cost": v}
        for v in (1, 2)
    ]
    for fig in (recall_figure(rows), pareto_figure(rows)):
        text = fig.to_json()
        assert "<img" not in text and "<b>s" not in text
        assert "&lt;img" in text


def test_failed_and_unscored_runs_are_left_out():
    rows = [
        {"mechanism": "A", "scenario": "s", "v_max": 1, "error": "CapacityError: …"},
        {"mechanism": "A", "scenario": "s", "v_max": 2, "evidence_recall": None, "cost": 3},
        {"mechanism": "A", "scenario": "s", "v_max": 3, "evidence_recall": 0.5, "cost": 4},
    ]
    assert list(recall_figure(rows).data[0].x) == [3]
    with pytest.raises(InvalidArgumentError, match="no record has a value"):
        recall_figure(rows[:2])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: recall_figure({"a": 1}), r"recall_figure: records must be a list \(or another iterable\) of records"),
        (lambda: recall_figure([1, 2]), r"records\[0\] must be a dict \(one run of sweep\(\)\), got int 1"),
        (lambda: recall_figure([{"v_max": 1, "evidence_recall": 1}], "f1"), "measure must be one of 'evidence_recall'.*got str 'f1'"),
        (lambda: pareto_figure([{"v_max": 1, "evidence_recall": 1}]), "no record has 'cost'"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


points = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 10)), min_size=1, max_size=25)


@given(points)
def test_pareto_front_is_exactly_the_undominated_runs(pts):
    rows = [{"cost": c, "q": q / 10} for c, q in pts]
    front = set(pareto_front(rows, "q"))

    def dominated(i):
        c, q = rows[i]["cost"], rows[i]["q"]
        return any(
            o["cost"] <= c and o["q"] >= q and (o["cost"] < c or o["q"] > q) for o in rows
        )

    assert front == {i for i in range(len(rows)) if not dominated(i)}
    ordered = pareto_front(rows, "q")
    costs = [rows[i]["cost"] for i in ordered]
    assert costs == sorted(costs)
    for a, b in itertools.pairwise(ordered):
        assert rows[a]["q"] <= rows[b]["q"]


ROWS = [{"mechanism": "A", "scenario": "s", "v_max": 1, "cost": 5, "evidence_recall": 0.2}]


@pytest.mark.parametrize("call, words", [
    # "v_max" passed usable_records' check and then failed as MEASURES["v_max"]: a raw KeyError
    (lambda: recall_figure(ROWS, "v_max"), "recall_figure: measure must be one of 'evidence_recall'"),
    (lambda: pareto_figure(ROWS, "v_max"), "pareto_figure: quality must be one of 'evidence_recall'"),
    (lambda: pareto_figure(ROWS, cost="tokens"), "pareto_figure: cost must be one of"),
    # a record that is no dict was read with .get(): a raw AttributeError
    (lambda: pareto_front([1]), r"pareto_front: records\[0\] must be a dict \(one run of sweep\(\)\), got int 1"),
    (lambda: pareto_front(5), r"pareto_front: records must be a list \(or another iterable\)"),
    (lambda: series_of(3), r"series_of: record must be a dict \(one run of sweep\(\)\), got int 3"),
    (lambda: series_of(ROWS[0], several_scenarios="yes"), "series_of: several_scenarios must be True or False, got str 'yes'"),
])
def test_bad_arguments_are_named_not_met_as_raw_errors(call, words):
    with pytest.raises(InvalidArgumentError, match=words):
        call()


def test_the_cost_axis_may_be_v_max():
    fig = pareto_figure(ROWS, cost="v_max")
    assert list(fig.data[0].x) == [1]
