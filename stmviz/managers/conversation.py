"""The conversation model: how an agent step becomes chat messages, shared by the FIFO window and every chat manager.

A context window, a provider's message list, an SDK session: each holds one
conversation — user messages, assistant replies and tool calls, tool results.
An incoming step c_t (:class:`~stmviz.AgentStep`: the model's output, then the
input that followed it) becomes those messages by :func:`step_messages`, the
one place stmviz does so:

- a step with an action → an *assistant* message, the output (thought, then
  action), carrying the tool call's id ``call``; then a *tool* message with
  its result (the observation), with the same ``call``;
- a step without one → an *assistant* message (the reply), then the input
  that followed: a *user* message (a *system* message when
  ``meta["role"]`` is ``"system"``).

Empty parts are left out. Element e = (i, d): i the text, d = (``t``,
``type``, ``role``, ``step``, ``call``). With ``api=True`` the messages are
those a provider's API keeps (the managers that edit them need it): the
model's thinking (``meta["thinking"]`` of the step) as an element of its own,
and each tool use with the call id the step recorded (``meta["call"]``, else
``call_<t>``), its tool's name ``tool`` (:func:`tool_names`) and its
``action``.

**One time scheme.** ``t`` orders ω as the conversation happened, on quarter
slots of each step t:

==========  ==========================================================
t − ¼       the model's thinking (``api=True``), before the output
t           the model's output — or, when the step has none, its input
t + ¼       free: a tool's result a manager runs itself (Letta's memory tools)
t + ½       the input that followed the output
==========  ==========================================================

so π(ω_t) ends with the input the model answers at step t. What a manager
adds next to a message — a summary, a compaction block — goes :data:`GAP`
(⅛) before or after it, strictly between two slots; the system prompt
(t = −1, pinned) comes before every message.

The rest of the model: :func:`system_element` (the system prompt, pinned),
:func:`evict_oldest` (oldest first, a tool call with its result, never a
pinned message), :func:`appended` (U's usual part: add a step's messages,
evicting the oldest on overflow) and :func:`as_model_input` (π's usual last
step: the messages in order).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._fast.memo import Memo
from ..core import guards
from ..core.context import AgentStep
from ..core.element import Element
from ..core.errors import CapacityError
from ..core.formatting import format_number
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.mechanism import Transition
from ..core.model_input import Message, ModelInput
from ..core.space import State, StateSpace

__all__ = [
    "CHAT_TYPES",
    "THINKING_TYPE",
    "THINKING",
    "TOOL_RESULT",
    "INPUT",
    "GAP",
    "HISTORY_BOUND",
    "RESULT_WITH_CALL",
    "step_messages",
    "tool_names",
    "system_element",
    "pinned_system",
    "evict_oldest",
    "check_summary_fits",
    "appended",
    "as_model_input",
    "counts_content_tokens",
]

#: The element types of a chat transcript (name → meaning, colour), shared by the FIFO window and the managers.
CHAT_TYPES: dict[str, tuple[str, str]] = {
    "system": ("the system prompt, or a system message of the conversation", "#7f7f7f"),
    "user": ("a message of the user", "#1f77b4"),
    "assistant": ("a reply or tool call of the model", "#ff7f0e"),
    "tool": ("the result of a tool call", "#2ca02c"),
}
#: The model's thinking as an element type (the messages of ``api=True``).
THINKING_TYPE: dict[str, tuple[str, str]] = {
    "thinking": ("the model's thinking at a step (shown to the model, never as visible text)", "#c5b0d5"),
}

#: The slots of a step t, as offsets from t: the thinking, a tool result a manager runs itself, the input.
THINKING = -0.25
TOOL_RESULT = 0.25
INPUT = 0.5
#: Half the narrowest distance between two slots: an element put GAP before or after a message stays between slots.
GAP = 0.125

#: Why a chat manager evicts at all (the ``note`` of :func:`evict_oldest`): the originals keep a client-side
#: history of any length, stmviz bounds it by V_max.
HISTORY_BOUND = N_("stmviz bounds the stored history")
#: Why a tool result leaves with its call there (the ``pairs_note``).
RESULT_WITH_CALL = N_("a result never outlives its call")


def step_messages(step: AgentStep, t: int, *, api: bool = False, memo: Memo | None = None) -> list[Element]:
    """The chat messages of step t (c_t's step), in the order they happened, on the slots of the time scheme.

    ``api=True`` gives the messages a provider's API keeps: the thinking as
    its own element, each tool use with its recorded call id, tool name and
    action (see the module's text). ``memo`` keeps one element object per
    message, so μ is counted once per message however often it is asked for.

    >>> [(e.type, e.t, e.meta.get("call")) for e in step_messages(AgentStep(thought="Look.", action="ls()", observation="a b"), 2)]
    [('assistant', 2, 'call_2'), ('tool', 2.5, 'call_2')]
    >>> [(e.type, e.t) for e in step_messages(AgentStep(observation="Hi."), 0)]  # no output: the input comes first
    [('user', 0)]
    >>> step = AgentStep(thought="Look.", action="ls()", observation="a b", meta={"thinking": "Hmm.", "call": "toolu_1"})
    >>> [(e.type, e.t, e.meta.get("call"), e.meta.get("tool")) for e in step_messages(step, 2, api=True)]
    [('thinking', 1.75, None, None), ('assistant', 2, 'toolu_1', 'ls'), ('tool', 2.5, 'toolu_1', 'ls')]
    """
    # each message as (t, step, type, role, text, call, tool, action): the key of its element
    parts: list[tuple[Any, ...]] = []
    if api and step.has_output:
        thinking = _thinking(step)
        if thinking:  # one element per turn: what a manager clearing old thinking keeps or clears
            parts.append((t + THINKING, t, "thinking", "assistant", "\n\n".join(thinking), None, None, None))
    if step.action:
        call, tool = (_call_id(step, t), tool_names(step)) if api else (f"call_{t}", None)
        parts.append((t, t, "assistant", "assistant", step.output, call, tool, step.action if api else None))
        if step.observation:
            parts.append((t + INPUT, t, "tool", "tool", step.observation, call, tool, None))
    else:
        if step.thought:
            parts.append((t, t, "assistant", "assistant", step.thought, None, None, None))
        if step.observation:
            role = "system" if step.meta.get("role") == "system" else "user"
            parts.append((t + INPUT if step.thought else t, t, role, role, step.observation, None, None, None))
    if memo is None:
        return [_message(part) for part in parts]
    return [memo.lookup(part, _message) for part in parts]


def _message(key: tuple[Any, ...]) -> Element:
    """One chat message as an element e = (text, {t, type, role, step, call, tool, action})."""
    at, t, kind, role, text, call, tool, action = key
    meta: dict[str, Any] = {"t": at, "type": kind, "role": role, "step": t}
    if call is not None:
        meta["call"] = call
    if tool is not None:
        meta["tool"] = tool
    if action is not None:
        meta["action"] = action
    return Element(text, meta)


def tool_names(step: AgentStep) -> str:
    """The tool (or tools, joined by ",") a step's action calls: ``meta["tool"]``, else the action's text before "(".

    A step's calls count as one tool use (a step holds one observation).

    >>> tool_names(AgentStep(action="search(cats)")), tool_names(AgentStep(action="x", meta={"tool": ["a", "b"]}))
    ('search', 'a,b')
    """
    named = step.meta.get("tool")
    if isinstance(named, str) and named:
        return named
    if isinstance(named, Sequence) and named and all(isinstance(n, str) for n in named):
        return ",".join(named)
    first = step.action.strip().splitlines()[0] if step.action.strip() else ""
    head = first.split("(", 1)[0].strip()
    return head or "tool"


def _call_id(step: AgentStep, t: int) -> str:
    """The call id the step recorded (its first when it lists several), else ``call_<t>``."""
    call = step.meta.get("call")
    if isinstance(call, str) and call:
        return call
    if isinstance(call, Sequence) and call and isinstance(call[0], str):
        return str(call[0])
    return f"call_{t}"


def _thinking(step: AgentStep) -> list[str]:
    """The step's thinking texts (``meta["thinking"]``: a text or a list of them; blank ones left out)."""
    value = step.meta.get("thinking")
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Sequence):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def system_element(system: str | None, *, where: str = "") -> Element | None:
    """The system prompt as an element of ω — first in the canonical order (t = −1), pinned — or ``None``; checked.

    >>> system_element("Be brief.").meta["pinned"], system_element(None)
    (True, None)
    """
    text = guards.text(system, "system", where=where, example="You are a helpful assistant.", none_ok=True)
    return None if text is None else Element(text, {"t": -1, "type": "system", "role": "system", "pinned": True})


def pinned_system(space: StateSpace, system: str | None, *, where: str = "") -> tuple[Element, ...]:
    """The pinned elements of a chat manager: its system prompt (checked to fit V_max), or none."""
    element = system_element(system, where=where)
    if element is None:
        return ()
    size = space.measure(element)
    if size > space.v_max:
        raise CapacityError(
            f"{where + ': ' if where else ''}the system prompt alone has μ = {format_number(size)} > V_max = "
            f"{format_number(space.v_max)}; shorten it or raise v_max"
        )
    return (element,)


def check_summary_fits(space: StateSpace, result: State, summary: Element, budget: float, who: str) -> None:
    """Raise a CapacityError that names the summarizer when its answer overran its budget and left Σμ > V_max.

    Without it the run's generic capacity check would report the overflow without saying that a
    summarizer which ignored ``budget`` caused it. Nothing happens when the state fits, or when the
    summary kept to its budget (the run's own check then says what overflowed).
    """
    size = space.measure(summary)  # one element first: the whole state is summed only for an overrun
    if size <= budget:
        return
    total = space.size(result)
    if total <= space.v_max:
        return
    raise CapacityError(
        f"{who}: the summarizer returned a summary of μ = {format_number(size)} for a budget of {format_number(budget)}, "
        f"and with it Σμ = {format_number(total)} > V_max = {format_number(space.v_max)}; the summarizer ignored its "
        f"budget: make summarize(texts, budget) keep to budget (e.g. cut its answer), or raise v_max"
    )


def evict_oldest(
    order: Sequence[Element],
    total: float,
    limit: float,
    measure: Any,
    *,
    count: int | None = None,
    keep: Iterable[Element] = (),
    pairs: bool = True,
    note: str = "",
    pairs_note: str = "keep_tool_pairs",
) -> dict[Element, str]:
    """Oldest-first eviction over ``order`` (ω in canonical order): element → why it leaves.

    Never a pinned element, nor one of ``keep``. With ``count`` None the
    oldest leave until Σμ = ``total`` ≤ ``limit`` (V_max); else ``count`` of
    them. With ``pairs`` a tool call leaves with its result, and no tool result
    whose call is gone is left at the start: π never shows an orphaned result
    (the error an API returns for one: langchain-ai/langchain#33245).
    ``note`` ends the reason of an eviction, ``pairs_note`` that of a tool
    result leaving with its call (what asks for it).

    >>> msgs = [Element("ask", {"t": 0, "type": "user"}), Element("call", {"t": 1, "type": "assistant", "call": "c1"}),
    ...         Element("result", {"t": 1.5, "type": "tool", "call": "c1"}), Element("reply", {"t": 2, "type": "assistant"})]
    >>> for e, why in evict_oldest(msgs, 4, 2, lambda e: 1).items():
    ...     print(e.text, "←", why)
    ask ← oldest message; Σμ = 4 > V_max = 2
    call ← oldest message; Σμ = 3 > V_max = 2
    result ← tool result of the evicted call c1 (keep_tool_pairs)
    """
    kept = set(keep)
    v_max = format_number(limit)
    if note:  # the notes are looked up in the catalog (a caller's own note stays as it is)
        oldest = _("oldest message; Σμ = {total} > V_max = {v_max} ({note})")
        note = _(note)
    else:
        oldest = _("oldest message; Σμ = {total} > V_max = {v_max}")
    pairs_note = _(pairs_note) if pairs else pairs_note
    removed: dict[Element, str] = {}
    i = done = 0
    while i < len(order) and (total > limit if count is None else done < count):
        e = order[i]
        i += 1
        if e in removed or e.meta.get("pinned") or (kept and e in kept):
            continue
        if count is None:
            removed[e] = oldest.format(total=format_number(total), v_max=v_max, note=note)
        else:
            removed[e] = _("oldest message (evict_oldest, count = {count})").format(count=count)
        total -= measure(e)
        done += 1
        if pairs:
            total -= _evict_tool_result(order, i, e, removed, measure, pairs_note)
    if pairs:
        _evict_orphans(order, i, removed, kept, pairs_note)
    return removed


def _evict_tool_result(
    order: Sequence[Element], i: int, call_message: Element, removed: dict[Element, str], measure: Any, why: str
) -> float:
    """Evict the tool results that follow an evicted tool call (from ``order[i]`` on); return their Σμ."""
    call = call_message.meta.get("call")
    if call is None or call_message.type != "assistant":
        return 0
    freed: float = 0
    while i < len(order) and order[i].meta.get("call") == call:
        f = order[i]
        if f.type == "tool" and f not in removed:
            removed[f] = _("tool result of the evicted call {call} ({why})").format(call=call, why=why)
            freed += measure(f)
        i += 1
    return freed


def _evict_orphans(order: Sequence[Element], i: int, removed: dict[Element, str], kept: set[Element], why: str) -> None:
    """Never leave a tool result at the start of what stays (from ``order[i]`` on) whose call is gone."""
    while i < len(order):
        e = order[i]
        if e in removed or e.meta.get("pinned") or (kept and e in kept):
            i += 1
            continue
        if e.type != "tool":
            break
        call = e.meta.get("call")
        if call is not None and any(f.type == "assistant" and f.meta.get("call") == call and f not in removed for f in order):
            break
        removed[e] = _("orphaned tool result of call {call} ({why})").format(call=call, why=why)
        i += 1


def appended(
    space: StateSpace,
    state: State,
    new: Sequence[Element],
    *,
    keep: Iterable[Element] = (),
    pairs: bool = True,
    note: str = "",
    pairs_note: str = "keep_tool_pairs",
) -> Transition:
    """U's usual part: ω with a step's messages ``new`` added and, while Σμ > V_max, the oldest evicted (:func:`evict_oldest`).

    ``new`` come after everything in ω (a step's messages are on the latest slots).
    """
    if not new:
        return Transition(state)
    measure, v_max = space.measure, space.v_max
    total = space.size(state) + sum(measure(e) for e in new)
    if total <= v_max:
        return Transition(state | new)
    removed = evict_oldest(state.ordered() + tuple(new), total, v_max, measure, keep=keep, pairs=pairs,
                           note=note, pairs_note=pairs_note)
    return Transition(state.replace(removed, [e for e in new if e not in removed]), removed)


def as_model_input(elements: Iterable[Element]) -> ModelInput:
    """π's usual last step: one message (role, content) per element already in order; thinking is named so.

    >>> as_model_input([Element("Hi", {"role": "user"})]).to_messages()
    [{'role': 'user', 'content': 'Hi'}]
    """
    return ModelInput(
        Message(str(e.meta.get("role", "user")), e.content, "thinking" if e.meta.get("type") == "thinking" else None)
        for e in elements
    )


def counts_content_tokens(space: StateSpace) -> bool:
    """Whether μ counts the tokens of an element's content alone (no per-message overhead): then |π(ω)| is Σμ over what π shows."""
    return space.counts_tokens and "overhead" not in space.name
