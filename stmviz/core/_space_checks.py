"""The checks of :mod:`stmviz.core.space`: V_max ∈ ℝ⁺, the values μ returns, what a state may hold.

Functions called where a State or a StateSpace is built or asked (Definition 1 says what
V_max, μ and ω are; these say what stmviz refuses, and how). It imports nothing from
:mod:`stmviz.core.space`, which imports it.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

from .element import Element
from .errors import CapacityError, InvalidArgumentError, ContractError, STMError
from .formatting import format_number
from .guards import brief, is_finite


def element_set(items: Iterable[Element], what: str) -> frozenset[Element]:
    """``items`` as a frozenset of elements, or an :class:`InvalidArgumentError` saying what is wrong."""
    if isinstance(items, Element):
        return frozenset((items,))
    if isinstance(items, (str, bytes)):
        raise InvalidArgumentError(
            f"{what} is a set of elements; got a single {type(items).__name__} "
            f"{brief(items)}: wrap it, State([Element(...)])"
        )
    try:
        frozen = items if isinstance(items, frozenset) else frozenset(items)
    except Exception as exc:  # not iterable, unhashable items, or an iterable that fails while read
        raise InvalidArgumentError(
            f"{what} is built from an iterable of Element; got {type(items).__name__}: {type(exc).__name__}"
        ) from None
    check_elements(frozen)
    return frozen


def check_elements(items: frozenset) -> None:
    """Every item of a state ω ⊆ E is an Element, or an InvalidArgumentError names the first that is not."""
    for item in items:
        if not isinstance(item, Element):
            raise InvalidArgumentError(
                f"a state ω ⊆ E holds only Element objects; got a {type(item).__name__} "
                f"{brief(item)}: wrap it as Element(...)"
            )


def check_v_max(v_max: Any) -> float:
    """V_max as a number in ℝ⁺ (a whole number stays an int), or an :class:`InvalidArgumentError`."""
    if isinstance(v_max, bool) or not isinstance(v_max, numbers.Real):
        raise InvalidArgumentError(
            f"V_max must be a positive finite number, got {type(v_max).__name__} {brief(v_max)}; "
            f"e.g. StateSpace(tokens(), v_max=4096)"
        )
    if not isinstance(v_max, int):
        v_max = float(v_max)
    if not is_finite(v_max):
        raise InvalidArgumentError(
            f"V_max must be finite, got {brief(v_max)}; the paper bounds Σμ(e) by a real V_max ∈ ℝ⁺ — pick a number such as 4096"
        )
    if v_max <= 0:
        raise InvalidArgumentError(
            f"V_max must be > 0 (V_max ∈ ℝ⁺), got {v_max}; only the empty state would fit. Use e.g. v_max=4096"
        )
    return v_max


def check_measurable(element: Any) -> None:
    """μ is defined on elements e ∈ E: anything else is an :class:`InvalidArgumentError`."""
    if not isinstance(element, Element):
        raise InvalidArgumentError(
            f"μ is defined on elements e ∈ E; got a {type(element).__name__} {brief(element, 40)}"
        )


def call_mu(mu: Callable[[Element], Any], name: str, element: Element) -> Any:
    """μ(e) as μ returns it; an exception μ raises becomes an :class:`ContractError` (an STMError passes)."""
    try:
        return mu(element)
    except STMError:
        raise
    except Exception as exc:
        raise ContractError(
            f"μ = {name} raised {type(exc).__name__}: {exc} on {element.label()}; "
            f"make μ accept every element e ∈ E"
        ) from exc


def checked_size(value: Any, element: Element) -> float:
    """μ(e) as a number in ℝ⁺, or an :class:`ContractError` saying what μ returned."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ContractError(
            f"μ({element.label()}) = {brief(value)} is a {type(value).__name__}, not a number; "
            f"μ : E → ℝ⁺ must return a positive number"
        )
    if not isinstance(value, (int, float)):
        value = float(value)  # numpy scalars and other real numbers
    if not is_finite(value) or value <= 0:
        hint = (
            "an empty text has no tokens: give the element content, or use tokens(overhead=4)"
            if value == 0
            else "μ : E → ℝ⁺ must return a positive finite number"
        )
        raise ContractError(f"μ({element.label()}) = {brief(value)} is not in ℝ⁺ (> 0, finite); {hint}")
    return value


def single_element(element: Element) -> InvalidArgumentError:
    """The error for ``State(e)``: a state is a set of elements, not one."""
    return InvalidArgumentError(
        f"a state ω is a set of elements; got a single element {element.label()}: wrap it, State([element])"
    )


def not_a_state(value: Any) -> InvalidArgumentError:
    """The error for checking something that is not a State."""
    return InvalidArgumentError(f"expected a State, got {type(value).__name__} {brief(value)}; build one with State([...])")


def over_capacity(total: float, v_max: float) -> CapacityError:
    """The error for a state ω ∉ Ω_STM: Σμ > V_max."""
    return CapacityError(
        f"state exceeds capacity: Σμ = {format_number(total)} > V_max = {format_number(v_max)} "
        f"(over by {format_number(total - v_max)}); evict elements or raise v_max"
    )


def too_big(element: Element, value: float, v_max: float) -> CapacityError:
    """The error for an element that alone exceeds V_max: no state holding it is in Ω_STM."""
    return CapacityError(
        f"{element.label()} alone has μ = {format_number(value)} > V_max = {format_number(v_max)}; "
        f"no state containing it is in Ω_STM: split or truncate it, or raise v_max"
    )
