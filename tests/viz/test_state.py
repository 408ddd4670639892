"""Tests of stmviz.viz.state: ω_t as blocks of width μ(e) in a bar of length V_max."""

from __future__ import annotations

import math

import plotly.graph_objects as go
import pytest
from _viz_traces import DANGEROUS, REAL_MECHANISMS, chat_trace, fold_trace, real_trace
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import Element, State, StateSpace, sizes
from stmviz.core.errors import InvalidArgumentError
from stmviz.viz import state_bar, state_figure
from stmviz.viz._common import FREE_COLOR, color_for


def type_traces(fig):
    return [d for d in fig.data if d.meta["role"] == "type"]


def free_trace(fig):
    (free,) = [d for d in fig.data if d.meta["role"] == "free"]
    return free


@pytest.mark.parametrize("t", [0, 1, 5, 12])
def test_blocks_tile_the_bar_in_canonical_order_and_free_space_fills_it(t):
    trace = chat_trace(12)
    fig = state_figure(trace, t)
    assert isinstance(fig, go.Figure)
    state = trace.state_at(t)
    blocks = sorted(
        (base, width) for d in type_traces(fig) for base, width in zip(d.base, d.x)
    )
    assert sum(w for _, w in blocks) == trace.size_of(state)
    offset = 0
    for base, width in blocks:  # contiguous, no gaps, no overlaps
        assert base == offset
        offset += width
    free = free_trace(fig)
    assert free.base[0] == offset
    assert math.isclose(free.x[0] + offset, trace.v_max)
    assert free.marker.color == FREE_COLOR
    bar = state_bar(trace, t)
    assert [b.element for b in bar.blocks] == list(state.ordered())


def test_one_bar_trace_per_type_coloured_by_type():
    trace = chat_trace(6)
    fig = state_figure(trace)
    names = [d.name for d in type_traces(fig)]
    assert names == list(dict.fromkeys(e.type for e in trace.final.ordered()))
    assert sorted(names) == ["assistant", "system", "user"]
    for d in type_traces(fig):
        assert d.marker.color == color_for(d.name)
        assert d.orientation == "h"


def test_v_max_line_is_a_named_shape():
    trace = chat_trace(6, v_max=40)
    (shape,) = [s for s in state_figure(trace, 3).layout.shapes if s.name == "V_max"]
    assert shape.x0 == shape.x1 == 40


def test_new_and_leaving_elements_are_highlighted():
    trace = chat_trace(12)
    t = 5
    new = set(trace[t - 1].added)
    leaving = set(trace[t].removed)
    assert new and leaving
    fig = state_figure(trace, t)
    bar = state_bar(trace, t)
    by_type = {d.name: d for d in type_traces(fig)}
    for kind in by_type:
        blocks = [b for b in bar.blocks if b.type == kind]
        d = by_type[kind]
        for block, width, shape in zip(blocks, d.marker.line.width, d.marker.pattern.shape):
            assert (width == 3) == (block.element in new)
            assert (shape == "/") == (block.element in leaving)
    assert {b.element for b in bar.blocks if b.new} == new
    assert {b.element for b in bar.blocks if b.leaving} == leaving


def test_first_and_final_states_have_no_previous_or_next_step():
    trace = chat_trace(4)
    assert not any(b.new for b in state_bar(trace, 0).blocks)
    assert not any(b.leaving for b in state_bar(trace, len(trace)).blocks)
    assert state_bar(trace).label == f"ω_{len(trace)}"  # default: the final state
    assert state_bar(trace, -1).label == f"ω_{len(trace)}"


def test_hover_has_label_type_size_and_shortened_escaped_content():
    trace = fold_trace(10, payload=True)
    fig = state_figure(trace, 8)
    texts = [h for d in type_traces(fig) for h in d.hovertext]
    assert texts
    bar = state_bar(trace, 8)
    for d in type_traces(fig):
        blocks = [b for b in bar.blocks if b.type == d.name]
        assert len(blocks) == len(d.hovertext)
        for block, text in zip(blocks, d.hovertext):
            assert block.element.id[:8] in text and f"· {d.name} ·" in text and f"μ = {block.size}" in text
    blob = fig.to_json()
    for bad in DANGEROUS:
        assert bad not in blob
    assert any("&lt;script&gt;" in t or "&lt;img" in t or "&lt;svg" in t or "&#34;" in t for t in texts)


def test_long_content_is_shortened_in_hover_and_labels():
    space = StateSpace(sizes.words, v_max=1000)
    omega = State([Element("word " * 300, {"t": 0, "type": "tool"})])
    fig = state_figure(omega, space_or_sizes=space)
    (d,) = type_traces(fig)
    assert len(d.hovertext[0]) < 300
    assert len(d.text[0]) <= 30


def test_a_plain_state_with_a_space_a_mapping_or_a_function():
    a, b = Element("a b c", {"t": 0, "type": "user"}), Element("d", {"t": 1, "type": "tool"})
    omega = State([a, b])
    space = StateSpace(sizes.words, v_max=10)
    fig = state_figure(omega, space_or_sizes=space, new=[b], leaving=[a])
    assert free_trace(fig).x[0] == 6
    assert state_bar(omega, space_or_sizes=space, new=[b]).blocks[1].new
    bar = state_bar(omega, space_or_sizes={a: 2.5, b: 1.5}, v_max=5)
    assert [blk.size for blk in bar.blocks] == [2.5, 1.5] and bar.free == 1
    bar = state_bar(omega, space_or_sizes=lambda e: 1.0)
    assert bar.used == 2 and bar.v_max is None and bar.free == 0
    fig = state_figure(omega, space_or_sizes=lambda e: 1.0)
    assert not [s for s in fig.layout.shapes if s.name == "V_max"]


