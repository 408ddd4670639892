"""Reader of OpenTelemetry GenAI spans: ``gen_ai.input.messages`` and ``gen_ai.output.messages``.

The GenAI semantic conventions (``open-telemetry/semantic-conventions``,
``docs/gen-ai/gen-ai-spans.md`` and the JSON schemas
``gen-ai-input-messages.json`` / ``gen-ai-output-messages.json``) record, on
each model-call span, the messages sent and the messages received, as JSON:
``[{"role", "parts": [...]}]`` with parts

- ``text`` (``content``) and ``reasoning`` (``content``: thinking, kept in
  ``meta["thinking"]``);
- ``tool_call`` (``id``, ``name``, ``arguments``) and ``tool_call_response``
  (``id``, ``response``; ``result`` in earlier drafts and some instrumentations:
  both are read); ``server_tool_call`` / ``server_tool_call_response`` likewise;
- ``blob``, ``file``, ``uri`` and any other part: placeholders such as
  ``[image]`` (the schema allows parts of any type).

``gen_ai.system_instructions`` (parts) is the query Q. Accepted files: one span,
a list of spans or JSON Lines of them, an OTLP/JSON export
(``resourceSpans`` → ``scopeSpans`` → ``spans``, attributes as
``[{"key", "value": {"stringValue": ...}}]``), or a bare message list. An
attribute may hold the JSON text (OpenTelemetry attributes are flat) or the
decoded list; the messages may also sit on a span event's attributes.

Each span sends the whole conversation so far; the spans are read in start
order and each adds what it sent that the conversation does not already end
with (the longest end of the conversation that begins its input), then its
output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ...io.jsonio import MAX_DEPTH
from ._conversation import Conversation, arguments_text, fail, listed, mapping, result_text, text_of, word, id_of

INPUT, OUTPUT, SYSTEM = "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"


def _otlp_value(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` (``{"stringValue": ...}``, ``{"arrayValue": {"values": [...]}}``) as plain JSON."""
    if not isinstance(value, Mapping) or len(value) != 1:
        return value
    (kind, inner), = value.items()
    if kind in ("stringValue", "boolValue", "doubleValue"):
        return inner
    if kind == "intValue":
        try:  # OTLP/JSON writes 64-bit integers as strings
            return int(inner) if isinstance(inner, (int, str)) and str(inner).lstrip("-").isdigit() else inner
        except ValueError:  # more digits than Python converts
            return inner
    if kind == "arrayValue" and isinstance(inner, Mapping):
        return [_otlp_value(v) for v in inner.get("values", []) or []]
    if kind == "kvlistValue" and isinstance(inner, Mapping):
        return _attributes(inner.get("values", []))
    return value


def _attributes(value: Any) -> dict[str, Any]:
    """Span attributes, from a mapping or from OTLP's ``[{"key", "value"}]``."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list):
        return {a["key"]: _otlp_value(a.get("value")) for a in value if isinstance(a, Mapping) and isinstance(a.get("key"), str)}
    return {}


def spans_of(data: Any) -> list[Any]:
    """The spans of a decoded document (one span, a list, an OTLP export)."""
    if isinstance(data, Mapping) and "resourceSpans" in data:
        out: list[Any] = []
        for resource in _list(data.get("resourceSpans")):
            resource = resource if isinstance(resource, Mapping) else {}
            for scope in _list(resource.get("scopeSpans", resource.get("instrumentationLibrarySpans"))):
                out.extend(_list(scope.get("spans")) if isinstance(scope, Mapping) else [])
        return out
    if isinstance(data, Mapping) and isinstance(data.get("spans"), list):
        return data["spans"]
    return data if isinstance(data, list) else [data]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def is_span(value: Any) -> bool:
    """Whether a decoded record is (or holds) a span with GenAI messages."""
    if isinstance(value, Mapping) and "resourceSpans" in value:
        return True
    if not isinstance(value, Mapping):
        return False
    found = _span_messages(value)
    return found[0] is not None or found[1] is not None


def _span_messages(span: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """(input messages, output messages, system instructions) of a span, from its attributes or events."""
    places = [_attributes(span.get("attributes")), span]
    for event in span.get("events") or [] if isinstance(span.get("events"), list) else []:
        if isinstance(event, Mapping):
            places.append(_attributes(event.get("attributes")))
    found: list[Any] = [None, None, None]
    for place in places:
        for k, key in enumerate((INPUT, OUTPUT, SYSTEM)):
            if found[k] is None and key in place:
                found[k] = place[key]
    return found[0], found[1], found[2]


def _depth_ok(value: Any, source: str, where: str) -> None:
    """Refuse a decoded attribute nested deeper than a transcript file may be (walked without recursion)."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise fail(source, where, f"the attribute's JSON text is nested more than {MAX_DEPTH} levels deep; "
                       "it holds a JSON list of messages")
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else node if isinstance(node, list) else ())
                 if isinstance(v, (dict, list))]


