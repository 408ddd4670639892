"""The state space Ω_STM and its states ω (Definition 1).

    Ω_STM = { ω ∈ 2^E | Σ_{e ∈ ω} μ(e) ≤ V_max }

A :class:`State` is a finite set of elements; a :class:`StateSpace` fixes the
size function μ and the capacity V_max and decides membership.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .element import Element, order_key
from .errors import (
    CapacityError,
    InvalidCapacityError,
    InvalidElementError,
    InvalidSizeError,
    InvalidStateError,
    STMError,
    shorten,
)
from .sizes import SizeFunction, resolve, size_name

__all__ = ["State", "StateSpace"]


class State:
    """A state ω ∈ 2^E: an immutable, finite set of elements.

    Equality is set equality; the paper imposes no order on ω. For
    reproducible output, iteration, ``repr`` and display use one canonical
    order: by ``meta['t']``, then by the element's stable id. Any other order
    (priority, recency) is the business of the projection π.

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

    __slots__ = ("_elements", "_ordered", "_hash", "_sized")

    def __init__(self, elements: Iterable[Element] = ()) -> None:
        if isinstance(elements, State):
            frozen = elements._elements
        elif isinstance(elements, frozenset):
            frozen = elements
            _check_elements(frozen)
        else:
            if isinstance(elements, (str, bytes, Element)):
                raise InvalidStateError(
                    f"a state ω is a set of elements; got a single {type(elements).__name__} "
                    f"{shorten(repr(elements))}: wrap it, State([Element(...)])"
                )
            try:
                frozen = frozenset(elements)
            except TypeError as exc:
                raise InvalidStateError(
                    f"a state ω is built from an iterable of Element; got {type(elements).__name__}: {exc}"
                ) from None
            _check_elements(frozen)
        self._elements = frozen
        self._ordered: tuple[Element, ...] | None = None
        self._hash: int | None = None
        self._sized: tuple | None = None  # (space, Σμ) cache, see StateSpace.size

    @classmethod
    def _trusted(cls, elements: frozenset) -> "State":
        state = cls.__new__(cls)
        state._elements = elements
        state._ordered = None
        state._hash = None
        state._sized = None
        return state

    # -- the set --------------------------------------------------------
    @property
    def elements(self) -> frozenset[Element]:
        """The elements of ω as a frozenset."""
        return self._elements

    def ordered(self) -> tuple[Element, ...]:
        """The elements in canonical order (by ``meta['t']``, then id)."""
        ordered = self._ordered
        if ordered is None:
            ordered = tuple(sorted(self._elements, key=order_key))
            self._ordered = ordered
        return ordered

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
        h = self._hash
        if h is None:
            h = hash(self._elements)
            self._hash = h
        return h

    def __repr__(self) -> str:
        if not self._elements:
            return "State()"
        shown = ", ".join(repr(e) for e in self.ordered()[:6])
        more = f", … (+{len(self) - 6})" if len(self) > 6 else ""
        return f"State({{{shown}{more}}})"

    def __reduce__(self):
        return (State, (tuple(self.ordered()),))

    # -- building new states (ω itself never changes) --------------------
    @staticmethod
    def _other(other: Iterable[Element]) -> frozenset:
        kind = type(other)
        if kind is State:
            return other._elements  # type: ignore[attr-defined]
        if kind is Element:
            return frozenset((other,))
        if isinstance(other, State):
            return other._elements
        if isinstance(other, Element):
            return frozenset((other,))
        items = frozenset(other)
        if not _ELEMENT_TYPES.issuperset(map(type, items)):  # checked in C; subclasses and strays below
            _check_elements(items)
        return items

    def __or__(self, other: Iterable[Element]) -> "State":
        items = self._other(other)
        mine = self._elements
        union = mine | items
        new = State._trusted(union)
        grown = len(union) - len(mine)
        if not grown:
            new._ordered, new._sized = self._ordered, self._sized
            return new
        # keep the canonical order and Σμ incrementally (the usual append costs O(|new|), not O(|ω|))
        fresh = list(items) if grown == len(items) else [e for e in items if e not in mine]
        ordered = self._ordered
        if ordered is not None:
            if grown > 1:
                fresh.sort(key=order_key)
            if not ordered or order_key(fresh[0]) > order_key(ordered[-1]):
                new._ordered = ordered + tuple(fresh)
        new._sized = _shifted(self._sized, fresh, 1)
        return new

    def __sub__(self, other: Iterable[Element]) -> "State":
        items = self._other(other)
        mine = self._elements
        rest = mine - items
        new = State._trusted(rest)
        cut = len(mine) - len(rest)
        if not cut:
            new._ordered, new._sized = self._ordered, self._sized
            return new
        gone = items if cut == len(items) else items & mine
        ordered = self._ordered
        if ordered is not None:
            if gone.issuperset(ordered[:cut]):
                new._ordered = ordered[cut:]  # the oldest left (a FIFO's cut): a slice, not a rebuild
            else:
                new._ordered = tuple(e for e in ordered if e not in gone)
        new._sized = _shifted(self._sized, gone, -1)
        return new

    def __and__(self, other: Iterable[Element]) -> "State":
        return State._trusted(self._elements & self._other(other))

    def __le__(self, other: "State") -> bool:
        return self._elements <= State(other)._elements

    def __ge__(self, other: "State") -> bool:
        return self._elements >= State(other)._elements

    def add(self, *elements: Element) -> "State":
        """ω ∪ {e, …} (a new state)."""
        return self | elements

    def remove(self, *elements: Element) -> "State":
        """ω ∖ {e, …} (a new state); elements not in ω are ignored."""
        return self - elements

    def replace(self, old: Iterable[Element], new: Iterable[Element]) -> "State":
        """(ω ∖ old) ∪ new (a new state), with the canonical order and Σμ carried in one pass.

        >>> a, b, c = (Element(x, {"t": i}) for i, x in enumerate("abc"))
        >>> [e.text for e in State([a, b]).replace([a], [c])]
        ['b', 'c']
        """
        gone = self._other(old)
        items = self._other(new)
        mine = self._elements
        rest = mine - gone if gone else mine
        result = State._trusted(rest | items if items else rest)
        left = gone & mine if gone else gone  # the elements of ω that "old" names
        if items:
            left = left - items  # named in both: they stay
            fresh = items - mine
        else:
            fresh = items
        if not left and not fresh:
            result._ordered, result._sized = self._ordered, self._sized
            return result
        ordered = self._ordered
        if ordered is not None:
            cut = len(left)
            if not cut:
                kept: tuple[Element, ...] | None = ordered
            elif left.issuperset(ordered[:cut]):
                kept = ordered[cut:]  # the oldest left: a slice, not a rebuild
            else:
                kept = tuple(e for e in ordered if e not in left)
            if fresh:
                added = sorted(fresh, key=order_key) if len(fresh) > 1 else list(fresh)
                if not kept or order_key(added[0]) > order_key(kept[-1]):
                    kept = kept + tuple(added)
                else:
                    kept = None  # the new elements fall inside the order: sorted again when asked
            result._ordered = kept
        sized = _shifted(self._sized, left, -1) if left else self._sized
        result._sized = _shifted(sized, fresh, 1) if fresh else sized
        return result

    def filter(self, predicate: Callable[[Element], bool]) -> "State":
        """{e ∈ ω | predicate(e)}."""
        return State._trusted(frozenset(e for e in self._elements if predicate(e)))

    def where(self, **meta: Any) -> tuple[Element, ...]:
        """The elements whose metadata has the given values, in canonical order.

        >>> s = State([Element("a", {"t": 1, "type": "block"}), Element("b", {"t": 2, "type": "latest"})])
        >>> [e.text for e in s.where(type="block")]
        ['a']
        """
        return tuple(e for e in self.ordered() if all(e.meta.get(k) == v for k, v in meta.items()))

    def by_id(self, element_id: str) -> Element:
        """The element of ω whose id starts with ``element_id``."""
        matches = [e for e in self._elements if e.id.startswith(element_id)]
        if len(matches) != 1:
            raise KeyError(
                f"{'no' if not matches else len(matches)} element(s) of ω have an id starting with {element_id!r}"
            )
        return matches[0]


