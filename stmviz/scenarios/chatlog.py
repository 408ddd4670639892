"""Importers: turn chat logs into scenarios (streams of incoming steps), keeping the conversation's order.

A step t (:class:`~stmviz.AgentStep`) holds, in this order, the model's
output — ``thought`` and ``action`` — which the model produced from
x_t = π(ω_t), and then the input that arrives after it — ``observation`` —
which the model sees from x_{t+1} on. So an assistant message is an output
produced from everything before it, and a user or tool message is the input
that follows the assistant output before it. The rules:

- system (or developer) messages before anything else become the query Q,
  joined by blank lines; a later one is an input-only step of its own,
  ``AgentStep(observation=text, meta={"role": "system"})``;
- messages before the first assistant message are step 0's input (no output):
  ``AgentStep(observation=user)``;
- every assistant message starts a new step with its output: its content is
  the ``thought``, its ``tool_calls`` the ``action`` (``name(arguments)``, one
  line per call);
- the messages after it, up to the next assistant message, are that step's
  input: for a plain reply, the user's message(s) (several joined by blank
  lines); for a reply with tool calls, the tool results (matched by
  ``tool_call_id``), in the order of the calls, each labelled ``[name]`` when
  there are several;
- a user message that follows tool results with no assistant message in
  between is an input-only step of its own, ``AgentStep(observation=user)``
  (role ``"user"``), so that a step's input is either a tool's or a person's,
  never both;
- a reply followed directly by another assistant message, or ending the log,
  is an output-only step (no input).

For a dialogue [u0, a0, u1, a1, …, u_n, a_n] this gives step 0 = (—, u0),
step k = (a_{k−1}, u_k) and a last step (a_n, —): reply a_k is produced from
π(ω_{k+1}), which holds the message u_k it answers.

Each step's ``meta`` records ``role`` — whose input its observation is
(``"user"``, ``"tool"`` or ``"system"``; ``"assistant"`` for an output-only
step) —, ``messages`` (the indices of the messages it came from, in order),
``roles`` (their roles) and, for a step with tool calls, ``tool`` (the tool
names), ``call`` (the call ids) and ``unanswered`` (calls no result answers).
Content may be a string or a list of parts (``{"type": "text", "text": ...}``;
image, audio and file parts are kept as placeholders like ``[image: url]``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.guards import brief
from ..core import guards
from ..core.errors import FormatError
from ..core.formatting import shorten
from ..io.files import as_path, read_bytes
from ..io.jsonio import decode_json, decode_json_lines
from ..core.context import AgentStep
from .scenario import Scenario, _listed

__all__ = ["from_openai_messages", "load_chat_log", "from_dialogue"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _fail(source: str, where: str, what: str) -> FormatError:
    prefix = f"{source}: " if source else ""
    return FormatError(f"{prefix}{where}: {what}")


def _at(label: str, field: str) -> str:
    """``messages[3].role`` for a JSON list, ``line 4: role`` for a JSONL line."""
    return f"{label}: {field}" if label.startswith("line ") else f"{label}.{field}"


def _content_text(content: Any, source: str, where: str) -> str:
    """The text of a message content: a string, null, or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _fail(
            source, _at(where,
            "content"), f"expected text or a list of parts, got {type(content).__name__} {brief(content, 40)}",
        )
    pieces = []
    for k, part in enumerate(content):
        at = _at(where, f"content[{k}]")
        if isinstance(part, str):
            pieces.append(part)
            continue
        if not isinstance(part, Mapping):
            raise _fail(
                source, at,
                f"a content part is an object like {{'type': 'text', 'text': ...}}, got {type(part).__name__}",
            )
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            text = part.get("text")
            if not isinstance(text, str):
                raise _fail(source, f"{at}.text", f"a text part needs its text as a string, got {brief(text, 40)}")
            pieces.append(text)
        elif kind == "refusal":
            pieces.append(str(part.get("refusal", "")))
        elif kind in ("image_url", "input_image"):
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else image
            pieces.append(f"[image: {shorten(url, 60)}]" if isinstance(url, str) and url else "[image]")
        elif kind in ("input_audio", "audio"):
            pieces.append("[audio]")
        elif kind in ("file", "input_file"):
            info = part.get("file")
            name = info.get("filename") if isinstance(info, Mapping) else None
            pieces.append(f"[file: {name}]" if isinstance(name, str) else "[file]")
        else:
            raise _fail(
                source,
                f"{at}.type",
                f"unknown content part type {brief(kind, 40)}; known: text, image_url, input_audio, file, refusal",
            )
    return "\n".join(p for p in pieces if p)


