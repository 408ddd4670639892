"""The one shape every transcript format is read into: an OpenAI-style message list, plus what it cannot hold.

Each reader of :mod:`stmviz.scenarios.transcripts` turns its format into a
:class:`Conversation`: chat messages (``role``, ``content`` as text,
``tool_calls``, ``tool_call_id``) that :func:`~stmviz.scenarios.from_openai_messages`
cuts into steps by its rules, with, beside them, what a chat message has no
field for:

- the model's **thinking** (Anthropic ``thinking`` blocks, OpenAI ``reasoning``
  items, OpenTelemetry ``reasoning`` parts, ``reasoning_content``): kept per
  assistant message and put into the step's ``meta["thinking"]``, never into
  its visible text (the model's hidden reasoning is not part of the transcript
  the next call sees in these APIs);
- **recorded compactions** (Claude Code's ``compact_boundary`` and its summary,
  an Anthropic ``compaction`` block, an OpenAI ``compaction`` item): events at
  a position in the message list, put into ``meta["recorded_compaction"]`` of
  the first step whose output the model produced after it.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ...core.context import AgentStep
from ...core.errors import FormatError
from ..chatlog import from_openai_messages
from ..scenario import Scenario
from .report import Tally, TranscriptReport

#: The step-meta key of the compactions the recorded system made before that step's output.
COMPACTION_KEY = "recorded_compaction"


def fail(source: str, where: str, what: str) -> FormatError:
    """The one-line error of a malformed transcript: ``file: where: what (and how to fix it)``."""
    return FormatError(f"{source + ': ' if source else ''}{where}: {what}")


def word(value: Any) -> str | None:
    """A field compared with names (a ``type``, a ``role``): the text itself, or ``None`` for anything else.

    A hostile record may hold an object whose ``==`` does not give a bool (an
    array); only strings are compared.
    """
    return value if isinstance(value, str) else None


def id_of(value: Any, fallback: str) -> str:
    """A call's id: the text if it is non-empty text, else ``fallback`` (a stable made-up id)."""
    return value if isinstance(value, str) and value else fallback


def word_int(value: Any) -> int | None:
    """A whole-number field (LangChain's ``lc``), or ``None``."""
    return value if type(value) is int else None


def text_of(value: Any, source: str, where: str, what: str = "text") -> str:
    """A field that must be text (``None`` is empty)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise fail(source, where, f"expected {what} as a string, got {type(value).__name__} {brief(value, 40)}")
    return value


def arguments_text(value: Any, source: str = "", where: str = "arguments") -> str:
    """A tool call's arguments as the JSON text a chat message carries (a string stays as it is)."""
    return "{}" if value is None else result_text(value, source, where)


