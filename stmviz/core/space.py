"""The state space Ω_STM and its states ω (Definition 1).

    Ω_STM = { ω ∈ 2^E | Σ_{e ∈ ω} μ(e) ≤ V_max }

ω, the current STM state, is a *set* of elements e ∈ E; μ : E → ℝ⁺ is the size function
and V_max ∈ ℝ⁺ the capacity, an upper bound on the total size of the current state. The
paper imposes no order on ω: any order is expressed through metadata and applied where
needed, typically by the projection π. Any STM state of an agent is a point of Ω_STM.

Each class opens with the paper, then what it offers beyond it. What is refused is
checked by :mod:`._space_checks`; a new state carries ω's order and Σμ instead of
computing them anew (:mod:`stmviz._fast.carry`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._fast.carry import carried_order, carried_sum, known_sum
from ._space_checks import call_mu, check_measurable, check_v_max, checked_size, element_set
from ._space_checks import not_a_state, over_capacity, single_element, too_big
from .element import Element, order_key
from .errors import ElementNotFoundError, STMError, deprecated
from .sizes import resolve, size_name

__all__ = ["State", "StateSpace"]


class State:
    """A state ω ∈ 2^E: an immutable, finite set of elements; equality is set equality.

    For reproducible output, iteration uses one canonical order: by ``meta['t']``, then by
    the element's id. Any other order (priority, recency) is the business of π.

    >>> a, b = Element("first", {"t": 1}), Element("second", {"t": 2})
    >>> State([b, a]) == State([a, b]), [e.text for e in State([b, a])]
    (True, ['first', 'second'])
    """

    __slots__ = ("_elements", "_ordered", "_sized")
    _elements: frozenset[Element]
    _ordered: tuple[Element, ...] | None  # the canonical order, sorted once when asked
    _sized: tuple[StateSpace, float] | None  # (the space that measured ω last, Σμ(ω))

    def __init__(self, elements: Iterable[Element] = ()) -> None:
        if isinstance(elements, Element):
            raise single_element(elements)
        self._elements = _as_set(elements, "a state ω")
        self._ordered = None
        self._sized = None

    @property
    def elements(self) -> frozenset[Element]:
        """The elements of ω as a frozenset."""
        return self._elements

    def __iter__(self) -> Iterator[Element]:
        return iter(self.ordered())

    def __len__(self) -> int:
        return len(self._elements)

    def __contains__(self, element: object) -> bool:
        return element in self._elements

    def __eq__(self, other: object) -> bool:
        if isinstance(other, State):
            return self._elements == other._elements
        if isinstance(other, (set, frozenset)):
            return self._elements == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._elements)

    # -- new states from ω (ω itself never changes) ---------------------
    def __or__(self, other: Iterable[Element]) -> State:
        """ω ∪ other."""
        return self.replace((), other)

    def __sub__(self, other: Iterable[Element]) -> State:
        """ω ∖ other."""
        return self.replace(other, ())

    def __and__(self, other: Iterable[Element]) -> State:
        """ω ∩ other."""
        return type(self).from_trusted(self._elements & _as_set(other, "the other operand of ω ∩"))

    def __le__(self, other: Iterable[Element]) -> bool:
        """ω ⊆ other."""
        return self._elements <= type(self)(other)._elements

    def __ge__(self, other: Iterable[Element]) -> bool:
        """ω ⊇ other."""
        return self._elements >= type(self)(other)._elements

    def replace(self, old: Iterable[Element], new: Iterable[Element]) -> State:
        """(ω ∖ old) ∪ new, a new state (which carries ω's order and Σμ, adjusted)."""
        removing = _as_set(old, "the elements to remove from ω")
        fresh = _as_set(new, "the elements to add to ω")
        leaving = (removing & self._elements) - fresh
        arriving = fresh - self._elements
        if not leaving and not arriving:
            return self
        state = State.from_trusted((self._elements - leaving) | arriving, carried_order(self._ordered, leaving, arriving, order_key))
        if self._sized is not None:
            space, total = self._sized
            try:
                state._sized = (space, carried_sum(total, space._cache, leaving, arriving))
            except KeyError:  # an element not measured yet: StateSpace.size sums when asked
                pass
        return state

    def filter(self, predicate: Callable[[Element], bool]) -> State:
        """{e ∈ ω | predicate(e)}."""
        return State.from_trusted(frozenset(e for e in self._elements if predicate(e)))

    # -- beyond the paper: order, repr, lookups ----------------------------
    @classmethod
    def from_trusted(cls, elements: frozenset[Element], ordered: tuple[Element, ...] | None = None) -> State:
        """ω from a frozenset known to hold only elements (and its canonical order, if given), without a check:
        for states built out of states (a trace's ω_t, :mod:`stmviz.io` reading a checked file); else ``State(...)``."""
        state = cls.__new__(cls)
        state._elements = elements
        state._ordered = ordered
        state._sized = None
        return state

    def ordered(self) -> tuple[Element, ...]:
        """The elements of ω in canonical order (by ``meta['t']``, then id)."""
        if self._ordered is None:
            self._ordered = tuple(sorted(self._elements, key=order_key))
        return self._ordered

    def __bool__(self) -> bool:
        return bool(self._elements)

    def __repr__(self) -> str:
        if not self._elements:
            return "State()"
        shown = ", ".join(repr(e) for e in self.ordered()[:6])
        more = f", … (+{len(self._elements) - 6})" if len(self._elements) > 6 else ""
        return f"State({{{shown}{more}}})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (tuple(self.ordered()),))

    def where(self, **meta: Any) -> tuple[Element, ...]:
        """The elements e ∈ ω whose metadata d has the given values, in canonical order."""
        return tuple(e for e in self.ordered() if all(e.meta.get(k) == v for k, v in meta.items()))

    def by_id(self, element_id: str) -> Element:
        """The element e ∈ ω whose id starts with ``element_id`` (else an :class:`ElementNotFoundError`, a ``KeyError``)."""
        matches = [e for e in self._elements if e.id.startswith(element_id)]
        if len(matches) != 1:
            raise ElementNotFoundError(
                f"{'no' if not matches else len(matches)} element(s) of ω have an id starting with "
                f"{element_id!r}; give a longer prefix of an id from state.ordered()"
            )
        return matches[0]

    def add(self, *elements: Element) -> State:
        """Deprecated: ``ω | {e, …}`` (ω ∪ {e, …}) is the one way; it warns for one release."""
        deprecated("State.add(e)", "state | {e}")
        return self | elements

    def remove(self, *elements: Element) -> State:
        """Deprecated: ``ω - {e, …}`` (ω ∖ {e, …}) is the one way; it warns for one release."""
        deprecated("State.remove(e)", "state - {e}")
        return self - elements


def _as_set(items: Iterable[Element], what: str) -> frozenset[Element]:
    """``items`` as a frozenset of elements: a state's own, or checked by :func:`._space_checks.element_set`."""
    return items._elements if isinstance(items, State) else element_set(items, what)


class StateSpace:
    """The state space Ω_STM = { ω ∈ 2^E | Σ_{e∈ω} μ(e) ≤ V_max }, given μ (``size``) and V_max.

    >>> from stmviz import sizes
    >>> space = StateSpace(sizes.words, v_max=5)
    >>> omega = State([Element("one two three", {"t": 0}), Element("four five", {"t": 1})])
    >>> space.size(omega), space.free(omega), omega in space, omega | {Element("six", {"t": 2})} in space
    (5, 0, True, False)
    """

    __slots__ = ("_size", "v_max", "_cache", "name")

    def __init__(self, size: Callable[[Element], float] | str = "tokens", v_max: float = 4096) -> None:
        self._size = resolve(size)
        self.v_max = check_v_max(v_max)
        self._cache: dict[Element, float] = {}  # μ(e) of every element measured, computed once
        self.name = size_name(self._size)

    @property
    def mu(self) -> Callable[[Element], float]:
        """The size function μ itself."""
        return self._size

    def measure(self, element: Element) -> float:
        """μ(e), computed once per element and checked to be in ℝ⁺."""
        if type(element) is not Element:  # the usual case costs one comparison
            check_measurable(element)
        value = self._cache.get(element)
        if value is None:
            value = self._cache[element] = checked_size(call_mu(self._size, self.name, element), element)
        return value

    def size(self, state: State | Iterable[Element]) -> float:
        """Σ_{e ∈ ω} μ(e). A State remembers it for the space that measured it last: ω never changes."""
        if not isinstance(state, State):
            return self._sum(tuple(state))  # an iterator is read once, by the fast sum or the plain one
        known = state._sized
        if known is None or known[0] is not self:
            known = state._sized = (self, self._sum(state.elements))
        return known[1]

    def _sum(self, elements: Iterable[Element]) -> float:
        try:
            return known_sum(self._cache, elements)
        except (KeyError, TypeError):
            return sum(self.measure(e) for e in elements)

    def __contains__(self, state: object) -> bool:
        """``ω in space``: whether ω ∈ Ω_STM. Never raises: anything that is not a fitting state is ``False``."""
        try:
            if isinstance(state, (set, frozenset, list, tuple)):
                state = State(state)
            return isinstance(state, State) and self.size(state) <= self.v_max
        except STMError:
            return False

    def check(self, state: State) -> State:
        """Return ω if ω ∈ Ω_STM, else raise :class:`CapacityError` (or the μ error)."""
        if not isinstance(state, State):
            raise not_a_state(state)
        total = self.size(state)
        if total > self.v_max:
            raise over_capacity(total, self.v_max)
        return state

    # -- beyond the paper: the room left, one element, repr -----------------
    @property
    def counts_tokens(self) -> bool:
        """Whether μ counts tokens (then Σμ is comparable to a model's context limit)."""
        return bool(getattr(self._size, "counts_tokens", False))

    def free(self, state: Iterable[Element]) -> float:
        """V_max − Σ_{e ∈ ω} μ(e): the room left in ω."""
        return self.v_max - self.size(state)

    def check_element(self, element: Element) -> float:
        """μ(e), raising :class:`CapacityError` if e alone exceeds V_max (it can never fit)."""
        value = self.measure(element)
        if value > self.v_max:
            raise too_big(element, value, self.v_max)
        return value

    def fits(self, element: Element) -> bool:
        """Whether {e} ∈ Ω_STM."""
        try:
            return self.measure(element) <= self.v_max
        except STMError:
            return False

    def __repr__(self) -> str:
        return f"StateSpace(μ={self.name}, V_max={self.v_max})"

    def contains(self, state: object) -> bool:
        """Deprecated: ``ω in space`` is the one way (it reads like ω ∈ Ω_STM); it warns for one release."""
        deprecated("StateSpace.contains(ω)", "ω in space")
        return state in self
