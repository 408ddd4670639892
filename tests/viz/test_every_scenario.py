"""Every figure and widget on every bundled scenario under each of the four mechanisms.

The unit tests of each figure use small hand-built traces; this is the check that the real
mechanisms' traces of the real scenarios (every element type, fold, retrieval and eviction they
produce) go through every figure, the player, the comparison player and the export, and that
what they show agrees with the trace.
"""

from __future__ import annotations

import functools

import networkx as nx
import plotly.graph_objects as go
import pytest

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, export_html, run
from stmviz.scenarios import bundled_names, load_scenario
from stmviz.viz import hierarchy_figure, hierarchy_graph, loop_figure, occupancy_figure, state_figure, tokens_html
from stmviz.viz.hierarchy import hierarchy_kind
from stmviz.widgets import TracePlayer, compare_player

MECHANISMS = (FIFOWindow, SCM, HiAgent, AgentFold)
SCENARIOS = sorted(bundled_names())


@functools.lru_cache(maxsize=None)
def trace_of(cls: type, scenario_name: str):
    scenario = load_scenario(scenario_name)
    return run(cls(scenario.space()), scenario)


def test_the_bundled_scenarios_are_the_four_of_the_issue():
    assert SCENARIOS == ["household", "long_dialogue", "tool_chat", "web_research"]


@pytest.mark.parametrize("scenario_name", SCENARIOS)
@pytest.mark.parametrize("cls", MECHANISMS, ids=lambda c: c.__name__)
def test_every_figure_of_every_step_class(cls, scenario_name):
    trace = trace_of(cls, scenario_name)
    n = len(trace)
    v_max = trace.space.v_max

    figure = occupancy_figure(trace)
    assert isinstance(figure, go.Figure)
    # the V_max line is drawn at the trace's V_max; the stacked areas sum to Σμ(ω_t) at every t
    (line,) = [d for d in figure.data if (d.meta or {}).get("role") == "v_max"]
    assert set(line.y) == {v_max}
    areas = [d for d in figure.data if (d.meta or {}).get("role") == "type"]
    for t in range(n + 1):
        assert sum(a.y[t] for a in areas) == pytest.approx(trace.size_at(t))

    for t in sorted({0, 1, n // 2, n}):
        state = trace.state_at(t)
        bar = state_figure(trace, t)
        assert isinstance(bar, go.Figure)
        widths = sum(sum(b.x) for b in bar.data if b.type == "bar" and b.x is not None and b.name != "free")
        assert widths == pytest.approx(trace.size_at(t))  # the blocks' widths are μ(e), Σ = Σμ(ω_t)
        html = tokens_html(trace.project(t))
        assert isinstance(html, str) and ("<span" in html or not state)
        if t < n:
            assert isinstance(loop_figure(trace, t), go.Figure)

        kind = hierarchy_kind(trace)
        graph = hierarchy_graph(trace, t)
        assert isinstance(graph, nx.DiGraph) and nx.is_arborescence(graph)  # a tree, edges from the root down
        assert isinstance(hierarchy_figure(graph), go.Figure)
        assert kind == ("tree" if cls in (AgentFold, HiAgent) else "flat")  # what the mechanism declares


@pytest.mark.parametrize("scenario_name", SCENARIOS)
@pytest.mark.parametrize("cls", MECHANISMS, ids=lambda c: c.__name__)
def test_the_player_steps_through_every_run(cls, scenario_name):
    trace = trace_of(cls, scenario_name)
    player = TracePlayer(trace)
    n = len(trace)
    for t in (n, 0, n // 2):
        player.slider.value = t
        assert player.t == t
    player.slider.value = 0
    player.next_button.click()
    assert player.t == 1
    player.back_button.click()
    assert player.t == 0


@pytest.mark.parametrize("scenario_name", SCENARIOS)
def test_the_four_mechanisms_compared_and_exported(scenario_name, tmp_path):
    traces = {cls.__name__: trace_of(cls, scenario_name) for cls in MECHANISMS}
    players = compare_player(traces)
    players.slider.value = min(len(t) for t in traces.values())
    assert isinstance(occupancy_figure(traces), go.Figure)
    for name, trace in traces.items():
        path = export_html(trace, tmp_path / f"{name}.html")
        page = path.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<html")
        assert "<script src=\"http" not in page  # plotly.js embedded, nothing fetched
