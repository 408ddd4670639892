"""Tests of stmviz.viz.occupancy: Σμ(ω_t) by type, V_max, removals, |π(ω_t)|, comparisons."""

from __future__ import annotations

import math
import time

import plotly.graph_objects as go
import pytest
from _viz_traces import DANGEROUS, REAL_MECHANISMS, ChatWindow, Folder, chat_steps, chat_trace, fold_trace, real_trace
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import Element, State, StateSpace, run, sizes
from stmviz.viz import occupancy_data, occupancy_figure
from stmviz.viz._common import color_for


def by_role(fig, role):
    return [d for d in fig.data if (d.meta or {}).get("role") == role]


def test_returns_a_figure_with_one_area_per_type_in_one_stackgroup():
    trace = chat_trace(12)
    fig = occupancy_figure(trace)
    assert isinstance(fig, go.Figure)
    areas = by_role(fig, "type")
    assert [a.name for a in areas] == ["system", "user", "assistant"]
    assert len({a.stackgroup for a in areas}) == 1 and areas[0].stackgroup
    for area in areas:
        assert area.fillcolor == color_for(area.name)
        assert list(area.x) == list(range(len(trace) + 1))


@pytest.mark.parametrize("make", [chat_trace, fold_trace])
def test_stacked_areas_add_up_to_the_occupancy(make):
    trace = make(15)
    fig = occupancy_figure(trace)
    areas = by_role(fig, "type")
    for t in range(len(trace) + 1):
        total = sum(a.y[t] for a in areas)
        assert math.isclose(total, trace.size_at(t))
        assert math.isclose(total, trace.size_of(trace.state_at(t)))


def test_per_type_sums_match_a_direct_computation():
    trace = fold_trace(14)
    data = occupancy_data(trace)
    for t, state in enumerate(trace.states()):
        for kind, values in data.by_type.items():
            direct = sum(trace.sizes[e] for e in state if e.type == kind)
            assert math.isclose(values[t], direct, abs_tol=1e-9)


def test_v_max_is_a_named_line_at_the_capacity():
    trace = chat_trace(8, v_max=40)
    (line,) = by_role(occupancy_figure(trace), "v_max")
    assert line.name == "V_max"
    assert set(line.y) == {40}
    assert line.line.color == "black" and line.line.dash == "dash"
    assert by_role(occupancy_figure(trace), "input")[0].line.color not in {color_for(t) for t in ("user", "assistant", "system")}
    assert min(line.x) == 0 and max(line.x) == len(trace)


def test_removal_markers_sit_on_the_first_state_without_the_removed_elements():
    trace = chat_trace(10)
    (markers,) = by_role(occupancy_figure(trace), "removals")
    removing = [s for s in trace if s.removed]
    assert list(markers.x) == [s.t + 1 for s in removing]
    assert list(markers.y) == [s.size_after for s in removing]
    for text, step in zip(markers.hovertext, removing):
        assert f"step {step.t}" in text
        for element in step.removed:
            assert element.id[:8] in text
        assert "evicted: oldest first" in text  # the reason, escaped (Σμ &gt; V_max)
        assert "Σμ &gt; V_max" in text


def test_eviction_and_fold_are_told_apart():
    assert {r.kind for r in occupancy_data(chat_trace(10)).removals} == {"evicted"}
    assert {r.kind for r in occupancy_data(fold_trace(10)).removals} == {"folded"}
    (markers,) = by_role(occupancy_figure(fold_trace(10)), "removals")
    assert markers.marker.symbol == "diamond" and markers.meta["kind"] == "folded"
    (markers,) = by_role(occupancy_figure(chat_trace(10)), "removals")
    assert markers.marker.symbol == "x" and markers.meta["kind"] == "evicted"


def test_removal_markers_are_named_by_the_operations_of_the_mechanism():
    # the legend names a marker by the operation types o_t of the mechanism's vocabulary, not by the figure's own words
    for trace in (chat_trace(10), fold_trace(10)):
        for markers in by_role(occupancy_figure(trace), "removals"):
            ops = {o.type for s in trace if s.removed for o in s.operations}
            assert markers.name.startswith("removed by "), markers.name
            assert set(markers.name.removeprefix("removed by ").split(" (")[0].split(" + ")) <= ops
            assert "folded" not in markers.name and "evicted" not in markers.name


def test_scm_reranking_is_not_called_folded():
    from stmviz import SCM, load_scenario

    scenario = load_scenario("long_dialogue")
    trace = run(SCM(StateSpace(sizes.tokens(), v_max=scenario.v_max), k=3), scenario)
    names = [m.name for m in by_role(occupancy_figure(trace), "removals")]
    declared = set(type(trace.mechanism).operations)
    assert names and all("fold" not in name for name in names), names
    for name in names:
        assert set(name.removeprefix("removed by ").split(" (")[0].split(" + ")) <= declared, (name, declared)


