"""Tests of stmviz.viz.loop: the paper's Figure 1 at step t as boxes and arrows."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from _viz_traces import DANGEROUS, REAL_MECHANISMS, chat_trace, fold_trace, real_trace

from stmviz import AgentStep, StateSpace, run, sizes
from stmviz.viz import loop_figure
from stmviz.viz.loop import ARROWS, POSITIONS, loop_boxes

KEYS = ["state", "projection", "model", "context", "update", "next"]


def labels(fig):
    return {a.name.split(":", 1)[1]: a.text for a in fig.layout.annotations if (a.name or "").startswith("label:")}


def test_boxes_arrows_and_hover_structure():
    trace = chat_trace(8)
    fig = loop_figure(trace, 4)
    assert isinstance(fig, go.Figure)
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [s.name for s in rects] == KEYS
    for shape in rects:  # each label sits inside its box
        x, y = POSITIONS[shape.name]
        assert shape.x0 < x < shape.x1 and shape.y0 < y < shape.y1
    arrows = [a for a in fig.layout.annotations if a.showarrow]
    assert [a.name for a in arrows] == [f"arrow:{s}->{t}" for s, t, _ in ARROWS]
    # the loop closes: every box has an arrow in and an arrow out
    sources = {s for s, _, _ in ARROWS}
    targets = {t for _, t, _ in ARROWS}
    assert sources == targets == set(KEYS)
    (hover,) = [d for d in fig.data if d.meta["role"] == "boxes"]
    assert list(hover.customdata) == KEYS and len(hover.hovertext) == 6


def test_labels_carry_the_numbers_of_step_t():
    trace = chat_trace(8, v_max=40)
    t = 5
    step = trace[t]
    text = labels(loop_figure(trace, t))
    assert f"ω_{t}" in text["state"] and f"Σμ = {step.size_before} / 40" in text["state"]
    assert f"ω_{t + 1}" in text["next"] and f"Σμ = {step.size_after} / 40" in text["next"]
    assert f"|π(ω_{t})| = {step.input_size} tokens" in text["projection"]
    assert f"o_t = {step.operation}" in text["update"]
    assert f"+{len(step.added)} / −{len(step.removed)}" in text["update"]
    assert "user message" in text["context"]
    assert "thought: reply 5" in text["model"]
    assert f"{len(trace.state_at(t))} elements" in text["state"]
    assert f"{len(trace.state_at(t + 1))} elements" in text["next"]


def test_update_hover_lists_removed_elements_and_why():
    trace = fold_trace(10)
    t = next(s.t for s in trace if s.removed)
    hover = dict(zip(KEYS, [b.hover for b in loop_boxes(trace, t)]))
    for element in trace[t].removed:
        assert element.id[:8] in hover["update"]
    assert "folded into block" in hover["update"]
    assert "fold; append" in hover["update"]


def test_a_tool_step_is_labelled_as_action_and_tool_result():
    trace = run(
        chat_trace(1).mechanism.__class__(StateSpace(sizes.words, v_max=50)),
        [AgentStep(thought="look it up", action="search('stm')", observation="3 results")],
    )
    text = labels(loop_figure(trace, 0))
    assert "tool result: 3 results" in text["context"]
    assert "action: search" in text["model"]


def test_negative_t_counts_from_the_end():
    trace = chat_trace(5)
    assert labels(loop_figure(trace, -1)) == labels(loop_figure(trace, 4))


def test_payloads_are_escaped_in_labels_and_hover():
    trace = chat_trace(6, payload=True)
    for t in range(len(trace)):
        fig = loop_figure(trace, t)
        blob = fig.to_json()
        for bad in DANGEROUS:
            assert bad not in blob
    assert "&lt;" in blob or "&#34;" in blob


@pytest.mark.parametrize("t, error", [(6, IndexError), (-7, IndexError), ("1", TypeError), (1.0, TypeError)])
def test_bad_t_is_refused(t, error):
    with pytest.raises(error):
        loop_figure(chat_trace(6), t)


def test_needs_a_trace_with_steps():
    with pytest.raises(TypeError, match="Trace"):
        loop_figure("trace", 0)
    empty = run(chat_trace(1).mechanism, [])
    with pytest.raises(IndexError, match="no steps"):
        loop_figure(empty, 0)


@pytest.mark.parametrize("name", REAL_MECHANISMS)
def test_real_mechanisms(name):
    trace = real_trace(name, n=12)
    for t in (0, len(trace) - 1):
        fig = loop_figure(trace, t)
        assert [s.name for s in fig.layout.shapes] == KEYS
        blob = fig.to_json()
        for bad in DANGEROUS:
            assert bad not in blob


def sentence(fig):
    (note,) = [a for a in fig.layout.annotations if a.name == "sentence"]
    return note.text


def test_the_step_is_said_in_words_under_the_boxes():
    steps = [
        AgentStep(observation="Hi, I am <b>Ada</b>.", meta={"role": "user"}),
        AgentStep(thought="Hello <i>Ada</i>!", observation="What is my name?", meta={"role": "user"}),
        AgentStep(thought="Ada."),
    ]
    trace = run(chat_trace(1).mechanism.__class__(StateSpace(sizes.words, v_max=50)), steps)
    first, middle, last = (sentence(loop_figure(trace, t)) for t in range(3))
    assert first == (
        "step 0: no model call at this step: the user spoke first<br>"
        "then arrived the user message “Hi, I am &lt;b&gt;Ada&lt;/b&gt;.”, seen from π(ω_1) on"
    )
    assert middle == (
        f"step 1: the model saw π(ω_1) ({trace[1].input_size} tokens) and answered “Hello &lt;i&gt;Ada&lt;/i&gt;!”<br>"
        "then arrived the user message “What is my name?”, seen from π(ω_2) on"
    )
    assert last == f"step 2: the model saw π(ω_2) ({trace[2].input_size} tokens) and answered “Ada.”<br>no input arrived after it"
    text = labels(loop_figure(trace, 0))
    assert "(no model call)" in text["model"] and "user message" in text["context"]
    assert "(no input)" in labels(loop_figure(trace, 2))["context"]


def test_the_words_are_escaped_for_every_payload():
    trace = chat_trace(6, payload=True)
    for t in range(len(trace)):
        words = sentence(loop_figure(trace, t))
        assert "the model saw π(ω_" in words or "no model call" in words
        for bad in DANGEROUS:
            assert bad not in words


def test_loop_sentence_names_itself_and_its_width():
    from stmviz.core.errors import InvalidArgumentError, InvalidIndexError
    from stmviz.viz.loop import loop_sentence

    trace = chat_trace(4)
    with pytest.raises(InvalidArgumentError, match="loop_sentence: width must be a whole number ≥ 1, got int 0"):
        loop_sentence(trace, 0, width=0)
    with pytest.raises(InvalidIndexError, match="^loop_sentence: the trace has steps"):
        loop_sentence(trace, 9)
