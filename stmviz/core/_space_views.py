"""What :class:`~stmviz.core.space.State` and :class:`~stmviz.core.space.StateSpace` offer beyond Definition 1.

Not the paper: a state's ∩, ⊆ and ⊇, its repr and pickling, lookups by metadata or by id,
a state built without checks; a space's room left (``free``), whether one element fits,
whether μ counts tokens; and the deprecated spellings that warn for one release
(``State.add``, ``State.remove``, ``StateSpace.contains``; issue 24: one way to do a thing).
A reader of Definition 1 can skip this module. It imports nothing from
:mod:`stmviz.core.space` (which imports it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ._space_checks import deprecated, element_set, too_big
from .element import Element
from .errors import ElementNotFoundError, STMError

if TYPE_CHECKING:
    from .space import State

_S = TypeVar("_S", bound="_StateViews")


class _StateViews:
    """A state's ∩, ⊆, ⊇, repr, pickling, lookups and deprecated spellings (a mixin of :class:`State`)."""

    __slots__ = ()
    _elements: frozenset[Element]
    _ordered: tuple[Element, ...] | None
    _sized: tuple[Any, float] | None

    if TYPE_CHECKING:  # defined by State
        def __init__(self, elements: Iterable[Element] = ()) -> None: ...

        def ordered(self) -> tuple[Element, ...]: ...

        def __or__(self, other: Iterable[Element]) -> State: ...

        def __sub__(self, other: Iterable[Element]) -> State: ...

    @classmethod
    def _trusted(cls: type[_S], elements: frozenset[Element], ordered: tuple[Element, ...] | None = None) -> _S:
        """A state from a frozenset known to hold only elements (and, if given, its canonical order)."""
        state = cls.__new__(cls)
        state._elements = elements
        state._ordered = ordered
        state._sized = None
        return state

    @classmethod
    def _as_set(cls, items: Iterable[Element], what: str) -> frozenset[Element]:
        """``items`` as a frozenset of elements: a state's own, or checked by ``_space_checks.element_set``."""
        return items._elements if isinstance(items, cls) else element_set(items, what)

    def __and__(self: _S, other: Iterable[Element]) -> _S:
        """ω ∩ other."""
        return self._trusted(self._elements & self._as_set(other, "the other operand of ω ∩"))

    def __le__(self, other: Iterable[Element]) -> bool:
        """ω ⊆ other."""
        return self._elements <= type(self)(other)._elements

    def __ge__(self, other: Iterable[Element]) -> bool:
        """ω ⊇ other."""
        return self._elements >= type(self)(other)._elements

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


class _StateSpaceViews:
    """A space's room left, whether one element fits, its repr, a deprecated spelling (a mixin of :class:`StateSpace`)."""

    __slots__ = ()
    _size: Callable[[Element], float]
    v_max: float
    name: str

    if TYPE_CHECKING:  # defined by StateSpace
        def __contains__(self, state: object) -> bool: ...

        def measure(self, element: Element) -> float: ...

        def size(self, state: Iterable[Element]) -> float: ...

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
