"""Fuzz the practitioners' managers (stmviz.managers): every constructor argument, and a run of each on an agent stream.

Besides junk of every type, the issue's own hostile inputs are explicit cases:
huge integers in LangChainSummarization's ``keep`` / ``trigger`` tuples
(turned into floats they overflow), NaN and infinity there, and a summarizer
that ignores its budget.
"""

from __future__ import annotations

import json
import math

import pytest

from stmviz import AgentStep, StateSpace, run, sizes
from stmviz.managers import (
    ADKCompaction,
    ClearToolUses,
    Compaction,
    LangChainSummarization,
    LettaMemory,
    LlamaIndexMemory,
    SummarizingSession,
    TrimmingSession,
)

from _harness import Entry
from _run import fuzz, params


def space(v_max: float = 400) -> StateSpace:
    return StateSpace(sizes.words, v_max)


def stream(n: int = 12) -> list[AgentStep]:
    """A user message, tool uses and replies, a last reply (what every manager reads)."""
    out = [AgentStep(observation="user 0 asks where the key is")]
    for k in range(n):
        if k % 2:
            out.append(AgentStep(thought=f"reply {k} about the key", observation=f"user {k} asks more about room {k}"))
        else:
            out.append(AgentStep(thought=f"look {k}", action=f"search({json.dumps({'q': f'room {k}'})})",
                                 observation=f"room {k} holds a blue mat " * 3, meta={"tool": "search"}))
    return out + [AgentStep(thought="bye")]


def wordy(texts, budget):
    """A summarizer that ignores its budget."""
    return "word " * 5000


#: class -> (valid keyword arguments, the ones fuzzed)
MANAGERS = {
    ClearToolUses: {"system": lambda: "be brief", "trigger": lambda: 60, "trigger_type": lambda: "input_tokens",
                    "keep": lambda: 1, "clear_at_least": lambda: None, "exclude_tools": lambda: (),
                    "clear_tool_inputs": lambda: False, "keep_thinking": lambda: 1,
                    "placeholder": lambda: "[cleared]", "flavour": lambda: "anthropic"},
    Compaction: {"system": lambda: "be brief", "trigger": lambda: 80, "pause_after_compaction": lambda: False,
                 "preserve": lambda: 3, "instructions": lambda: None, "summarizer": lambda: None,
                 "summary_tokens": lambda: None, "flavour": lambda: "anthropic"},
    LangChainSummarization: {"system": lambda: None, "trigger": lambda: ("tokens", 120), "keep": lambda: ("messages", 4),
                             "trim_tokens_to_summarize": lambda: 4000, "summarizer": lambda: None,
                             "summary_tokens": lambda: None},
    ADKCompaction: {"compaction_interval": lambda: 3, "overlap_size": lambda: 1, "token_threshold": lambda: None,
                    "event_retention_size": lambda: None, "summarize": lambda: None, "summary_budget": lambda: 50,
                    "agent_name": lambda: "agent", "system": lambda: None},
    LettaMemory: {"context_window": lambda: None, "system": lambda: "You remember.", "persona": lambda: "I help.",
                  "human": lambda: "Ann.", "block_limit": lambda: 500, "trigger": lambda: 0.9,
                  "sliding_window_percentage": lambda: 0.3, "summarize": lambda: None, "summary_budget": lambda: 40,
                  "clip_chars": lambda: 50000},
    LlamaIndexMemory: {"token_limit": lambda: 300, "chat_history_token_ratio": lambda: 0.7, "token_flush_size": lambda: 30,
                       "blocks": lambda: (), "insert_method": lambda: "system", "system": lambda: None,
                       "summarize": lambda: None, "fact_budget": lambda: 30},
    SummarizingSession: {"keep_last_n_turns": lambda: 2, "context_limit": lambda: 3, "summarize": lambda: None,
                         "tool_trim_limit": lambda: 600, "summary_budget": lambda: 60, "system": lambda: None},
    TrimmingSession: {"max_turns": lambda: 4, "system": lambda: None},
}


def build(cls, space, **kwargs):
    return cls(space, **kwargs)


def build_and_run(cls, space, **kwargs):
    return run(cls(space, **kwargs), stream())


HUGE = {
    LangChainSummarization: (
        {"keep": lambda: ("tokens", 10**400)}, {"trigger": lambda: ("tokens", 10**400)},
        {"keep": lambda: ("fraction", math.nan)}, {"trigger": lambda: ("fraction", math.inf)},
        {"keep": lambda: ("messages", 2**63)}, {"trigger": lambda: [("tokens", 10**400), ("messages", 3)]},
        {"summarizer": lambda: wordy},
    ),
    Compaction: ({"trigger": lambda: 10**400}, {"summarizer": lambda: wordy}),
    ClearToolUses: ({"trigger": lambda: 10**400}, {"keep": lambda: 10**400}),
    ADKCompaction: ({"summarize": lambda: wordy}, {"token_threshold": lambda: 10**400}),
    LettaMemory: ({"summarize": lambda: wordy}, {"trigger": lambda: math.nan}, {"context_window": lambda: 10**400}),
    LlamaIndexMemory: ({"summarize": lambda: wordy}, {"chat_history_token_ratio": lambda: math.nan},
                       {"token_limit": lambda: 10**400}),
    SummarizingSession: ({"summarize": lambda: wordy}, {"keep_last_n_turns": lambda: 10**400}),
    TrimmingSession: ({"max_turns": lambda: 10**400},),
}


ENTRIES = [
    *[Entry(cls.__name__, lambda space, cls=cls, **kw: build(cls, space, **kw),
            {"space": space, **valid}, max_examples=30, cases=HUGE.get(cls, ()))
      for cls, valid in MANAGERS.items()],
    *[Entry(f"run({cls.__name__})", lambda space, cls=cls, **kw: build_and_run(cls, space, **kw),
            {"space": space, **valid}, max_examples=15, cases=HUGE.get(cls, ()))
      for cls, valid in MANAGERS.items()],
    *[Entry(f"run({cls.__name__}, steps)", lambda steps, cls=cls: run(cls(space(), **{k: v() for k, v in MANAGERS[cls].items()}), steps),
            {"steps": stream}, max_examples=15)
      for cls in MANAGERS],
]


@pytest.mark.parametrize("entry", params(ENTRIES))
def test_fuzz_managers(entry):
    fuzz(entry)
