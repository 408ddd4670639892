"""The state space Ω_STM and its states ω (Definition 1).

    Ω_STM = { ω ∈ 2^E | Σ_{e ∈ ω} μ(e) ≤ V_max }

The paper: ω, the current STM state, is a *set* of elements e ∈ E; μ is the
size function and V_max ∈ ℝ⁺ the capacity, an upper bound on the total size
of the current state. The definition deliberately imposes no order on the
elements: any order (time, priority) is expressed through metadata and
applied where needed, typically by the projection π. Any STM state of an
agent is a point of Ω_STM.

A :class:`State` is a finite set of elements; a :class:`StateSpace` fixes the
size function μ and the capacity V_max and decides membership.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ._space_carry import carried_order, carried_size
from ._space_checks import check_elements, check_v_max, checked_size, deprecated
from .element import Element, order_key
from .guards import brief
from .errors import CapacityError, InvalidArgumentError, ContractError, ElementNotFoundError, STMError
from .formatting import format_number, shorten
from .sizes import SizeFunction, resolve, size_name

__all__ = ["State", "StateSpace"]


class State:
    """A state ω ∈ 2^E: an immutable, finite set of elements.

    Equality is set equality; the paper imposes no order on ω. For
    reproducible output, iteration, ``repr`` and display use one canonical
    order: by ``meta['t']``, then by the element's stable id
    (:func:`~stmviz.core.element.order_key`). Any other order (priority,
    recency) is the business of the projection π.

    A state is a frozenset inside. It remembers two things it computed once:
    its canonical order, and Σμ in the last space that measured it
    (:meth:`StateSpace.size`): ω never changes, so neither do they.

    Examples
    --------
    >>> a, b = Element("first", {"t": 1}), Element("second", {"t": 2})
    >>> State([b, a]) == State([a, b])
    True
    >>> [e.text for e in State([b, a])]
    ['first', 'second']
    >>> len(State())
    0
    >>> (State([a]) | {b}) - {a} == State([b])
    True
    """

    __slots__ = ("_elements", "_ordered", "_sized")

    def __init__(self, elements: Iterable[Element] = ()) -> None:
        if isinstance(elements, Element):
            raise InvalidArgumentError(
                f"a state ω is a set of elements; got a single element {elements.label()}: wrap it, State([element])"
            )
        self._elements = _element_set(elements, "a state ω")
        self._ordered: tuple[Element, ...] | None = None
        self._sized: tuple[StateSpace, float] | None = None

    @classmethod
    def _trusted(cls, elements: frozenset[Element], ordered: tuple[Element, ...] | None = None) -> "State":
        """A state from a frozenset known to hold only elements (and, if given, its canonical order)."""
        state = cls.__new__(cls)
        state._elements = elements
        state._ordered = ordered
        state._sized = None
        return state

    # -- the set --------------------------------------------------------
    @property
    def elements(self) -> frozenset[Element]:
        """The elements of ω as a frozenset."""
        return self._elements

    def ordered(self) -> tuple[Element, ...]:
        """The elements of ω in canonical order (by ``meta['t']``, then id)."""
        if self._ordered is None:
            self._ordered = tuple(sorted(self._elements, key=order_key))
        return self._ordered

    def __iter__(self) -> Iterator[Element]:
        return iter(self.ordered())

    def __len__(self) -> int:
        return len(self._elements)

    def __contains__(self, element: object) -> bool:
        return element in self._elements

    def __bool__(self) -> bool:
        return bool(self._elements)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, State):
            return self._elements == other._elements
        if isinstance(other, (set, frozenset)):
            return self._elements == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._elements)

    def __repr__(self) -> str:
        if not self._elements:
            return "State()"
        shown = ", ".join(repr(e) for e in self.ordered()[:6])
        more = f", … (+{len(self) - 6})" if len(self) > 6 else ""
        return f"State({{{shown}{more}}})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (State, (tuple(self.ordered()),))

    # -- building new states (ω itself never changes) --------------------
    def __or__(self, other: Iterable[Element]) -> "State":
        """ω ∪ other."""
        return self.replace((), other)

    def __sub__(self, other: Iterable[Element]) -> "State":
        """ω ∖ other."""
        return self.replace(other, ())

    def __and__(self, other: Iterable[Element]) -> "State":
        """ω ∩ other."""
        return State._trusted(self._elements & _element_set(other, "the other operand of ω ∩"))

    def __le__(self, other: Iterable[Element]) -> bool:
        """ω ⊆ other."""
        return self._elements <= State(other)._elements

    def __ge__(self, other: Iterable[Element]) -> bool:
        """ω ⊇ other."""
        return self._elements >= State(other)._elements

    def add(self, *elements: Element) -> "State":
        """Deprecated: ``ω | {e, …}`` (ω ∪ {e, …}) is the one way; it warns for one release."""
        deprecated("State.add(e)", "state | {e}")
        return self | elements

    def remove(self, *elements: Element) -> "State":
        """Deprecated: ``ω - {e, …}`` (ω ∖ {e, …}) is the one way; it warns for one release."""
        deprecated("State.remove(e)", "state - {e}")
        return self - elements

    def replace(self, old: Iterable[Element], new: Iterable[Element]) -> "State":
        """(ω ∖ old) ∪ new, a new state.

        >>> a, b, c = (Element(x, {"t": i}) for i, x in enumerate("abc"))
        >>> [e.text for e in State([a, b]).replace([a], [c])]
        ['b', 'c']
        """
        leaving = (_element_set(old, "the elements to remove from ω") & self._elements) - (
            fresh := _element_set(new, "the elements to add to ω")
        )
        arriving = fresh - self._elements
        if not leaving and not arriving:
            return self
        state = State._trusted((self._elements - leaving) | arriving, carried_order(self._ordered, leaving, arriving))
        state._sized = carried_size(self._sized, leaving, arriving)
        return state

    def filter(self, predicate: Callable[[Element], bool]) -> "State":
        """{e ∈ ω | predicate(e)}."""
        return State._trusted(frozenset(e for e in self._elements if predicate(e)))

    def where(self, **meta: Any) -> tuple[Element, ...]:
        """The elements e ∈ ω whose metadata d has the given values, in canonical order.

        >>> s = State([Element("a", {"t": 1, "type": "block"}), Element("b", {"t": 2, "type": "latest"})])
        >>> [e.text for e in s.where(type="block")]
        ['a']
        """
        return tuple(e for e in self.ordered() if all(e.meta.get(k) == v for k, v in meta.items()))

    def by_id(self, element_id: str) -> Element:
        """The element e ∈ ω whose id starts with ``element_id``.

        Raises
        ------
        ElementNotFoundError
            (a ``KeyError``) if no element, or more than one, matches.
        """
        matches = [e for e in self._elements if e.id.startswith(element_id)]
        if len(matches) != 1:
            raise ElementNotFoundError(
                f"{'no' if not matches else len(matches)} element(s) of ω have an id starting with "
                f"{element_id!r}; give a longer prefix of an id from state.ordered()"
            )
        return matches[0]


def _element_set(items: Iterable[Element], what: str) -> frozenset[Element]:
    """``items`` as a frozenset of elements, or an :class:`InvalidArgumentError` saying what is wrong."""
    if isinstance(items, State):
        return items.elements
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


class StateSpace:
    """The state space Ω_STM = { ω ∈ 2^E | Σ_{e∈ω} μ(e) ≤ V_max }.

    Parameters
    ----------
    size : callable or str
        The size function μ : E → ℝ⁺, e.g. :func:`stmviz.sizes.tokens` (or
        ``"tokens"``, ``"chars"``, ``"words"``). Each element's μ is computed
        once and cached; every value is checked to be a positive finite number.
    v_max : float
        The capacity V_max ∈ ℝ⁺.

    Examples
    --------
    >>> from stmviz import Element, State, StateSpace, sizes
    >>> space = StateSpace(sizes.words, v_max=5)
    >>> omega = State([Element("one two three", {"t": 0}), Element("four five", {"t": 1})])
    >>> space.size(omega), space.free(omega), omega in space
    (5, 0, True)
    >>> omega | {Element("six", {"t": 2})} in space
    False
    >>> space.check(omega | {Element("six", {"t": 2})})
    Traceback (most recent call last):
    ...
    stmviz.core.errors.CapacityError: state exceeds capacity: Σμ = 6 > V_max = 5 (over by 1); evict elements or raise v_max
    """

    __slots__ = ("_size", "v_max", "_cache", "name")

    def __init__(self, size: Callable[[Element], float] | str = "tokens", v_max: float = 4096) -> None:
        self._size = resolve(size)
        self.v_max = check_v_max(v_max)
        self._cache: dict[Element, float] = {}
        self.name = size_name(self._size)

    @property
    def mu(self) -> Callable[[Element], float]:
        """The size function μ itself."""
        return self._size

    @property
    def counts_tokens(self) -> bool:
        """Whether μ counts tokens (then Σμ is comparable to a model's context limit)."""
        return bool(getattr(self._size, "counts_tokens", False))

    def __repr__(self) -> str:
        return f"StateSpace(μ={self.name}, V_max={self.v_max})"

    # -- μ --------------------------------------------------------------
    def measure(self, element: Element) -> float:
        """μ(e), computed once per element and checked.

        Raises
        ------
        InvalidArgumentError
            if e is not an :class:`Element`.
        ContractError
            if μ(e) is not a number, is NaN or infinite, or is ≤ 0.
        """
        if not isinstance(element, Element):
            raise InvalidArgumentError(
                f"μ is defined on elements e ∈ E; got a {type(element).__name__} {brief(element, 40)}"
            )
        value = self._cache.get(element)
        if value is None:
            value = self._cache[element] = checked_size(self._call_mu(element), element)
        return value

    def _call_mu(self, element: Element) -> Any:
        try:
            return self._size(element)
        except STMError:
            raise
        except Exception as exc:
            raise ContractError(
                f"μ = {self.name} raised {type(exc).__name__}: {exc} on {element.label()}; "
                f"make μ accept every element e ∈ E"
            ) from exc

    def size(self, state: State | Iterable[Element]) -> float:
        """Σ_{e ∈ ω} μ(e).

        A :class:`State` carries its Σμ in the space that measured it last (ω
        never changes, so neither does its size): each state is summed once.
        """
        if not isinstance(state, State):
            return self._sum(state)
        known = state._sized
        if known is None or known[0] is not self:
            known = state._sized = (self, self._sum(state.elements))
        return known[1]

    def _sum(self, elements: Iterable[Element]) -> float:
        try:
            return self._known(elements)
        except (KeyError, TypeError):
            return sum(self.measure(e) for e in elements)

    def _known(self, elements: Iterable[Element]) -> float:
        """Σμ(e) over elements whose μ is already known (a ``KeyError`` otherwise)."""
        return sum(map(self._cache.__getitem__, elements))

    def free(self, state: State | Iterable[Element]) -> float:
        """V_max − Σ_{e ∈ ω} μ(e): the room left in ω."""
        return self.v_max - self.size(state)

    # -- membership -----------------------------------------------------
    def __contains__(self, state: object) -> bool:
        """``ω in space``: whether ω ∈ Ω_STM. Never raises: anything that is not a fitting state is ``False``."""
        if not isinstance(state, State):
            if isinstance(state, (set, frozenset, list, tuple)):
                try:
                    state = State(state)
                except STMError:
                    return False
            else:
                return False
        try:
            return self.size(state) <= self.v_max
        except STMError:
            return False

    def contains(self, state: object) -> bool:
        """Deprecated: ``ω in space`` is the one way (it reads like ω ∈ Ω_STM); it warns for one release."""
        deprecated("StateSpace.contains(ω)", "ω in space")
        return state in self

    def check(self, state: State) -> State:
        """Return ω if ω ∈ Ω_STM, else raise :class:`CapacityError` (or the μ error)."""
        if not isinstance(state, State):
            raise InvalidArgumentError(
                f"expected a State, got {type(state).__name__} {brief(state)}; build one with State([...])"
            )
        total = self.size(state)
        if total > self.v_max:
            raise CapacityError(
                f"state exceeds capacity: Σμ = {format_number(total)} > V_max = {format_number(self.v_max)} "
                f"(over by {format_number(total - self.v_max)}); evict elements or raise v_max"
            )
        return state

    def check_element(self, element: Element) -> float:
        """μ(e), raising :class:`CapacityError` if e alone exceeds V_max (it can never fit)."""
        value = self.measure(element)
        if value > self.v_max:
            raise CapacityError(
                f"{element.label()} alone has μ = {format_number(value)} > V_max = {format_number(self.v_max)}; "
                f"no state containing it is in Ω_STM: split or truncate it, or raise v_max"
            )
        return value

    def fits(self, element: Element) -> bool:
        """Whether {e} ∈ Ω_STM."""
        try:
            return self.measure(element) <= self.v_max
        except STMError:
            return False
