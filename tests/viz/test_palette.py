"""One colour per element type across every shipped mechanism and manager (issue 34, item 5).

07's and 11's side-by-side figures drew "message" (SCM) and "pair" (HiAgent) in one colour, and "summary_message",
"compaction", "core" (and SCM's "activation") in another; a type name declared by several classes ("summary",
"block") had a different colour in each, so it changed colour between the panels of a comparison.
"""

from __future__ import annotations

import itertools

import pytest

from stmviz import managers, mechanisms
from stmviz.core.mechanism import Mechanism
from stmviz.protocol import types_of
from stmviz.viz._common import UNTYPED_COLOR

#: Two colours closer than this (Euclidean distance in RGB, 0 … 441) are hard to tell apart in a legend.
MIN_DISTANCE = 25

CLASSES = [mechanisms.AgentFold, mechanisms.FIFOWindow, mechanisms.SCM, mechanisms.HiAgent] + [
    c for c in (getattr(managers, name) for name in managers.__all__) if isinstance(c, type) and issubclass(c, Mechanism)
]


def _rgb(colour: str) -> tuple[int, int, int]:
    assert colour.startswith("#") and len(colour) == 7, colour
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def _declared() -> dict[str, dict[str, str]]:
    """type name → {class name: declared colour}."""
    out: dict[str, dict[str, str]] = {}
    for cls in CLASSES:
        for name, declared in types_of(cls).items():
            assert declared.color, f"{cls.__name__} declares {name!r} without a colour"
            out.setdefault(name, {})[cls.__name__] = declared.color.lower()
    return out


def test_a_type_name_has_one_colour_in_every_class_that_declares_it():
    for name, colours in _declared().items():
        assert len(set(colours.values())) == 1, f"{name!r} has several colours: {colours}"


def test_distinct_types_have_distinct_colours_that_read_apart():
    colours = {name: next(iter(by_class.values())) for name, by_class in _declared().items()}
    colours["element (untyped)"] = UNTYPED_COLOR
    assert len(CLASSES) >= 12 and len(colours) >= 20
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        distance = sum((x - y) ** 2 for x, y in zip(_rgb(ca), _rgb(cb))) ** 0.5
        assert distance >= MIN_DISTANCE, f"{a!r} {ca} and {b!r} {cb} are too alike ({distance:.0f})"


@pytest.mark.parametrize("pair", [("SCM", "HiAgent"), ("LangChainSummarization", "FIFOWindow"), ("LettaMemory", "HiAgent")])
def test_a_comparison_figure_draws_each_type_in_its_declared_colour(pair):
    """In a side-by-side occupancy figure every type keeps one colour in every panel, and no two types share one."""
    from stmviz import StateSpace, load_scenario, run, sizes
    from stmviz.viz import occupancy_figure

    scenario = load_scenario("household")
    classes = {c.__name__: c for c in CLASSES}
    traces = {name: run(classes[name](StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario) for name in pair}
    fig = occupancy_figure(traces, layout="side")
    by_type: dict[str, set[str]] = {}
    for d in fig.data:
        if (d.meta or {}).get("role") == "type":
            by_type.setdefault(d.meta["type"], set()).add(d.line.color)
    assert all(len(c) == 1 for c in by_type.values()), by_type
    firsts = [next(iter(c)) for c in by_type.values()]
    assert len(set(firsts)) == len(firsts), by_type


def _paper_traces():
    import stmviz
    from stmviz import StateSpace, load_scenario, run, sizes

    scenario = load_scenario("household")
    return {name: run(getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
            for name in ("FIFOWindow", "SCM", "HiAgent", "AgentFold")}


def test_one_marker_per_kind_of_removal_and_every_marker_in_the_legend():
    """07's side-by-side figure showed one marker in its legend ("removed by append", a red ×) though HiAgent's
    "removed by observe" had the same ×, and six kinds of removal marker had no legend entry."""
    from stmviz.viz import occupancy_figure

    fig = occupancy_figure(_paper_traces(), layout="side")
    removals = [d for d in fig.data if (d.meta or {}).get("role") == "removals"]
    kinds = {d.meta["marker"]: (d.marker.symbol, d.marker.color) for d in removals}
    assert len(kinds) >= 6
    assert len(set(kinds.values())) == len(kinds), kinds  # distinct kinds, distinct markers
    assert len({symbol for symbol, _ in kinds.values()}) == len(kinds), kinds  # told apart by shape alone too
    shown = {d.meta["marker"] for d in removals if d.showlegend is not False}
    assert shown == set(kinds), set(kinds) - shown
    assert sum(1 for d in removals if d.showlegend is not False) == len(kinds)  # each once


def test_the_compare_player_marks_a_kind_of_removal_alike_in_every_panel():
    from stmviz.widgets import compare_player

    board = compare_player(_paper_traces())
    markers: dict[str, set] = {}
    for view in board.views:
        for d in view.occupancy.data:
            if (d.meta or {}).get("role") == "removals":
                markers.setdefault(d.meta["marker"], set()).add((d.marker.symbol, d.marker.color))
    assert all(len(m) == 1 for m in markers.values()), markers
    firsts = [next(iter(m)) for m in markers.values()]
    assert len(set(firsts)) == len(firsts), markers


def test_one_operation_removed_in_two_kinds_in_two_panels_is_named_with_its_kind_in_each():
    """FIFO's ``append`` evicts; Letta's ``append`` replaces in place (its summary): side by side, the legend showed
    "removed by append" twice, as a × and as a ◆ (found by tests/browser/test_legends.py in 11)."""
    from stmviz import FIFOWindow, LettaMemory, StateSpace, load_scenario, run, sizes
    from stmviz.viz import occupancy_figure

    chat = load_scenario("long_dialogue")
    space = StateSpace(sizes.tokens(), 8000)
    traces = {"FIFO": run(FIFOWindow(StateSpace(sizes.tokens(), 1200)), chat),
              "Letta": run(LettaMemory(space, context_window=1600), chat)}
    shapes: dict[str, set[str]] = {}
    for d in occupancy_figure(traces, layout="side").data:
        if d.meta and d.meta.get("role") == "removals":
            shapes.setdefault(d.name, set()).add(d.marker.symbol)
    assert all(len(s) == 1 for s in shapes.values()), shapes
    symbols = [next(iter(s)) for s in shapes.values()]
    assert len(set(symbols)) == len(symbols), shapes
    assert {"removed by append (dropped)", "removed by append (replaced in place)"} <= set(shapes), shapes