def test_a_marker_hover_is_above_the_input_line():
    # the removal markers are drawn after |π(ω_t)|: at a tie, plotly's hover picks the trace on top
    fig = occupancy_figure(chat_trace(10))
    roles = [d.meta["role"] for d in fig.data]
    assert roles.index("removals") > roles.index("input")
    assert all(m.marker.size >= 10 for m in by_role(fig, "removals"))


def test_a_run_with_both_evictions_and_folds_gets_two_marker_traces():
    trace = run(Folder(StateSpace(sizes.words, v_max=10)), ["a", "b", "c", "d e f g h", "i j k l m", "n"])
    data = occupancy_data(trace)
    kinds = [r.kind for r in data.removals]
    assert kinds == ["evicted", "folded", "folded"]  # step 3's block is itself evicted by the append
    fig = occupancy_figure(trace)
    markers = {m.meta["kind"]: m for m in by_role(fig, "removals")}
    assert set(markers) == set(kinds) and len({m.name for m in markers.values()}) == 2  # two distinct legend names
    for kind, m in markers.items():
        assert list(m.x) == [r.t + 1 for r in data.removals if r.kind == kind]


def test_no_removal_markers_when_nothing_is_removed():
    trace = chat_trace(2, v_max=1000)
    assert not any(s.removed for s in trace)
    assert by_role(occupancy_figure(trace), "removals") == []


def test_input_size_series_is_the_recorded_projection_size():
    trace = chat_trace(9)
    (line,) = by_role(occupancy_figure(trace), "input")
    assert list(line.y) == [s.input_size for s in trace] + [trace.final_input_size]
    assert line.yaxis == "y2"  # μ counts words here, π tokens: a second axis
    assert by_role(occupancy_figure(trace, show_input=False), "input") == []


def test_input_shares_the_axis_when_mu_counts_tokens():
    trace = chat_trace(4, v_max=120, size=sizes.tokens())
    (line,) = by_role(occupancy_figure(trace), "input")
    assert line.yaxis in (None, "y")


def test_unstacked_draws_lines_and_the_total():
    trace = chat_trace(6)
    fig = occupancy_figure(trace, stacked=False)
    assert all(a.stackgroup is None for a in by_role(fig, "type"))
    (total,) = by_role(fig, "total")
    assert list(total.y) == [trace.size_at(t) for t in range(len(trace) + 1)]


def test_several_traces_side_by_side_get_one_panel_each():
    fig = occupancy_figure([chat_trace(6), fold_trace(6)], layout="side")
    v_lines = by_role(fig, "v_max")
    assert len(v_lines) == 2
    assert {line.xaxis for line in v_lines} == {"x", "x2"}
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["chat-window", "folder"]
    # each type appears once in the legend
    shown = [a.name for a in by_role(fig, "type") if a.showlegend is not False]
    assert len(shown) == len(set(shown))


