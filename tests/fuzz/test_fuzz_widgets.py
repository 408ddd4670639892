"""Fuzz the widgets of stmviz.widgets: junk in every argument gives a widget or an STMError, never anything else."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from functools import lru_cache  # noqa: E402

from stmviz import widgets  # noqa: E402

from _harness import Entry  # noqa: E402
from _run import fuzz, ids  # noqa: E402
from _traces import empty_trace, loaded_trace, trace  # noqa: E402

fifo = lambda: trace("FIFOWindow")  # noqa: E731
scm = lambda: trace("SCM")  # noqa: E731

@lru_cache(maxsize=None)
def _player():
    return widgets.TracePlayer(fifo())


@lru_cache(maxsize=None)
def _view():
    return widgets.TraceView(scm())


ENTRIES = [
    Entry("TracePlayer", lambda trace, t, interval, tokens, hierarchy, max_tokens: widgets.TracePlayer(
        trace, t, interval=interval, tokens=tokens, hierarchy=hierarchy, max_tokens=max_tokens),
        {"trace": fifo, "t": lambda: 2, "interval": lambda: 300, "tokens": lambda: True, "hierarchy": lambda: None,
         "max_tokens": lambda: 200}, max_examples=40),
    Entry("TracePlayer(loaded trace)", widgets.TracePlayer, {"trace": loaded_trace, "t": lambda: 1}, fuzz=("t",),
          max_examples=10),
    Entry("TracePlayer(empty trace)", widgets.TracePlayer, {"trace": empty_trace, "t": lambda: 0}, fuzz=("t",),
          max_examples=10),
    Entry("TraceView", lambda trace, t, tokens, hierarchy, max_tokens, name, height: widgets.TraceView(
        trace, t, tokens=tokens, hierarchy=hierarchy, max_tokens=max_tokens, name=name, height=height),
        {"trace": scm, "t": lambda: 1, "tokens": lambda: True, "hierarchy": lambda: None, "max_tokens": lambda: 100,
         "name": lambda: "scm", "height": lambda: None}, max_examples=35),
    Entry("compare_player", lambda traces, t, interval, columns: widgets.compare_player(
        traces, t, interval=interval, columns=columns),
        {"traces": lambda: {"fifo": fifo(), "scm": scm()}, "t": lambda: 1, "interval": lambda: 300,
         "columns": lambda: 2}, max_examples=35),
    Entry("step_html", lambda trace, t, max_items, width: widgets.step_html(trace, t, max_items=max_items, width=width),
          {"trace": fifo, "t": lambda: 3, "max_items": lambda: 4, "width": lambda: 60}, max_examples=35),
    Entry("TracePlayer.step", lambda delta: _player().step(delta), {"delta": lambda: 1}, max_examples=25),
    Entry("TracePlayer.t =", lambda value: setattr(_player(), "t", value), {"value": lambda: 2}, max_examples=25),
    Entry("TraceView.show", lambda t, tokens: _view().show(t, tokens=tokens), {"t": lambda: 2, "tokens": lambda: True},
          max_examples=25),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_widgets(entry):
    fuzz(entry)