def _tool_calls(message: Mapping[str, Any], source: str, where: str) -> list[tuple[str, str, str]]:
    """``(call id, function name, arguments)`` of an assistant message's ``tool_calls``."""
    calls = message.get("tool_calls")
    if calls is None:
        legacy = message.get("function_call")
        if legacy is None:
            return []
        calls = [{"id": f"function_call@{where}", "type": "function", "function": legacy}]
    if not isinstance(calls, list):
        raise _fail(source, _at(where, "tool_calls"), f"expected a list of calls, got {type(calls).__name__}")
    out = []
    for k, call in enumerate(calls):
        at = _at(where, f"tool_calls[{k}]")
        if not isinstance(call, Mapping):
            raise _fail(source, at, f"a tool call is an object with 'id' and 'function', got {type(call).__name__}")
        function = call.get("function")
        if not isinstance(function, Mapping):
            raise _fail(source, f"{at}.function", "missing or not an object with 'name' and 'arguments'")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise _fail(source, f"{at}.function.name", f"expected the tool's name as text, got {brief(name, 40)}")
        arguments = function.get("arguments", "")
        if isinstance(arguments, Mapping):
            try:
                arguments = json.dumps(arguments, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError) as exc:  # a set, an object, a cycle: not JSON
                raise _fail(
                    source, f"{at}.function.arguments",
                    f"the arguments hold a value JSON cannot write ({type(exc).__name__}: {shorten(str(exc), 60)}); "
                    f"give lists, dicts, text, numbers, true/false or null (a set as a list)",
                ) from None
        if not isinstance(arguments, str):
            raise _fail(source, f"{at}.function.arguments", f"expected a JSON string, got {type(arguments).__name__}")
        call_id = call.get("id", f"call@{where}[{k}]")
        if not isinstance(call_id, str):
            raise _fail(source, f"{at}.id", f"expected text, got {brief(call_id, 40)}")
        out.append((call_id, name, arguments))
    return out


@dataclass
class _Building:
    """A step being assembled: the model's output (an assistant message) and the input that arrives after it."""

    thought: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    output_at: str = ""  # the label of the assistant message, for error messages
    pending: dict[str, str] = field(default_factory=dict)  # call id -> tool name, not yet answered
    results: dict[str, str] = field(default_factory=dict)  # call id -> result text
    inputs: list[str] = field(default_factory=list)  # user or system texts
    input_role: str | None = None  # "user", "tool" or "system"
    messages: list[int] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)

    def takes(self, role: str) -> bool:
        """Whether a user or system message joins this step's input (else it starts an input-only step)."""
        return role == "user" and not self.calls and self.input_role in (None, "user")

    def add(self, index: int, role: str) -> None:
        self.messages.append(index)
        self.roles.append(role)

    def step(self) -> AgentStep | None:
        """The finished step, or ``None`` if it holds no text at all (an empty assistant message and no input)."""
        action = "\n".join(f"{name}({arguments})" for _, name, arguments in self.calls)
        if self.calls and len(self.calls) == 1:
            observation = self.results.get(self.calls[0][0], "")
        elif self.calls:
            observation = "\n".join(f"[{name}] {self.results[c]}" for c, name, _ in self.calls if c in self.results)
        else:
            observation = "\n\n".join(self.inputs)
        meta: dict[str, Any] = {"role": self.input_role or "assistant", "messages": self.messages, "roles": self.roles}
        if self.calls:
            meta["tool"] = [name for _, name, _ in self.calls]
            meta["call"] = [c for c, _, _ in self.calls]
        if self.pending:
            meta["unanswered"] = list(self.pending)
        step = AgentStep(thought=self.thought, action=action, observation=observation, meta=meta)
        return step if step.text.strip() else None


