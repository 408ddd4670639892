"""Reader of SWE-agent trajectories (``.traj``): the ``history`` the model saw, or the ``trajectory`` of its steps.

A ``.traj`` file (SWE-agent's ``sweagent/types.py``: ``AgentRunResult``) is one
JSON object:

- ``history`` — the messages the model was sent and wrote, in order: chat
  messages (``role`` ``system`` / ``user`` / ``assistant`` / ``tool``,
  ``content`` as text or text parts) with SWE-agent's fields beside them:
  ``agent`` (which agent's conversation), ``message_type`` (``system_prompt``,
  ``observation``, ``action``, ``thought``, ``demonstration``), ``thought`` and
  ``action`` (the command parsed from the reply), ``is_demo`` (a worked
  demonstration in the prompt), and with function calling ``tool_calls`` on an
  assistant message and ``tool_call_ids`` (a list) on a tool message;
- ``trajectory`` — one entry per step: ``response`` (the model's reply),
  ``thought``, ``action``, ``observation``, ``state``, ``execution_time``;
- ``info`` — the run's outcome (``exit_status``, ``submission``, ``model_stats``).

The ``history`` is read when it is there (it is what the model saw: system
prompt, demonstration, issue text); else the ``trajectory``: each entry is an
assistant turn (its ``response``, or ``thought`` and ``action``) and the
observation that answered it. Messages of an agent other than the first one in
the history (a reviewer, a sub-agent) are left out and counted in the report;
``info`` and each step's ``state`` are not model input and are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.guards import brief
from ...core.i18n import N_
from ._conversation import Conversation, arguments_text, fail, listed, mapping, text_of, word


def is_trajectory(document: Any) -> bool:
    """Whether a decoded document looks like a SWE-agent ``.traj`` file."""
    if not isinstance(document, Mapping):
        return False
    steps = document.get("trajectory")
    if isinstance(steps, list) and any(isinstance(s, Mapping) and "observation" in s and ("action" in s or "response" in s) for s in steps):
        return True
    history = document.get("history")
    return isinstance(history, list) and ("info" in document or "environment" in document) and any(
        isinstance(m, Mapping) and "role" in m and ("agent" in m or "message_type" in m) for m in history)


def _text(content: Any, source: str, where: str) -> str:
    """A message's content: text, or a list of text parts (``{"type": "text", "text": ...}``)."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = listed(content, source, f"{where}.content", "text or a list of text parts")
    out = []
    for k, part in enumerate(parts):
        if isinstance(part, str):
            out.append(part)
            continue
        part = mapping(part, source, f"{where}.content[{k}]", "a content part like {'type': 'text', 'text': ...}")
        if word(part.get("type")) in ("text", None) and "text" in part:
            out.append(text_of(part.get("text"), source, f"{where}.content[{k}].text"))
        else:
            out.append(f"[{word(part.get('type')) or 'part'}]")
    return "\n".join(p for p in out if p)


def _calls(message: Mapping[str, Any], source: str, where: str) -> list[tuple[str, str, str]]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    out = []
    for k, call in enumerate(listed(calls, source, f"{where}.tool_calls", "a list of tool calls")):
        at = f"{where}.tool_calls[{k}]"
        call = mapping(call, source, at, "a tool call with 'id' and 'function'")
        function = mapping(call.get("function"), source, f"{at}.function", "the call's function ({'name', 'arguments'})")
        name = text_of(function.get("name"), source, f"{at}.function.name", "the tool's name")
        call_id = text_of(call.get("id"), source, f"{at}.id", "the call's id")
        if not name or not call_id:
            raise fail(source, at, "a tool call needs its 'id' and its function's 'name'")
        out.append((call_id, name, arguments_text(function.get("arguments"), source, f"{at}.function.arguments")))
    return out


def read_trajectory(document: Any, source: str) -> Conversation:
    """A SWE-agent ``.traj`` document (see the module's text)."""
    document = mapping(document, source, "top level", "a SWE-agent trajectory object with 'history' or 'trajectory'")
    conv = Conversation(source)
    if isinstance(document.get("history"), list) and document["history"]:
        _read_history(document["history"], conv)
    else:
        steps = listed(document.get("trajectory"), source, "trajectory", "the list of the agent's steps")
        for k, step in enumerate(steps):
            where = f"trajectory[{k}]"
            step = mapping(step, source, where, "a step with 'response' (or 'action') and 'observation'")
            reply = text_of(step.get("response"), source, f"{where}.response")
            if not reply.strip():
                thought = text_of(step.get("thought"), source, f"{where}.thought")
                action = text_of(step.get("action"), source, f"{where}.action")
                reply = "\n".join(p for p in (thought, action) if p.strip())
            conv.assistant(reply, where)
            conv.user(text_of(step.get("observation"), source, f"{where}.observation"), where)
        conv.notes.append("read from 'trajectory' (the file has no 'history': the prompt the model saw is not in it)")
    return conv


def _read_history(history: list[Any], conv: Conversation) -> None:
    source = conv.source
    first_agent: str | None = None
    for k, message in enumerate(history):
        where = f"history[{k}]"
        message = mapping(message, source, where, "a message with 'role' and 'content'")
        agent = word(message.get("agent"))
        if first_agent is None:
            first_agent = agent
        if agent is not None and agent != first_agent:
            conv.left_out.add(N_("message of agent {agent} (not the first agent, {first})"), where,
                              _text(message.get("content"), source, where), fields={"agent": repr(agent), "first": repr(first_agent)})
            continue
        role = word(message.get("role"))
        text = _text(message.get("content"), source, where)
        if role == "system":
            conv.system(text, where)
        elif role == "user":
            conv.user(text, where)
        elif role == "assistant":
            conv.assistant(text, where, _calls(message, source, where))
        elif role == "tool":
            ids = message.get("tool_call_ids", [message.get("tool_call_id")] if "tool_call_id" in message else None)
            ids = listed(ids, source, f"{where}.tool_call_ids", "the ids of the calls it answers")
            if not ids or not all(isinstance(i, str) and i for i in ids):
                raise fail(source, f"{where}.tool_call_ids", f"expected the ids of the calls this result answers, got {brief(ids, 40)}")
            conv.tool(ids[0], text, where)
            for extra in ids[1:]:
                conv.tool(extra, "", where)
                conv.guessed.add(N_("tool message answering several calls (the others get an empty result)"), where, extra)
        else:
            raise fail(source, f"{where}.role", f"{brief(message.get('role'), 40)} is not one of system, user, assistant, tool")
