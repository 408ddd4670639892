"""The errors for bad arguments say what was wrong, the value, and the fix (the README's promise), with an STMError.

A few representative cases per owner of a check; the fuzz modules check that every
junk argument gives *some* STMError, these check that the message is useful.
"""

from __future__ import annotations

import pytest

pytest.importorskip("plotly")

from stmviz import metrics, viz, widgets
from stmviz.errors import InvalidArgumentError, FormatError, STMError
from stmviz.scenarios import Scenario, from_openai_messages  # noqa: E402
from stmviz.tables import table  # noqa: E402

from _harness import BadEverything, BadStr  # noqa: E402
from _traces import trace  # noqa: E402

RECORDS = [{"mechanism": "fifo", "retention": 0.5}]


@pytest.mark.parametrize("call, words", [
    (lambda: table(RECORDS, digits=-1), ["digits", "-1", "0 ≤ digits ≤ 17"]),
    (lambda: table(RECORDS, digits=2.5), ["digits", "2.5", "whole number"]),
    (lambda: table(RECORDS, columns="mechanism"), ["columns", "'mechanism'", "['mechanism']"]),
    (lambda: table([RECORDS[0], 3]), ["records[1]", "3", "trace.to_records()"]),
    (lambda: table(None), ["records", "None", "list"]),
    (lambda: trace("FIFOWindow").table(width="wide"), ["width", "'wide'", "None shows whole texts"]),
    (lambda: trace("FIFOWindow").table(limit=-2), ["limit", "-2", "≥ 0"]),
    (lambda: viz.tokens_html("hi", encoding=["cl100k_base"]), ["encoding", "['cl100k_base']", "'cl100k_base'"]),
    (lambda: viz.export_html(trace("FIFOWindow"), None), ["path", "None", "'run.html'"]),
    (lambda: viz.export_html(trace("FIFOWindow"), "cut \ud83d.html"), ["path", "half of an emoji", "another file name"]),
    (lambda: viz.trace_html(trace("FIFOWindow"), title=3), ["title", "3", "str"]),
    (lambda: viz.occupancy_figure(trace("FIFOWindow"), stacked="yes"), ["stacked", "'yes'", "True or False"]),
    (lambda: viz.hierarchy_figure(trace("HiAgent"), height=5), ["height", "5", "≥ 10"]),
    (lambda: viz.state_figure(trace("FIFOWindow").state_at(2), space_or_sizes=lambda e: "big"),
     ["μ(", "'big'", "finite number"]),
    (lambda: widgets.TracePlayer(trace("FIFOWindow"), interval=0), ["interval", "0", "milliseconds"]),
    (lambda: widgets.step_html(trace("FIFOWindow"), 2, width=0), ["width", "0", "≥ 1"]),
    (lambda: metrics.retention(trace("FIFOWindow"), [("t", 1)]), ["probes[0]", "('t', 1)", "Probe(t, question"]),
    (lambda: metrics.compare([], {"steps": []}), ["scenario", "{'steps': []}", "load_scenario"]),
    (lambda: metrics.is_summary("text"), ["Element", "'text'"]),
    # the guards the layers share (issue 32): the argument by name, its value, what to pass, and where
    (lambda: metrics.evidence_recall(trace("FIFOWindow"), "what?"), ["evidence_recall", "probe", "'what?'", "Probe(t, question"]),
    (lambda: viz.recall_figure([{"v_max": 1, "evidence_recall": 0.5}], "v_max"), ["recall_figure", "measure", "'v_max'", "'evidence_recall'"]),
    (lambda: viz.occupancy_figure({}), ["occupancy_figure", "trace_or_traces", "empty", "Traces"]),
    (lambda: widgets.compare_player({"fifo": trace("FIFOWindow"), "other": 3}), ["compare_player", "traces['other']", "3", "run(mechanism, steps)"]),
    (lambda: viz.occupancy_figure(trace("FIFOWindow"), layout="grid"), ["layout", "'grid'", "'overlay', 'side'"]),
])
def test_message_says_what_the_value_and_the_fix(call, words):
    with pytest.raises(STMError) as raised:
        call()
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))


def test_a_value_whose_repr_fails_is_still_named():
    with pytest.raises(InvalidArgumentError, match="BadEverything"):
        table(RECORDS, digits=BadEverything())
    with pytest.raises(InvalidArgumentError, match="str\\(\\) of a BadStr raised HostileError"):
        viz.escape(BadStr())


def test_a_cell_whose_str_fails_does_not_break_the_table():
    shown = str(table([{"a": BadStr(), "b": 1}]))
    assert "<BadStr>" in shown and "1" in shown


def test_scenario_loaders_name_the_field():
    with pytest.raises(FormatError, match="messages: expected a list of message objects, got 3"):
        from_openai_messages(3)
    with pytest.raises(FormatError, match="probes: expected a list of probes"):
        Scenario("s", steps=({"observation": "hi"},), probes=None)
    with pytest.raises(FormatError, match="from_json reads JSON text"):
        Scenario.from_json({"steps": []})