_ELEMENT_TYPES = frozenset((Element,))


def _shifted(sized: tuple | None, changed: Iterable[Element], sign: int) -> tuple | None:
    """(space, Σμ) after adding (sign 1) or removing (sign −1) elements whose μ is already cached."""
    if sized is None:
        return None
    space, total = sized
    cache = space._cache
    try:
        delta = sum(map(cache.__getitem__, changed))
    except KeyError:
        return None
    return (space, total + delta if sign > 0 else total - delta)


def _check_elements(items: frozenset) -> None:
    for item in items:
        if not isinstance(item, Element):
            raise InvalidStateError(
                f"a state ω ⊆ E holds only Element objects; got a {type(item).__name__} "
                f"{shorten(repr(item))}: wrap it as Element(...)"
            )


def _check_v_max(v_max: Any) -> float:
    if isinstance(v_max, bool) or not isinstance(v_max, (int, float)):
        try:
            import numbers

            ok = isinstance(v_max, numbers.Real) and not isinstance(v_max, bool)
        except Exception:  # pragma: no cover
            ok = False
        if not ok:
            raise InvalidCapacityError(
                f"V_max must be a positive finite number, got {type(v_max).__name__} {shorten(repr(v_max))}; "
                f"e.g. StateSpace(tokens(), v_max=4096)"
            )
        v_max = float(v_max)
    if math.isnan(v_max) or math.isinf(v_max):
        raise InvalidCapacityError(
            f"V_max must be finite, got {v_max}; the paper bounds Σμ(e) by a real V_max ∈ ℝ⁺ — pick a number such as 4096"
        )
    if v_max <= 0:
        raise InvalidCapacityError(
            f"V_max must be > 0 (V_max ∈ ℝ⁺), got {v_max}; only the empty state would fit. Use e.g. v_max=4096"
        )
    return v_max


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
        self.v_max = _check_v_max(v_max)
        if isinstance(v_max, int) and not isinstance(v_max, bool):
            self.v_max = v_max
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
        InvalidSizeError
            if μ(e) is not a number, is NaN or infinite, or is ≤ 0.
        """
        cache = self._cache
        value = cache.get(element)
        if value is not None:
            return value
        if not isinstance(element, Element):
            raise InvalidElementError(
                f"μ is defined on elements e ∈ E; got a {type(element).__name__} {shorten(repr(element))}"
            )
        try:
            value = self._size(element)
        except STMError:
            raise
        except Exception as exc:
            raise InvalidSizeError(
                f"μ = {self.name} raised {type(exc).__name__}: {exc} on {element.label()}; "
                f"make μ accept every element e ∈ E"
            ) from exc
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            try:
                import numbers

                if isinstance(value, numbers.Real) and not isinstance(value, bool):
                    value = float(value)
                else:
                    raise TypeError
            except TypeError:
                raise InvalidSizeError(
                    f"μ({element.label()}) = {shorten(repr(value))} is a {type(value).__name__}, not a number; "
                    f"μ : E → ℝ⁺ must return a positive number"
                ) from None
        if math.isnan(value) or math.isinf(value) or value <= 0:
            hint = (
                "an empty text has no tokens: give the element content, or use tokens(overhead=4)"
                if value == 0
                else "μ : E → ℝ⁺ must return a positive finite number"
            )
            raise InvalidSizeError(f"μ({element.label()}) = {value} is not in ℝ⁺ (> 0, finite); {hint}")
        cache[element] = value
        return value

    def size(self, state: State | Iterable[Element]) -> float:
        """Σ_{e ∈ ω} μ(e) (cached on the state: a state's size in a space never changes)."""
        if isinstance(state, State):
            sized = state._sized
            if sized is not None and sized[0] is self:
                return sized[1]
            elements: Iterable[Element] = state._elements
        else:
            elements = state
        try:
            total = sum(map(self._cache.__getitem__, elements))
        except (KeyError, TypeError):
            measure = self.measure
            total = sum(measure(e) for e in elements)
        if isinstance(state, State):
            state._sized = (self, total)
        return total

    def free(self, state: State | Iterable[Element]) -> float:
        """V_max − Σ_{e ∈ ω} μ(e): the room left in ω."""
        return self.v_max - self.size(state)

    # -- membership -----------------------------------------------------
    def contains(self, state: object) -> bool:
        """Whether ω ∈ Ω_STM. Never raises: anything that is not a fitting state is ``False``."""
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

    __contains__ = contains

    def check(self, state: State) -> State:
        """Return ω if ω ∈ Ω_STM, else raise :class:`CapacityError` (or the μ error)."""
        if not isinstance(state, State):
            raise InvalidStateError(
                f"expected a State, got {type(state).__name__} {shorten(repr(state))}; build one with State([...])"
            )
        total = self.size(state)
        if total > self.v_max:
            raise CapacityError(
                f"state exceeds capacity: Σμ = {_num(total)} > V_max = {_num(self.v_max)} "
                f"(over by {_num(total - self.v_max)}); evict elements or raise v_max"
            )
        return state

    def check_element(self, element: Element) -> float:
        """μ(e), raising :class:`CapacityError` if e alone exceeds V_max (it can never fit)."""
        value = self.measure(element)
        if value > self.v_max:
            raise CapacityError(
                f"{element.label()} alone has μ = {_num(value)} > V_max = {_num(self.v_max)}; "
                f"no state containing it is in Ω_STM: split or truncate it, or raise v_max"
            )
        return value

    def fits(self, element: Element) -> bool:
        """Whether {e} ∈ Ω_STM."""
        try:
            return self.measure(element) <= self.v_max
        except STMError:
            return False


def _num(x: float) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)
