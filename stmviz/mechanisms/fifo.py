"""The context window as a FIFO queue (Section 4 of the paper).

The paper's first example shows that the formalism contains the usual view of
short-term memory: the store is a first-in-first-out queue of chat messages;
when it overflows, the beginning is cut off; and the projection π is the
identity, because the context window is both the carrier and the model input.

- E = I × D: a chat message; I its text, D = (``t``, ``type`` = ``role`` ∈
  {system, user, assistant, tool}, ``step``, ``call``, ``pinned``) — a step
  becomes its messages as every chat manager's does
  (:func:`stmviz.managers.conversation.step_messages`: the output at t, the
  input after it at t + ½);
- μ: any size function (tokens give a real context window); V_max: the window;
- O: ``append`` (add the step's messages at the end, cutting off the beginning
  on overflow) and ``evict_oldest`` (cut off the beginning to make room);
- C: the incoming agent step (model output, then the input after it);
- U: the queue discipline; π: the ordered sequence itself (identity), so when μ
  counts tokens |π(ω)| = Σμ(ω) ≤ V_max: the model input fits the window.

Read the class top to bottom: U, the controller and π first; then what a real
window adds to the paper's queue, which a first reading can skip — a pinned
system prompt, tool calls evicted with their results, a policy for a message
too large for the window.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from .._fast.last_call import LastCall
from .._fast.memo import Memo
from ..core import Context, Element, Mechanism, Message, ModelInput, Operation, OperationSet, State, StateSpace, Transition
from ..core import guards
from ..core.errors import CapacityError, InvalidArgumentError, UnsupportedOperationError
from ..core.formatting import format_number, shorten
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..managers import conversation
from ..protocol import element_types_of
from ..text.fit import fit_text

__all__ = ["FIFOWindow", "OVERSIZE_POLICIES"]

#: What :class:`~stmviz.FIFOWindow` does with a message that alone exceeds the window's room.
OVERSIZE_POLICIES = ("error", "skip", "truncate")

_APPEND = Operation("append")
_PIN_ROLES = ("system", "user", "assistant")


class FIFOWindow(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of a FIFO context window: U appends and cuts off the beginning, π = id.

    Each incoming :class:`~stmviz.AgentStep` becomes chat messages in the
    order they happened (:func:`~stmviz.managers.conversation.step_messages`);
    when Σμ would exceed V_max the oldest messages are evicted first; pinned
    messages never are.

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
    element_types = element_types_of(conversation.CHAT_TYPES)

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
        prompt = conversation.system_element(system)  # the system prompt, checked, then the other options
        self.keep_tool_pairs = guards.flag(keep_tool_pairs, "keep_tool_pairs")
        self.oversize = guards.choice(
            oversize, "oversize", OVERSIZE_POLICIES,
            "'error' raises CapacityError, 'skip' drops the message, 'truncate' cuts it to fit",
        )
        self.system = system
        self._pins = self._pin_elements(space, prompt, pinned)
        #: V_max − Σμ(pinned): the room of the window for the conversation.
        self.room = space.v_max - space.size(self._pins)
        self._messages = Memo()  # one element object per message: μ is counted once
        self._last_step = LastCall()  # the controller and U build a step's messages once

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
        return self._admitted(context.t, conversation.step_messages(context.step, context.t, memo=self._messages))

    # -- the controller, U and π ------------------------------------------------------------

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (which cuts off the beginning on overflow), noting what the ``oversize`` policy cut."""
        new, notes = self._last_step(context, self.incoming)
        if not notes:
            return _APPEND
        truncated = sum(1 for e in new if e.meta.get("truncated"))  # a note each: what was cut, and what was skipped
        skipped = len(notes) - truncated
        return Operation("append", {"skipped": skipped, "truncated": truncated}, reason="; ".join(notes))

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of the FIFO window.

        ``append`` adds the step's messages and, if Σμ > V_max, cuts off the
        oldest; ``evict_oldest`` cuts off the oldest messages until ``room``
        (in units of μ) is free, or ``count`` of them (default 1). Pinned
        messages are never evicted. Each removed message gets a reason, e.g.
        ``"oldest message; Σμ = 8301 > V_max = 8192"``.
        """
        if operation.type == "append":
            new, _ = self._last_step(context, self.incoming)
            return conversation.appended(self.space, state, new, pairs=self.keep_tool_pairs)
        if operation.type == "evict_oldest":
            room, count = operation.get("room"), operation.get("count")
            if room is not None:  # NaN or ∞ would empty the window
                guards.real_number(room, "room", 0, where="evict_oldest")
            guards.whole_number(count, "count", 0, where="evict_oldest", none_ok=True)
            size, pairs = self.space.size(state), self.keep_tool_pairs
            if room is not None:  # as if ``room`` more had to fit: evict until Σμ + room ≤ V_max
                removed = conversation.evict_oldest(state.ordered(), size + room, self.space.v_max, self.space.measure,
                                                    pairs=pairs)
            else:
                removed = conversation.evict_oldest(state.ordered(), size, self.space.v_max, self.space.measure,
                                                    count=1 if count is None else count, pairs=pairs)
            return Transition(state - removed, removed)
        raise UnsupportedOperationError(f"FIFOWindow has no update for {operation.type!r}")  # pragma: no cover

    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of the FIFO window: the identity — the ordered messages themselves.

        >>> from stmviz import StateSpace, sizes
        >>> w = FIFOWindow(StateSpace(sizes.words, 10), system="Be kind.")
        >>> w.project(w.initial_state(Context())).to_messages()
        [{'role': 'system', 'content': 'Be kind.'}]
        """
        return conversation.as_model_input(state.ordered())

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ(ω) when μ counts the content's tokens alone (π is the identity), else the counted messages."""
        if conversation.counts_content_tokens(self.space):
            total = self.space.size(state)
            return int(total) if float(total).is_integer() else total  # type: ignore[return-value]
        return super().projection_size(state)

    # -- what a real window adds: pins -----------------------------------------------------

    @staticmethod
    def _pin_elements(space: StateSpace, prompt: Element | None, pinned: Any) -> tuple[Element, ...]:
        """The pinned elements, system prompt first, with ``t`` < 0 and ``pinned=True``; they must fit V_max."""
        if isinstance(pinned, (str, Element, Message, Mapping)):
            pinned = [pinned]
        items = guards.items(pinned, "pinned", what="messages (str, Element, Message or dict {'role', 'content'})")
        heads = [prompt] if prompt is not None else []
        heads.extend(_pin_element(item, k) for k, item in enumerate(items))
        n = len(heads)
        pins = tuple(e.with_meta(t=k - n, pinned=True) for k, e in enumerate(heads))
        pin_size = space.size(pins)
        if pin_size > space.v_max:
            raise CapacityError(
                f"the pinned messages alone have Σμ = {format_number(pin_size)} > V_max = {format_number(space.v_max)}; "
                f"no window state can hold them: shorten the system prompt or pins, or raise v_max"
            )
        return pins

    # -- what a real window adds: a message too large for it ---------------------------------

    def _admitted(self, t: int, messages: list[Element]) -> tuple[list[Element], list[str]]:
        """The messages of step t after the ``oversize`` policy, and notes on what it cut.

        A message larger than the window's room (V_max − Σμ(pinned), less its tool
        call for a tool result with ``keep_tool_pairs``) is refused with
        :class:`~stmviz.errors.CapacityError`, skipped, or cut to fit; a tool result
        whose call was skipped is skipped too.
        """
        out: list[Element] = []
        notes: list[str] = []
        measure = self.space.measure
        call_kept: dict[str, float] = {}
        skipped_calls: set[str] = set()
        for element in messages:
            role, call = element.type, element.meta.get("call")
            paired = self.keep_tool_pairs and role == "tool" and call is not None
            if paired and call in skipped_calls:
                notes.append(_("skipped the tool result of step {t}: its tool call {call} was skipped").format(t=t, call=call))
                continue
            room = self.room - (call_kept.get(call, 0) if paired else 0)
            size = measure(element)
            if size > room:
                cut = self._oversized(element, size, room, t, paired, notes)
                if cut is None:
                    if call is not None and role == "assistant":
                        skipped_calls.add(call)
                    continue
                element, size = cut, measure(cut)
            if call is not None and role == "assistant":
                call_kept[call] = size
            out.append(element)
        return out, notes

    def _oversized(self, element: Element, size: float, room: float, t: int, paired: bool, notes: list[str]) -> Element | None:
        """A message larger than ``room`` after the ``oversize`` policy: raised, cut to fit, or ``None`` (skipped)."""
        space, role = self.space, element.type
        if self.oversize == "error":
            raise CapacityError(
                f"the {role} message {element.label()} of step {t} alone has μ = {format_number(size)} > {format_number(room)}, "
                f"{self._where(room, paired, translate=False)}; it can never fit: pass oversize='truncate' or 'skip', or raise v_max"
            )
        where = self._where(room, paired)
        if self.oversize == "truncate":
            cut = fit_text(space, element, room)
            if cut is not None:
                notes.append(_("truncated the {role} message of step {t} from μ = {size} to {cut} to fit {where}").format(
                    role=role, t=t, size=format_number(size), cut=format_number(space.measure(cut)), where=where))
                return cut
            notes.append(_("skipped the {role} message of step {t}: even truncated it does not fit {where}").format(
                role=role, t=t, where=where))
            return None
        notes.append(_("skipped the {role} message of step {t}: μ = {size} > {room}, {where}").format(
            role=role, t=t, size=format_number(size), room=format_number(room), where=where))
        return None

    def _where(self, room: float, paired: bool, translate: bool = True) -> str:
        """The room a message must fit, in words: V_max less the pinned messages (and its tool call, when paired).

        In the language set for a note; in English for an error message (``translate=False``).
        """
        v_max, pinned = self.space.v_max, self.space.v_max - self.room
        words = _WHERE[bool(pinned), paired]
        return (_(words) if translate else words).format(
            v_max=format_number(v_max), pinned=format_number(pinned), room=format_number(self.room), left=format_number(room))


