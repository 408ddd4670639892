"""Readers of Anthropic transcripts: Messages API requests and responses, and Claude Code session files.

Both speak in **content blocks** (``anthropic-sdk-python``, ``types/`` and
``types/beta/``; the Messages API reference):

- ``text`` — visible text; ``thinking`` (``thinking``) and ``redacted_thinking``
  — the model's reasoning, kept in the step's ``meta["thinking"]``;
- ``tool_use`` / ``server_tool_use`` (``id``, ``name``, ``input``) — a tool call,
  answered by a ``tool_result`` block (``tool_use_id``, ``content`` as text or
  blocks, ``is_error``: the result then reads ``[error] …``) in the next user
  message: the results are the input of the step that made the calls, and text
  the user adds after them is an input of its own; server tools' results
  (``web_search_tool_result``, any ``*_tool_result``) come back in the
  assistant's own message;
- ``image``, ``document``, ``search_result``, ``container_upload`` — kept as
  placeholders such as ``[image]``;
- ``compaction`` (``content``: the summary, ``null`` if it failed) — server-side
  compaction (``compact_20260112``): the API drops every block before it, so it is
  read as a recorded compaction, not as text.

A **Claude Code session** (``~/.claude/projects/<project>/<session>.jsonl``) holds
one record per line: ``user`` and ``assistant`` records wrap a Messages API
``message``; an assistant reply is written as one record per content block,
sharing ``message.id``, and is joined again here. Records link to the one before
by ``parentUuid``; after a rewind or an edit the file holds abandoned branches,
so the conversation is the chain from the last record back to the first (through
``logicalParentUuid`` across a compaction), with the parallel pieces of its turns
(tool results and blocks of a reply on the chain). Records with ``isSidechain``
(a sub-agent's conversation) are left out. A ``system`` record with ``subtype``
``compact_boundary`` marks a compaction (``compactMetadata``: ``trigger``
``"auto"`` or ``"manual"``, ``preTokens``; ``compact_metadata`` / ``pre_tokens``
as the SDK streams them); the ``user`` record with ``isCompactSummary`` that
follows holds its summary. Both become one recorded compaction; the summary is
not replayed as a user message (each mechanism makes its own). Other records
(``summary`` titles, ``file-history-snapshot``, ``progress``, other ``system``
subtypes) are not model input and are skipped.

What is not verified: Anthropic does not document the session file. Its
fields here are those public session files show and their parsers read
(anthropics/claude-code issues, e.g. #22193; third-party converters): the
reader takes both spellings of the compaction metadata, ignores record types
it does not know, and falls back to file order when records carry no ``uuid``.
Claude Code also re-attaches recently read files and its todo list after a
compaction (as ``isMeta`` user records in some versions); those records are
read as user input like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.arguments import describe
from ...core.formatting import shorten
from ._conversation import Conversation, arguments_text, fail, listed, mapping, text_of, word

#: Where Claude Code's session files are and what their compaction is called, for the notes of a scenario.
CLAUDE_CODE = "Claude Code"

_PLACEHOLDERS = ("image", "document", "search_result", "container_upload", "file")


class _Blocks:
    """The parts of one message's content: text, thinking, tool calls, tool results, compactions."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[tuple[str, str, str]] = []
        self.results: list[tuple[str, str]] = []
        self.compactions: list[str | None] = []


