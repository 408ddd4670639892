"""The context window as a FIFO queue (Section 4 of the paper).

The paper's first example shows that the formalism contains the usual view of
short-term memory: the store is a first-in-first-out queue of chat messages;
when it overflows, the beginning is cut off; and the projection π is the
identity, because the context window is both the carrier and the model input.

In the terms of Definitions 1 and 2:

- E = I × D: a chat message; I its text (or parts), D = (``t``, ``type`` =
  ``role`` ∈ {system, user, assistant, tool}, ``step``, ``call``, ``pinned``);
- μ: any size function (tokens give a real context window); V_max: the window;
- O: ``append`` (add the step's messages at the end, cutting off the beginning
  on overflow) and ``evict_oldest`` (cut off the beginning to make room);
- C: the incoming agent step (model output and observation);
- U: the queue discipline; π: the ordered sequence itself (identity), so when μ
  counts tokens |π(ω)| = Σμ(ω) ≤ V_max: the model input fits the window.

:class:`FIFOWindow` adds what agent-framework users ask of a real window: a
pinned system prompt, tool calls evicted together with their results, and a
policy for a message too large for the window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.element import Element
from ..core.formatting import format_number, shorten
from ..core import guards
from ..core.errors import CapacityError, InvalidArgumentError, UnsupportedOperationError
from ..core.mechanism import Mechanism, Transition
from ..protocol import element_types_of
from ..core.context import Context
from ..core.model_input import Message, ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ._shared import Memo
from .fit import fit_text

__all__ = ["FIFOWindow", "OVERSIZE_POLICIES"]

#: What :class:`FIFOWindow` does with a message that alone exceeds the window's room.
OVERSIZE_POLICIES = ("error", "skip", "truncate")

_ROLES = ("system", "user", "assistant", "tool")
_PIN_ROLES = ("system", "user", "assistant")
_APPEND = Operation("append")


class FIFOWindow(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of a FIFO context window: U appends and cuts off the beginning, π = id.

    Each incoming :class:`~stmviz.AgentStep` becomes chat messages in the
    order they happened — the model's output first, then the input that
    arrived after it:

    - a step with an action → an *assistant* message "thought + action" that
      carries a tool call id ``call``, then a *tool* message with the
      observation (the action's result) and the same ``call``;
    - a step without action → an *assistant* message (the thought, the
      model's reply), then a *user* message (the observation: the user's next
      message; a *system* message when ``meta["role"]`` is ``"system"``).

    Empty parts are skipped: step 0 of a dialogue (no output) adds only the
    user's message, a last reply (no input) only the assistant's. So π(ω_t)
    ends with the input the model answers at step t. When Σμ would exceed
    V_max the oldest messages are evicted first; pinned messages (the system
    prompt) never are.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max (the window).
    system : str, optional
        A system prompt, kept as the first message and never evicted.
    pinned : iterable, optional
        Further messages that are never evicted, after the system prompt:
        strings (system messages), :class:`~stmviz.Element` (role from
        ``meta["role"]``, default system), :class:`~stmviz.Message`, or dicts
        ``{"role", "content"}`` / ``{"content", "meta"}``.
    keep_tool_pairs : bool
        Never leave an orphaned tool result at the start of the window: a tool
        call is evicted together with its result (default ``True``).
    oversize : {"error", "skip", "truncate"}
        What to do with a message that alone exceeds the room of the window
        left after the pins (for a tool result with ``keep_tool_pairs``: the
        room left after its tool call too): raise
        :class:`~stmviz.errors.CapacityError` (default), drop it (the drop is
        recorded in the ``append`` operation of the trace), or cut its text to
        fit (see :func:`fit_text`).

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
        if system is not None:
            if not isinstance(system, str):
                raise InvalidArgumentError(f"system must be the text of a system prompt or None, got {type(system).__name__}")
            if not system.strip():
                raise InvalidArgumentError("system is an empty text; pass system=None for no system prompt")
        if not isinstance(keep_tool_pairs, bool):
            raise InvalidArgumentError(f"keep_tool_pairs must be True or False, got {keep_tool_pairs!r}")
        if not isinstance(oversize, str) or oversize not in OVERSIZE_POLICIES:
            raise InvalidArgumentError(
                f"oversize must be one of {', '.join(map(repr, OVERSIZE_POLICIES))}, got {oversize!r}: "
                f"'error' raises CapacityError, 'skip' drops the message, 'truncate' cuts it to fit"
            )
        if isinstance(pinned, (str, Element, Message, Mapping)):
            pinned = [pinned]
        try:
            items = list(pinned)
        except TypeError:
            raise InvalidArgumentError(
                f"pinned must be an iterable of messages (str, Element, Message or dict), got {type(pinned).__name__}"
            ) from None
        self.system = system
        self.keep_tool_pairs = keep_tool_pairs
        self.oversize = oversize
        self._messages = Memo()  # (t, k, role, text, call) → the k-th message of step t
        heads: list[Element] = []
        if system is not None:
            heads.append(Element(system, {"role": "system", "type": "system"}))
        heads.extend(_pin_element(item, k) for k, item in enumerate(items))
        n = len(heads)
        pins = tuple(e.with_meta(t=k - n, pinned=True) for k, e in enumerate(heads))
        self._pins = pins
        self._user_pins = pins[1:] if system is not None else pins
        pin_size = space.size(pins)
        if pin_size > space.v_max:
            raise CapacityError(
                f"the pinned messages alone have Σμ = {format_number(pin_size)} > V_max = {format_number(space.v_max)}; "
                f"no window state can hold them: shorten the system prompt or pins, or raise v_max"
            )
        #: V_max − Σμ(pinned): the room of the window for the conversation.
        self.room = space.v_max - pin_size
        # μ = the content's tokens (no per-element overhead): then π, the identity, has |π(ω)| = Σμ(ω) exactly
        self._counts_tokens = space.counts_tokens and "overhead" not in space.name
        self._last_step = _LastStep()

    # -- the seven-tuple ------------------------------------------------------
    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments: ``FIFOWindow(space, **m.params())`` rebuilds it."""
        return {
            "system": self.system,
            "pinned": [e.to_json() for e in self._user_pins],
            "keep_tool_pairs": self.keep_tool_pairs,
            "oversize": self.oversize,
        }

    @property
    def pins(self) -> tuple[Element, ...]:
        """The pinned elements (system prompt first), in order."""
        return self._pins

    def initial_state(self, context: Context) -> State:
        """ω_0: the pinned messages (the system prompt), or ∅."""
        return State(self._pins)

    def incoming(self, context: Context) -> tuple[list[Element], list[str]]:
        """The messages the current step adds, after the ``oversize`` policy, and notes on what was cut.

        Raises
        ------
        CapacityError
            with ``oversize="error"``, when a message alone exceeds the room.
        """
        step = context.step
        t = context.t
        parts: list[tuple[str, str, str | None]] = []
        if step.action:
            call_id = f"call_{t}"
            parts.append(("assistant", step.model_output, call_id))
            if step.observation:
                parts.append(("tool", step.observation, call_id))
        else:
            if step.thought:
                parts.append(("assistant", step.thought, None))
            if step.observation:
                parts.append((_input_role(step.meta.get("role")), step.observation, None))
        out: list[Element] = []
        notes: list[str] = []
        measure = self.space.measure
        call_kept: dict[str, float] = {}
        skipped_calls: set[str] = set()
        for k, (role, text, call) in enumerate(parts):
            element = self._messages.lookup((t, k, role, text, call), _message)
            paired = self.keep_tool_pairs and role == "tool" and call is not None
            if paired and call in skipped_calls:
                notes.append(f"skipped the tool result of step {t}: its tool call {call} was skipped")
                continue
            room = self.room - (call_kept.get(call, 0) if paired and call is not None else 0)
            size = measure(element)
            if size > room:
                cut = self._oversize(element, size, room, role, t, paired, notes)
                if cut is None:
                    if call is not None and role == "assistant":
                        skipped_calls.add(call)
                    continue
                element, size = cut, measure(cut)
            if call is not None and role == "assistant":
                call_kept[call] = size
            out.append(element)
        return out, notes

    def _oversize(
        self, element: Element, size: float, room: float, role: str, t: int, paired: bool, notes: list[str]
    ) -> Element | None:
        v_max, pinned = self.space.v_max, self.space.v_max - self.room
        if pinned:
            where = (
                f"the room of the window (V_max − Σμ(pinned) = {format_number(v_max)} − {format_number(pinned)} "
                f"= {format_number(self.room)}"
            )
        else:
            where = f"the room of the window (V_max = {format_number(v_max)}, nothing pinned"
        where += f", less its tool call = {format_number(room)})" if paired else ")"
        if self.oversize == "error":
            raise CapacityError(
                f"the {role} message {element.label()} of step {t} alone has μ = {format_number(size)} > {format_number(room)}, "
                f"{where}; it can never fit: pass oversize='truncate' or 'skip', or raise v_max"
            )
        if self.oversize == "truncate":
            cut = fit_text(self.space, element, room)
            if cut is not None:
                notes.append(
                    f"truncated the {role} message of step {t} from μ = {format_number(size)} to "
                    f"{format_number(self.space.measure(cut))} to fit {where}"
                )
                return cut
            notes.append(f"skipped the {role} message of step {t}: even truncated it does not fit {where}")
            return None
        notes.append(f"skipped the {role} message of step {t}: μ = {format_number(size)} > {format_number(room)}, {where}")
        return None

    def _incoming(self, context: Context) -> tuple[list[Element], list[str]]:
        memo = self._last_step
        last = memo.last  # one read of the (context, messages) pair: another thread may replace it
        if last is not None and last[0] is context:
            return last[1]
        result = self.incoming(context)
        memo.last = (context, result)
        return result

    def _info(self, state: State) -> tuple[float, tuple[Element, ...]]:
        """(Σμ(ω), ω in canonical order); the core keeps both incrementally for states built by ``|`` and ``-``."""
        return self.space.size(state), state.ordered()

    def _made(
        self, state: State, size: float, order: tuple[Element, ...], new: list[Element], removed: Mapping[Element, str]
    ) -> State:
        """ω′ = (ω ∪ new) ∖ removed, in one pass (a new message evicted at once is never added)."""
        if not removed:
            return state | new if new else state
        return state.replace(removed.keys(), [e for e in new if e not in removed])

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (which cuts off the beginning on overflow), noting what the ``oversize`` policy cut.

        One operation per step keeps :func:`~stmviz.run` fast; ``evict_oldest``
        stays in τ for controllers that want to make room explicitly.
        """
        _, notes = self._incoming(context)
        if not notes:
            return _APPEND  # immutable: one object serves every step that cut nothing
        params: dict[str, Any] = {}
        if notes:
            params["skipped"] = sum(1 for n in notes if n.startswith("skipped"))
            params["truncated"] = sum(1 for n in notes if n.startswith("truncated"))
        return Operation("append", params, reason="; ".join(notes))

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of the FIFO window.

        ``append`` adds the step's messages and, if Σμ > V_max, cuts off the
        oldest; ``evict_oldest`` cuts off the oldest messages until ``room``
        (a parameter, in units of μ) is free, or ``count`` of them (default 1).
        Pinned messages are never evicted. Each removed message gets a reason,
        e.g. ``"oldest message; Σμ = 8301 > V_max = 8192"``.
        """
        space = self.space
        measure = space.measure
        size, order = self._info(state)
        if operation.type == "append":
            new, _ = self._incoming(context)
            if not new:
                return Transition(state)
            total = size + sum(measure(e) for e in new)
            removed: dict[Element, str] = {}
            if total > space.v_max:
                removed = self._evict(order + tuple(new), total, space.v_max, None)
                total -= sum(measure(e) for e in removed)
            return Transition(self._made(state, total, order, new, removed), removed)
        if operation.type == "evict_oldest":
            room = operation.get("room")
            count = operation.get("count")
            if room is not None:  # NaN or ∞ would empty the window
                guards.real_number(room, "room", 0, where="evict_oldest")
            count = guards.whole_number(count, "count", 0, where="evict_oldest", none_ok=True)
            if room is not None:
                removed = self._evict(order, size + room, space.v_max, None)
            else:
                removed = self._evict(order, size, space.v_max, 1 if count is None else count)
            if not removed:
                return Transition(state)
            total = size - sum(measure(e) for e in removed)
            return Transition(self._made(state, total, order, [], removed), removed)
        raise UnsupportedOperationError(f"FIFOWindow has no update for {operation.type!r}")  # pragma: no cover

    def _evict(self, order: tuple[Element, ...], total: float, limit: float, count: int | None) -> dict[Element, str]:
        """Oldest-first eviction over ``order``: until ``total ≤ limit`` (count None) or ``count`` messages."""
        measure = self.space.measure
        v_max = format_number(self.space.v_max)
        pairs = self.keep_tool_pairs
        removed: dict[Element, str] = {}
        n = len(order)
        i = 0
        done = 0
        while i < n:
            if count is None:
                if total <= limit:
                    break
            elif done >= count:
                break
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
            call = e.meta.get("call")
            if pairs and call is not None and e.type == "assistant":
                j = i
                while j < n and order[j].meta.get("call") == call:
                    f = order[j]
                    if f.type == "tool" and f not in removed:
                        removed[f] = f"tool result of the evicted call {call} (keep_tool_pairs)"
                        total -= measure(f)
                    j += 1
        if pairs:
            # never leave a tool result at the start of the window whose call is gone
            while i < n:
                e = order[i]
                if e in removed or e.meta.get("pinned"):
                    i += 1
                    continue
                if e.type != "tool":
                    break
                call = e.meta.get("call")
                if call is not None and any(
                    f.type == "assistant" and f.meta.get("call") == call and f not in removed for f in order
                ):
                    break
                removed[e] = f"orphaned tool result of call {call} (keep_tool_pairs)"
                i += 1
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
        """|π(ω)| in tokens: Σμ(ω) when μ counts the content's tokens (π is the identity), else the counted messages.

        With a per-element overhead in μ, |π(ω)| counts the messages' contents
        and stays below Σμ(ω) ≤ V_max.
        """
        if self._counts_tokens:
            total = self.space.size(state)
            return int(total) if float(total).is_integer() else total  # type: ignore[return-value]
        return super().projection_size(state)


