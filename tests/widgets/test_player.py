"""Tests of stmviz.widgets.player: TracePlayer driven from Python (slider, buttons, in-place updates)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import ipywidgets as widgets
import plotly.graph_objects as go
import pytest

from stmviz import StateSpace, run, sizes
from stmviz.core.mechanism import ExampleMechanism
from stmviz.viz._common import escape, shorten
from stmviz.viz.state import state_figure
from stmviz.widgets import FitWidth, TracePlayer, TraceView, step_html

_spec = importlib.util.spec_from_file_location("_stmviz_hierarchy_fixtures", Path(__file__).parents[1] / "viz" / "test_hierarchy.py")
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)

PAYLOAD = fixtures.PAYLOAD
DANGEROUS = ("<script>alert", "<img src=x", 'onerror="alert')


def fifo_trace(n=12, payload=None):
    steps = [payload or f"message {i} " + "word " * (i % 4) for i in range(n)]
    return run(ExampleMechanism(StateSpace(sizes.words, v_max=10)), steps)


def marker(player):
    data = [d for d in player.occupancy.data if (d.meta or {}).get("role") == "marker"]
    assert len(data) == 1
    return data[0]


def step_shape(player):
    (shape,) = [s for s in player.occupancy.layout.shapes if s.name == "step"]
    return shape


def test_layout_and_controls():
    trace = fifo_trace()
    player = TracePlayer(trace)
    assert isinstance(player, widgets.VBox)
    assert isinstance(player.play, widgets.Play) and isinstance(player.slider, widgets.IntSlider)
    assert (player.slider.min, player.slider.max, player.play.max) == (0, len(trace), len(trace))
    for fig in (player.occupancy, player.state):
        assert isinstance(fig, go.FigureWidget)
    assert player.hierarchy is None  # a FIFO trace has no hierarchy
    assert isinstance(player.info, widgets.HTML) and isinstance(player.tokens, widgets.HTML)
    # every part is a descendant of the layout
    def walk(w):
        yield w
        for c in getattr(w, "children", ()):
            yield from walk(c)
    inside = list(walk(player))
    for part in (player.play, player.slider, player.back_button, player.next_button, player.occupancy, player.state, player.info, player.tokens):
        assert any(part is w for w in inside)


def test_slider_moves_marker_and_state_in_place():
    trace = fifo_trace()
    player = TracePlayer(trace)
    ids = [id(player.occupancy), id(player.state), id(player.info), id(player.tokens)]
    ids_traces = [id(player.occupancy.data[0])]
    for t in (5, 12, 0, 7):
        player.slider.value = t
        assert list(marker(player).x) == [t] and list(marker(player).y) == [trace.size_at(t)]
        assert step_shape(player).x0 == t == step_shape(player).x1
        assert player.state.layout.title.text.startswith(f"ω_{t}: Σμ = ")
        assert [id(player.occupancy), id(player.state), id(player.info), id(player.tokens)] == ids
        assert id(player.occupancy.data[0]) == ids_traces[0]
        assert f"ω<sub>{t}</sub>" in player.info.value
        shown = {txt for d in player.state.data if d.meta["role"] == "type" for txt in (d.text or ())}
        assert shown == {escape(shorten(e.text, 30)) for e in trace.state_at(t)}


def test_state_bar_matches_state_figure_after_moves():
    """The in-place update writes what state_figure(trace, t) would draw."""
    trace = fixtures.hiagent_trace()
    player = TracePlayer(trace)
    for t in (3, 8, 1, 5):
        player.slider.value = t
        want = {d.name: d for d in state_figure(trace, t).data if d.meta["role"] != "legend"}
        got = {d.name: d for d in player.state.data if d.meta["role"] != "legend"}
        for name, d in want.items():
            g = got[name]
            assert set(g.y) <= {"ω_t"}  # the player keeps one row; the title names ω_t
            for key in ("x", "base", "text", "hovertext"):
                assert list(getattr(g, key)) == list(getattr(d, key)), (t, name, key)
            if name != "free":
                assert list(g.marker.line.color) == list(d.marker.line.color)
                assert list(g.marker.pattern.shape) == list(d.marker.pattern.shape)
        # types absent from ω_t have empty traces
        for name, g in got.items():
            if name not in want:
                assert len(g.x) == 0
        assert player.state.layout.title.text == state_figure(trace, t).layout.title.text
        assert player.state.layout.title.subtitle.text == state_figure(trace, t).layout.title.subtitle.text
        # the legend explains the code: one plain swatch per type of the whole run, then new and leaving
        legend = [d for d in player.state.data if d.meta["role"] == "legend"]
        assert [d.name for d in legend][-2:] == ["new in ω_t (thick outline)", "removed by step t (hatched)"]
        assert {d.name for d in legend[:-2]} == {e.type for e in trace.sizes}
        assert not any(d.showlegend for d in player.state.data if d.meta["role"] == "type")


def test_buttons_move_one_step_and_clamp():
    trace = fifo_trace(5)
    player = TracePlayer(trace)
    assert player.back_button.disabled and not player.next_button.disabled
    player.back_button.click()
    assert player.slider.value == 0
    for expected in (1, 2, 3, 4, 5, 5, 5):
        player.next_button.click()
        assert player.slider.value == expected
        assert list(marker(player).x) == [expected]
    assert player.next_button.disabled
    player.back_button.click()
    assert player.slider.value == 4 and not player.next_button.disabled
    player.t = 99  # the t property clamps too
    assert player.t == 5
    assert player.step(-2) == 3


def test_info_shows_operation_and_reasons():
    trace = fifo_trace(12)
    t = next(i + 1 for i, s in enumerate(trace) if s.removed)
    player = TracePlayer(trace, t=t)
    assert "oldest element" in player.info.value and "removed" in player.info.value
    assert "append" in player.info.value
    player.slider.value = 0
    assert "initial state" in player.info.value
    with pytest.raises(IndexError):
        step_html(trace, len(trace) + 1)


def test_payloads_are_escaped_everywhere():
    for trace in (fifo_trace(6, PAYLOAD), fixtures.fold_trace([None, None, 0, None], payload=PAYLOAD), fixtures.hiagent_trace(PAYLOAD)):
        player = TracePlayer(trace)
        for t in range(len(trace) + 1):
            player.slider.value = t
            for html in (player.info.value, player.tokens.value):
                assert not any(bad in html for bad in DANGEROUS), html
            for fig in player.figure_widgets:
                blob = json.dumps(fig.to_plotly_json(), default=str)
                assert not any(bad in blob for bad in DANGEROUS)
        static = player.static_html(include_plotlyjs=False)
        assert not any(bad in static for bad in DANGEROUS)


def test_hierarchy_updates_in_place_for_agentfold_and_hiagent():
    trace = fixtures.fold_trace([None, None, None, None, 1, None, 0])
    player = TracePlayer(trace)
    fig = player.hierarchy
    assert isinstance(fig, go.FigureWidget)
    before = id(fig), id(fig.data[1])
    seen = set()
    for t in range(len(trace) + 1):
        player.slider.value = t
        nodes = fig.data[1]
        g = fixtures.hierarchy_graph(trace, t)
        assert len(nodes.x) == g.number_of_nodes()
        assert f"ω_{t}" in fig.layout.title.text
        seen.add(len(nodes.x))
        assert (id(fig), id(fig.data[1])) == before
    assert len(seen) > 2  # the data did change
    assert TracePlayer(fixtures.hiagent_trace()).hierarchy is not None
    assert TracePlayer(fifo_trace(), hierarchy=True).hierarchy is not None  # forced: a flat graph


def test_playing_keeps_the_token_view_up_when_it_is_fast():
    trace = fifo_trace(8)
    player = TracePlayer(trace)
    assert player.view.tokens_fast  # a short π renders in far less than 50 ms
    player.play.playing = True
    player.slider.value = 6
    assert player.view.tokens_t == 6 and list(marker(player).x) == [6]
    assert player.tokens.value == player.view._tokens(6)
    assert "π(ω<sub>6</sub>)" in player.tokens_header.value and "pause" not in player.tokens_header.value


def test_playing_says_when_a_slow_token_view_waits_for_a_pause(monkeypatch):
    from stmviz.widgets import player as module

    monkeypatch.setattr(module, "TOKEN_PLAY_BUDGET_S", 0.0)  # every token view counts as slow
    trace = fifo_trace(8)
    player = TracePlayer(trace)
    first = player.tokens.value
    player.play.playing = True
    player.slider.value = 6
    assert player.tokens.value == first and list(marker(player).x) == [6]
    header = player.tokens_header.value
    assert "π(ω<sub>0</sub>)" in header and "t = 6" in header and "updates when you pause" in header
    player.play.playing = False
    assert player.tokens.value != first and player.view.tokens_t == 6
    assert "π(ω<sub>6</sub>)" in player.tokens_header.value and "pause" not in player.tokens_header.value


def test_play_and_slider_are_linked_in_the_kernel():
    # a kernel-side link: the slider (its readout) changes in the same round as the panels, never ahead of them
    player = TracePlayer(fifo_trace(8))
    player.play.value = 4
    assert player.slider.value == 4 and list(marker(player).x) == [4]
    player.slider.value = 2
    assert player.play.value == 2


def test_figures_fill_their_container():
    player = TracePlayer(fixtures.fold_trace([None, None, 0, None]))
    assert isinstance(player.fit, FitWidth) and player.fit in player.children
    assert "ResizeObserver" in player.fit._esm and "plotlywidget-after-render" in player.fit._esm
    for fig in player.figure_widgets:
        assert fig.layout.width is None and fig._config.get("responsive") is True


def test_mimebundle_has_widget_view_and_offline_static_fallbacks():
    player = TracePlayer(fifo_trace(4))
    player.slider.value = 2
    bundle = player._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == player.model_id
    assert bundle["text/plain"] == repr(player) and "ω_2" in bundle["text/plain"]
    html = bundle["text/html"]
    assert "t = 2 of 4" in html and "stmviz-token" in html
    assert "<script" not in html and "cdn.plot.ly" not in html  # nothing to run, nothing to fetch
    figure = bundle["application/vnd.plotly.v1+json"]
    blob = json.dumps(figure)
    assert "cdn.plot.ly" not in blob and "t = 2 of 4" in figure["layout"]["title"]["text"]
    roles = [(d.get("meta") or {}).get("role") for d in figure["data"]]
    assert "marker" in roles and "type" in roles and "free" in roles  # the occupancy with its marker, and ω_2's bar
    assert [d for d in figure["data"] if (d.get("meta") or {}).get("role") == "marker"][0]["x"] == [2]
    assert "cdn.plot.ly" in player.static_html(include_plotlyjs="cdn")  # only when asked


def test_bad_inputs():
    with pytest.raises(TypeError, match="TracePlayer needs a Trace"):
        TracePlayer([1, 2, 3])
    with pytest.raises(TypeError, match="whole number"):
        TracePlayer(fifo_trace(3), t=1.5)
    assert TracePlayer(fifo_trace(3), t=50).t == 3  # clamped
    empty = run(ExampleMechanism(StateSpace(sizes.words, v_max=10)), [])
    player = TracePlayer(empty)
    assert player.slider.max == 0 and player.next_button.disabled



def test_options_read_by_truthiness_are_flags_now():
    """tokens='no' showed the tokens and include_plotlyjs=3 embedded the figures: each is named instead."""
    from stmviz.core.errors import InvalidArgumentError, InvalidIndexError
    from stmviz.widgets.live_figure import figure_widget

    player = TracePlayer(fifo_trace(4))
    with pytest.raises(InvalidArgumentError, match="TraceView.show: tokens must be True or False, got str 'no'"):
        player.view.show(2, tokens="no")
    with pytest.raises(InvalidArgumentError, match=r"TraceView.static_html: include_plotlyjs must be True, False or a str"):
        player.static_html(3)
    with pytest.raises(InvalidArgumentError, match="figures must be True, False or None"):
        player.view.static_html("cdn", figures="yes")
    assert "cdn.plot.ly" not in player.static_html("")  # an empty str is plotly's "no plotly.js": no figures
    with pytest.raises(InvalidArgumentError, match="figure_widget: figure must be a plotly Figure, got str 'x'"):
        figure_widget("x")  # plotly's own ValueError before
    with pytest.raises(InvalidIndexError, match=r"TracePlayer: t must be a whole number, got str '2'; pass t = 0 … 4"):
        player.t = "2"

def test_trace_view_alone_and_loaded_trace():
    trace = fifo_trace(6)
    view = TraceView(trace, 2, tokens=False)
    view.show(4)
    assert view.t == 4 and view.tokens is None
    loaded = type(trace).from_json(trace.to_json())
    player = TracePlayer(loaded)
    player.slider.value = 3
    assert list(marker(player).x) == [3]


@pytest.mark.parametrize("name", ["AgentFold", "HiAgent"])
def test_real_mechanisms(name):
    from stmviz import mechanisms
    from stmviz.contract import sample_steps

    trace = run(getattr(mechanisms, name)(StateSpace(sizes.words, 5000)), sample_steps(30), query="q", tools=("search",))
    player = TracePlayer(trace)
    assert player.hierarchy is not None
    for t in (10, 30, 3):
        player.slider.value = t
        assert list(marker(player).x) == [t]
        assert len(player.hierarchy.data[1].x) == fixtures.hierarchy_graph(trace, t).number_of_nodes()


def dialogue_trace():
    from stmviz import AgentStep

    steps = [
        AgentStep(observation="Hi, I am <script>alert(1)</script> Ada.", meta={"role": "user"}),
        AgentStep(thought="Hello <b>Ada</b>!", action="lookup('Ada')", observation="Ada: a user", meta={"role": "tool"}),
        AgentStep(thought="Nice to meet you."),
    ]
    return run(ExampleMechanism(StateSpace(sizes.words, v_max=50)), steps)


def test_the_label_says_what_the_model_saw_and_answered_at_every_t():
    trace = dialogue_trace()
    player = TracePlayer(trace, tokens=False)
    said = []
    for t in range(len(trace) + 1):
        player.slider.value = t
        said.append(player.info.value)
    assert "step 0: no model call at this step: the user spoke first" in said[0]
    assert "then arrived the user message “Hi, I am &lt;script&gt;alert(1)&lt;/script&gt; Ada.”" in said[0]
    assert f"step 1: the model saw π(ω_1) ({trace[1].input_size} tokens) and answered “Hello &lt;b&gt;Ada&lt;/b&gt;!" in said[1]
    assert "then arrived the tool result “Ada: a user”, seen from π(ω_2) on" in said[1]
    assert f"step 2: the model saw π(ω_2) ({trace[2].input_size} tokens) and answered “Nice to meet you.”" in said[2]
    assert "no input arrived after it" in said[2]
    assert f"ω_3 is the final state: the next model call would see π(ω_3) ({trace.final_input_size} tokens)" in said[3]
    for html in said:
        for bad in DANGEROUS:
            assert bad not in html


def test_the_step_text_has_a_fixed_height_and_long_reasons_are_whole_on_demand():
    """The step text above the charts scrolls in a box of fixed height (the charts do not move while Play runs);
    a removal reason too long for a line shows its start and, in a <details>, the whole of it."""
    from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
    from stmviz.widgets import TracePlayer
    from stmviz.widgets.player import REASON_CHARS, STEP_TEXT_HEIGHT, step_html

    scenario = load_scenario("web_research")
    trace = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    player = TracePlayer(trace)
    assert player.info.layout.height == STEP_TEXT_HEIGHT and player.info.layout.overflow == "hidden scroll"
    long = [(t, why) for t in range(len(trace)) for why in trace[t].reasons if len(why) > REASON_CHARS]
    assert long, "the scenario should have a long removal reason"
    t, why = long[0]
    html = step_html(trace, t + 1)
    from stmviz.viz import escape
    assert "<details" in html and escape(why) in html, html


def test_the_step_text_lists_every_removed_element_collapsed_when_many():
    """A step that removed more elements than max_items lists every one of them, in a collapsed <details>, each
    with its reason (it was cut at 8 with "… (+3)"); few are listed in the open; the "next:" line comes before."""
    from stmviz import HiAgent, StateSpace, load_scenario, run, sizes
    from stmviz.viz import escape
    from stmviz.widgets.player import step_html

    scenario = load_scenario("household")
    trace = run(HiAgent(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    many = next(t for t in range(len(trace)) if len(trace[t].removed) > 3)
    html = step_html(trace, many + 1, max_items=3)
    assert "<details class='stmviz-removed'>" in html and "(+" not in html
    assert f"removed</span>: {len(trace[many].removed)} elements" in html
    for element in trace[many].removed:
        assert escape(element.label(30)) in html
    assert html.index("next: step") < html.index("stmviz-removed")
    few = next(t for t in range(len(trace)) if 0 < len(trace[t].removed) <= 3)
    assert "<details class='stmviz-removed'>" not in step_html(trace, few + 1, max_items=3)
    wide = step_html(trace, many + 1, max_items=100)
    assert "<details class='stmviz-removed'>" not in wide and all(escape(e.label(30)) in wide for e in trace[many].removed)


@pytest.mark.parametrize("mechanism", ["FIFOWindow", "SCM", "HiAgent", "AgentFold"])
def test_the_occupancy_x_range_stays_fixed_while_stepping(mechanism):
    """The occupancy chart's x-range is one fixed range from t = 0 to t = n (it followed the marker: 03 showed
    [−1.6, 25.6] at t = 0, [−0.5, 25.5] at t = 1, [0, 25.5] from t = 2, [0, 26.5] at the end)."""
    import stmviz
    from stmviz import StateSpace, load_scenario, run, sizes
    from stmviz.widgets import TracePlayer

    scenario = load_scenario("tool_chat")
    trace = run(getattr(stmviz, mechanism)(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    player = TracePlayer(trace, tokens=False)
    n = len(trace)
    ranges = set()
    for t in [0, 1, 2, n // 2, n - 1, n]:
        player.t = t
        axis = player.occupancy.layout.xaxis
        assert axis.autorange is False, (t, axis.autorange)
        ranges.add(tuple(axis.range))
        assert all(x is None or axis.range[0] <= x <= axis.range[1] for d in player.occupancy.data for x in (d.x or ()))
    assert len(ranges) == 1, ranges
    low, high = ranges.pop()
    assert low < 0 and n < high <= n + 1, (low, high)
    assert tuple(player.static_figure().layout.xaxis.range) == (low, high)
