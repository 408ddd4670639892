"""Tests of stmviz.viz.export: one self-contained, offline, animated HTML page of a run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _viz_traces import DANGEROUS, REAL_MECHANISMS, Folder, chat_steps, chat_trace, fold_trace, real_trace
from plotly.offline import get_plotlyjs

from stmviz import StateSpace, run, sizes
from stmviz.core.errors import InvalidArgumentError
from stmviz.viz import export_html, trace_animation, trace_html
from stmviz.viz.export import frame_indices


@pytest.fixture(scope="module")
def plotlyjs() -> str:
    return get_plotlyjs()


def test_writes_one_self_contained_page(tmp_path, plotlyjs):
    path = export_html(fold_trace(10), tmp_path / "run.html", title="My run")
    assert isinstance(path, Path) and path == tmp_path / "run.html"
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert plotlyjs in page  # plotly.js embedded: works offline
    assert not re.search(r'<script[^>]+src=["\']https?://', page)  # nothing from a CDN
    assert "<title>My run</title>" in page and "<h1>My run</h1>" in page
    assert "all 11 states" in page


def test_frames_slider_and_play_button():
    trace = chat_trace(12)
    fig = trace_animation(trace)
    assert [f.name for f in fig.frames] == [str(t) for t in range(13)]
    (slider,) = fig.layout.sliders
    assert [s.label for s in slider.steps] == [str(t) for t in range(13)]
    assert all(s.method == "animate" and list(s.args[0]) == [s.label] for s in slider.steps)
    (menu,) = fig.layout.updatemenus
    assert [b.label for b in menu.buttons] == ["▶ play", "❚❚ pause"]
    assert menu.buttons[0].args[0] is None and menu.buttons[0].args[1]["fromcurrent"] is True


def test_each_frame_moves_the_marker_and_shows_that_state():
    trace = chat_trace(9)
    fig = trace_animation(trace)
    roles = [d.meta["role"] for d in fig.data]
    cursor = roles.index("cursor")
    for frame in fig.frames:
        t = int(frame.name)
        assert list(frame.traces)[0] == cursor
        assert len(frame.traces) == len(frame.data)
        assert [fig.data[i].meta["role"] for i in frame.traces] == [d.meta["role"] for d in frame.data]
        marker = frame.data[0]
        assert list(marker.x) == [t, t]
        bars = [d for d in frame.data[1:] if d.meta["role"] == "type"]
        state = trace.state_at(t)
        assert sum(sum(b.x) for b in bars) == trace.size_of(state)
        assert sum(len(b.x) for b in bars) == len(state)
        (free,) = [d for d in frame.data if d.meta["role"] == "free"]
        assert free.x[0] == trace.v_max - trace.size_of(state)
        assert f"t = {t} of {len(trace)}" in frame.layout.title.text
        # every frame updates the same traces: the bar traces are the same types in the same order
        assert [d.name for d in frame.data] == [d.name for d in fig.frames[0].data]
    assert "V_max" in [s.name for s in fig.layout.shapes]
    assert "v_max" in roles and "removals" in roles and "input" in roles


def test_long_traces_are_sampled_and_the_page_says_so(tmp_path):
    trace = run(Folder(StateSpace(sizes.words, v_max=40)), chat_steps(700))
    fig = trace_animation(trace, max_frames=50)
    names = [int(f.name) for f in fig.frames]
    assert len(names) <= 50 and names[0] == 0 and names[-1] == 700
    assert names == sorted(set(names))
    page = trace_html(trace, max_frames=50)
    assert f"shows {len(names)} of the 701 states" in page
    # the occupancy curve itself keeps every step
    (area, *_) = [d for d in fig.data if d.meta["role"] == "type"]
    assert len(area.x) == 701


def test_default_frame_budget_is_about_300():
    assert len(frame_indices(10_001)) <= 300
    assert frame_indices(2, 2) == [0, 1]
    with pytest.raises(ValueError, match="max_frames"):
        frame_indices(10, 1)


def test_payloads_are_escaped_in_the_page(tmp_path, plotlyjs):
    trace = fold_trace(12, payload=True)
    title = '<script>alert(1)</script> "onerror='
    page = export_html(trace, tmp_path / "x.html", title=title).read_text(encoding="utf-8")
    rest = page.replace(plotlyjs, "")  # plotly.js itself contains markup in strings
    for bad in DANGEROUS + ("<script>alert(1)", '"onerror='):
        assert bad not in rest
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rest  # the title, as text
    assert "&lt;script&gt;" in rest or "&lt;img" in rest  # hover texts of the payload elements
    assert page.count("<script") <= 3  # plotly's own: config, plotly.js, newPlot; none from the data


def test_query_is_shown_escaped(tmp_path):
    trace = run(chat_trace(1).mechanism, chat_steps(3), query="<b>find</b> the answer")
    page = trace_html(trace)
    assert "&lt;b&gt;find&lt;/b&gt; the answer" in page and "<b>find" not in page


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="Trace"):
        export_html("trace", tmp_path / "x.html")
    with pytest.raises(InvalidArgumentError, match="does not exist; create it first"):
        export_html(chat_trace(2), tmp_path / "missing" / "x.html")
    with pytest.raises(InvalidArgumentError, match="is a directory; pass a file path"):
        export_html(chat_trace(2), tmp_path)
    with pytest.raises(ValueError, match="max_frames"):
        export_html(chat_trace(2), tmp_path / "x.html", max_frames=0)


def test_an_empty_trace_exports(tmp_path):
    trace = run(chat_trace(1).mechanism, [])
    page = export_html(trace, tmp_path / "empty.html").read_text(encoding="utf-8")
    assert "all 1 states" in page


@pytest.mark.parametrize("name", REAL_MECHANISMS)
def test_real_mechanisms(name, tmp_path, plotlyjs):
    trace = real_trace(name, n=16)
    page = export_html(trace, tmp_path / f"{name}.html").read_text(encoding="utf-8")
    rest = page.replace(plotlyjs, "")
    for bad in DANGEROUS:
        assert bad not in rest
    assert f"all {len(trace) + 1} states" in page


def test_top_level_export_html_is_the_viz_one(tmp_path):
    """``stmviz.export_html(trace, path)`` (loaded on first use) writes the page of ``stmviz.viz.export_html``; the core has no ``Trace.to_html``."""
    import stmviz
    import stmviz.viz
    from stmviz import Trace
    from stmviz import StateSpace, run, sizes
    from stmviz.core.mechanism import ExampleMechanism

    trace = run(ExampleMechanism(StateSpace(sizes.words, 8)), ["<script>alert(1)</script> one", "two three", "four"])
    assert stmviz.export_html is stmviz.viz.export_html and not hasattr(Trace, "to_html")
    a = stmviz.export_html(trace, tmp_path / "a.html")
    b = stmviz.viz.export_html(trace, tmp_path / "b.html")
    text = (tmp_path / "b.html").read_text(encoding="utf-8")
    assert a.exists() and b.exists()
    assert "&lt;script&gt;alert(1)" in text  # the payload is there, as escaped text
    assert "<script>alert(1)" not in text


def test_pause_button_stops_without_redraw():
    """plotly.js rejects an 'undefined' promise when pause asks for a redraw; it must not."""
    fig = trace_animation(chat_trace(6))
    layout = fig["layout"] if isinstance(fig, dict) else fig.layout.to_plotly_json()
    buttons = [b for menu in layout["updatemenus"] for b in menu["buttons"]]
    (pause,) = [b for b in buttons if "pause" in b["label"]]
    assert pause["method"] == "animate"
    assert pause["args"] == [
        [None], {"mode": "immediate", "transition": {"duration": 0}, "frame": {"duration": 0, "redraw": False}}
    ]


def test_the_page_says_each_step_in_words(tmp_path):
    from stmviz import AgentStep

    steps = [
        AgentStep(observation="Hi, I am <script>alert(1)</script> Ada.", meta={"role": "user"}),
        AgentStep(thought="Hello <img src=x onerror=alert(1)>!", observation="What is my name?", meta={"role": "user"}),
        AgentStep(thought="Ada."),
    ]
    trace = run(Folder(StateSpace(sizes.words, v_max=50)), steps)
    page = export_html(trace, tmp_path / "words.html").read_text(encoding="utf-8")
    assert "step 0: no model call at this step: the user spoke first; then arrived the user message" in page
    assert "Hi, I am &lt;script&gt;alert(1)&lt;/script&gt; Ada." in page
    assert f"step 1: the model saw π(ω_1) ({trace[1].input_size} tokens) and answered “Hello &lt;img src=x" in page
    assert f"step 2: the model saw π(ω_2) ({trace[2].input_size} tokens) and answered “Ada.”; no input arrived after it" in page
    assert "ω_3 is the final state" in page
    assert "<script>alert" not in page and "<img src=x" not in page  # (plotly.js itself holds other "<a href=")
    # each animation frame's title says its step in words too
    titles = [f.layout.title.text for f in trace_animation(trace).frames]
    assert "no model call at this step: the user spoke first" in titles[0]
    assert "the model saw π(ω_1)" in titles[1] and "then arrived the user message “What is my name?”" in titles[1]
    assert "final state" in titles[3]


def test_the_public_parts_of_the_export_check_their_arguments():
    trace = chat_trace(4)
    # '<=' between a str and an int: a raw TypeError
    with pytest.raises(InvalidArgumentError, match="frame_indices: n_states must be a whole number ≥ 0, got str 'x'"):
        frame_indices("x")
    from stmviz.viz.export import words_html

    with pytest.raises(InvalidArgumentError, match=r"words_html: the trace has states ω_0 … ω_4; t = 9 is out of range"):
        words_html(trace, [9])
    with pytest.raises(InvalidArgumentError, match=r"words_html: indices must be a list \(or another iterable\) of time indices t"):
        words_html(trace, 3)
    assert 'value="4"' in words_html(trace, [-1])  # a negative t counts from the end, as everywhere