class _LastStep:
    """The last step's messages, so the controller and U build them once (never changes a result).

    One object for the mechanism's life (its identity never changes), so a
    purity check sees the mechanism unchanged. The context and its messages are
    one pair, written whole, so threads sharing the mechanism never read one
    run's context with another run's messages.
    """

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Context, tuple[list[Element], list[str]]] | None = None

    def __repr__(self) -> str:
        return "_LastStep()"


def _message(key: tuple[int, int, str, str, str | None]) -> Element:
    """The k-th message of step t, from (t, k, role, text, call)."""
    t, k, role, text, call = key
    meta: dict[str, Any] = {"t": t if k == 0 else t + 0.5, "type": role, "role": role, "step": t}
    if call is not None:
        meta["call"] = call
    return Element(text, meta)


def _input_role(role: Any) -> str:
    """The chat role of a step's input without a tool call: ``"system"`` for a system message, else ``"user"``."""
    return "system" if role == "system" else "user"


def _pin_element(item: Any, k: int) -> Element:
    """Turn one ``pinned`` item into an element with a role."""
    if isinstance(item, str):
        if not item.strip():
            raise InvalidArgumentError(f"pinned[{k}] is an empty text; a pinned message needs content")
        element = Element(item, {"role": "system"})
    elif isinstance(item, Element):
        element = item
    elif isinstance(item, Message):
        element = Element(item.content, {"role": item.role})
    elif isinstance(item, Mapping):
        if "meta" in item:
            element = Element.from_json(item, where=f"pinned[{k}]")
        elif "content" in item:
            element = Element(item["content"], {"role": item.get("role", "system")})
        else:
            raise InvalidArgumentError(f"pinned[{k}] = {shorten(repr(item))} has no 'content'; give {{'role', 'content'}}")
    else:
        raise InvalidArgumentError(
            f"pinned[{k}] is a {type(item).__name__}; a pinned message is a str, Element, Message or "
            f"dict {{'role', 'content'}}"
        )
    role = element.meta.get("role", "system")
    if role not in _PIN_ROLES:
        raise InvalidArgumentError(
            f"pinned[{k}] has role {role!r}; a pinned message is a {', '.join(_PIN_ROLES)} message "
            f"(a tool result needs its call)"
        )
    meta = dict(element.meta)
    meta["role"] = role
    meta.setdefault("type", role)
    return Element(element.content, meta)

