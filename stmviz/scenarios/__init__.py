"""Scenarios: bundled agent trajectories, their JSON schema, loaders and chat-log importers.

A scenario is the stream of incoming steps that :func:`stmviz.run` feeds to a
mechanism, with the query Q, the tools T, the capacity V_max it is meant to
be run at, and probes that test retention of early facts in π(ω_t).

- :func:`load_scenario` / :func:`list_scenarios` — the bundled scenarios
  (``web_research`` for AgentFold, ``household`` for HiAgent,
  ``long_dialogue`` for SCM, ``tool_chat`` for the FIFO window) or any file
  that follows ``schema.json``;
- :class:`Scenario`, :class:`Probe` — the objects, with ``from_dict`` /
  ``to_dict`` and :func:`validate` giving errors that name file, step and field;
- :func:`from_openai_messages`, :func:`load_chat_log`, :func:`from_dialogue`
  — importers from chat logs, in the conversation's order: each step holds
  the model's output (an assistant message) and then the input that arrives
  after it (the user's next message, or the tool's results);
- :func:`load_transcript` — the transcripts people have (a Claude Code session,
  Anthropic Messages, OpenAI chat or Responses items, OpenTelemetry GenAI spans,
  LangChain messages, AgentFold logs), detected and read by those same rules,
  with the model's thinking and the compactions the system recorded kept apart
  (:func:`recorded_compactions`).

>>> s = load_scenario("tool_chat")
>>> s.mechanism, s.v_max is not None
('FIFOWindow', True)
"""

from ._benchmarks import BenchmarkFileWarning
from .agentfold_log import from_agentfold_records, load_agentfold_log
from .chatlog import from_dialogue, from_openai_messages, load_chat_log
from .generate import generate_agent, generate_dialogue
from .locomo import from_locomo, load_locomo
from .longmemeval import from_longmemeval, load_longmemeval
from .scenario import (
    Probe,
    Scenario,
    ScenarioInfo,
    UnknownScenarioError,
    bundled_names,
    list_scenarios,
    load_scenario,
    scenarios,
)
from .schema import json_schema, problems, validate
from .transcripts import (
    FORMATS,
    RecordedCompaction,
    ReportItem,
    TranscriptReport,
    TranscriptWarning,
    detect_format,
    example_transcript,
    from_transcript,
    load_transcript,
    recorded_compactions,
)

__all__ = [
    "Scenario",
    "Probe",
    "ScenarioInfo",
    "UnknownScenarioError",
    "load_scenario",
    "list_scenarios",
    "bundled_names",
    "scenarios",
    "from_openai_messages",
    "load_chat_log",
    "from_dialogue",
    "from_agentfold_records",
    "load_agentfold_log",
    "generate_dialogue",
    "generate_agent",
    "BenchmarkFileWarning",
    "load_locomo",
    "from_locomo",
    "load_longmemeval",
    "from_longmemeval",
    "validate",
    "problems",
    "json_schema",
    "load_transcript",
    "from_transcript",
    "detect_format",
    "FORMATS",
    "RecordedCompaction",
    "ReportItem",
    "TranscriptReport",
    "TranscriptWarning",
    "recorded_compactions",
    "example_transcript",
]
