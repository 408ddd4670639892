"""The chat-message elements the practitioners' managers share: one conversation, as the APIs hold it.

An agent step t (:class:`~stmviz.AgentStep`) becomes, in this order, the
messages an API conversation holds for it:

- ``thinking`` — the model's thinking at step t, when the step carries it in
  ``meta["thinking"]`` (a text or a list of texts, joined into one element:
  kept in metadata by the transcript loaders, never as visible text of the step);
- ``assistant`` — the model's output (thought, then action); a step with an
  action is a *tool use*: the element carries its call id ``call``, the tool's
  name ``tool`` and the action text ``action``;
- ``tool`` — the result of that tool use (same ``call`` and ``tool``), or, for
  a step without action, a ``user`` (or ``system``) message: the next input.

The k-th message of step t has ``meta["t"] = t + k/8``, so the canonical order
of ω is the conversation's order and a manager can put an element between two
of them (a compaction block) with a t in between. A step's calls count as one
tool use (a step holds one observation); its ``tool`` names are joined by ",".
The call id is ``meta["call"]`` of the step (its first id when it lists
several), else ``call_<t>``; the tool's name is ``meta["tool"]``, else the
action's text before its first "(".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.context import AgentStep, Context
from ..core.element import Element
from ..core.errors import CapacityError, InvalidArgumentError
from ..core.formatting import format_number
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import Message, ModelInput
from ..core.space import State, StateSpace
from ..core import guards
from ._shared import Memo

__all__ = ["SLOT", "ChatManager", "step_messages", "system_element", "tool_names", "cut_oldest"]

#: The distance in t between two messages of one step (eight slots per step).
SLOT = 0.125


def system_element(text: str) -> Element:
    """The system prompt as an element of ω: first in the canonical order, pinned."""
    return Element(text, {"t": -1, "type": "system", "role": "system", "pinned": True})


def tool_names(step: AgentStep) -> str:
    """The tool (or tools, joined by ",") a step's action calls."""
    named = step.meta.get("tool")
    if isinstance(named, str) and named:
        return named
    if isinstance(named, Sequence) and named and all(isinstance(n, str) for n in named):
        return ",".join(named)
    first = step.action.strip().splitlines()[0] if step.action.strip() else ""
    head = first.split("(", 1)[0].strip()
    return head or "tool"


def _call_id(step: AgentStep, t: int) -> str:
    call = step.meta.get("call")
    if isinstance(call, str) and call:
        return call
    if isinstance(call, Sequence) and call and isinstance(call[0], str):
        return str(call[0])
    return f"call_{t}"


def _thinking(step: AgentStep) -> list[str]:
    value = step.meta.get("thinking")
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Sequence):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def step_messages(step: AgentStep, t: int) -> list[Element]:
    """The messages of step t, in the conversation's order (see the module's text).

    >>> [(e.type, e.t) for e in step_messages(AgentStep(thought="Look.", action="ls()", observation="a b"), 2)]
    [('assistant', 2.0), ('tool', 2.125)]
    """
    out: list[Element] = []

    def add(content: str, meta: dict[str, Any]) -> None:
        meta.update(t=t + len(out) * SLOT, step=t)
        out.append(Element(content, meta))

    thinking = _thinking(step)
    if step.has_output and thinking:  # one element per turn: what clear_thinking keeps or clears
        add("\n\n".join(thinking), {"type": "thinking", "role": "assistant"})
    if step.action:
        call, tool = _call_id(step, t), tool_names(step)
        add(step.output, {"type": "assistant", "role": "assistant", "call": call, "tool": tool, "action": step.action})
        if step.observation:
            add(step.observation, {"type": "tool", "role": "tool", "call": call, "tool": tool})
        return out
    if step.thought:
        add(step.thought, {"type": "assistant", "role": "assistant"})
    if step.observation:
        role = "system" if step.meta.get("role") == "system" else "user"
        add(step.observation, {"type": role, "role": role})
    return out


