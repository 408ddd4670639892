"""Importers: turn chat logs into scenarios (streams of incoming steps).

The rules, following the step convention of :class:`~stmviz.AgentStep` (if
``action`` is non-empty, ``observation`` is its result; otherwise
``observation`` is the user's message and ``thought`` the model's reply):

- system (or developer) messages before the first user or assistant message
  become the query Q, joined by blank lines; a later one becomes a step of its
  own, ``AgentStep(observation=text, meta={"role": "system"})``;
- a user message followed by a plain assistant reply becomes one step
  ``AgentStep(observation=user, thought=reply)``;
- an assistant message with ``tool_calls`` and the tool results that follow
  (matched by ``tool_call_id``) become one step
  ``AgentStep(thought=content, action="name(arguments)", observation=result)``;
  several calls give one line each, and results are labelled by tool name;
- a user message followed by anything but a plain reply, or at the end, becomes
  ``AgentStep(observation=user)``; an assistant reply with no user message
  before it becomes ``AgentStep(thought=reply)``.

Each step's ``meta`` records ``role`` (``"user"``, ``"assistant"``, ``"tool"``
or ``"system"``), ``messages`` (the indices of the messages it came from) and,
for tool steps, ``tool`` (the tool names) and ``call`` (the call ids).
Content may be a string or a list of parts (``{"type": "text", "text": ...}``;
image, audio and file parts are kept as placeholders like ``[image: url]``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioFormatError
from ..core.formatting import shorten
from ..core.jsonio import decode_json, decode_json_lines
from ..core.context import AgentStep
from .scenario import Scenario

__all__ = ["from_openai_messages", "load_chat_log", "from_dialogue"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _fail(source: str, where: str, what: str) -> ScenarioFormatError:
    prefix = f"{source}: " if source else ""
    return ScenarioFormatError(f"{prefix}{where}: {what}")


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
            "content"), f"expected text or a list of parts, got {type(content).__name__} {shorten(repr(content))}",
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
                raise _fail(source, f"{at}.text", f"a text part needs its text as a string, got {shorten(repr(text))}")
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
                f"unknown content part type {shorten(repr(kind))}; known: text, image_url, input_audio, file, refusal",
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
            raise _fail(source, f"{at}.function.name", f"expected the tool's name as text, got {shorten(repr(name))}")
        arguments = function.get("arguments", "")
        if isinstance(arguments, Mapping):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if not isinstance(arguments, str):
            raise _fail(source, f"{at}.function.arguments", f"expected a JSON string, got {type(arguments).__name__}")
        call_id = call.get("id", f"call@{where}[{k}]")
        if not isinstance(call_id, str):
            raise _fail(source, f"{at}.id", f"expected text, got {shorten(repr(call_id))}")
        out.append((call_id, name, arguments))
    return out


def _steps_from_messages(
    messages: Sequence[Any], labels: Sequence[str], source: str
) -> tuple[str, list[AgentStep]]:
    query_parts: list[str] = []
    steps: list[AgentStep] = []
    started = False
    i, n = 0, len(messages)

    def role_of(k: int) -> str:
        message = messages[k]
        where = labels[k]
        if not isinstance(message, Mapping):
            raise _fail(
                source, where,
                f"a message is an object with 'role' and 'content', got {type(message).__name__} {shorten(repr(message))}",
            )
        role = message.get("role")
        if role not in _ROLES:
            raise _fail(source, _at(where, "role"), f"{shorten(repr(role))} is not one of {', '.join(_ROLES)}")
        return "system" if role == "developer" else role

    while i < n:
        role = role_of(i)
        message, where = messages[i], labels[i]
        text = _content_text(message.get("content"), source, where)
        if role == "system":
            if not started:
                if text.strip():
                    query_parts.append(text)
            elif text.strip():
                steps.append(AgentStep(observation=text, meta={"role": "system", "messages": [i]}))
            i += 1
            continue
        started = True
        if role in ("tool", "function"):
            raise _fail(
                source,
                _at(where, "tool_call_id") if role == "tool" else _at(where, "role"),
                "a tool result must follow the assistant message whose tool_calls it answers"
                + (f" (no pending call {message.get('tool_call_id')!r})" if role == "tool" else ""),
            )
        if role == "user":
            if i + 1 < n and role_of(i + 1) == "assistant" and not _tool_calls(messages[i + 1], source, labels[i + 1]):
                reply = _content_text(messages[i + 1].get("content"), source, labels[i + 1])
                steps.append(AgentStep(thought=reply, observation=text, meta={"role": "user", "messages": [i, i + 1]}))
                i += 2
            else:
                if text.strip():
                    steps.append(AgentStep(observation=text, meta={"role": "user", "messages": [i]}))
                i += 1
            continue
        # assistant
        calls = _tool_calls(message, source, where)
        if not calls:
            if text.strip():
                steps.append(AgentStep(thought=text, meta={"role": "assistant", "messages": [i]}))
            i += 1
            continue
        pending = {call_id: name for call_id, name, _ in calls}
        results: dict[str, str] = {}
        used = [i]
        j = i + 1
        while j < n and role_of(j) in ("tool", "function") and pending:
            result, at = messages[j], labels[j]
            if role_of(j) == "tool":
                call_id = result.get("tool_call_id")
                if not isinstance(call_id, str):
                    raise _fail(
                        source, _at(at,
                        "tool_call_id"), f"a tool result names the call it answers, got {shorten(repr(call_id))}",
                    )
                if call_id not in pending:
                    known = ", ".join(map(repr, pending)) or "none left"
                    raise _fail(
                        source, _at(at,
                        "tool_call_id"), f"{call_id!r} matches no pending call of {where} (pending: {known})",
                    )
            else:  # legacy "function" role: match by name
                call_id = next((c for c, name in pending.items() if name == result.get("name")), None)
                if call_id is None:
                    raise _fail(
                        source, _at(at,
                        "name"), f"{shorten(repr(result.get('name')))} matches no pending function call of {where}",
                    )
            pending.pop(call_id)
            results[call_id] = _content_text(result.get("content"), source, at)
            used.append(j)
            j += 1
        action = "\n".join(f"{name}({arguments})" for _, name, arguments in calls)
        if len(calls) == 1:
            observation = results.get(calls[0][0], "")
        else:
            observation = "\n".join(f"[{name}] {results[c]}" for c, name, _ in calls if c in results)
        meta: dict[str, Any] = {
            "role": "tool",
            "messages": used,
            "tool": [name for _, name, _ in calls],
            "call": [c for c, _, _ in calls],
        }
        if pending:
            meta["unanswered"] = list(pending)
        steps.append(AgentStep(thought=text, action=action, observation=observation, meta=meta))
        i = j
    return "\n\n".join(query_parts), steps


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
) -> Scenario:
    """A scenario from an OpenAI-style list of chat messages.

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
    ScenarioFormatError
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
    >>> [(st.action, st.observation) for st in s.steps]
    [('', 'Weather in Oslo?'), ('weather({"city": "Oslo"})', '4 °C, light snow'), ('', '')]
    >>> s.steps[2].thought
    'It is 4 °C with light snow in Oslo.'
    """
    if isinstance(messages, (str, bytes, Mapping)):
        raise _fail(source, "messages", f"expected a list of message objects, got {type(messages).__name__}")
    items = list(messages)
    labels = list(_labels) if _labels is not None else [f"messages[{k}]" for k in range(len(items))]
    derived_query, steps = _steps_from_messages(items, labels, source)
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
        tools=tuple(tools),
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
    ScenarioFormatError
        naming the file, the message (``messages[3]`` for JSON, ``line 4`` for
        JSONL) and the field.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioFormatError(f"{path}: no such chat log file") from None
    source = path.name
    name = name or path.stem
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        lines = decode_json_lines(raw, source, ScenarioFormatError, expected="a chat log file holds one message per line")
        messages, labels = [document for _, document in lines], [f"line {lineno}" for lineno, _ in lines]
        return from_openai_messages(messages, name, source=source, _labels=labels, **kwargs)
    data = decode_json(
        raw, source, ScenarioFormatError,
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

    Each (user, assistant) pair becomes ``AgentStep(observation=user, thought=assistant)``:
    the user's message is the input, the reply the model's output produced from
    π(ω_t). An odd last user turn becomes a step with no reply.

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
    ScenarioFormatError
        if ``turns`` is not a list of non-empty texts.

    >>> s = from_dialogue(["Hi, I am Ada.", "Hello Ada!", "What is my name?", "Ada."])
    >>> [(st.observation, st.thought) for st in s.steps]
    [('Hi, I am Ada.', 'Hello Ada!'), ('What is my name?', 'Ada.')]
    """
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise ScenarioFormatError(f"turns: expected a list of texts [user, assistant, ...], got {type(turns).__name__}")
    for k, turn in enumerate(turns):
        if not isinstance(turn, str):
            raise ScenarioFormatError(f"turns[{k}]: expected text, got {type(turn).__name__} {shorten(repr(turn))}")
        if not turn.strip():
            who = "user" if k % 2 == 0 else "assistant"
            raise ScenarioFormatError(f"turns[{k}]: the {who} turn is empty")
    if not turns:
        raise ScenarioFormatError("turns: the dialogue is empty")
    steps = []
    for k in range(0, len(turns), 2):
        reply = turns[k + 1] if k + 1 < len(turns) else ""
        steps.append(AgentStep(observation=turns[k], thought=reply, meta={"role": "user", "turn": k // 2}))
    kwargs.setdefault("mechanism", "SCM")
    return Scenario(name=name, query=query, steps=tuple(steps), v_max=v_max, **kwargs)
