"""A state's canonical order and Σμ carried from ω to the next state, instead of computed anew.

A speed-up of :class:`stmviz.State`, not part of the paper: ω is a set and Σμ a sum
(Definition 1); sorting and summing every new state gives the same values, only slower.
A state built from ω by removing and adding a few elements keeps ω's order and Σμ,
adjusted: a step that changes a few elements of ω costs a few additions, not |ω|.
``tests/test_fast.py`` holds both equal to the plain definition.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["carried_order", "carried_sum", "known_sum"]

_E = TypeVar("_E", bound=Hashable)


def carried_order(
    ordered: tuple[_E, ...] | None, leaving: frozenset[_E], arriving: frozenset[_E], key: Callable[[_E], Any]
) -> tuple[_E, ...] | None:
    """The order by ``key`` of (ω ∖ leaving) ∪ arriving from ω's order ``ordered``, when that is cheap; else ``None``.

    The usual step of a window (the oldest elements leave, newer ones arrive)
    keeps ω's order and appends, instead of sorting again; ``None`` (a new element
    falls inside the order, or ω's order is not known) leaves the sort to be done
    when asked.
    """
    if ordered is None:
        return None
    cut = len(leaving)
    if leaving.issuperset(ordered[:cut]):
        kept = ordered[cut:]  # the oldest leave: a slice
    else:
        kept = tuple(e for e in ordered if e not in leaving)
    added = sorted(arriving, key=key)
    if added and kept and key(added[0]) < key(kept[-1]):
        return None
    return kept + tuple(added)


def carried_sum(total: float, sizes: Mapping[_E, float], leaving: Iterable[_E], arriving: Iterable[_E]) -> float:
    """Σμ of (ω ∖ leaving) ∪ arriving from ``total`` = Σμ(ω); a ``KeyError`` if ``sizes`` lacks some μ(e)."""
    return total - known_sum(sizes, leaving) + known_sum(sizes, arriving)


def known_sum(sizes: Mapping[_E, float], elements: Iterable[_E]) -> float:
    """Σμ(e) over elements whose μ(e) is already in ``sizes`` (a space's cache of μ); a ``KeyError`` otherwise."""
    return sum(map(sizes.__getitem__, elements))