class _Reader:
    """Reads a message list in order and cuts it into steps (the rules of the module's text)."""

    def __init__(self, messages: Sequence[Any], labels: Sequence[str], source: str) -> None:
        self.messages, self.labels, self.source = messages, labels, source
        self.query_parts: list[str] = []
        self.steps: list[AgentStep] = []
        self.current: _Building | None = None

    def role_of(self, k: int) -> str:
        message, where = self.messages[k], self.labels[k]
        if not isinstance(message, Mapping):
            raise _fail(
                self.source, where,
                f"a message is an object with 'role' and 'content', got {type(message).__name__} {brief(message, 40)}",
            )
        role = message.get("role")
        if not isinstance(role, str) or role not in _ROLES:
            raise _fail(self.source, _at(where, "role"), f"{brief(role, 40)} is not one of {', '.join(_ROLES)}")
        return "system" if role == "developer" else role

    def flush(self) -> None:
        if self.current is not None and (step := self.current.step()) is not None:
            self.steps.append(step)
        self.current = None

    def read(self) -> tuple[str, list[AgentStep]]:
        started = False
        for i in range(len(self.messages)):
            role = self.role_of(i)
            text = _content_text(self.messages[i].get("content"), self.source, self.labels[i])
            if role == "system" and not started:
                if text.strip():
                    self.query_parts.append(text)
                continue
            started = True
            if role == "assistant":
                self.output(i, text)
            elif role in ("tool", "function"):
                self.tool_result(i, role, text)
            elif text.strip():
                self.input(i, role, text)
        self.flush()
        return "\n\n".join(self.query_parts), self.steps

    def output(self, i: int, text: str) -> None:
        """An assistant message: it ends the step before and starts a new one with its output."""
        self.flush()
        calls = _tool_calls(self.messages[i], self.source, self.labels[i])
        self.current = _Building(thought=text, calls=calls, output_at=self.labels[i],
                                 pending={call_id: name for call_id, name, _ in calls})
        self.current.add(i, "assistant")

    def input(self, i: int, role: str, text: str) -> None:
        """A user (or later system) message: the input after the latest output, or an input-only step of its own."""
        if self.current is None or not self.current.takes(role):
            self.flush()
            self.current = _Building()
        self.current.input_role = role
        self.current.inputs.append(text)
        self.current.add(i, role)

    def tool_result(self, i: int, role: str, text: str) -> None:
        """A tool result: the input of the step whose assistant message made the call."""
        message, at, current = self.messages[i], self.labels[i], self.current
        if current is None or not current.pending or current.input_role not in (None, "tool"):
            raise _fail(
                self.source,
                _at(at, "tool_call_id") if role == "tool" else _at(at, "role"),
                "a tool result must follow the assistant message whose tool_calls it answers"
                + (f" (no pending call {message.get('tool_call_id')!r})" if role == "tool" else ""),
            )
        call_id = self.call_answered(message, at, role, current)
        current.pending.pop(call_id)
        current.results[call_id] = text
        current.input_role = "tool"
        current.add(i, role)

    def call_answered(self, message: Mapping[str, Any], at: str, role: str, current: _Building) -> str:
        """The id of the pending call a tool result answers (by ``tool_call_id``; a legacy ``function`` result by name)."""
        if role == "function":
            call_id = next((c for c, name in current.pending.items() if name == message.get("name")), None)
            if call_id is None:
                raise _fail(
                    self.source, _at(at, "name"),
                    f"{brief(message.get('name'), 40)} matches no pending function call of {current.output_at}",
                )
            return call_id
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str):
            raise _fail(
                self.source, _at(at, "tool_call_id"),
                f"a tool result names the call it answers, got {brief(call_id, 40)}",
            )
        if call_id not in current.pending:
            known = ", ".join(map(repr, current.pending)) or "none left"
            raise _fail(
                self.source, _at(at, "tool_call_id"),
                f"{call_id!r} matches no pending call of {current.output_at} (pending: {known})",
            )
        return call_id


