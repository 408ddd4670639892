"""Fuzz the in-memory scenario loaders and the Scenario object: junk gives a Scenario or an STMError.

File loaders (``load_scenario`` of a path, ``load_chat_log``, ``Scenario.to_json(path)``)
read and write files, which is the work of another branch; their cases are in
``test_fuzz_core.py``.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from stmviz import Scenario, load_scenario
from stmviz.scenarios import Probe, from_agentfold_records, from_dialogue, from_openai_messages, problems, validate

from _harness import Entry
from _run import fuzz, ids


def _messages():
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "find the weather"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Riga\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "14 degrees"},
        {"role": "assistant", "content": [{"type": "text", "text": "It is 14 degrees."}]},
    ]


@lru_cache(maxsize=None)
def _bundled():
    return load_scenario("tool_chat")


def _scenario_dict():
    return _bundled().to_dict()


def _records():
    return [
        {"role": "user", "content": "Who wrote the fold paper?"},
        {"role": "assistant", "content": "<think>Search first.</think>I will search."
         '<tool_call>{"name": "search", "arguments": {"q": "AgentFold"}}</tool_call>'},
        {"role": "tool", "content": "AgentFold, by Ye et al. (2025)."},
        {"role": "assistant", "fold": {"range": [0, 0], "summary": "searched"}, "explanation": "found it",
         "answer": "Ye et al."},
    ]


def _probe():
    return Probe(t=2, question="which city?", answer="Riga", evidence_step=0)


ENTRIES = [
    Entry("from_dialogue", lambda turns, name, query, v_max: from_dialogue(turns, name, query=query, v_max=v_max),
          {"turns": lambda: ["Hi, I am Ada.", "Hello Ada!", "What is my name?"], "name": lambda: "d",
           "query": lambda: "", "v_max": lambda: 100}, max_examples=40),
    Entry("from_dialogue(probes)", lambda probes: from_dialogue(["I live in Riga", "ok", "which city?"], probes=probes),
          {"probes": lambda: [_probe()]}, max_examples=30),
    Entry("from_openai_messages", lambda messages, name, query, tools, v_max: from_openai_messages(
        messages, name, query=query, tools=tools, v_max=v_max),
        {"messages": _messages, "name": lambda: "chat", "query": lambda: None, "tools": lambda: ["weather"],
         "v_max": lambda: None}, max_examples=30),
    Entry("from_openai_messages(message)", lambda message: from_openai_messages([_messages()[1], message]),
          {"message": lambda: _messages()[2]}, max_examples=40),
    Entry("from_agentfold_records", lambda records, name, step_base: from_agentfold_records(
        records, name, step_base=step_base), {"records": _records, "name": lambda: "af", "step_base": lambda: 0},
        max_examples=40),
    Entry("Scenario.from_dict", Scenario.from_dict, {"data": _scenario_dict, "source": lambda: "mine"}, max_examples=30),
    *[Entry(f"Scenario.from_dict({field})", lambda value, field=field: Scenario.from_dict({**_scenario_dict(), field: value}),
            {"value": lambda field=field: _scenario_dict().get(field, "x")}, max_examples=12)
      for field in ("name", "title", "query", "tools", "steps", "probes", "v_max", "mechanism", "meta", "format")],
    *[Entry(f"Scenario({field}=)", lambda value, field=field: Scenario(**{"name": "s", "steps": ({"observation": "hi"},),
                                                                          field: value}),
            {"value": lambda field=field: {"tools": ("search",), "probes": (), "v_max": 100, "meta": {"k": 1},
                                          "steps": ({"observation": "hi"},)}.get(field, "text")},
            max_examples=12)
      for field in ("name", "title", "description", "query", "tools", "steps", "probes", "v_max", "mechanism", "meta")],
    Entry("Scenario.from_json", Scenario.from_json, {"text": lambda: _bundled().to_json(), "source": lambda: "s"},
          max_examples=30),
    Entry("scenarios.validate", validate, {"data": _scenario_dict, "source": lambda: "s"}, max_examples=30),
    Entry("scenarios.problems", problems, {"data": _scenario_dict}, max_examples=30),
    Entry("Scenario.space", lambda size, v_max: _bundled().space(size, v_max), {"size": lambda: "tokens",
                                                                             "v_max": lambda: 200}, max_examples=30),
    Entry("Scenario.token_count", lambda encoding: _bundled().token_count(encoding),
          {"encoding": lambda: "cl100k_base"}, max_examples=20),
    Entry("Probe", Probe, {"t": lambda: 1, "question": lambda: "q", "answer": lambda: "a", "evidence_step": lambda: 0},
          max_examples=40),
    Entry("load_scenario(name)", load_scenario, {"name_or_path": lambda: "tool_chat"},
          only={"name_or_path": lambda v: not isinstance(v, (str, bytes)) or "/" not in str(v)}, max_examples=30),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_scenarios(entry, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fuzz(entry)