def test_an_overfull_state_shows_no_negative_free_space():
    a = Element("a b c d e f", {"t": 0})
    bar = state_bar(State([a]), space_or_sizes={a: 6}, v_max=4)
    assert bar.used == 6 and bar.free == 0


def test_the_empty_state_is_all_free():
    fig = state_figure(State(), space_or_sizes=StateSpace(sizes.words, v_max=7))
    assert type_traces(fig) == []
    assert free_trace(fig).x[0] == 7


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (("ω",), {}, TypeError, "State or a Trace"),
        ((State(),), {}, TypeError, "space_or_sizes"),
        ((State(),), {"space_or_sizes": 3}, TypeError, "space_or_sizes"),
        ((State(), 2), {"space_or_sizes": {}}, TypeError, "leave t out"),
        ((State(),), {"space_or_sizes": {}, "v_max": -1}, ValueError, "V_max"),
        (("trace", 99), {}, IndexError, "out of range"),
        (("trace", "3"), {}, TypeError, "whole number"),
    ],
)
def test_bad_input_is_refused_clearly(args, kwargs, error, match):
    trace = chat_trace(4)
    args = tuple(trace if a == "trace" else a for a in args)
    with pytest.raises(error, match=match):
        state_figure(*args, **kwargs)


def test_missing_size_in_a_mapping_names_the_element():
    a = Element("hello", {"t": 0})
    with pytest.raises(InvalidArgumentError, match="e#"):
        state_bar(State([a]), space_or_sizes={}, v_max=3)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 9)), max_size=12, unique_by=lambda x: x[0]))
def test_property_widths_plus_free_equal_v_max(items):
    elements = [Element("x" * width, {"t": t}) for t, width in items]
    space = StateSpace(sizes.chars, v_max=200)
    bar = state_bar(State(elements), space_or_sizes=space)
    assert sum(b.size for b in bar.blocks) + bar.free == 200
    starts = [b.start for b in bar.blocks]
    assert starts == sorted(starts)
    assert [b.element.t for b in bar.blocks] == sorted(t for t, _ in items)


@pytest.mark.parametrize("name", REAL_MECHANISMS)
def test_real_mechanisms(name):
    trace = real_trace(name)
    for t in (0, len(trace) // 2, len(trace)):
        fig = state_figure(trace, t)
        used = sum(sum(d.x) for d in type_traces(fig))
        assert math.isclose(used, trace.size_of(trace.state_at(t)))
        assert math.isclose(used + free_trace(fig).x[0], trace.v_max)
        blob = fig.to_json()
        for bad in DANGEROUS:
            assert bad not in blob


BRIEF_TYPES = (
    "system", "user", "assistant", "tool",  # FIFO window
    "flash", "activation",  # SCM
    "task", "subgoal", "pair", "summary", "retrieved",  # HiAgent
    "query", "tools", "block", "latest",  # AgentFold
)


def test_every_element_type_of_the_conventions_has_its_own_colour():
    from stmviz.viz import TYPE_COLORS

    assert set(BRIEF_TYPES) <= set(TYPE_COLORS)
    assert len({TYPE_COLORS[t] for t in BRIEF_TYPES}) == len(BRIEF_TYPES)
    assert all(color_for(t) == TYPE_COLORS[t] for t in BRIEF_TYPES)


def test_unknown_types_get_a_stable_fallback_colour_across_processes():
    import os
    import subprocess
    import sys

    from stmviz.viz._common import FALLBACK_COLORS

    names = ["custom", "note", "x" * 40, "42"]
    code = f"from stmviz.viz._common import color_for; print([color_for(n) for n in {names!r}])"
    env_runs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed},
                       check=True).stdout
        for seed in ("1", "2")
    }
    assert len(env_runs) == 1
    assert all(color_for(n) in FALLBACK_COLORS for n in names)
    assert color_for(42) == color_for("42")


def test_the_plain_dicts_of_a_bar_check_their_options():
    from stmviz.viz.state import state_bar_dicts

    bar = state_bar(chat_trace(4), 2)
    # showlegend="no" went into the figure as it was
    with pytest.raises(InvalidArgumentError, match="state_bar_dicts: showlegend must be True or False, got str 'no'"):
        state_bar_dicts(bar, showlegend="no")
    with pytest.raises(InvalidArgumentError, match=r"state_bar_dicts: bar must be a StateBar \(state_bar\(trace, t\)\), got int 3"):
        state_bar_dicts(3)
    with pytest.raises(InvalidArgumentError, match=r"state_figure: new\[0\] must be an Element of ω, got str 'a'"):
        state_bar(State([Element("x")]), space_or_sizes=StateSpace(sizes.words, 10), new=["a"])
    with pytest.raises(InvalidArgumentError, match="state_figure: V_max must be a finite number > 0, got float inf"):
        state_bar(State([Element("x")]), space_or_sizes={Element("x"): 1}, v_max=math.inf)
