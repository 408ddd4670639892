"""Saved traces for the reliability tests, and every consumer a loaded trace must work in (not a test module)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from stmviz import StateSpace, Trace, load_scenario, run, sizes
from stmviz.mechanisms import SCM, AgentFold, FIFOWindow, HiAgent

MECHANISMS = {"FIFOWindow": FIFOWindow, "SCM": SCM, "HiAgent": HiAgent, "AgentFold": AgentFold}


@functools.lru_cache(maxsize=None)
def saved_trace(mechanism: str) -> str:
    """The JSON text of a short run of a bundled scenario through one mechanism (AgentFold folds, HiAgent nests)."""
    scenario = load_scenario("web_research")
    space = StateSpace(sizes.tokens(), 900)
    trace = run(MECHANISMS[mechanism](space), scenario.steps[:10], query=scenario.query, tools=scenario.tools)
    return trace.to_json()


def saved_dict(mechanism: str) -> dict[str, Any]:
    """A fresh decoded copy of :func:`saved_trace`."""
    return json.loads(saved_trace(mechanism))


def use_everywhere(trace: Trace, folder: Path) -> None:
    """Draw every figure at the first, a middle and the last t, export the page and build a player: what a student does."""
    from stmviz import viz
    from stmviz.widgets import TracePlayer

    n = len(trace)
    viz.occupancy_figure(trace)
    for t in sorted({0, n // 2, n}):
        viz.state_figure(trace, t)
        viz.tokens_html(trace.project(t), max_tokens=200)
        viz.hierarchy_figure(trace, t)
        trace.describe(t)
        if t < n:
            viz.loop_figure(trace, t)
    trace.table()
    trace.to_records()
    viz.export_html(trace, folder / "page.html", max_frames=4)
    TracePlayer(trace, tokens=True)
