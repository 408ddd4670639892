"""Tests of stmviz.widgets.compare: several traces of one scenario stepped together."""

from __future__ import annotations

import json

import ipywidgets as widgets
import pytest

from stmviz import StateSpace, run, sizes
from stmviz.core.mechanism import ExampleMechanism
from stmviz.widgets import ComparePlayer, compare_player
from stmviz.widgets.compare import PANEL_MIN_WIDTH

PAYLOAD = "<script>alert(1)</script>"


def traces(n=8, payload=None):
    steps = [payload or f"step {i} " + "w " * (i % 3) for i in range(n)]
    return {
        "V_max = 6": run(ExampleMechanism(StateSpace(sizes.words, v_max=6)), steps),
        "V_max = 20": run(ExampleMechanism(StateSpace(sizes.words, v_max=20)), steps),
    }


def marker_x(view):
    (m,) = [d for d in view.occupancy.data if (d.meta or {}).get("role") == "marker"]
    return list(m.x)


def test_one_slider_moves_every_panel():
    runs = traces()
    board = compare_player(runs)
    assert isinstance(board, ComparePlayer) and board.names == list(runs)
    ids = [(id(v.occupancy), id(v.state)) for v in board.views]
    board.slider.value = 5
    for view, trace in zip(board.views, runs.values()):
        assert marker_x(view) == [5]
        assert view.state.layout.title.text.startswith("ω_5")
        assert f"{trace.size_at(5):g}" in view.state.layout.title.text
    assert [(id(v.occupancy), id(v.state)) for v in board.views] == ids
    # the two panels really differ: the small window has evicted
    sizes_5 = [sum(sum(d.x) for d in v.state.data if d.name != "free") for v in board.views]
    assert sizes_5[0] < sizes_5[1]


def test_buttons_and_clamping_with_different_lengths():
    short = run(ExampleMechanism(StateSpace(sizes.words, v_max=6)), ["a", "b", "c"])
    long = run(ExampleMechanism(StateSpace(sizes.words, v_max=6)), ["a", "b", "c", "d", "e", "f"])
    board = ComparePlayer([short, long])
    assert board.names == ["example", "example (2)"] and board.slider.max == 6
    for _ in range(10):
        board.next_button.click()
    assert board.t == 6 and board.next_button.disabled
    assert [v.t for v in board.views] == [3, 6]  # the short run stays at its final state
    board.back_button.click()
    assert [v.t for v in board.views] == [3, 5]


def test_escaping_and_static_fallback():
    board = compare_player(traces(4, PAYLOAD))
    board.slider.value = 3
    for view in board.views:
        assert "<script>" not in view.info.value
        assert "<script>" not in view.state.to_json()
    bundle = board._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "<script" not in bundle["text/html"] and "cdn.plot.ly" not in bundle["text/html"]
    figure = bundle["application/vnd.plotly.v1+json"]
    blob = json.dumps(figure)
    assert "<script>" not in blob and "cdn.plot.ly" not in blob
    assert [s["x0"] for s in figure["layout"]["shapes"]] == [v.t for v in board.views]  # each panel's t
    assert board.static_html(include_plotlyjs="cdn").count("cdn.plot.ly") == 1  # only when asked


def test_panels_wrap_in_a_grid_of_min_width_columns():
    board = compare_player(traces(4))
    assert isinstance(board.grid, widgets.GridBox) and list(board.grid.children) == board.panels
    columns = board.grid.layout.grid_template_columns
    assert "auto-fit" in columns and f"{PANEL_MIN_WIDTH}px" in columns and "/ 2)" in columns  # 2 runs: at most 2 per row
    assert "/ 1)" in compare_player(traces(4), columns=1).grid.layout.grid_template_columns
    assert board.fit in board.children
    for view in board.views:
        for fig in view.figures():
            assert fig.layout.width is None and fig._config.get("responsive") is True


def test_bad_inputs():
    runs = traces(3)
    with pytest.raises(TypeError, match="several traces"):
        compare_player(runs["V_max = 6"])
    with pytest.raises(ValueError, match="at least one"):
        compare_player([])
    with pytest.raises(TypeError, match=r"traces\['b'\] must be a Trace, got int 3"):
        compare_player({"a": runs["V_max = 6"], "b": 3})
    with pytest.raises(ValueError, match="columns"):
        compare_player(runs, columns=0)


def test_every_panel_says_the_step_in_words():
    from stmviz import AgentStep

    steps = [
        AgentStep(observation="Hi <script>alert(1)</script>", meta={"role": "user"}),
        AgentStep(thought="Hello!", observation="Bye.", meta={"role": "user"}),
    ]
    runs = {
        "small": run(ExampleMechanism(StateSpace(sizes.words, v_max=3)), steps),
        "large": run(ExampleMechanism(StateSpace(sizes.words, v_max=50)), steps),
    }
    board = compare_player(runs)
    for view in board.views:
        assert "step 0: no model call at this step: the user spoke first" in view.info.value
        assert "“Hi &lt;script&gt;alert(1)&lt;/script&gt;”" in view.info.value
        assert PAYLOAD not in view.info.value
    board.slider.value = 1
    for view, trace in zip(board.views, runs.values()):
        expected = f"step 1: the model saw π(ω_1) ({trace[1].input_size} tokens) and answered “Hello!”"
        assert expected in view.info.value
        assert "then arrived the user message “Bye.”, seen from π(ω_2) on" in view.info.value


def test_every_panel_has_one_fixed_x_range_while_stepping():
    """The panels of a comparison share one x-range (the longest run's 0 … n) at every t; it was each panel's
    own autorange, different at the same t (and moving with the marker)."""
    short = run(ExampleMechanism(StateSpace(sizes.words, v_max=6)), ["a", "b", "c"])
    long = run(ExampleMechanism(StateSpace(sizes.words, v_max=6)), ["a", "b", "c", "d", "e", "f", "g", "h"])
    board = ComparePlayer([short, long, long, short])
    seen = set()
    for t in range(board.n + 1):
        board.t = t
        panels = {tuple(v.occupancy.layout.xaxis.range) for v in board.views}
        assert len(panels) == 1 and all(v.occupancy.layout.xaxis.autorange is False for v in board.views), (t, panels)
        seen |= panels
    assert len(seen) == 1
    low, high = seen.pop()
    assert low < 0 and 8 < high <= 9
    static = board.static_figure()
    axes = [static.layout[key] for key in static.layout if key.startswith("xaxis")]
    assert {tuple(axis.range) for axis in axes} == {(low, high)}
