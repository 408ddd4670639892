"""Modules that moved leave a stub at their old path: it gives the same object, with a DeprecationWarning."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "old, new, name",
    [
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "fit_text"),
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "ELLIPSIS"),
        # SCM's offline stand-ins for the model, and its own released rule
        *[
            ("stmviz.mechanisms.scm_controller", "stmviz.text.scm_judges", name)
            for name in ("RecallHeuristic", "OverlapJudge", "always_needs_memory", "content_words", "RECALL_CUES", "VERDICTS")
        ],
        ("stmviz.mechanisms.scm_controller", "stmviz.mechanisms.scm", "retrieves_as_released"),
        # HiAgent's offline subgoal summarizer, from its old module and from hiagent.py, which re-exported it
        *[
            (old, "stmviz.text.subgoal_summary", name)
            for old in ("stmviz.mechanisms.hiagent_summarizer", "stmviz.mechanisms.hiagent")
            for name in ("SubgoalPair", "ObservationSummarizer", "verdict_of", "informative_sentences", "SubgoalSummarizer")
        ],
        # AgentFold whole in its module
        ("stmviz.mechanisms.agentfold_extras", "stmviz.mechanisms.agentfold", "block_label"),
        # the practitioners' managers in their own room
        ("stmviz.mechanisms.clear_tool_uses", "stmviz.managers.clear_tool_uses", "ClearToolUses"),
        ("stmviz.mechanisms.clear_tool_uses", "stmviz.managers.clear_tool_uses", "LANGCHAIN_PLACEHOLDER"),
        ("stmviz.mechanisms.compaction", "stmviz.managers.compaction", "Compaction"),
        ("stmviz.mechanisms.compaction", "stmviz.managers.compaction", "CLAUDE_CODE_PREFIX"),
        ("stmviz.mechanisms.langchain_summarization", "stmviz.managers.langchain_summarization", "LangChainSummarization"),
        ("stmviz.mechanisms.langchain_summarization", "stmviz.managers.langchain_summarization", "SUMMARY_PROMPT"),
        ("stmviz.mechanisms.adk_compaction", "stmviz.managers.adk_compaction", "ADKCompaction"),
        ("stmviz.mechanisms.letta_memory", "stmviz.managers.letta_memory", "LettaMemory"),
        ("stmviz.mechanisms.llamaindex_memory", "stmviz.managers.llamaindex_memory", "LlamaIndexMemory"),
        ("stmviz.mechanisms.llamaindex_memory", "stmviz.managers.llamaindex_memory", "MemoryBlock"),
        ("stmviz.mechanisms.openai_sessions", "stmviz.managers.openai_sessions", "TrimmingSession"),
        ("stmviz.mechanisms.openai_sessions", "stmviz.managers.openai_sessions", "SummarizingSession"),
        ("stmviz.mechanisms.openai_sessions", "stmviz.managers.openai_sessions", "SHADOW_USER_LINE"),
        ("stmviz.mechanisms.fifo_extras", "stmviz.mechanisms.fifo", "OVERSIZE_POLICIES"),
    ],
)
def test_an_old_path_gives_the_new_object_and_warns(old, new, name):
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .* import {name} from {new}"):
        value = getattr(importlib.import_module(old), name)
    assert value is getattr(importlib.import_module(new), name)


def test_an_unknown_name_at_an_old_path_is_an_attribute_error():
    stub = importlib.import_module("stmviz.mechanisms.fit")
    with pytest.raises(AttributeError, match="moved to stmviz.text.fit"):
        stub.no_such_name


def test_a_stub_whose_names_went_to_two_homes_warns_at_the_callers_line():
    """scm_controller's names went to stmviz.text.scm_judges and stmviz.mechanisms.scm: each warns, naming this file."""
    import stmviz.mechanisms.scm_controller as stub

    for name, home in (("OverlapJudge", "stmviz.text.scm_judges"), ("retrieves_as_released", "stmviz.mechanisms.scm")):
        with pytest.warns(DeprecationWarning, match=f"import {name} from {home}") as caught:
            value = getattr(stub, name)
        assert value is getattr(importlib.import_module(home), name)
        assert caught[0].filename == __file__  # shown by Python's default filters in a user's script


MANAGERS = ["ClearToolUses", "Compaction", "LangChainSummarization", "ADKCompaction", "LettaMemory", "LlamaIndexMemory",
            "SummarizingSession", "TrimmingSession"]


@pytest.mark.parametrize("name", MANAGERS)
def test_a_manager_read_from_stmviz_mechanisms_is_the_one_of_stmviz_managers_and_warns(name):
    import stmviz
    import stmviz.managers
    import stmviz.mechanisms

    with pytest.warns(DeprecationWarning, match=rf"stmviz\.mechanisms\.{name} is deprecated .* import {name} from stmviz\.managers") as seen:
        value = getattr(stmviz.mechanisms, name)
    assert seen[0].filename == __file__  # the warning names the line to change, not stmviz's own
    assert value is getattr(stmviz.managers, name) is getattr(stmviz, name)
    assert name not in stmviz.mechanisms.__all__  # ``from stmviz.mechanisms import *`` gives the paper's four, silently


def test_the_old_step_messages_of_the_fifo_window_warns_and_gives_what_it_gave():
    from stmviz import AgentStep
    from stmviz.mechanisms import fifo

    with pytest.warns(DeprecationWarning, match="fifo.step_messages is deprecated .* stmviz.managers.conversation"):
        old = fifo.step_messages
    step = AgentStep(thought="Look.", action="search(x)", observation="x is 4")
    assert old(step, 3) == [("assistant", "Look.\nsearch(x)", "call_3"), ("tool", "x is 4", "call_3")]
    assert old(AgentStep(thought="Hi.", observation="Bye.", meta={"role": "system"}), 0) == [
        ("assistant", "Hi.", None), ("system", "Bye.", None)]


def test_a_trace_saved_with_a_manager_at_its_old_path_still_rebuilds_it():
    """Trace files name their mechanism ``module:Class``; those saved before the move name stmviz.mechanisms.*."""
    import json

    from stmviz import AgentStep, Compaction, StateSpace, Trace, run, sizes

    trace = run(Compaction(StateSpace(sizes.words, 100), trigger=10), [AgentStep(observation="one two three")])
    data = json.loads(trace.to_json())
    assert data["mechanism"]["class"] == "stmviz.managers.compaction:Compaction"
    data["mechanism"]["class"] = "stmviz.mechanisms.compaction:Compaction"
    with pytest.warns(DeprecationWarning, match="import Compaction from stmviz.managers.compaction"):
        loaded = Trace.from_json(json.dumps(data))
    assert type(loaded.mechanism) is Compaction and loaded.mechanism.params() == trace.mechanism.params()