def _steps_from_messages(
    messages: Sequence[Any], labels: Sequence[str], source: str
) -> tuple[str, list[AgentStep]]:
    """The query Q (leading system messages) and the steps of a message list."""
    return _Reader(messages, labels, source).read()


def from_openai_messages(
    messages: Iterable[Any],
    name: str = "chat",
    *,
    title: str = "",
    description: str = "",
    query: str | None = None,
    tools: Sequence[str] | None = None,
    v_max: float | None = None,
    source: str = "",
    _labels: Sequence[str] | None = None,
    _finish: Callable[[list[AgentStep]], list[AgentStep]] | None = None,
) -> Scenario:
    """A scenario from an OpenAI-style list of chat messages, in the conversation's order (see the module's text).

    Parameters
    ----------
    messages : iterable of dict
        ``{"role": "system" | "user" | "assistant" | "tool", "content": ...}``;
        assistant messages may carry ``tool_calls`` (``{"id", "function":
        {"name", "arguments"}}``) and tool messages answer them by ``tool_call_id``.
    name : str
        The scenario's name.
    query : str, optional
        Q; by default the leading system message(s).
    tools : sequence of str, optional
        T; by default the names of the tools called, in order of first use.
    v_max : float, optional
        The capacity to document with the scenario.
    source : str
        A file name to start error messages with.

    Raises
    ------
    FormatError
        naming the message (``messages[3]``) and the field.

    Examples
    --------
    >>> s = from_openai_messages([
    ...     {"role": "system", "content": "You are a travel assistant."},
    ...     {"role": "user", "content": "Weather in Oslo?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [
    ...         {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "4 °C, light snow"},
    ...     {"role": "assistant", "content": "It is 4 °C with light snow in Oslo."},
    ... ])
    >>> s.query, s.tools
    ('You are a travel assistant.', ('weather',))

    Step 0 is the user's question (input only); step 1 the tool call (output)
    and its result (input); step 2 the reply, produced from π(ω_2), which
    holds the question and the result:

    >>> [(st.thought, st.action, st.observation) for st in s.steps]
    [('', '', 'Weather in Oslo?'), ('', 'weather({"city": "Oslo"})', '4 °C, light snow'), ('It is 4 °C with light snow in Oslo.', '', '')]
    >>> [st.meta["role"] for st in s.steps], s.steps[1].meta["messages"]
    (['user', 'tool', 'assistant'], (2, 3))
    """
    if isinstance(messages, (str, bytes, Mapping)):
        raise _fail(source, "messages", f"expected a list of message objects, got {type(messages).__name__}")
    items = list(_listed(messages, source or "chat log", "messages", "message objects"))
    labels = list(_labels) if _labels is not None else [f"messages[{k}]" for k in range(len(items))]
    derived_query, steps = _steps_from_messages(items, labels, source)
    if _finish is not None:  # the transcript readers add what chat messages have no field for (thinking, events)
        steps = _finish(steps)
    if not steps:
        raise _fail(source, "messages", "no user, assistant or tool message with content: nothing to run")
    if tools is None:
        seen: dict[str, None] = {}
        for step in steps:
            for tool in step.meta.get("tool", ()):
                seen.setdefault(tool, None)
        tools = tuple(seen)
    return Scenario(
        name=name,
        title=title,
        description=description,
        query=derived_query if query is None else query,
        tools=tools,  # type: ignore[arg-type]  # Scenario checks it and makes it a tuple
        steps=tuple(steps),
        v_max=v_max,
        mechanism="FIFOWindow",
        source=source,
    )


