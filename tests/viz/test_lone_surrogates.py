"""Figures of agent text holding a lone surrogate (half an emoji) serialize with plotly's orjson engine.

orjson refuses lone surrogates; plotly uses it whenever it is installed (LangChain brings it), so a
figure of such a trace crashed in ``fig.show()`` / ``to_html`` until figure text followed the HTML
half of the encoding policy (U+FFFD).
"""

from __future__ import annotations

import pytest

pytest.importorskip("orjson")

import plotly.io as pio  # noqa: E402

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, run, sizes  # noqa: E402
from stmviz import viz  # noqa: E402
from stmviz.viz.export import trace_html  # noqa: E402

STEPS = ["cut \ud83d here", "b c \udc00", "d e f"]


@pytest.fixture
def orjson_engine(monkeypatch):
    monkeypatch.setattr(pio.json.config, "default_engine", "orjson")


@pytest.mark.parametrize("mechanism", [FIFOWindow, SCM, HiAgent, AgentFold], ids=lambda m: m.__name__)
def test_every_figure_of_a_trace_with_half_an_emoji_serializes(orjson_engine, mechanism):
    trace = run(mechanism(StateSpace(sizes.tokens(), v_max=60)), STEPS)
    pages = [viz.state_figure(trace, t).to_html(include_plotlyjs=False) for t in range(len(trace) + 1)]
    pages.append(viz.occupancy_figure(trace).to_html(include_plotlyjs=False))
    # the half emoji is shown as U+FFFD (JSON may write it as an escape) wherever the figures show the text
    assert any("\ufffd" in page or "\\ufffd" in page for page in pages)
    assert "\ufffd" in trace_html(trace)
