"""Speed-ups of :class:`~stmviz.core.space.State`: its canonical order and Σμ carried from ω to the next state.

Not the paper: ω is a set and Σμ a sum (Definition 1); computing them anew for every
state gives the same values, only slower. A state built from ω by removing and adding a
few elements keeps ω's order and Σμ, adjusted. tests/core hold both equal to the plain
definition. A reader of Definition 1 can skip this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .element import Element, order_key

if TYPE_CHECKING:
    from .space import StateSpace


def carried_order(
    ordered: tuple[Element, ...] | None, leaving: frozenset[Element], arriving: frozenset[Element]
) -> tuple[Element, ...] | None:
    """The canonical order of (ω ∖ leaving) ∪ arriving from ω's order, when that is cheap; else ``None``.

    A speed-up for the usual step of a window (the oldest elements leave,
    newer ones arrive): keep ω's order and append, instead of sorting again.
    ``None`` lets :meth:`State.ordered` sort when asked. tests/core check that
    both give the same order.
    """
    if ordered is None:
        return None
    cut = len(leaving)
    if leaving.issuperset(ordered[:cut]):
        kept = ordered[cut:]  # the oldest leave: a slice
    else:
        kept = tuple(e for e in ordered if e not in leaving)
    added = sorted(arriving, key=order_key)
    if added and kept and order_key(added[0]) < order_key(kept[-1]):
        return None  # a new element falls inside the order: sort when asked
    return kept + tuple(added)


def carried_size(
    sized: tuple[StateSpace, float] | None, leaving: frozenset[Element], arriving: frozenset[Element]
) -> tuple[StateSpace, float] | None:
    """Σμ of (ω ∖ leaving) ∪ arriving from Σμ(ω), when the space knows every μ(e) it needs; else ``None``.

    Σμ is computed once per state and carried from state to state: a step
    that changes a few elements of ω costs a few additions, not |ω|.
    """
    if sized is None:
        return None
    space, total = sized
    try:
        return (space, total - known_size(space._cache, leaving) + known_size(space._cache, arriving))
    except KeyError:
        return None  # an element not measured yet: StateSpace.size sums when asked


def known_size(sizes: Mapping[Element, float], elements: Iterable[Element]) -> float:
    """Σμ(e) over elements whose μ(e) is already in ``sizes`` (a space's cache of μ); a ``KeyError`` otherwise."""
    return sum(map(sizes.__getitem__, elements))