def read_blocks(content: Any, source: str, where: str) -> _Blocks:
    """The content of a Messages API message (a string or a list of blocks), sorted into its parts."""
    parts = _Blocks()
    if isinstance(content, str):
        parts.text.append(content)
        return parts
    if content is None:
        return parts
    for k, block in enumerate(listed(content, source, f"{where}.content", "a string or a list of content blocks")):
        at = f"{where}.content[{k}]"
        if isinstance(block, str):
            parts.text.append(block)
            continue
        block = mapping(block, source, at, "a content block like {'type': 'text', 'text': ...}")
        kind = word(block.get("type"))
        if kind == "text":
            parts.text.append(text_of(block.get("text"), source, f"{at}.text"))
        elif kind == "thinking":
            parts.thinking.append(text_of(block.get("thinking"), source, f"{at}.thinking"))
        elif kind == "redacted_thinking":
            parts.thinking.append("[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            call_id = text_of(block.get("id"), source, f"{at}.id", "the call's id")
            name = text_of(block.get("name"), source, f"{at}.name", "the tool's name")
            if not call_id or not name:
                raise fail(source, at, "a tool_use block needs its 'id' and 'name'")
            parts.calls.append((call_id, name, arguments_text(block.get("input"), source, f"{at}.input")))
        elif kind == "tool_result":
            call_id = text_of(block.get("tool_use_id"), source, f"{at}.tool_use_id", "the id of the call it answers")
            if not call_id:
                raise fail(source, f"{at}.tool_use_id", "a tool_result block names the tool_use it answers")
            text = tool_result_text(block.get("content"), source, f"{at}.content")
            parts.results.append((call_id, f"[error] {text}" if block.get("is_error") is True else text))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            parts.text.append(f"[{kind}]")
        elif kind == "compaction":
            summary = block.get("content")
            parts.compactions.append(text_of(summary, source, f"{at}.content", "the summary") or None)
        elif kind in _PLACEHOLDERS:
            title = block.get("title") if isinstance(block.get("title"), str) else None
            parts.text.append(f"[{kind}: {shorten(title, 60)}]" if title else f"[{kind}]")
        else:
            raise fail(
                source, f"{at}.type",
                f"unknown content block type {describe(block.get('type'), 40)}; known: text, thinking, redacted_thinking, tool_use, "
                "tool_result, server_tool_use, *_tool_result, image, document, compaction",
            )
    return parts


def tool_result_text(content: Any, source: str, where: str) -> str:
    """A tool_result's content (a string, or text and image blocks) as text."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = read_blocks(content, source, where.rsplit(".content", 1)[0] if where.endswith(".content") else where)
    return "\n".join(p for p in parts.text if p)


def _add_message(conv: Conversation, role: str, parts: _Blocks, where: str, system_name: str) -> None:
    """One Messages API message into the conversation: tool results first (as tool messages), then text."""
    for summary in parts.compactions:
        conv.compaction(where, system=system_name, trigger="server", summary=summary)
    if role == "assistant":
        conv.assistant("\n".join(t for t in parts.text if t), where, parts.calls, parts.thinking)
        return
    for call_id, text in parts.results:
        conv.tool(call_id, text, where)
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
                raise fail(source, f"{where}.role", f"{describe(message.get('role'), 40)} is not user or assistant (the system prompt is the request's 'system')")
            _add_message(conv, role, read_blocks(message.get("content"), source, where), where, "Anthropic API")
    if response is not None:
        role = word(response.get("role", "assistant"))
        if role != "assistant":
            raise fail(source, "response.role", f"a response's role is 'assistant', got {describe(response.get('role'), 40)}")
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


def _chain(records: Sequence[tuple[str, Mapping[str, Any]]], source: str) -> tuple[set[int], int]:
    """The records on the conversation's chain (indices), from the last record back; and how many were off it."""
    by_uuid = {r["uuid"]: k for k, (_, r) in enumerate(records) if isinstance(r.get("uuid"), str)}
    if not by_uuid:
        return set(range(len(records))), 0
    on: set[int] = set()
    k: int | None = len(records) - 1
    while k is not None:
        if k in on:
            raise fail(source, records[k][0], "the parentUuid chain loops back to this record; the file is corrupt")
        on.add(k)
        record = records[k][1]
        parent = word(record.get("parentUuid")) or word(record.get("logicalParentUuid"))
        k = by_uuid.get(parent) if isinstance(parent, str) else None
    # the parallel pieces of the chain's turns: blocks of a reply on the chain, results of its calls
    replies = {_message_id(r) for i, (_, r) in enumerate(records) if i in on} - {None}
    calls = {c for i, (w, r) in enumerate(records) if i in on and word(r.get("type")) == "assistant"
             for c in _call_ids(r.get("message"))}
    for i, (_, record) in enumerate(records):
        if i in on:
            continue
        if _message_id(record) in replies or (word(record.get("type")) == "user" and _answers(record.get("message")) & calls):
            on.add(i)
    return on, len(records) - len(on)


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


def read_claude_code(records: Sequence[tuple[str, Any]], source: str) -> Conversation:
    """A Claude Code session: its records (label, decoded line) in file order (see the module's text)."""
    conv = Conversation(source)
    main: list[tuple[str, Mapping[str, Any]]] = []
    sidechain = skipped = 0
    for where, record in records:
        record = mapping(record, source, where, "a session record with a 'type'")
        kind = word(record.get("type"))
        if record.get("isSidechain") is True:
            sidechain += 1
        elif kind in ("user", "assistant") or (kind == "system" and word(record.get("subtype")) == "compact_boundary"):
            main.append((where, record))
        else:
            skipped += 1
    on, off = _chain(main, source)
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
        kind = record["type"]
        if kind == "system":
            flush()
            meta = record.get("compactMetadata", record.get("compact_metadata"))
            meta = meta if isinstance(meta, Mapping) else {}
            pre = meta.get("preTokens", meta.get("pre_tokens"))
            trigger = meta.get("trigger")
            conv.compaction(
                where, system=CLAUDE_CODE, trigger=trigger if isinstance(trigger, str) else None,
                pre_tokens=pre if isinstance(pre, (int, float)) and not isinstance(pre, bool) else None,
            )
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
    if sidechain:
        conv.notes.append(f"{sidechain} sidechain (sub-agent) record(s) left out")
    if off:
        conv.notes.append(f"{off} record(s) of abandoned branches left out")
    if skipped:
        conv.notes.append(f"{skipped} record(s) that are not model input skipped")
    return conv
