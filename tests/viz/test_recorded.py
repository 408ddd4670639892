"""mark_recorded_compactions: the real system's compactions as dashed lines on a figure over t."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from stmviz import FIFOWindow, StateSpace, run, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.scenarios import RecordedCompaction, example_transcript, load_transcript
from stmviz.viz import mark_recorded_compactions, occupancy_figure


def test_marks_the_bundled_sessions_compaction_on_the_occupancy_figure():
    scenario = load_transcript(example_transcript("claude_code_session"))
    trace = run(FIFOWindow(StateSpace(sizes.tokens(), 1200)), scenario)
    fig = mark_recorded_compactions(occupancy_figure(trace), scenario)
    lines = [s for s in fig.layout.shapes if s.name == "recorded compaction"]
    assert [(s.x0, s.x1, s.line.dash) for s in lines] == [(12, 12, "dash")]
    (note,) = [a for a in fig.layout.annotations if a.name == "recorded compaction"]
    assert note.text == "Claude Code compacted<br>(auto, 1,611 tokens)" and "Primary Request and Intent" in note.hovertext


def test_agent_text_in_the_label_and_hover_is_escaped():
    event = RecordedCompaction(2, "<b>x</b>", "auto", None, "<script>alert(1)</script>")
    fig = mark_recorded_compactions(go.Figure(), [event])
    assert "<b>" not in fig.layout.annotations[0].text and "<script>" not in fig.layout.annotations[0].hovertext


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError, match="mark_recorded_compactions: figure must be a plotly Figure"):
        mark_recorded_compactions("fig", [])
    with pytest.raises(InvalidArgumentError, match=r"compactions\[0\] must be a RecordedCompaction, got int 3"):
        mark_recorded_compactions(go.Figure(), [3])
    assert mark_recorded_compactions(go.Figure(), []).layout.shapes == ()


def test_every_panel_of_a_side_by_side_figure_gets_the_line():
    scenario = load_transcript(example_transcript("claude_code_session"))
    space = StateSpace(sizes.tokens(), 2400)
    traces = {"a": run(FIFOWindow(space), scenario), "b": run(FIFOWindow(StateSpace(sizes.tokens(), 900)), scenario)}
    fig = mark_recorded_compactions(occupancy_figure(traces, layout="side"), scenario)
    lines = [s for s in fig.layout.shapes if s.name == "recorded compaction"]
    panels = {d.xaxis for d in fig.data}
    assert len(panels) == 2 and {s.xref for s in lines} == panels and all(s.yref.endswith(" domain") for s in lines)
    assert len([a for a in fig.layout.annotations if a.name == "recorded compaction"]) == 1


def test_the_label_clears_the_v_max_line():
    """11's "Claude Code compacted" label sat at the panel's top, on the dashed V_max line (the y axis ended at
    1.05 · V_max); the y-range is raised so that V_max's line lies below the label's band."""
    from stmviz import StateSpace, run, sizes
    from stmviz.core.mechanism import ExampleMechanism
    from stmviz.scenarios import RecordedCompaction
    from stmviz.viz import occupancy_figure
    from stmviz.viz.recorded import mark_recorded_compactions

    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=10)), ["a b c", "d e f", "g h i", "j k"])
    fig = occupancy_figure({"one": trace, "two": trace}, layout="side")
    before = fig.layout.yaxis.range[1]
    mark_recorded_compactions(fig, [RecordedCompaction(2, "Claude Code", "auto", 9)])
    top = fig.layout.yaxis.range[1]
    assert top > before and 10 / top <= 0.8, (before, top)  # V_max at ≤ 80 % of the height: the label's band is free
    label = fig.layout.annotations[-1]
    assert label.yanchor == "top" and label.y == 1