def test_several_traces_overlaid_draw_one_total_each_with_names():
    fig = occupancy_figure({"A": chat_trace(6), "B": chat_trace(6, v_max=30)})
    totals = by_role(fig, "total")
    assert [t.name for t in totals] == ["A: Σμ(ω_t)", "B: Σμ(ω_t)"]
    assert {t.xaxis for t in totals} == {"x"}
    assert totals[0].line.color != totals[1].line.color
    fig = occupancy_figure([chat_trace(3), chat_trace(3)], names=["left", "right"])
    assert [t.name for t in by_role(fig, "total")] == ["left: Σμ(ω_t)", "right: Σμ(ω_t)"]
    fig = occupancy_figure([chat_trace(3), chat_trace(3)])
    assert [t.name for t in by_role(fig, "total")] == ["chat-window: Σμ(ω_t)", "chat-window (2): Σμ(ω_t)"]


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (("not a trace",), {}, TypeError, "Trace"),
        (([],), {}, ValueError, "at least one"),
        (([1],), {}, TypeError, "Trace"),
        (None, {"layout": "grid"}, ValueError, "layout"),
        (None, {"names": ["a", "b"]}, ValueError, "one name per trace"),
        (None, {"names": "ab"}, ValueError, "one name per trace"),
    ],
)
def test_bad_input_is_refused_clearly(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        occupancy_figure(*(args or (chat_trace(2),)), **kwargs)


def test_payloads_are_escaped_everywhere():
    fig = occupancy_figure({"<script>alert(1)</script>": fold_trace(10, payload=True)})
    blob = fig.to_json()
    for bad in DANGEROUS:
        assert bad not in blob
    for d in fig.data:
        for text in d.hovertext or ():
            assert "<script" not in text and "<img" not in text


def test_names_cannot_inject_hovertemplate_variables():
    fig = occupancy_figure({"run %{y} <b>": chat_trace(3)}, layout="side")
    for d in fig.data:
        if d.hovertemplate:
            template = d.hovertemplate if isinstance(d.hovertemplate, str) else " ".join(d.hovertemplate)  # per point
            assert "%{y} &lt;" not in template and "run &#37;{y} &lt;b&gt;" in template


def test_an_empty_trace_still_draws():
    trace = run(ChatWindow(StateSpace(sizes.words, v_max=10)), [])
    fig = occupancy_figure(trace)
    assert [list(a.y) for a in by_role(fig, "type")] == [[5]]


def test_fractional_sizes_stay_exact_and_non_negative():
    space = StateSpace(lambda e: 0.1 * len(e.text), v_max=12.0)
    trace = run(ChatWindow(space), chat_steps(12))
    data = occupancy_data(trace)
    assert any(s.removed for s in trace)
    for t, state in enumerate(trace.states()):
        for kind, values in data.by_type.items():
            assert values[t] >= 0
            assert math.isclose(values[t], sum(trace.sizes[e] for e in state if e.type == kind), abs_tol=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    texts=st.lists(st.text(alphabet="abc <>&\"'", min_size=1, max_size=20), min_size=0, max_size=25),
    v_max=st.integers(min_value=8, max_value=40),
)
def test_property_areas_sum_to_size_and_never_exceed_v_max(texts, v_max):
    trace = run(ChatWindow(StateSpace(sizes.chars, v_max=v_max + 30)), [{"observation": t} for t in texts])
    data = occupancy_data(trace)
    assert len(data.total) == len(trace) + 1
    for t in range(len(trace) + 1):
        assert math.isclose(sum(v[t] for v in data.by_type.values()), data.total[t], abs_tol=1e-9)
        assert data.total[t] <= trace.v_max
    assert [r.t for r in data.removals] == [s.t for s in trace if s.removed]


def test_long_trace_is_computed_from_diffs_quickly():
    trace = run(Folder(StateSpace(sizes.words, v_max=60)), chat_steps(3000))
    start = time.perf_counter()
    fig = occupancy_figure(trace)
    elapsed = time.perf_counter() - start
    assert len(by_role(fig, "type")[0].y) == 3001
    assert elapsed < 5  # generous: ~0.2 s here; a per-t state_at would be far slower


@pytest.mark.parametrize("name", REAL_MECHANISMS)
def test_real_mechanisms(name):
    trace = real_trace(name)
    fig = occupancy_figure(trace)
    areas = by_role(fig, "type")
    assert areas
    for t in range(len(trace) + 1):
        assert math.isclose(sum(a.y[t] for a in areas), trace.size_at(t))
    blob = fig.to_json()
    for bad in DANGEROUS:
        assert bad not in blob


def test_initial_state_types_are_ordered_by_time():
    class Seeded(ChatWindow):
        def initial_state(self, context):
            return State([Element("b", {"t": 5, "type": "late"}), Element("a", {"t": -5, "type": "early"})])

    trace = run(Seeded(StateSpace(sizes.words, v_max=50)), chat_steps(2))
    assert list(occupancy_data(trace).by_type)[:2] == ["early", "late"]


def test_the_point_under_a_removal_marker_tells_the_removal_too():
    # plotly's closest hover prefers the top curve's point to the marker on it: that point says the removal
    trace = chat_trace(10)
    fig = occupancy_figure(trace)
    (markers,) = by_role(fig, "removals")
    top = [d for d in fig.data if d.meta["role"] == "type"][-1]
    for x, text in zip(markers.x, markers.hovertext):
        template = top.hovertemplate[list(top.x).index(x)]
        assert text.replace("%", "&#37;") in template and template.endswith("<extra></extra>")
    assert sum("removed" in t for t in top.hovertemplate) == len(markers.x)


def test_distinct_operations_get_distinct_removal_markers():
    """AgentFold's condense and consolidate (both replace in place) were one purple diamond; now each its own marker."""
    from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
    from stmviz.viz import occupancy_figure

    scenario = load_scenario("web_research")
    trace = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    removals = [d for d in occupancy_figure(trace).data if (d.meta or {}).get("role") == "removals"]
    names = [d.name for d in removals]
    assert "removed by condense" in names and "removed by consolidate" in names, names
    looks = {(d.marker.symbol, d.marker.color) for d in removals}
    assert len(looks) == len(removals), [(d.name, d.marker.symbol, d.marker.color) for d in removals]