def load_chat_log(path: str | os.PathLike, name: str | None = None, **kwargs: Any) -> Scenario:
    """The incoming steps of a recorded conversation, from a chat log file: JSON (a list, or ``{"messages": [...]}``) or JSONL.

    Parameters
    ----------
    path : str or path
        The file; ``.jsonl`` or ``.ndjson`` holds one message per line.
    name : str, optional
        The scenario's name (default: the file name without its suffix).
    **kwargs
        Passed to :func:`from_openai_messages` (e.g. ``v_max``).

    Returns
    -------
    Scenario

    Raises
    ------
    FormatError
        naming the file, the message (``messages[3]`` for JSON, ``line 4`` for
        JSONL) and the field.
    """
    path = as_path(path, "chat log file")
    raw = read_bytes(path, what="chat log file", error=FormatError)  # bounded; never blocks on a pipe or device
    source = path.name
    name = guards.text(name, "name", where="load_chat_log", none_ok=True, blank_ok=True) or path.stem
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        lines = decode_json_lines(raw, source, FormatError, expected="a chat log file holds one message per line")
        messages, labels = [document for _, document in lines], [f"line {lineno}" for lineno, _ in lines]
        return from_openai_messages(messages, name, source=source, _labels=labels, **kwargs)
    data = decode_json(
        raw, source, FormatError,
        expected="a chat log is a JSON list of messages; if it holds one message per line, name it .jsonl",
    )
    if isinstance(data, Mapping):
        if "messages" not in data:
            raise _fail(source, "top level", "expected a list of messages or an object with 'messages'")
        data = data["messages"]
        if not isinstance(data, list):
            raise _fail(source, "messages", f"expected a list of messages, got {type(data).__name__}")
    elif not isinstance(data, list):
        raise _fail(
            source, "top level",
            f"expected a list of messages or an object with 'messages', got {type(data).__name__}",
        )
    return from_openai_messages(data, name, source=source, **kwargs)


def from_dialogue(
    turns: Sequence[str], name: str = "dialogue", *, query: str = "", v_max: float | None = None, **kwargs: Any
) -> Scenario:
    """The incoming steps of a plain conversation, from alternating turns ``[user, assistant, user, assistant, ...]``.

    The turns keep the conversation's order (the rules of
    :func:`from_openai_messages`): for [u0, a0, u1, a1, …, u_n, a_n], step 0 is
    ``AgentStep(observation=u0)`` (the user speaks first: an input, no output),
    step k is ``AgentStep(thought=a_{k−1}, observation=u_k)`` (the reply, then
    the user's next message) and the last step ``AgentStep(thought=a_n)``. So
    reply a_k is in the output of step k + 1, produced from π(ω_{k+1}), which
    holds the question u_k it answers. A dialogue that ends on a user turn
    has no output-only last step. Each step's ``meta`` records ``role``,
    ``messages`` (indices into ``turns``) and ``roles``.

    Parameters
    ----------
    turns : sequence of str
        The turns, starting with the user's.
    name : str
        The scenario's name.
    query : str
        The task Q (or a system prompt).
    v_max : float, optional
        The capacity V_max the scenario is meant to be run at.
    **kwargs
        Other fields of :class:`Scenario` (``title``, ``probes``, ...).

    Raises
    ------
    FormatError
        if ``turns`` is not a list of non-empty texts.

    >>> s = from_dialogue(["Hi, I am Ada.", "Hello Ada!", "What is my name?", "Ada."])
    >>> [(st.thought, st.observation) for st in s.steps]
    [('', 'Hi, I am Ada.'), ('Hello Ada!', 'What is my name?'), ('Ada.', '')]
    >>> s.steps[1].meta["messages"], s.steps[1].meta["roles"]
    ((1, 2), ('assistant', 'user'))
    """
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise FormatError(f"turns: expected a list of texts [user, assistant, ...], got {type(turns).__name__}")
    for k, turn in enumerate(turns):
        if not isinstance(turn, str):
            raise FormatError(f"turns[{k}]: expected text, got {type(turn).__name__} {brief(turn, 40)}")
        if not turn.strip():
            who = "user" if k % 2 == 0 else "assistant"
            raise FormatError(f"turns[{k}]: the {who} turn is empty")
    if not turns:
        raise FormatError("turns: the dialogue is empty")
    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": turn} for k, turn in enumerate(turns)]
    _, steps = _steps_from_messages(messages, [f"turns[{k}]" for k in range(len(turns))], "")
    kwargs.setdefault("mechanism", "SCM")
    return Scenario(name=name, query=query, steps=tuple(steps), v_max=v_max, **kwargs)
