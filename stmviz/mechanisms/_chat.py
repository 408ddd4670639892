"""Chat messages as elements, shared by the practitioners' managers (sessions, LlamaIndex, Letta, ADK).

Each manager stores a conversation: user messages, assistant replies and tool
calls, tool results. An incoming :class:`~stmviz.AgentStep` becomes those
messages in the order they happened, exactly as :class:`~stmviz.FIFOWindow`
builds them (the model's output first, then the input that followed it):

- a step with an action → an *assistant* message "thought + action" carrying
  a tool call id ``call`` = ``call_<t>``, then a *tool* message with the
  observation and the same ``call``;
- a step without action → an *assistant* message (the reply), then a *user*
  message (a *system* message when ``meta["role"]`` is ``"system"``).

Element e = (i, d): i the text, d = (``t``, ``type`` = ``role``, ``role``,
``step``, ``call``). ``t`` orders the messages: the k-th message of step t
has ``t + k/2``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError
from ..core.model_input import Message, ModelInput
from .._fast.memo import Memo

#: The element types of a chat transcript, with the FIFO window's colours.
CHAT_TYPES: dict[str, tuple[str, str]] = {
    "system": ("the system prompt, or a system message of the conversation", "#7f7f7f"),
    "user": ("a message of the user", "#1f77b4"),
    "assistant": ("a reply or tool call of the model", "#ff7f0e"),
    "tool": ("the result of a tool call", "#2ca02c"),
}

#: The two places a manager's work can happen (the paper's U and π).
PLACES = ("U", "π")


def step_messages(context: Context, memo: Memo | None = None) -> list[Element]:
    """The chat messages the step c_t brings, in the order they happened (output first, then input)."""
    step, t = context.step, context.t
    parts: list[tuple[str, str, str | None]] = []
    if step.action:
        call = f"call_{t}"
        parts.append(("assistant", step.output, call))
        if step.observation:
            parts.append(("tool", step.observation, call))
    else:
        if step.thought:
            parts.append(("assistant", step.thought, None))
        if step.observation:
            parts.append(("system" if step.meta.get("role") == "system" else "user", step.observation, None))
    if memo is None:
        return [message_element(t, k, *part) for k, part in enumerate(parts)]
    return [memo.lookup((t, k, *part), _from_key) for k, part in enumerate(parts)]


def _from_key(key: tuple[int, int, str, str, str | None]) -> Element:
    return message_element(*key)


def message_element(t: int, k: int, role: str, text: str, call: str | None = None) -> Element:
    """The k-th message of step t as an element e = (text, {t, type, role, step, call})."""
    meta: dict[str, Any] = {"t": t + k / 2, "type": role, "role": role, "step": t}
    if call is not None:
        meta["call"] = call
    return Element(text, meta)


def as_model_input(elements: Iterable[Element]) -> ModelInput:
    """The messages (role, text) of elements already in order: π's usual last step."""
    return ModelInput(Message(str(e.meta.get("role", "user")), e.content) for e in elements)


def system_element(system: str | None) -> Element | None:
    """The system prompt as a pinned element (t = −1), or ``None``; checked."""
    if system is None:
        return None
    if not isinstance(system, str) or not system.strip():
        raise InvalidArgumentError(
            f"system must be the non-empty text of a system prompt or None, got {system!r}"
        )
    return Element(system, {"t": -1, "type": "system", "role": "system", "pinned": True})


def check_placement(owner: str, placement: Mapping[str, str]) -> None:
    """A class's ``placement`` declaration, checked: each part of the manager is U's work or π's."""
    for part, place in placement.items():
        if place not in PLACES:
            raise InvalidArgumentError(f"{owner}.placement[{part!r}] = {place!r}: a part is done in 'U' or in 'π'")
