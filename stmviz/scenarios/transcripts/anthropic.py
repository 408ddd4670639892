"""Readers of Anthropic transcripts: Messages API requests and responses, and Claude Code session files.

Both speak in **content blocks** (``anthropic-sdk-python``, ``types/`` and
``types/beta/``; the Messages API reference):

- ``text`` — visible text; ``thinking`` (``thinking``) and ``redacted_thinking``
  — the model's reasoning, kept in the step's ``meta["thinking"]``;
- ``tool_use`` / ``server_tool_use`` (``id``, ``name``, ``input``) — a tool call,
  answered by a ``tool_result`` block (``tool_use_id``, ``content`` as text or
  blocks, ``is_error``: true or false, the result then reads ``[error] …``) in
  the next user message: the results are the input of the step that made the
  calls, and text the user adds after them is an input of its own;
- server tools' results (``web_search_tool_result``, ``code_execution_tool_result``,
  any ``*_tool_result``) come back in the assistant's own message: each is the
  tool result of its ``server_tool_use``, with its content (a web search keeps
  each result's title, URL and age), and the reply is cut there;
- ``image``, ``document``, ``search_result``, ``container_upload`` — kept as
  placeholders such as ``[image]``;
- any other type (``tool_reference``, a type newer than this reader) — kept as
  its JSON text and counted in the scenario's report, never a reason to refuse
  the file;
- ``compaction`` (``content``: the summary, ``null`` if it failed) — server-side
  compaction (``compact_20260112``): the API drops every block before it, so it is
  read as a recorded compaction, not as text.

A **Claude Code session** (``~/.claude/projects/<project>/<session>.jsonl``) holds
one record per line: ``user`` and ``assistant`` records wrap a Messages API
``message``; an assistant reply is written as one record per content block,
sharing ``message.id``, and is joined again here. Records link to the one before
by ``parentUuid``; the conversation is the chain from the last record back to
the first (through ``logicalParentUuid`` across a compaction), with the parallel
pieces of its turns (tool results and blocks of a reply on the chain). The
chain runs through every record with a ``uuid``, whatever its type: in 2.x a
prompt's parent may be a ``system`` record (``turn_duration``,
``stop_hook_summary``, ``informational``) or an ``attachment``, and a boundary's
``logicalParentUuid`` may name an attachment. A record off the chain whose
ancestry joins it is on an abandoned branch (a rewind or an edit: a true fork);
a parent missing from the file is a gap, and the chain goes on with the record
before it (a guess the report counts). A record written twice (same ``uuid``)
is read once. Records with ``isSidechain`` (a sub-agent's conversation) are left
out. Everything left out, guessed or skipped is counted in the scenario's
:class:`~stmviz.scenarios.TranscriptReport`. A ``system`` record with ``subtype``
``compact_boundary`` marks a compaction (``compactMetadata``: ``trigger``
``"auto"`` or ``"manual"``, ``preTokens``; ``compact_metadata`` / ``pre_tokens``
as the SDK streams them); the ``user`` record with ``isCompactSummary`` that
follows holds its summary. Both become one recorded compaction; the summary is
not replayed as a user message (each mechanism makes its own); a ``preTokens``
that is not a number is left unknown and reported. ``attachment`` records on the
chain (files, reminders Claude Code adds to the context in a form the file does
not spell out) are left out and reported; other records (``summary`` titles,
``file-history-snapshot``, ``progress``, other ``system`` subtypes) are not
model input and are skipped, counted.

What is not verified: Anthropic does not document the session file. Its
fields here are those public session files show and their parsers read
(anthropics/claude-code issues, e.g. #22193; third-party converters): the
reader takes both spellings of the compaction metadata, counts record types
it does not know as skipped, and falls back to file order when records carry
no ``uuid``. No genuine openly licensed 2.x session was found; the 2.x record
kinds are those public session parsers and viewers document.
Claude Code also re-attaches recently read files and its todo list after a
compaction (as ``isMeta`` user records in some versions); those records are
read as user input like any other.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ...core.formatting import shorten
from ._conversation import Conversation, arguments_text, fail, id_of, listed, mapping, result_text, text_of, word

#: Where Claude Code's session files are and what their compaction is called, for the notes of a scenario.
CLAUDE_CODE = "Claude Code"

_PLACEHOLDERS = ("image", "document", "search_result", "container_upload", "file")

#: The block types read by name; any other is kept as its JSON text and counted in the report.
KNOWN_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "mcp_tool_use", "tool_result",
                "*_tool_result", "compaction", *_PLACEHOLDERS)


class _Blocks:
    """The parts of one message's content, in order: text, thinking, tool calls, tool results, compactions.

    ``order`` lists them as they came (``("text", 0)``, ``("call", 0)``, ``("result", 1)``…),
    so a reply in which the server ran a tool (``server_tool_use`` and its
    ``web_search_tool_result``) is cut there: the call, its result, the rest.
    """

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[tuple[str, str, str]] = []
        self.results: list[tuple[str, str]] = []
        self.compactions: list[str | None] = []
        self.order: list[tuple[str, int]] = []
        self.unknown: list[tuple[str, str, str]] = []  # (block type, where, JSON text): kept as text, reported

    def add(self, part: str, value: Any) -> None:
        stores: dict[str, list[Any]] = {"text": self.text, "thinking": self.thinking, "call": self.calls,
                                         "result": self.results, "compaction": self.compactions}
        store = stores[part]
        self.order.append((part, len(store)))
        store.append(value)


def _is_error(block: Mapping[str, Any], source: str, at: str) -> bool:
    value = block.get("is_error", False)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise fail(source, f"{at}.is_error", f"expected true or false (a JSON boolean), got {brief(value, 40)}; "
               "write is_error: true for a failed call, or leave the field out")


def _server_result_text(block: Mapping[str, Any], source: str, at: str) -> str:
    """A server tool's result (web search, web fetch, code execution, MCP) as text: its content, nothing dropped.

    Web search results keep their titles, URLs and ages (their ``encrypted_content``
    is opaque and left as a mark); an error keeps its code; anything else its JSON.
    """
    content = block.get("content")
    if isinstance(content, list):
        lines = []
        for k, item in enumerate(content):
            if isinstance(item, Mapping) and word(item.get("type")) in ("web_search_result", "web_fetch_result"):
                title, url, age = item.get("title"), item.get("url"), item.get("page_age")
                lines.append(" — ".join(str(v) for v in (title, url, age) if isinstance(v, str) and v)
                             + (" [encrypted page content]" if item.get("encrypted_content") else ""))
            elif isinstance(item, Mapping) and word(item.get("type")) == "text":
                lines.append(text_of(item.get("text"), source, f"{at}.content[{k}].text"))
            else:
                lines.append(result_text(item, source, f"{at}.content[{k}]"))
        return "\n".join(lines)
    if isinstance(content, Mapping):
        if isinstance(content.get("error_code"), str):
            return f"[error] {content['error_code']}"
        shown = {k: v for k, v in content.items() if k not in ("type",)}
        return result_text(shown, source, f"{at}.content")
    return result_text(content, source, f"{at}.content")


def read_blocks(content: Any, source: str, where: str) -> _Blocks:
    """The content of a Messages API message (a string or a list of blocks), sorted into its parts."""
    parts = _Blocks()
    if isinstance(content, str):
        parts.add("text", content)
        return parts
    if content is None:
        return parts
    for k, block in enumerate(listed(content, source, f"{where}.content", "a string or a list of content blocks")):
        at = f"{where}.content[{k}]"
        if isinstance(block, str):
            parts.add("text", block)
            continue
        block = mapping(block, source, at, "a content block like {'type': 'text', 'text': ...}")
        kind = word(block.get("type"))
        if kind == "text":
            parts.add("text", text_of(block.get("text"), source, f"{at}.text"))
        elif kind == "thinking":
            parts.add("thinking", text_of(block.get("thinking"), source, f"{at}.thinking"))
        elif kind == "redacted_thinking":
            parts.add("thinking", "[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            call_id = text_of(block.get("id"), source, f"{at}.id", "the call's id")
            name = text_of(block.get("name"), source, f"{at}.name", "the tool's name")
            if not call_id or not name:
                raise fail(source, at, "a tool_use block needs its 'id' and 'name'")
            parts.add("call", (call_id, name, arguments_text(block.get("input"), source, f"{at}.input")))
        elif kind == "tool_result":
            call_id = text_of(block.get("tool_use_id"), source, f"{at}.tool_use_id", "the id of the call it answers")
            if not call_id:
                raise fail(source, f"{at}.tool_use_id", "a tool_result block names the tool_use it answers")
            inner = tool_result_parts(block.get("content"), source, at)
            text = "\n".join(p for p in inner.text if p)
            parts.unknown.extend(inner.unknown)
            parts.add("result", (call_id, f"[error] {text}" if _is_error(block, source, at) else text))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            call_id = id_of(block.get("tool_use_id"), "")
            text = _server_result_text(block, source, at)
            if call_id:
                parts.add("result", (call_id, text))
            else:
                parts.add("text", f"[{kind}] {text}")
        elif kind == "compaction":
            summary = block.get("content")
            parts.add("compaction", text_of(summary, source, f"{at}.content", "the summary") or None)
        elif kind in _PLACEHOLDERS:
            title = block.get("title") if isinstance(block.get("title"), str) else None
            parts.add("text", f"[{kind}: {shorten(title, 60)}]" if title else f"[{kind}]")
        else:  # a block type stmviz does not know: kept, visible, as its JSON text, and counted
            shown = kind if kind is not None else brief(block.get("type"), 30)
            text = result_text(dict(block), source, at)
            parts.unknown.append((shown, at, text))
            parts.add("text", f"[{shown}] {text}")
    return parts


def tool_result_parts(content: Any, source: str, where: str) -> _Blocks:
    """A tool_result's content (a string, or text, image and other blocks) as parts."""
    if content is None or isinstance(content, str):
        parts = _Blocks()
        parts.add("text", content or "")
        return parts
    return read_blocks(content, source, where)


