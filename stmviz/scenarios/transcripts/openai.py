"""Readers of OpenAI transcripts: Chat Completions messages, and Responses API / Agents SDK items.

**Chat Completions** messages are read by :func:`~stmviz.scenarios.from_openai_messages`
itself (the rules of :mod:`stmviz.scenarios.chatlog`); a reasoning text some
providers add to an assistant message (``reasoning_content``, ``reasoning``)
goes into the step's ``meta["thinking"]``.

**Responses items** (the Responses API's ``input`` and ``output``, and what the
Agents SDK's ``result.to_input_list()`` and its sessions store; ``openai-python``
``types/responses/``, ``openai-agents-python`` ``items.py``):

- a message — ``{"type": "message", "role", "content"}`` or the short
  ``{"role", "content"}`` — with ``content`` text or parts (``input_text``,
  ``output_text``, ``refusal``, ``input_image``, ``input_file``);
- ``function_call`` (``call_id``, ``name``, ``arguments``) answered by
  ``function_call_output`` (``call_id``, ``output``); ``custom_tool_call`` /
  ``custom_tool_call_output`` likewise; the calls that follow one another are
  one assistant turn;
- any other ``*_call`` with a ``call_id`` (``computer_call``,
  ``local_shell_call``, ``shell_call``, ``apply_patch_call``) answered by its
  ``*_call_output``; a hosted tool's ``*_call`` without one (``web_search_call``,
  ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``,
  ``mcp_call``) is a call with its result inside it (``output``, ``outputs``,
  ``results``, ``error``, ``status``), and its other fields (``code``,
  ``container_id``) its arguments;
- ``reasoning`` (``summary`` and ``content`` texts; ``encrypted_content`` is
  opaque) — the thinking of the assistant turn that follows;
- ``compaction`` (from ``/responses/compact``: an opaque ``encrypted_content``)
  — a recorded compaction, with no readable summary;
- ``item_reference`` — a pointer to a stored item, whose text is not in the file:
  left out and counted in the report;
- any other item or part type (``mcp_list_tools``, a type newer than this
  reader) — kept as its JSON text and counted in the report, never a reason to
  refuse the file.

A ``function_call`` must carry its ``call_id`` (else a :class:`~stmviz.FormatError`:
the result that answers it cannot be found). A hosted tool's call without a
result in the file gets none invented: its ``status`` is its result, and the
report counts the guess. A ``/responses/compact`` body (``object:
"response.compaction"``) is read from its ``output``: the compacted window, whose
``compaction`` item is a recorded compaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ._conversation import Conversation, arguments_text, fail, listed, mapping, result_text, text_of, word, id_of

_MESSAGE_PARTS = {"input_text", "output_text", "text", "refusal", "input_image", "input_file", "input_audio", "summary_text"}


def read_chat(items: Sequence[Any], labels: Sequence[str], source: str) -> Conversation:
    """Chat Completions messages, as they are (``from_openai_messages`` reads and checks them), with their reasoning."""
    conv = Conversation(source)
    for k, (item, where) in enumerate(zip(items, labels)):
        conv.messages.append(item)
        conv.labels.append(where)
        if isinstance(item, Mapping) and word(item.get("role")) == "assistant":
            thought = item.get("reasoning_content", item.get("reasoning"))
            if isinstance(thought, str) and thought.strip():
                conv.thinking[k] = [thought]
    return conv


def _part_text(part: Any, source: str, where: str, unknown: list[tuple[str, str, str]] | None = None) -> str:
    if isinstance(part, str):
        return part
    part = mapping(part, source, where, "a content part like {'type': 'input_text', 'text': ...}")
    kind = word(part.get("type"))
    if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
        return text_of(part.get("text"), source, f"{where}.text")
    if kind == "refusal":
        return text_of(part.get("refusal"), source, f"{where}.refusal")
    if kind == "input_image":
        return "[image]"
    if kind == "input_file":
        name = part.get("filename")
        return f"[file: {name}]" if isinstance(name, str) else "[file]"
    if kind == "input_audio":
        return "[audio]"
    shown = kind if kind is not None else brief(part.get("type"), 30)  # a part type stmviz does not know: kept as JSON
    text = result_text(dict(part), source, where)
    if unknown is not None:
        unknown.append((shown, where, text))
    return f"[{shown}] {text}"


def _content(content: Any, source: str, where: str, unknown: list[tuple[str, str, str]] | None = None) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    parts = listed(content, source, f"{where}.content", "text or a list of content parts")
    return "\n".join(p for p in (_part_text(part, source, f"{where}.content[{k}]", unknown) for k, part in enumerate(parts)) if p)


def _output(value: Any, source: str, where: str, unknown: list[tuple[str, str, str]] | None = None) -> str:
    """A ``*_call_output``'s ``output``: text, or a list of content parts, or any JSON."""
    if isinstance(value, list) and all(isinstance(p, Mapping) and "type" in p for p in value):
        return "\n".join(_part_text(p, source, f"{where}.output[{k}]", unknown) for k, p in enumerate(value))
    return result_text(value, source, f"{where}.output")


#: The fields of a hosted tool's call item that are its result, not its arguments.
_RESULT_FIELDS = ("output", "outputs", "results", "result", "error", "status")
#: The fields of an item that say what it is, not what it holds.
_ID_FIELDS = ("type", "id", "call_id", "name")