#: The room of the window a message must fit, by (anything pinned, a tool result counted with its call).
_WHERE = {
    (True, False): N_("the room of the window (V_max − Σμ(pinned) = {v_max} − {pinned} = {room})"),
    (True, True): N_("the room of the window (V_max − Σμ(pinned) = {v_max} − {pinned} = {room}, less its tool call = {left})"),
    (False, False): N_("the room of the window (V_max = {v_max}, nothing pinned)"),
    (False, True): N_("the room of the window (V_max = {v_max}, nothing pinned, less its tool call = {left})"),
}


def _pin_element(item: Any, k: int) -> Element:
    """One ``pinned`` item as an element with a role (system, user or assistant)."""
    if isinstance(item, str):
        element = Element(guards.text(item, f"pinned[{k}]", example="Answer in English."), {"role": "system"})
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
    role = guards.choice(element.meta.get("role", "system"), f"pinned[{k}]: role", _PIN_ROLES,
                         "a pinned message is a system, user or assistant message (a tool result needs its call)")
    meta = dict(element.meta)
    meta["role"] = role
    meta.setdefault("type", role)
    return Element(element.content, meta)


def __getattr__(name: str) -> Any:
    """Deprecated names of this module (they warn for one release)."""
    if name == "step_messages":
        warnings.warn(
            "stmviz.mechanisms.fifo.step_messages is deprecated and will be removed in the next release; import "
            "step_messages from stmviz.managers.conversation (it gives the messages as elements)",
            DeprecationWarning,
            stacklevel=2,
        )
        return _message_tuples
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _message_tuples(step: Any, t: int) -> list[tuple[str, str, str | None]]:
    """The old ``fifo.step_messages``: a step's messages as (role, text, tool call id)."""
    return [(str(e.meta["role"]), e.text, e.meta.get("call")) for e in conversation.step_messages(step, t)]
