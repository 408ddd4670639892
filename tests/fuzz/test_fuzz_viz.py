"""Fuzz the figures of stmviz.viz: junk in every argument gives a figure or an STMError, never anything else.

Each entry point gets ``max_examples`` cases; ``tests/fuzz/README.md`` lists the
counts and verdicts by entry point, ``count_cases.py`` measures them, ``_harness.py``
makes the junk and gives the verdicts.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("plotly")

from stmviz import viz  # noqa: E402

from _harness import Entry, inside  # noqa: E402
from _run import fuzz, ids  # noqa: E402
from _traces import empty_trace, loaded_trace, trace  # noqa: E402

#: export_html writes into this folder (the test runs with it as the working directory).
_TOP = Path(tempfile.mkdtemp(prefix="stmviz-fuzz-")).resolve()
atexit.register(shutil.rmtree, _TOP, True)
SANDBOX = _TOP / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h"
SANDBOX.mkdir(parents=True)

fifo = lambda: trace("FIFOWindow")  # noqa: E731
fold = lambda: trace("AgentFold")  # noqa: E731
hi = lambda: trace("HiAgent")  # noqa: E731


def _graph():
    return viz.hierarchy_graph(trace("AgentFold"), 4)


ENTRIES = [
    Entry("occupancy_figure", lambda trace_or_traces, stacked, show_input, names, layout: viz.occupancy_figure(
        trace_or_traces, stacked=stacked, show_input=show_input, names=names, layout=layout),
        {"trace_or_traces": lambda: [fifo(), fold()], "stacked": lambda: True, "show_input": lambda: True,
         "names": lambda: ["fifo", "fold"], "layout": lambda: "side"}, max_examples=30),
    Entry("occupancy_data", viz.occupancy_data, {"trace": fifo}, max_examples=25),
    Entry("state_figure", lambda state_or_trace, t, space_or_sizes, v_max, new, leaving: viz.state_figure(
        state_or_trace, t, space_or_sizes=space_or_sizes, v_max=v_max, new=new, leaving=leaving),
        {"state_or_trace": fifo, "t": lambda: 3, "space_or_sizes": lambda: None, "v_max": lambda: None,
         "new": lambda: (), "leaving": lambda: ()}, max_examples=40),
    Entry("state_figure(State)", lambda state_or_trace, space_or_sizes, v_max, new: viz.state_figure(
        state_or_trace, space_or_sizes=space_or_sizes, v_max=v_max, new=new),
        {"state_or_trace": lambda: fifo().state_at(3), "space_or_sizes": lambda: fifo(), "v_max": lambda: 200,
         "new": lambda: list(fifo().state_at(3))[:1]}, max_examples=30),
    Entry("state_bar", lambda state_or_trace, t: viz.state_bar(state_or_trace, t),
          {"state_or_trace": hi, "t": lambda: -1}, max_examples=25),
    Entry("tokens_html", lambda text_or_model_input, encoding, max_tokens: viz.tokens_html(
        text_or_model_input, encoding=encoding, max_tokens=max_tokens),
        {"text_or_model_input": lambda: fifo().project(4), "encoding": lambda: "cl100k_base",
         "max_tokens": lambda: 50}, max_examples=40),
    Entry("tokens_html(messages)", lambda messages: viz.tokens_html(messages),
          {"messages": lambda: [{"role": "user", "content": "hi <b>"}, {"role": "assistant", "content": "ok"}]},
          max_examples=25),
    Entry("token_pieces", viz.token_pieces, {"text": lambda: "hello <b>world</b>", "encoding": lambda: "cl100k_base"},
          max_examples=25),
    Entry("loop_figure", viz.loop_figure, {"trace": fifo, "t": lambda: 2}, max_examples=30),
    Entry("hierarchy_graph", lambda trace, t, mechanism, max_depth: viz.hierarchy_graph(
        trace, t, mechanism=mechanism, max_depth=max_depth),
        {"trace": fold, "t": lambda: 5, "mechanism": lambda: None, "max_depth": lambda: 2}, max_examples=35),
    Entry("hierarchy_figure", lambda graph_or_trace, t, max_depth, labels, height: viz.hierarchy_figure(
        graph_or_trace, t, max_depth=max_depth, labels=labels, height=height),
        {"graph_or_trace": hi, "t": lambda: 5, "max_depth": lambda: None, "labels": lambda: True,
         "height": lambda: 300}, max_examples=40),
    Entry("hierarchy_figure(graph)", lambda graph, height: viz.hierarchy_figure(graph, height=height),
          {"graph": _graph, "height": lambda: 300}, max_examples=20),
    Entry("hierarchy_kind", viz.hierarchy_kind, {"trace_or_state": fold, "mechanism": lambda: None}, max_examples=20),
    Entry("hierarchy_title", viz.hierarchy_title, {"graph": _graph, "t": lambda: 4}, max_examples=20),
    Entry("node_arrays", viz.node_arrays, {"graph": _graph, "labels": lambda: None}, max_examples=20),
    Entry("node_marker", viz.node_marker, {"arrays": lambda: viz.node_arrays(_graph())}, max_examples=20),
    Entry("color_for", viz.color_for, {"element_type": lambda: "user", "types": lambda: fifo()}, max_examples=25),
    Entry("escape", viz.escape, {"text": lambda: "<b>"}, max_examples=20),
    Entry("hover_text", lambda line, width: viz.hover_text(line, "second line", width=width),
          {"line": lambda: "e#1 <b>", "width": lambda: 40}, max_examples=25),
    Entry("trace_html", lambda trace, title, max_frames: viz.trace_html(trace, title=title, max_frames=max_frames),
          {"trace": fifo, "title": lambda: "run <1>", "max_frames": lambda: 5}, max_examples=30),
    Entry("trace_animation", lambda trace, max_frames: viz.trace_animation(trace, max_frames=max_frames),
          {"trace": fold, "max_frames": lambda: 4}, max_examples=25),
    Entry("export_html", lambda trace, path, title, max_frames: viz.export_html(
        trace, path, title=title, max_frames=max_frames),
        {"trace": fifo, "path": lambda: "page.html", "title": lambda: None, "max_frames": lambda: 4},
        fuzz=("trace", "path", "max_frames"), only={"path": inside(SANDBOX)}, max_examples=40),
    # a title that cannot be encoded (a lone surrogate) is the file-writing policy of another branch:
    # test_fuzz_core.py fuzzes export_html's title
    Entry("export_html(title type)", lambda title: viz.export_html(trace("FIFOWindow"), "titled.html", title=title),
          {"title": lambda: "run <1>"}, only={"title": lambda v: not isinstance(v, str)}, max_examples=20),
]

#: figures of a trace with no steps and of a trace loaded without its mechanism
EDGE_TRACES = [
    Entry("state_figure(empty trace)", viz.state_figure, {"state_or_trace": empty_trace, "t": lambda: 0},
          fuzz=("t",), max_examples=15),
    Entry("loop_figure(empty trace)", viz.loop_figure, {"trace": empty_trace, "t": lambda: 0},
          fuzz=("t",), max_examples=15, valid_raises=True),
    Entry("hierarchy_figure(loaded trace)", viz.hierarchy_figure, {"graph_or_trace": loaded_trace, "t": lambda: 3},
          fuzz=("t",), max_examples=15),
]


@pytest.mark.parametrize("entry", ENTRIES + EDGE_TRACES, ids=ids(ENTRIES + EDGE_TRACES))
def test_fuzz_viz(entry, monkeypatch):
    monkeypatch.chdir(SANDBOX)
    fuzz(entry)
