"""The context window as a FIFO queue (Section 4 of the paper).

The paper's first example shows that the formalism contains the usual view of
short-term memory: the store is a first-in-first-out queue of chat messages;
when it overflows, the beginning is cut off; and the projection π is the
identity, because the context window is both the carrier and the model input.

- E = I × D: a chat message; I its text, D = (``t``, ``type`` = ``role`` ∈
  {system, user, assistant, tool}, ``step``, ``call``, ``pinned``);
- μ: any size function (tokens give a real context window); V_max: the window;
- O: ``append`` (add the step's messages at the end, cutting off the beginning
  on overflow) and ``evict_oldest`` (cut off the beginning to make room);
- C: the incoming agent step (model output, then the input after it);
- U: the queue discipline; π: the ordered sequence itself (identity), so when μ
  counts tokens |π(ω)| = Σμ(ω) ≤ V_max: the model input fits the window.

Read top to bottom: the class holds U and π. What a real window adds — a
pinned system prompt, tool calls evicted with their results, a policy for a
message too large for the window, caches — is in
:mod:`stmviz.mechanisms.fifo_extras`, which a first reading can skip.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core import Context, Element, Mechanism, Message, ModelInput, Operation, OperationSet, State, StateSpace, Transition
from ..core.errors import UnsupportedOperationError
from ..core.formatting import format_number
from ..protocol import element_types_of
from . import fifo_extras as extras
from ._shared import Memo
from .fifo_extras import OVERSIZE_POLICIES

__all__ = ["FIFOWindow", "OVERSIZE_POLICIES"]

_APPEND = Operation("append")


class FIFOWindow(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of a FIFO context window: U appends and cuts off the beginning, π = id.

    Each incoming :class:`~stmviz.AgentStep` becomes chat messages in the
    order they happened (:func:`step_messages`); when Σμ would exceed V_max the
    oldest messages are evicted first; pinned messages never are.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max (the window).
    system : str, optional
        A system prompt, kept as the first message and never evicted.
    pinned : iterable, optional
        Further messages never evicted: str (system), Element, Message or ``{"role", "content"}``.
    keep_tool_pairs : bool
        Evict a tool call together with its result, never leaving an orphaned result (default ``True``).
    oversize : {"error", "skip", "truncate"}
        For a message that alone exceeds the room left by the pins: raise
        :class:`~stmviz.errors.CapacityError` (default), drop it, or cut it to fit.

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> window = FIFOWindow(StateSpace(sizes.words, v_max=12), system="Be brief.")
    >>> steps = [AgentStep(observation="Hi, I am Ann."),  # step 0: the user speaks first
    ...          AgentStep(thought="Let me look.", action="search(pets)", observation="cats dogs"),
    ...          AgentStep(thought="Cats, then.", observation="Which is best?"),
    ...          AgentStep(thought="Cats.")]  # a last reply, no input after it
    >>> trace = run(window, steps)
    >>> [(m.role, m.content) for m in trace.project(2)]  # what the model saw when it answered "Cats, then."
    [('system', 'Be brief.'), ('user', 'Hi, I am Ann.'), ('assistant', 'Let me look.\\nsearch(pets)'), ('tool', 'cats dogs')]
    >>> trace[2].operation
    'append'
    >>> for e, why in trace[2].why.items():
    ...     print(repr(e.text), "←", why)
    'Hi, I am Ann.' ← oldest message; Σμ = 17 > V_max = 12
    'Let me look.\\nsearch(pets)' ← oldest message; Σμ = 13 > V_max = 12
    'cats dogs' ← tool result of the evicted call call_1 (keep_tool_pairs)
    >>> [(m.role, m.content) for m in trace.project(3)]  # ... and when it answered "Cats."
    [('system', 'Be brief.'), ('assistant', 'Cats, then.'), ('user', 'Which is best?')]
    """

    name = "FIFOWindow"
    operations = OperationSet(
        {
            "append": "add the step's messages at the end of the window, cutting off the beginning on overflow",
            "evict_oldest": "cut off the oldest messages (never a pinned one) to make room",
        }
    )
    element_types = element_types_of(
        {
            "system": ("the system prompt, or a system message of the conversation", "#7f7f7f"),
            "user": ("a message of the user", "#1f77b4"),
            "assistant": ("a reply or tool call of the model", "#ff7f0e"),
            "tool": ("the result of a tool call", "#2ca02c"),
        }
    )

    def __init__(
        self,
        space: StateSpace,
        *,
        system: str | None = None,
        pinned: Iterable[Any] = (),
        keep_tool_pairs: bool = True,
        oversize: str = "error",
    ) -> None:
        super().__init__(space)
        extras.check_options(system, keep_tool_pairs, oversize)
        self.system, self.keep_tool_pairs, self.oversize = system, keep_tool_pairs, oversize
        self._pins = extras.pin_elements(space, system, pinned)
        #: V_max − Σμ(pinned): the room of the window for the conversation.
        self.room = space.v_max - space.size(self._pins)
        self._messages = Memo()  # one element object per message: μ is counted once
        self._last_step = extras.LastStep()  # the controller and U build a step's messages once

    @property
    def pins(self) -> tuple[Element, ...]:
        """The pinned elements (system prompt first), in order."""
        return self._pins

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments: ``FIFOWindow(space, **m.params())`` rebuilds it."""
        user_pins = self._pins[1:] if self.system is not None else self._pins
        return {"system": self.system, "pinned": [e.to_json() for e in user_pins],
                "keep_tool_pairs": self.keep_tool_pairs, "oversize": self.oversize}

    def initial_state(self, context: Context) -> State:
        """ω_0: the pinned messages (the system prompt), or ∅."""
        return State(self._pins)

    def incoming(self, context: Context) -> tuple[list[Element], list[str]]:
        """The messages the current step adds, after the ``oversize`` policy, and notes on what was cut."""
        t = context.t
        messages = [self._messages.lookup((t, k, *part), extras.message) for k, part in enumerate(step_messages(context.step, t))]
        return extras.admit(self, t, messages)

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (which cuts off the beginning on overflow), noting what the ``oversize`` policy cut."""
        _, notes = self._last_step(context, self.incoming)
        if not notes:
            return _APPEND
        skipped = sum(1 for n in notes if n.startswith("skipped"))
        truncated = sum(1 for n in notes if n.startswith("truncated"))
        return Operation("append", {"skipped": skipped, "truncated": truncated}, reason="; ".join(notes))

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of the FIFO window.

        ``append`` adds the step's messages and, if Σμ > V_max, cuts off the
        oldest; ``evict_oldest`` cuts off the oldest messages until ``room``
        (in units of μ) is free, or ``count`` of them (default 1). Pinned
        messages are never evicted. Each removed message gets a reason, e.g.
        ``"oldest message; Σμ = 8301 > V_max = 8192"``.
        """
        measure, v_max = self.space.measure, self.space.v_max
        size, order = self.space.size(state), state.ordered()
        if operation.type == "append":
            new, _ = self._last_step(context, self.incoming)
            total = size + sum(measure(e) for e in new)
            removed = self._evict(order + tuple(new), total, v_max, None) if total > v_max else {}
            return Transition(state.replace(removed, [e for e in new if e not in removed]), removed)
        if operation.type == "evict_oldest":
            room, count = operation.get("room"), operation.get("count")
            extras.check_evict_arguments(room, count)
            if room is not None:
                removed = self._evict(order, size + room, v_max, None)
            else:
                removed = self._evict(order, size, v_max, 1 if count is None else count)
            return Transition(state - removed, removed)
        raise UnsupportedOperationError(f"FIFOWindow has no update for {operation.type!r}")  # pragma: no cover

    def _evict(self, order: tuple[Element, ...], total: float, limit: float, count: int | None) -> dict[Element, str]:
        """Oldest first over ``order``, never a pinned message: until ``total ≤ limit`` (count None), or ``count`` messages."""
        measure, v_max = self.space.measure, format_number(self.space.v_max)
        removed: dict[Element, str] = {}
        i = done = 0
        while i < len(order) and (total > limit if count is None else done < count):
            e = order[i]
            i += 1
            if e in removed or e.meta.get("pinned"):
                continue
            if count is None:
                removed[e] = f"oldest message; Σμ = {format_number(total)} > V_max = {v_max}"
            else:
                removed[e] = f"oldest message (evict_oldest, count = {count})"
            total -= measure(e)
            done += 1
            if self.keep_tool_pairs:
                total -= extras.evict_tool_result(order, i, e, removed, measure)
        if self.keep_tool_pairs:
            extras.evict_orphans(order, i, removed)
        return removed

    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of the FIFO window: the identity — the ordered messages themselves.

        >>> from stmviz import StateSpace, sizes
        >>> w = FIFOWindow(StateSpace(sizes.words, 10), system="Be kind.")
        >>> w.project(w.initial_state(Context())).to_messages()
        [{'role': 'system', 'content': 'Be kind.'}]
        """
        return ModelInput(Message(str(e.meta.get("role", "user")), e.content) for e in state.ordered())

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ(ω) when μ counts the content's tokens alone (π is the identity), else the counted messages."""
        if self.space.counts_tokens and "overhead" not in self.space.name:
            total = self.space.size(state)
            return int(total) if float(total).is_integer() else total  # type: ignore[return-value]
        return super().projection_size(state)


def step_messages(step: Any, t: int) -> list[tuple[str, str, str | None]]:
    """A step's chat messages (role, text, tool call id), in the order they happened; empty parts are skipped.

    A step with an action gives an assistant message "thought + action" with
    the call id ``call_t``, then a tool message with its result; a step without
    one gives the assistant's reply, then the input that followed (a user
    message; a system message when ``meta["role"]`` is ``"system"``). So π(ω_t)
    ends with the input the model answers at step t.
    """
    parts: list[tuple[str, str, str | None]]
    if step.action:
        parts = [("assistant", step.output, f"call_{t}"), ("tool", step.observation, f"call_{t}")]
    else:
        role = "system" if step.meta.get("role") == "system" else "user"
        parts = [("assistant", step.thought, None), (role, step.observation, None)]
    return [part for part in parts if part[1]]