def _decoded(value: Any, source: str, where: str) -> list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise fail(source, where, "the attribute is not valid JSON text; it holds a JSON list of messages") from None
        except RecursionError:  # "[[[[…" thousands deep inside the string: not messages
            raise fail(source, where, f"the attribute's JSON text is nested more than {MAX_DEPTH} levels deep; "
                       "it holds a JSON list of messages") from None
        _depth_ok(value, source, where)
    return listed(value, source, where, "a list of messages")


def _start(span: Any) -> Any:
    for key in ("startTimeUnixNano", "start_time", "startTime"):
        value = span.get(key) if isinstance(span, Mapping) else None
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            try:
                return float(value) if not isinstance(value, str) or value.replace(".", "", 1).isdigit() else value
            except (TypeError, ValueError, OverflowError):  # a whole number too large for a float: keep file order
                return None
    return None


def _message_key(message: Any) -> str:
    """What identifies a message when a later span sends it again: its role and its parts, reasoning aside.

    An output message carries its reasoning and ``finish_reason``; the same
    message in the next span's input often carries neither.
    """
    parts = message.get("parts") if isinstance(message, Mapping) else None
    kept = [p for p in parts if not (isinstance(p, Mapping) and word(p.get("type")) == "reasoning")] if isinstance(parts, list) else parts
    value = [message.get("role"), kept] if isinstance(message, Mapping) else message
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)  # plain JSON: from_transcript's guard


def read_spans(spans: Sequence[Any], labels: Sequence[str], source: str) -> Conversation:
    """GenAI spans (see the module's text) into one conversation."""
    calls: list[tuple[Any, int, str, Any, Any, Any]] = []
    for k, (span, where) in enumerate(zip(spans, labels)):
        span = mapping(span, source, where, "a span (a JSON object with 'attributes')")
        sent, received, system = _span_messages(span)
        if sent is None and received is None:
            continue  # a tool or agent span: no model call recorded here
        calls.append((_start(span), k, where, sent, received, system))
    if not calls:
        raise fail(source, "top level", f"no span holds {INPUT} or {OUTPUT}; record the model calls' content "
                   "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)")
    if all(c[0] is not None for c in calls) and len({type(c[0]) for c in calls}) == 1:
        calls.sort(key=lambda c: (c[0], c[1]))
    conv = Conversation(source)
    history: list[str] = []
    for _, _, where, sent, received, system in calls:
        if system is not None and not conv.query_parts:
            parts = _decoded(system, source, f"{where}: {SYSTEM}")
            conv.query_parts.extend(t for t in (_part(p, source, f"{where}: {SYSTEM}[{j}]")[0] for j, p in enumerate(parts)) if t.strip())
        sent_list = _decoded(sent, source, f"{where}: {INPUT}") if sent is not None else []
        keys = [_message_key(m) for m in sent_list]
        overlap = next((n for n in range(min(len(history), len(keys)), 0, -1) if history[-n:] == keys[:n]), 0)
        for j in range(overlap, len(sent_list)):
            _message(conv, sent_list[j], source, f"{where}: {INPUT}[{j}]")
            history.append(keys[j])
        if received is not None:
            for j, message in enumerate(_decoded(received, source, f"{where}: {OUTPUT}")):
                _message(conv, message, source, f"{where}: {OUTPUT}[{j}]")
                history.append(_message_key(message))
    return conv