def tool_result_text(content: Any, source: str, where: str) -> str:
    """A tool_result's content (a string, or text and image blocks) as text."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = read_blocks(content, source, where.rsplit(".content", 1)[0] if where.endswith(".content") else where)
    return "\n".join(p for p in parts.text if p)


def _add_message(conv: Conversation, role: str, parts: _Blocks, where: str, system_name: str) -> None:
    """One Messages API message into the conversation: tool results first (as tool messages), then text.

    An assistant message in which the server ran a tool holds the tool's result
    (``web_search_tool_result``…): the reply is cut there — the model's text and
    call, the result as a tool message, then the rest of the reply.
    """
    for kind, at, shown in parts.unknown:
        conv.kept.add(N_("unknown block {kind} (kept as its JSON text)"), at, shown, fields={"kind": repr(kind)})
    for summary in parts.compactions:
        conv.compaction(where, system=system_name, trigger="server", summary=summary)
    if role == "assistant":
        text: list[str] = []
        calls: list[tuple[str, str, str]] = []
        thinking: list[str] = []
        for part, k in parts.order:
            if part == "result":
                conv.assistant("\n".join(t for t in text if t), where, calls, thinking)
                text, calls, thinking = [], [], []
                call_id, result = parts.results[k]
                conv.tool(call_id, result, where)
            elif part == "text":
                text.append(parts.text[k])
            elif part == "call":
                calls.append(parts.calls[k])
            elif part == "thinking":
                thinking.append(parts.thinking[k])
        if text or calls or thinking or not parts.results:
            conv.assistant("\n".join(t for t in text if t), where, calls, thinking)
        return
    for call_id, text_ in parts.results:
        conv.tool(call_id, text_, where)
    if parts.calls or parts.thinking:
        raise fail(source=conv.source, where=where, what="a user message holds tool_use or thinking blocks; only an assistant message makes them")
    conv.user("\n".join(t for t in parts.text if t), where)


def _system_text(system: Any, source: str) -> str:
    if system is None or isinstance(system, str):
        return system or ""
    parts = read_blocks(system, source, "system")
    return "\n".join(p for p in parts.text if p)


def read_messages_api(data: Any, source: str) -> Conversation:
    """A Messages API request (``system``, ``messages``), response (``type: "message"``), or ``{"request", "response"}``."""
    conv = Conversation(source)
    if isinstance(data, list):
        request: Mapping[str, Any] | None = {"messages": data}
        response = None
    else:
        data = mapping(data, source, "top level", "a Messages API request or response")
        if "request" in data or "response" in data:
            request = mapping(data.get("request", {}), source, "request", "a Messages API request")
            response = mapping(data["response"], source, "response", "a Messages API response") if "response" in data else None
        elif word(data.get("type")) == "message":
            request, response = None, data
        else:
            request, response = data, None
    if request is not None:
        conv.query_parts.extend(p for p in [_system_text(request.get("system"), source)] if p.strip())
        messages = listed(request.get("messages"), source, "messages", "the list of messages")
        for k, message in enumerate(messages):
            where = f"messages[{k}]"
            message = mapping(message, source, where, "a message with 'role' and 'content'")
            role = word(message.get("role"))
            if role not in ("user", "assistant"):
                raise fail(source, f"{where}.role", f"{brief(message.get('role'), 40)} is not user or assistant (the system prompt is the request's 'system')")
            _add_message(conv, role, read_blocks(message.get("content"), source, where), where, "Anthropic API")
    if response is not None:
        role = word(response.get("role", "assistant"))
        if role != "assistant":
            raise fail(source, "response.role", f"a response's role is 'assistant', got {brief(response.get('role'), 40)}")
        _add_message(conv, "assistant", read_blocks(response.get("content"), source, "response"), "response", "Anthropic API")
    return conv


# ---------------------------------------------------------------------------------------------- Claude Code


def is_claude_code_record(record: Any) -> bool:
    """Whether a decoded line looks like a record of a Claude Code session file."""
    return (
        isinstance(record, Mapping)
        and word(record.get("type")) in ("user", "assistant", "system", "summary")
        and any(key in record for key in ("uuid", "parentUuid", "sessionId", "isSidechain"))
    )


_MODEL_RECORDS = ("user", "assistant")


def _parent(record: Mapping[str, Any]) -> str | None:
    """The uuid a record points back to: ``parentUuid``, or across a compaction ``logicalParentUuid``."""
    return word(record.get("parentUuid")) or word(record.get("logicalParentUuid"))


def _chain(records: Sequence[tuple[str, Mapping[str, Any]]], conv: Conversation) -> set[int]:
    """The records on the conversation's chain (indices), from the last record back to the first.

    Every record with a ``uuid`` is a link, whatever its type: in Claude Code
    2.x a message's ``parentUuid`` may name a ``system`` record
    (``turn_duration``, ``stop_hook_summary``…) or an ``attachment``. A parent
    that is not in the file is a gap, not a fork: the chain goes on with the
    record before it in the file (a guess, counted in the report).
    """
    source = conv.source
    by_uuid = {r["uuid"]: k for k, (_, r) in enumerate(records) if isinstance(r.get("uuid"), str)}
    if not by_uuid:
        return set(range(len(records)))
    on: set[int] = set()
    ordered = sorted(by_uuid.values())
    k: int | None = ordered[-1]
    while k is not None:
        if k in on:
            raise fail(source, records[k][0], "the parentUuid chain loops back to this record; the file is corrupt")
        on.add(k)
        parent = _parent(records[k][1])
        if parent is None:
            k = None
        elif parent in by_uuid:
            k = by_uuid[parent]
        else:
            here = records[k][0]
            i = bisect.bisect_left(ordered, k) - 1
            while i >= 0 and ordered[i] in on:
                i -= 1
            k = ordered[i] if i >= 0 else None
            if k is not None:
                conv.guessed.add(N_("parent missing from the file (the chain goes on with the record before it)"), here, parent)
    # the parallel pieces of the chain's turns: blocks of a reply on the chain, results of its calls
    replies = {_message_id(r) for i, (_, r) in enumerate(records) if i in on} - {None}
    calls = {c for i, (w, r) in enumerate(records) if i in on and word(r.get("type")) == "assistant"
             for c in _call_ids(r.get("message"))}
    for i, (_, record) in enumerate(records):
        if i in on:
            continue
        if _message_id(record) in replies or (word(record.get("type")) == "user" and _answers(record.get("message")) & calls):
            on.add(i)
    return on


def _off_chain(records: Sequence[tuple[str, Mapping[str, Any]]], on: set[int], conv: Conversation) -> None:
    """Count the records not on the chain: a branch forked from it (a rewind, an edit), or not connected to it."""
    by_uuid = {r["uuid"]: k for k, (_, r) in enumerate(records) if isinstance(r.get("uuid"), str)}
    forked: dict[int, bool] = {}

    def joins(k: int) -> bool:
        path: list[int] = []
        walked: set[int] = set()
        j: int | None = k
        result = False
        while j is not None and j not in forked:
            if j in on:
                result = True
                break
            if j in walked:
                break
            path.append(j)
            walked.add(j)
            parent = _parent(records[j][1])
            j = by_uuid.get(parent) if parent is not None else None
        else:
            result = forked.get(j, False) if j is not None else False
        for i in path:
            forked[i] = result
        return result

    for k, (where, record) in enumerate(records):
        if k in on:
            continue
        kind = word(record.get("type")) or "untyped"
        if kind not in _MODEL_RECORDS:
            conv.skipped.add(N_("{kind} record off the conversation's chain"), where, _record_text(record),
                             fields={"kind": _kind_name(record)})
        elif joins(k):
            conv.left_out.add(N_("record of an abandoned branch (a fork: rewind or edit)"), where, _record_text(record))
        else:
            conv.left_out.add(N_("record not connected to the conversation's chain"), where, _record_text(record))


def _kind_name(record: Mapping[str, Any]) -> str:
    kind = word(record.get("type")) or "untyped"
    sub = word(record.get("subtype"))
    attachment = record.get("attachment")
    if kind == "attachment" and isinstance(attachment, Mapping) and word(attachment.get("type")):
        sub = word(attachment.get("type"))
    return f"{kind} ({sub})" if sub else kind


def _record_text(record: Mapping[str, Any]) -> str:
    """A short excerpt of what a record says, for the report's example."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, Mapping) else record.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping):
                for key in ("text", "thinking", "name", "content"):
                    if isinstance(block.get(key), str) and block[key].strip():
                        return block[key]
    attachment = record.get("attachment")
    if isinstance(attachment, Mapping):
        for key in ("content", "filename", "prompt", "type"):
            if isinstance(attachment.get(key), str):
                return attachment[key]
    return _kind_name(record)