def cut_oldest(
    order: Sequence[Element], total: float, limit: float, measure: Any, keep: Iterable[Element] = ()
) -> dict[Element, str]:
    """Oldest-first removal from ``order`` until ``total ≤ limit``, a tool call with its result; → element: reason.

    Pinned elements and those in ``keep`` stay. A tool result whose call left
    leaves too, so π never shows an orphaned result (the error an API returns
    for one: langchain-ai/langchain#33245, anthropics/claude-code#59554).
    """
    kept = set(keep)
    removed: dict[Element, str] = {}
    gone_calls: set[Any] = set()
    reason = f"oldest message; Σμ > V_max = {format_number(limit)} (stmviz bounds the stored history)"
    for e in order:
        if total <= limit:
            break
        if e.meta.get("pinned") or e in kept:
            continue
        removed[e] = reason
        total -= measure(e)
        if e.type == "assistant" and e.meta.get("call") is not None:
            gone_calls.add(e.meta["call"])
    for e in order:
        if e.type == "tool" and e.meta.get("call") in gone_calls and e not in removed:
            removed[e] = f"tool result of the removed call {e.meta['call']} (a result never outlives its call)"
    return removed


class ChatManager(Mechanism):
    """What the three API-style managers share: ω holds the conversation's messages, the system prompt pinned.

    U's common part, :meth:`appended`: add step t's messages (see
    :func:`step_messages`) and, when Σμ would exceed V_max, cut off the oldest
    (a stmviz bound: the originals keep a client-side history of any length).
    """

    #: Which part of the manager's work U does and which π does (read by the figures).
    placement: Mapping[str, str] = {}
    #: ``summarize(texts, budget) -> str``, for the managers that summarize.
    summarizer: Any = None

    def __init__(self, space: StateSpace, system: str | None) -> None:
        super().__init__(space)
        if system is not None:
            guards.text(system, "system", example="You are a helpful assistant.")
        self.system = system
        self._pins = (system_element(system),) if system is not None else ()
        if space.size(self._pins) > space.v_max:
            raise CapacityError(
                f"the system prompt alone has μ = {format_number(space.size(self._pins))} > V_max = "
                f"{format_number(space.v_max)}; shorten it or raise v_max"
            )
        self._messages = Memo()  # (t, step) → its messages
        # μ = the content's tokens (no per-element overhead): then |π(ω)| is Σμ over what π shows, μ cached per text
        self._counts_tokens = space.counts_tokens and "overhead" not in space.name

    def initial_state(self, context: Context) -> State:
        """ω_0: the system prompt (pinned), or ∅."""
        return State(self._pins)

    def messages_of(self, context: Context) -> list[Element]:
        """The messages step t adds, in order (memoized: they are a pure function of the step)."""
        return self._messages.lookup((context.t, context.step), lambda key: step_messages(key[1], key[0]))

    def appended(self, state: State, context: Context, keep: Iterable[Element] = ()) -> Transition:
        """ω with step t's messages added, and the oldest cut off while Σμ > V_max (never ``keep``)."""
        new = self.messages_of(context)
        if not new:
            return Transition(state)
        grown = state | new
        measure = self.space.measure
        total = self.space.size(grown)
        if total <= self.space.v_max:
            return Transition(grown)
        removed = cut_oldest(grown.ordered(), total, self.space.v_max, measure, keep)
        return Transition(grown - removed.keys(), removed)

    def shown(self, state: State) -> list[Element]:
        """The elements π(ω) shows, in order, each as the model sees it (a replacement where π edits one)."""
        return list(state.ordered())

    def project(self, state: State) -> ModelInput:
        """π(ω): one message per element :meth:`shown` lists (thinking named so), in order."""
        return ModelInput(
            Message(str(e.meta.get("role", "user")), e.content, "thinking" if e.type == "thinking" else None)
            for e in self.shown(state)
        )

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ over what π shows when μ counts the content's tokens (μ is cached), else counted."""
        if not self._counts_tokens:
            return super().projection_size(state)
        measure = self.space.measure
        return int(sum(measure(e) for e in self.shown(state)))

    def summary_text(self, texts: Sequence[str], budget: int) -> str:
        """``summarizer(texts, budget)``, checked to be text, stripped (the managers that summarize call it)."""
        result = self.summarizer(list(texts), budget)
        if not isinstance(result, str):
            raise InvalidArgumentError(
                f"the summarizer returned {type(result).__name__}; summarize(texts, budget) must return a str"
            )
        return result.strip()

    def visible_size(self, elements: Iterable[Element]) -> float:
        """Σμ over elements (the "input tokens" of a request, in units of μ)."""
        measure = self.space.measure
        return sum(measure(e) for e in elements)
