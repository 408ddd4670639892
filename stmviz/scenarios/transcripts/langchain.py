"""Reader of LangChain message dicts (``langchain_core.messages``).

Three shapes are read, as LangChain writes them:

- ``messages_to_dict``: ``{"type": "human", "data": {"content": ..., ...}}``;
- a message's own fields (``message.model_dump()``, or a LangGraph state's
  ``{"messages": [...]}``): ``{"type": "ai", "content": ..., "tool_calls": [...]}``;
- ``dumpd``: ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``.

Types: ``human`` (user), ``ai`` (assistant; ``tool_calls`` as ``{"name",
"args", "id"}``), ``system``, ``tool`` (``tool_call_id``), ``function``
(``name``), ``chat`` (``role``); the ``…Chunk`` variants alike. Content is text
or a list of blocks: ``text``, ``reasoning`` / ``thinking`` (thinking: kept in
``meta["thinking"]``, as is ``additional_kwargs["reasoning_content"]``),
``tool_use`` / ``tool_call`` blocks (the calls are read from ``tool_calls``),
images, files, audio and video as placeholders (``[image]``), and a block of
any other type kept as its JSON text, noted in the scenario's report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ._conversation import Conversation, arguments_text, fail, listed, mapping, result_text, text_of, word, word_int, id_of

#: Block types that hold media: read as placeholders such as ``[image]``.
_MEDIA = ("image", "image_url", "file", "audio", "input_audio", "video", "media")

_TYPES = {
    "human": "user", "HumanMessage": "user", "ai": "assistant", "AIMessage": "assistant", "system": "system",
    "SystemMessage": "system", "tool": "tool", "ToolMessage": "tool", "function": "function",
    "FunctionMessage": "function", "chat": "chat", "ChatMessage": "chat", "remove": "remove",
}


def message_type(item: Any) -> str | None:
    """The LangChain type of a dict (``"human"``, ``"ai"``, …), or ``None`` if it is not a LangChain message."""
    if not isinstance(item, Mapping):
        return None
    if word_int(item.get("lc")) == 1 and word(item.get("type")) == "constructor" and isinstance(item.get("id"), list) and item["id"]:
        name = (word(item["id"][-1]) or "").removesuffix("Chunk")
        return name if name in _TYPES else None
    kind = word(item.get("type"))
    if isinstance(kind, str):
        kind = kind.removesuffix("Chunk")
        if kind in _TYPES and ("data" in item or "content" in item):
            return kind
    return None


def _fields(item: Mapping[str, Any]) -> Mapping[str, Any]:
    if word_int(item.get("lc")) == 1:
        kwargs = item.get("kwargs")
        return kwargs if isinstance(kwargs, Mapping) else {}
    data = item.get("data")
    return data if isinstance(data, Mapping) else item


def _content(content: Any, source: str, where: str, unknown: list[tuple[str, str, str]]) -> tuple[str, list[str]]:
    """(visible text, thinking) of a message's content."""
    if content is None or isinstance(content, str):
        return content or "", []
    text: list[str] = []
    thinking: list[str] = []
    for k, block in enumerate(listed(content, source, f"{where}.content", "text or a list of content blocks")):
        at = f"{where}.content[{k}]"
        if isinstance(block, str):
            text.append(block)
            continue
        block = mapping(block, source, at, "a content block with a 'type'")
        kind = word(block.get("type"))
        if kind == "text":
            text.append(text_of(block.get("text"), source, f"{at}.text"))
        elif kind in ("reasoning", "thinking"):
            thinking.append(text_of(block.get(kind, block.get("text")), source, f"{at}.{kind}"))
        elif kind in ("tool_use", "tool_call", "tool_call_chunk", "server_tool_call", "invalid_tool_call"):
            continue  # the calls are the message's tool_calls
        elif kind in _MEDIA:
            text.append(f"[{kind}]")
        elif isinstance(kind, str):  # a block type this reader does not know: kept as its JSON text, and noted
            shown = result_text(dict(block), source, at)
            unknown.append((kind, at, shown))
            text.append(f"[{kind}] {shown}")
        else:
            raise fail(source, f"{at}.type", f"a content block names its type, got {brief(block.get('type'), 40)}")
    return "\n".join(t for t in text if t), thinking


def read_langchain(items: Sequence[Any], labels: Sequence[str], source: str) -> Conversation:
    """LangChain message dicts in order (see the module's text)."""
    conv = Conversation(source)
    for item, where in zip(items, labels):
        kind = message_type(item)
        if kind is None:
            raise fail(source, where, f"not a LangChain message dict (a 'type' such as human, ai, tool with 'content' or 'data'), got {brief(item, 60)}")
        role = _TYPES[kind]
        fields = _fields(item)
        unknown: list[tuple[str, str, str]] = []
        text, thinking = _content(fields.get("content"), source, where, unknown)
        for block_kind, at, shown in unknown:
            conv.kept.add(N_("unknown block {kind} (kept as its JSON text)"), at, shown, fields={"kind": repr(block_kind)})
        extra = fields.get("additional_kwargs")
        if isinstance(extra, Mapping) and isinstance(extra.get("reasoning_content"), str):
            thinking.append(extra["reasoning_content"])
        if role == "chat":
            role = {"human": "user", "ai": "assistant"}.get(word(fields.get("role")) or "", word(fields.get("role")) or "")
        if role == "remove":
            continue  # LangGraph's RemoveMessage: an instruction to a reducer, not a message
        if role == "assistant":
            calls = []
            calls_field = fields.get("tool_calls")
            for j, call in enumerate([] if calls_field is None else listed(calls_field, source, f"{where}.tool_calls", "a list of tool calls")):
                call = mapping(call, source, f"{where}.tool_calls[{j}]", "a tool call {'name', 'args', 'id'}")
                name = text_of(call.get("name"), source, f"{where}.tool_calls[{j}].name", "the tool's name")
                call_id = id_of(call.get("id"), f"call@{where}[{j}]")
                calls.append((call_id, name, arguments_text(call.get("args", call.get("arguments")), source, f"{where}.tool_calls[{j}].args")))
            conv.assistant(text, where, calls, thinking)
        elif role == "user":
            conv.user(text, where)
        elif role == "system":
            conv.system(text, where)
        elif role == "tool":
            call_id = text_of(fields.get("tool_call_id"), source, f"{where}.tool_call_id", "the id of the call it answers")
            conv.tool(call_id, text, where)
        elif role == "function":
            wanted = word(fields.get("name"))
            last = next((m for m in reversed(conv.messages) if m["role"] == "assistant"), None)
            call = next((c for c in (last or {}).get("tool_calls", []) if c["function"]["name"] == wanted), None)
            if call is None:
                raise fail(source, where, f"a function message answers a call of {brief(wanted, 40)} that no earlier ai message made")
            conv.tool(call["id"], text, where)
        else:
            raise fail(source, f"{where}.role", f"a chat message's role {brief(role, 40)} is not human, ai, system or tool")
    return conv