def _message_id(record: Mapping[str, Any]) -> str | None:
    message = record.get("message")
    value = message.get("id") if isinstance(message, Mapping) and word(record.get("type")) == "assistant" else None
    return value if isinstance(value, str) else None


def _call_ids(message: Any) -> set[str]:
    content = message.get("content") if isinstance(message, Mapping) else None
    return {b["id"] for b in content if isinstance(b, Mapping) and word(b.get("type")) == "tool_use" and isinstance(b.get("id"), str)} if isinstance(content, list) else set()


def _answers(message: Any) -> set[str]:
    content = message.get("content") if isinstance(message, Mapping) else None
    return {b["tool_use_id"] for b in content if isinstance(b, Mapping) and word(b.get("type")) == "tool_result"
            and isinstance(b.get("tool_use_id"), str)} if isinstance(content, list) else set()


def _number(value: Any) -> float | None:
    """A finite number of JSON (not a bool, not NaN or infinite) as it was written (a count stays an int), or ``None``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def read_claude_code(records: Sequence[tuple[str, Any]], source: str) -> Conversation:
    """A Claude Code session: its records (label, decoded line) in file order (see the module's text)."""
    conv = Conversation(source)
    main: list[tuple[str, Mapping[str, Any]]] = []
    first: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for where, record in records:
        record = mapping(record, source, where, "a session record with a 'type'")
        uuid = word(record.get("uuid"))
        if uuid is not None and uuid in first:  # a record written twice (a resumed or merged session file)
            if record == first[uuid][1]:
                conv.skipped.add(N_("repeated record (same uuid and content as an earlier line)"), where, uuid)
            else:
                conv.left_out.add(N_("record reusing an earlier record's uuid (the earlier one is read)"), where,
                                  _record_text(record))
            continue
        if uuid is not None:
            first[uuid] = (where, record)
        if record.get("isSidechain") is True:
            conv.left_out.add(N_("sidechain (sub-agent) record"), where, _record_text(record))
        else:
            main.append((where, record))
    on = _chain(main, conv)
    _off_chain(main, on, conv)
    reply: tuple[str | None, str, list[Any]] | None = None  # message id, label, blocks of the reply being joined

    def flush() -> None:
        nonlocal reply
        if reply is not None:
            _, at, blocks = reply
            _add_message(conv, "assistant", read_blocks(blocks, source, at), at, CLAUDE_CODE)
            reply = None

    for k, (where, record) in enumerate(main):
        if k not in on:
            continue
        kind = word(record.get("type"))
        if kind == "system" and word(record.get("subtype")) == "compact_boundary":
            flush()
            meta = record.get("compactMetadata", record.get("compact_metadata"))
            meta = meta if isinstance(meta, Mapping) else {}
            pre = meta.get("preTokens", meta.get("pre_tokens"))
            if pre is not None and (_number(pre) is None or pre < 0):
                conv.guessed.add(N_("compaction whose preTokens is not a number of tokens (left unknown)"), where, brief(pre, 40))
            trigger = meta.get("trigger")
            conv.compaction(
                where, system=CLAUDE_CODE, trigger=trigger if isinstance(trigger, str) else None,
                pre_tokens=_number(pre) if _number(pre) is not None and pre >= 0 else None,
            )
            continue
        if kind not in _MODEL_RECORDS:
            if kind == "attachment":  # context Claude Code adds (files, reminders) in a form the file does not spell out
                conv.left_out.add(N_("{kind} record on the chain (context Claude Code added, not read)"),
                                  where, _record_text(record), fields={"kind": _kind_name(record)})
            else:
                conv.skipped.add(N_("{kind} record (not model input)"), where, _record_text(record),
                                 fields={"kind": _kind_name(record)})
            continue
        message = mapping(record.get("message"), source, f"{where}: message", f"the {kind} record's Messages API message")
        if kind == "assistant":
            message_id = message.get("id") if isinstance(message.get("id"), str) else None
            content = message.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content, source, f"{where}: message.content")}]
            if reply is not None and message_id is not None and reply[0] == message_id:
                reply[2].extend(blocks)
            else:
                flush()
                reply = (message_id, f"{where}: message", list(blocks))
            continue
        flush()
        if record.get("isCompactSummary") is True:
            summary = tool_result_text(message.get("content"), source, f"{where}: message.content")
            last = conv.events[-1][1] if conv.events else None
            if last is not None and last.get("system") == CLAUDE_CODE and "summary" not in last:
                last["summary"] = summary
            else:
                conv.compaction(where, system=CLAUDE_CODE, summary=summary)
            continue
        _add_message(conv, "user", read_blocks(message.get("content"), source, f"{where}: message"), f"{where}: message", CLAUDE_CODE)
    flush()
    return conv