def result_text(value: Any, source: str = "", where: str = "result") -> str:
    """A tool result (or arguments) of any JSON shape as text: a string as it is, else its JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError) as exc:  # a structure that contains itself, or too deep
        raise fail(source, where, f"cannot be written as JSON text ({type(exc).__name__}); give plain JSON values") from None


def mapping(value: Any, source: str, where: str, what: str) -> Mapping[str, Any]:
    """A record that must be a JSON object."""
    if not isinstance(value, Mapping):
        raise fail(source, where, f"expected {what} (a JSON object), got {type(value).__name__} {brief(value, 40)}")
    return value


def listed(value: Any, source: str, where: str, what: str) -> list[Any]:
    """A field that must be a JSON array."""
    if not isinstance(value, list):
        raise fail(source, where, f"expected {what} (a JSON array), got {type(value).__name__} {brief(value, 40)}")
    return value


@dataclass
class Conversation:
    """A transcript read into chat messages, with the thinking and recorded compactions beside them."""

    source: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    thinking: dict[int, list[str]] = field(default_factory=dict)  # message index -> thinking texts
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (messages before it, event)
    query_parts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # free notes for the scenario's description
    pending_thinking: list[str] = field(default_factory=list)
    kept: Tally = field(default_factory=Tally)  # content kept in a form of its own (an unknown block as JSON text)
    left_out: Tally = field(default_factory=Tally)  # what the model saw or wrote that is not in the steps
    guessed: Tally = field(default_factory=Tally)  # where a rule decided what the file does not say
    skipped: Tally = field(default_factory=Tally)  # bookkeeping records, never model input

    # -- adding messages ---------------------------------------------------------
    def system(self, text: str, where: str) -> None:
        """A system (or developer) message: Q while nothing else came, else an input of its own."""
        if not text.strip():
            return
        if not self.messages:
            self.query_parts.append(text)
        else:
            self._add({"role": "system", "content": text}, where)

    def user(self, text: str, where: str) -> None:
        """A user message (empty text adds nothing)."""
        if text.strip():
            self._add({"role": "user", "content": text}, where)

    def assistant(self, text: str, where: str, calls: Sequence[tuple[str, str, str]] = (), thinking: Sequence[str] = ()) -> None:
        """An assistant message: its text, its tool calls ``(id, name, arguments)`` and its thinking.

        Thinking with no text and no call (a thinking-only record) waits for
        the next assistant message, so no step is made of it and it is not lost.
        """
        thoughts = [*self.pending_thinking, *(t for t in thinking if t.strip())]
        if not text.strip() and not calls:
            self.pending_thinking = thoughts
            return
        self.pending_thinking = []
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                for call_id, name, arguments in calls
            ]
        self._add(message, where)
        if thoughts:
            self.thinking[len(self.messages) - 1] = thoughts

    def add_calls(self, calls: Sequence[tuple[str, str, str]], where: str, thinking: Sequence[str] = ()) -> None:
        """More tool calls of the latest assistant message (OpenAI items list them apart), or a new message."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "assistant" and not self.pending_thinking and not thinking:
            last.setdefault("tool_calls", []).extend(
                {"id": c, "type": "function", "function": {"name": n, "arguments": a}} for c, n, a in calls
            )
            return
        self.assistant("", where, calls, thinking)

    def tool(self, call_id: str, text: str, where: str) -> None:
        """The result of the tool call ``call_id``."""
        self._add({"role": "tool", "tool_call_id": call_id, "content": text}, where)

    def compaction(self, where: str, **event: Any) -> None:
        """A compaction the recorded system made here (before the messages that follow)."""
        self.events.append((len(self.messages), {"where": where, **{k: v for k, v in event.items() if v is not None}}))

    def _add(self, message: dict[str, Any], where: str) -> None:
        self.messages.append(message)
        self.labels.append(where)

    # -- the scenario ------------------------------------------------------------
    def scenario(self, name: str, *, kind: str, v_max: float | None = None, query: str | None = None) -> Scenario:
        """The scenario of the conversation: steps by the chat-log rules, thinking and compactions in their meta."""
        if self.pending_thinking and self.messages:  # thinking after the last reply: keep it with that reply
            last = max((i for i, m in enumerate(self.messages) if m["role"] == "assistant"), default=None)
            if last is not None:
                self.thinking.setdefault(last, []).extend(self.pending_thinking)
                self.pending_thinking = []
        if not self.messages:
            raise fail(self.source, "top level", f"no user, assistant or tool message in {kind}: nothing to run")
        def finish(steps: list[AgentStep]) -> list[AgentStep]:
            """The steps with their thinking and the recorded compactions in their meta."""
            placed: dict[int, list[dict[str, Any]]] = {}
            outputs = _outputs(steps)
            for position, event in self.events:
                k = bisect.bisect_left(outputs, (position, -1))  # the first output at or after the event
                t = outputs[k][1] if k < len(outputs) else len(steps)
                placed.setdefault(min(t, len(steps) - 1), []).append({"t": t, **event})
            out = []
            for t, step in enumerate(steps):
                meta = dict(step.meta)
                thoughts = [text for i in step.meta.get("messages", ()) for text in self.thinking.get(i, ())]
                if thoughts:
                    meta["thinking"] = "\n\n".join(thoughts)
                if t in placed:
                    meta[COMPACTION_KEY] = placed[t]
                out.append(AgentStep(step.thought, step.action, step.observation, step.directives, meta))
            return out

        report = self.report(kind)
        compactions = len(self.events)
        description = f"Read from {kind} {self.source or '(in memory)'}: {len(self.messages)} messages"
        if compactions:
            description += f"; {compactions} compaction(s) recorded by the original system"
        if self.notes:
            description += "; " + "; ".join(self.notes)
        if report.summary():
            description += "; " + report.summary()
        scenario = from_openai_messages(
            self.messages, name, source=self.source, _labels=self.labels, v_max=v_max, description=description + ".",
            query=query if query is not None else ("\n\n".join(self.query_parts) if self.query_parts else None),
            _finish=finish,
        )
        object.__setattr__(scenario, "report", report)  # a new, frozen scenario: its report is set once, here
        return scenario

    def report(self, kind: str) -> TranscriptReport:
        """What the conversation holds, by kind, beside what the reader left out, guessed and skipped."""
        kept = Tally()
        for part in self.query_parts:
            kept.add(N_("system prompt (the query Q)"), "", part)
        for i, message in enumerate(self.messages):
            if not isinstance(message, Mapping):
                continue
            role, where = message.get("role"), self.labels[i] if i < len(self.labels) else ""
            content = message.get("content")
            text = content if isinstance(content, str) else ("" if content is None else json.dumps(content, default=str)[:200])
            if role in ("user", "assistant", "system") and text.strip():
                kept.add(N_("{role} text"), where, text, fields={"role": role})
            if role == "tool":
                kept.add(N_("tool result"), where, text)
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                function = call.get("function") if isinstance(call, Mapping) else None
                kept.add(N_("tool call"), where, function.get("name") if isinstance(function, Mapping) else "")
        for i in sorted(self.thinking):
            for thought in self.thinking[i]:
                kept.add(N_("thinking"), self.labels[i] if i < len(self.labels) else "", thought)
        for _, event in self.events:
            kept.add(N_("compaction"), str(event.get("where", "")), event.get("summary") or event.get("system") or "")
        for kind_, (count, example, at) in self.kept.counts.items():
            template, values = self.kept.templates.get(kind_, (kind_, ()))
            kept.add(template, str(at), example, int(count), fields=dict(values))  # type: ignore[call-overload]
        return TranscriptReport(self.source, kind, kept.items(), self.left_out.items(), self.guessed.items(), self.skipped.items())


def _outputs(steps: Sequence[AgentStep]) -> list[tuple[int, int]]:
    """``(message index, t)`` of every step's assistant messages, in order: where the model produced each output."""
    return [
        (i, t)
        for t, step in enumerate(steps)
        for i, role in zip(step.meta.get("messages", ()), step.meta.get("roles", ()))
        if role == "assistant"
    ]