def read_messages(messages: Sequence[Any], source: str) -> Conversation:
    """A bare list of GenAI messages (the value of one ``gen_ai.input.messages`` attribute)."""
    conv = Conversation(source)
    for j, message in enumerate(messages):
        _message(conv, message, source, f"messages[{j}]")
    return conv


def _part(part: Any, source: str, where: str) -> tuple[str, str]:
    """``(text, kind)`` of a text-like part: kind ``"text"``, ``"reasoning"`` or ``"other"`` (a placeholder)."""
    part = mapping(part, source, where, "a message part like {'type': 'text', 'content': ...}")
    kind = word(part.get("type"))
    if kind in ("text", "reasoning"):
        return text_of(part.get("content"), source, f"{where}.content"), kind
    modality = part.get("modality")
    label = modality if isinstance(modality, str) else kind if isinstance(kind, str) else "part"
    return f"[{label}]", "other"


def _message(conv: Conversation, message: Any, source: str, where: str) -> None:
    message = mapping(message, source, where, "a message with 'role' and 'parts'")
    role = word(message.get("role"))
    parts = listed(message.get("parts"), source, f"{where}.parts", "the message's parts")
    text: list[str] = []
    thinking: list[str] = []
    calls: list[tuple[str, str, str]] = []
    results: list[tuple[str, str]] = []
    server: list[str] = []  # the ids of the calls the provider ran (their responses come in this message)
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        kind = word(part.get("type")) if isinstance(part, Mapping) else None
        if kind in ("tool_call", "server_tool_call"):
            name = text_of(part.get("name"), source, f"{at}.name", "the tool's name") or kind
            call_id = id_of(part.get("id"), f"call@{at}")
            calls.append((call_id, name, arguments_text(part.get("arguments"), source, f"{at}.arguments")))
            if kind == "server_tool_call":
                server.append(call_id)
        elif kind in ("tool_call_response", "server_tool_call_response"):
            if "response" not in part and "result" not in part:
                raise fail(source, at, "a tool_call_response holds its 'response' (or 'result')")
            call_id = part.get("id")
            if not isinstance(call_id, str) or not call_id:
                raise fail(source, f"{at}.id", f"a tool_call_response names the call it answers by 'id', got {brief(call_id, 40)}")
            results.append((call_id, result_text(part.get("response", part.get("result")), source, at)))
        else:
            value, what = _part(part, source, at)
            (thinking if what == "reasoning" else text).append(value)
    body = "\n".join(t for t in text if t)
    if role == "assistant":
        conv.assistant(body, where, calls, thinking)
        answered = set()
        for call_id, result in results:  # a server tool's response, in the model's own message
            conv.tool(call_id, result, where)
            answered.add(call_id)
        for call_id in server:
            if call_id not in answered:  # no result is invented: the step's call stays unanswered
                conv.guessed.add(N_("server_tool_call with no response in the file (left without a result)"), where, call_id)
        return
    if calls or thinking:
        raise fail(source, where, f"a {role} message holds tool_call or reasoning parts; only an assistant message makes them")
    if role in ("tool", "user"):
        for call_id, result in results:
            conv.tool(call_id, result, where)
        if role == "user":
            conv.user(body, where)
        elif body.strip():
            raise fail(source, where, "a tool message holds tool_call_response parts, not text")
    elif role == "system":
        conv.system(body, where)
    else:
        raise fail(source, f"{where}.role", f"{brief(message.get('role'), 40)} is not one of system, user, assistant, tool")
