"""The state space Ω_STM and its states ω (Definition 1).

    Ω_STM = { ω ∈ 2^E | Σ_{e ∈ ω} μ(e) ≤ V_max }

ω, the current STM state, is a *set* of elements e ∈ E; μ : E → ℝ⁺ is the size function
and V_max ∈ ℝ⁺ the capacity, an upper bound on the total size of the current state. The
paper imposes no order on ω: any order is expressed through metadata and applied where
needed, typically by the projection π. Any STM state of an agent is a point of Ω_STM.

A reader may skip the side modules: ``_space_checks`` (what is refused, and how),
``_space_carry`` (order and Σμ carried from state to state, a speed-up) and
``_space_views`` (∩, ⊆, repr, lookups, ``free``, ``fits``, deprecated spellings).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ._space_carry import carried_order, carried_size, known_size
from ._space_checks import call_mu, check_measurable, check_v_max, checked_size
from ._space_checks import not_a_state, over_capacity, single_element
from ._space_views import _StateSpaceViews, _StateViews
from .element import Element, order_key
from .errors import STMError
from .sizes import resolve, size_name

__all__ = ["State", "StateSpace"]


class State(_StateViews):
    """A state ω ∈ 2^E: an immutable, finite set of elements; equality is set equality.

    For reproducible output, iteration uses one canonical order: by ``meta['t']``, then by
    the element's id. Any other order (priority, recency) is the business of π.

    >>> a, b = Element("first", {"t": 1}), Element("second", {"t": 2})
    >>> State([b, a]) == State([a, b]), [e.text for e in State([b, a])]
    (True, ['first', 'second'])
    """

    __slots__ = ("_elements", "_ordered", "_sized")

    def __init__(self, elements: Iterable[Element] = ()) -> None:
        if isinstance(elements, Element):
            raise single_element(elements)
        self._elements = self._as_set(elements, "a state ω")
        self._ordered = None  # the canonical order, sorted once when asked
        self._sized = None  # (the space that measured ω last, Σμ(ω))

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

    def replace(self, old: Iterable[Element], new: Iterable[Element]) -> State:
        """(ω ∖ old) ∪ new, a new state (which carries ω's order and Σμ, adjusted)."""
        removing = self._as_set(old, "the elements to remove from ω")
        fresh = self._as_set(new, "the elements to add to ω")
        leaving = (removing & self._elements) - fresh
        arriving = fresh - self._elements
        if not leaving and not arriving:
            return self
        state = State._trusted((self._elements - leaving) | arriving, carried_order(self._ordered, leaving, arriving))
        state._sized = carried_size(self._sized, leaving, arriving)
        return state

    def filter(self, predicate: Callable[[Element], bool]) -> State:
        """{e ∈ ω | predicate(e)}."""
        return State._trusted(frozenset(e for e in self._elements if predicate(e)))


class StateSpace(_StateSpaceViews):
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
            return known_size(self._cache, elements)
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
