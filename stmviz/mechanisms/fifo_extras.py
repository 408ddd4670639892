"""What a real context window adds to the paper's FIFO queue; a first reading of :mod:`~stmviz.mechanisms.fifo` can skip it.

- **pins**: a system prompt and further messages that are never evicted
  (:func:`pin_elements`);
- **tool pairs**: a tool call evicted together with its result, and no
  orphaned tool result left at the start of the window
  (:func:`evict_tool_result`, :func:`evict_orphans`);
- **oversize**: what to do with a message that alone exceeds the window's
  room — raise, skip or truncate (:func:`admit`);
- **caches** that never change a result: the messages of a step built once per
  step for the controller and U (:class:`LastStep`), and one element object
  per message (:func:`message`, memoized by the window).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..core import guards
from ..core import Context, Element, Message, StateSpace
from ..core.errors import CapacityError, InvalidArgumentError
from ..core.formatting import format_number, shorten
from ..text.fit import fit_text

if TYPE_CHECKING:  # pragma: no cover
    from .fifo import FIFOWindow

#: What :class:`~stmviz.FIFOWindow` does with a message that alone exceeds the window's room.
OVERSIZE_POLICIES = ("error", "skip", "truncate")

_PIN_ROLES = ("system", "user", "assistant")


# -- options ------------------------------------------------------------------


def check_options(system: Any, keep_tool_pairs: Any, oversize: Any) -> None:
    """The constructor's options, checked at the boundary."""
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


def check_evict_arguments(room: Any, count: Any) -> None:
    """``evict_oldest``'s parameters: ``room`` a number ≥ 0 of free μ, ``count`` a whole number ≥ 0."""
    if room is not None:  # NaN or ∞ would empty the window
        guards.real_number(room, "room", 0, where="evict_oldest")
    guards.whole_number(count, "count", 0, where="evict_oldest", none_ok=True)


# -- pins ---------------------------------------------------------------------


def pin_elements(space: StateSpace, system: str | None, pinned: Iterable[Any]) -> tuple[Element, ...]:
    """The pinned elements, system prompt first, with ``t`` < 0 and ``pinned=True``; they must fit V_max."""
    if isinstance(pinned, (str, Element, Message, Mapping)):
        pinned = [pinned]
    try:
        items = list(pinned)
    except TypeError:
        raise InvalidArgumentError(
            f"pinned must be an iterable of messages (str, Element, Message or dict), got {type(pinned).__name__}"
        ) from None
    heads: list[Element] = []
    if system is not None:
        heads.append(Element(system, {"role": "system", "type": "system"}))
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


# -- tool pairs -----------------------------------------------------------------


def evict_tool_result(
    order: tuple[Element, ...], i: int, call_message: Element, removed: dict[Element, str], measure: Callable[[Element], float]
) -> float:
    """Evict the tool results that follow an evicted tool call (from ``order[i]`` on); return their Σμ."""
    call = call_message.meta.get("call")
    if call is None or call_message.type != "assistant":
        return 0
    freed: float = 0
    while i < len(order) and order[i].meta.get("call") == call:
        f = order[i]
        if f.type == "tool" and f not in removed:
            removed[f] = f"tool result of the evicted call {call} (keep_tool_pairs)"
            freed += measure(f)
        i += 1
    return freed


def evict_orphans(order: tuple[Element, ...], i: int, removed: dict[Element, str]) -> None:
    """Never leave a tool result at the start of the window (from ``order[i]`` on) whose call is gone."""
    while i < len(order):
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


# -- oversize -------------------------------------------------------------------


def admit(window: "FIFOWindow", t: int, messages: list[Element]) -> tuple[list[Element], list[str]]:
    """The messages of step t after the ``oversize`` policy, and notes on what it cut.

    A message larger than the window's room (V_max − Σμ(pinned), less its tool
    call for a tool result with ``keep_tool_pairs``) is refused with
    :class:`~stmviz.errors.CapacityError`, skipped, or cut to fit; a tool result
    whose call was skipped is skipped too.
    """
    out: list[Element] = []
    notes: list[str] = []
    measure = window.space.measure
    call_kept: dict[str, float] = {}
    skipped_calls: set[str] = set()
    for element in messages:
        role, call = element.type, element.meta.get("call")
        paired = window.keep_tool_pairs and role == "tool" and call is not None
        if paired and call in skipped_calls:
            notes.append(f"skipped the tool result of step {t}: its tool call {call} was skipped")
            continue
        room = window.room - (call_kept.get(call, 0) if paired else 0)
        size = measure(element)
        if size > room:
            cut = _oversize(window, element, size, room, t, paired, notes)
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
    window: "FIFOWindow", element: Element, size: float, room: float, t: int, paired: bool, notes: list[str]
) -> Element | None:
    space, role = window.space, element.type
    v_max, pinned = space.v_max, space.v_max - window.room
    if pinned:
        where = (
            f"the room of the window (V_max − Σμ(pinned) = {format_number(v_max)} − {format_number(pinned)} "
            f"= {format_number(window.room)}"
        )
    else:
        where = f"the room of the window (V_max = {format_number(v_max)}, nothing pinned"
    where += f", less its tool call = {format_number(room)})" if paired else ")"
    if window.oversize == "error":
        raise CapacityError(
            f"the {role} message {element.label()} of step {t} alone has μ = {format_number(size)} > {format_number(room)}, "
            f"{where}; it can never fit: pass oversize='truncate' or 'skip', or raise v_max"
        )
    if window.oversize == "truncate":
        cut = fit_text(space, element, room)
        if cut is not None:
            notes.append(
                f"truncated the {role} message of step {t} from μ = {format_number(size)} to "
                f"{format_number(space.measure(cut))} to fit {where}"
            )
            return cut
        notes.append(f"skipped the {role} message of step {t}: even truncated it does not fit {where}")
        return None
    notes.append(f"skipped the {role} message of step {t}: μ = {format_number(size)} > {format_number(room)}, {where}")
    return None


# -- caches (never change a result) -------------------------------------------------


def message(key: tuple[int, int, str, str, str | None]) -> Element:
    """The k-th message of step t, from (t, k, role, text, call): ``t`` (t + 0.5 for the input), role, step, call."""
    t, k, role, text, call = key
    meta: dict[str, Any] = {"t": t if k == 0 else t + 0.5, "type": role, "role": role, "step": t}
    if call is not None:
        meta["call"] = call
    return Element(text, meta)


class LastStep:
    """The last step's messages, so the controller and U build them once (never changes a result).

    One object for the mechanism's life (its identity never changes), so a
    purity check sees the mechanism unchanged. The context and its messages are
    one pair, written whole, so threads sharing the mechanism never read one
    run's context with another run's messages.
    """

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Context, tuple[list[Element], list[str]]] | None = None

    def __call__(self, context: Context, compute: Callable[[Context], tuple[list[Element], list[str]]]) -> Any:
        last = self.last  # one read of the pair: another thread may replace it
        if last is not None and last[0] is context:
            return last[1]
        result = compute(context)
        self.last = (context, result)
        return result

    def __repr__(self) -> str:
        return "LastStep()"