def read_responses_items(items: Sequence[Any], labels: Sequence[str], source: str, instructions: str = "") -> Conversation:
    """Responses API / Agents SDK items in order (see the module's text)."""
    conv = Conversation(source)
    if instructions.strip():
        conv.query_parts.append(instructions)
    thinking: list[str] = []
    unknown: list[tuple[str, str, str]] = []
    for item, where in zip(items, labels):
        item = mapping(item, source, where, "an item with a 'type' (or a message with 'role')")
        kind = word(item.get("type", "message" if "role" in item else None))
        if kind == "message":
            role = word(item.get("role"))
            text = _content(item.get("content"), source, where, unknown)
            if role in ("system", "developer"):
                conv.system(text, where)
            elif role == "user":
                conv.user(text, where)
            elif role == "assistant":
                conv.assistant(text, where, thinking=thinking)
                thinking = []
            else:
                raise fail(source, f"{where}.role", f"{brief(item.get('role'), 40)} is not one of user, assistant, system, developer")
        elif kind == "reasoning":
            for key in ("summary", "content"):
                value = item.get(key)
                if isinstance(value, list):
                    thinking.extend(t for t in (_part_text(p, source, f"{where}.{key}[{k}]", unknown) for k, p in enumerate(value)) if t.strip())
            if not thinking and isinstance(item.get("encrypted_content"), str):
                thinking.append("[encrypted reasoning]")
        elif kind == "compaction":
            conv.compaction(where, system="OpenAI Responses", trigger="server", summary=None)
        elif kind == "item_reference":
            conv.left_out.add(N_("item_reference item (its text is stored with OpenAI, not in the file)"), where, item.get("id"))
        elif isinstance(kind, str) and kind.endswith("_call_output"):
            call_id = text_of(item.get("call_id"), source, f"{where}.call_id", "the id of the call it answers")
            conv.tool(call_id, _output(item.get("output"), source, where, unknown), where)
        elif isinstance(kind, str) and kind.endswith("_call"):
            name = kind[: -len("_call")]
            if kind in ("function_call", "custom_tool_call"):
                name = text_of(item.get("name"), source, f"{where}.name", "the tool's name")
                if not name:
                    raise fail(source, f"{where}.name", f"a {kind} names its tool")
                call_id = text_of(item.get("call_id"), source, f"{where}.call_id", "the call's id")
                if not call_id:
                    raise fail(source, f"{where}.call_id", f"a {kind} has the call_id its {kind}_output answers; "
                               "add it (any text unique in the file)")
                arguments = item.get("arguments", item.get("input"))
                conv.add_calls([(call_id, name, arguments_text(arguments, source, where))], where, thinking)
                thinking = []
                continue
            if word(item.get("name")):
                name = f"{name}:{item['name']}"  # an MCP call: mcp:ask_question
            arguments = item.get("arguments", item.get("input", item.get("action")))
            if arguments is None:  # a hosted tool's own fields (code_interpreter_call's code, container) are its arguments
                arguments = {k: v for k, v in item.items() if k not in (*_ID_FIELDS, *_RESULT_FIELDS)} or None
            call_id = id_of(item.get("call_id"), "")
            if call_id:
                conv.add_calls([(call_id, name, arguments_text(arguments, source, where))], where, thinking)
                thinking = []
            else:  # a hosted tool: the call holds its own result
                call_id = id_of(item.get("id"), f"{kind}@{where}")
                conv.add_calls([(call_id, name, arguments_text(arguments, source, where))], where, thinking)
                thinking = []
                result = {k: v for k, v in item.items() if k in _RESULT_FIELDS}
                conv.tool(call_id, result_text(result, source, where), where)
                if not any(result.get(k) is not None for k in _RESULT_FIELDS if k != "status"):
                    conv.guessed.add(N_("{kind} with no result in the file (its status is the result)"), where,
                                     result.get("status"), fields={"kind": kind})
        else:  # an item type stmviz does not know (mcp_list_tools, …): kept, visible, as its JSON text
            shown = kind if kind is not None else brief(item.get("type"), 30)
            text = result_text(dict(item), source, where)
            conv.system(f"[{shown}] {text}", where)
            conv.kept.add(N_("unknown item {kind} (kept as its JSON text)"), where, text, fields={"kind": repr(shown)})
    if thinking:
        conv.assistant("", labels[-1] if labels else "items", thinking=thinking)
    for shown, at, text in unknown:
        conv.kept.add(N_("unknown part {kind} (kept as its JSON text)"), at, text, fields={"kind": repr(shown)})
    return conv


def responses_document(data: Any, source: str) -> tuple[list[Any], list[str], str]:
    """The items and instructions of a Responses document: a list, ``{"input", "instructions"}``, a response, ``{"items"}``."""
    if isinstance(data, list):
        return data, [f"items[{k}]" for k in range(len(data))], ""
    data = mapping(data, source, "top level", "a list of items, a request with 'input', or a response with 'output'")
    instructions = data.get("instructions")
    instructions = instructions if isinstance(instructions, str) else ""
    items: list[Any] = []
    labels: list[str] = []
    for key in ("input", "items", "output"):
        value = data.get(key)
        if isinstance(value, str):
            items.append({"role": "user", "content": value})
            labels.append(key)
        elif value is not None:
            value = listed(value, source, key, "a list of items")
            items.extend(value)
            labels.extend(f"{key}[{k}]" for k in range(len(value)))
    if not items:
        raise fail(source, "top level", "no 'input', 'items' or 'output' list of Responses items")
    return items, labels, instructions
