"""Helpers shared by the summarizing mechanisms (HiAgent, AgentFold): caches kept out of purity snapshots, views of ω, cutting to fit."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ..core.element import Element, order_key
from ..core.formatting import shorten
from ..core.errors import InvalidOperationError
from ..core.sizes import count_tokens
from ..core.space import State, StateSpace
from ..text import truncate_to_tokens

Summarizer = Callable[[Sequence[str], int], str]
_ELLIPSIS = "…"


class _SummaryCache:
    """A bounded LRU of summaries keyed by (texts, budget), wrapped so that U stays pure.

    ``check_mechanism`` compares snapshots of a mechanism's list/dict/set
    attributes; this object keeps its identity, so filling the cache is not a
    change of the mechanism, and a cached answer equals a fresh one for a
    deterministic summarizer.
    """

    __slots__ = ("summarize", "maxsize", "_data")

    def __init__(self, summarize: Summarizer, maxsize: int = 4096) -> None:
        self.summarize = summarize
        self.maxsize = maxsize
        self._data: OrderedDict[tuple[tuple[str, ...], int], str] = OrderedDict()

    def __call__(self, texts: Sequence[str], budget: int) -> str:
        key = (tuple(texts), budget)
        data = self._data
        hit = data.get(key)
        if hit is not None:
            data.move_to_end(key)
            return hit
        result = self.summarize(list(texts), budget)
        if not isinstance(result, str):
            raise InvalidOperationError(
                f"the summarizer returned {type(result).__name__} {shorten(repr(result))}; "
                f"summarize(texts, budget) must return a string"
            )
        result = " ".join(result.split()) or truncate_to_tokens(" ".join(" ".join(texts).split()), budget) or _ELLIPSIS
        data[key] = result
        if len(data) > self.maxsize:
            data.popitem(last=False)
        return result


class _Cache:
    """A bounded memo for derived values (token counts, embeddings), kept out of purity snapshots.

    When full it starts afresh: cheaper per lookup than an exact LRU, and values are pure functions of their keys.
    """

    __slots__ = ("maxsize", "_data")

    def __init__(self, maxsize: int = 8192) -> None:
        self.maxsize = maxsize
        self._data: dict[Any, Any] = {}

    def lookup(self, key: Any, compute: Callable[[Any], Any]) -> Any:
        """``compute(key)``, memoized."""
        data = self._data
        try:
            return data[key]
        except KeyError:
            pass
        value = compute(key)
        if len(data) >= self.maxsize:
            data.clear()
        data[key] = value
        return value


class _View:
    """Facts derived from one ω: its elements grouped by ``type``, each group in canonical order.

    A view is a pure function of ω's elements; :class:`_Index` derives each one
    from the previous when few elements changed, so that a mechanism reads its
    blocks, pairs or subgoals without a pass over ω. Subclasses carry more facts
    through :meth:`_carry`.
    """

    __slots__ = ("elements", "groups")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "_View | None" = None
    ) -> None:
        # parent: the view this one is derived from, if any (subclasses carry facts from it)
        self.elements = elements
        self.groups = groups

    @classmethod
    def build(cls, elements: frozenset) -> "_View":
        groups: dict[str, list[Element]] = {}
        # canonical order, sorted here: an order cached on ω (state.ordered()) would be kept up to date by
        # every later State operation, a pass over ω whenever an element other than the oldest leaves
        for e in sorted(elements, key=order_key):
            groups.setdefault(e.type, []).append(e)
        return cls(elements, {kind: tuple(members) for kind, members in groups.items()})

    def derive(self, elements: frozenset, added: frozenset, removed: frozenset) -> "_View":
        """The view of ``elements`` = this view's ω − ``removed`` ∪ ``added``, group by group."""
        groups = dict(self.groups)
        if removed:
            gone: dict[str, int] = {}
            for e in removed:
                gone[e.type] = gone.get(e.type, 0) + 1
            for kind, n in gone.items():
                members = groups[kind]
                if removed.issuperset(members[:n]):
                    kept = members[n:]  # the oldest of their kind left (an overflow rule's order): a slice
                else:
                    kept = tuple(e for e in members if e not in removed)
                if kept:
                    groups[kind] = kept
                else:
                    del groups[kind]
        if len(added) == 1:  # the usual step: one new element
            fresh: dict[str, list[Element]] = {e.type: [e] for e in added}
        else:
            fresh = {}
            for e in added:
                fresh.setdefault(e.type, []).append(e)
        for kind, new in fresh.items():
            if len(new) > 1:
                new.sort(key=order_key)
            old = groups.get(kind, ())
            if not old or order_key(new[0]) > order_key(old[-1]):
                groups[kind] = old + tuple(new)  # the usual case: the newest of its kind
            else:
                groups[kind] = tuple(sorted(old + tuple(new), key=order_key))
        return self._carry(type(self)(elements, groups, self), added, removed)

    def _carry(self, view: "_View", added: frozenset, removed: frozenset) -> "_View":
        """The derived ``view``, with whatever facts of this view the change leaves valid carried over."""
        return view


class _Index:
    """A bounded memo of views (:class:`_View` or a subclass) per ω, each derived from the previous one when few elements changed.

    Views are pure functions of ω's elements; the memo keeps its identity, so
    filling it is no change of a mechanism (``check_mechanism``'s purity snapshots).
    """

    __slots__ = ("view", "maxsize", "_memo", "_last")

    def __init__(self, view: type[_View] = _View, maxsize: int = 64) -> None:
        self.view = view
        self.maxsize = maxsize
        self._memo: dict[frozenset, _View] = {}
        self._last: _View | None = None

    def __call__(self, state: State) -> _View:
        elements = state.elements
        memo = self._memo
        view = memo.get(elements)
        if view is None:
            last = self._last
            if last is not None:
                added, removed = elements - last.elements, last.elements - elements
                if len(added) + len(removed) <= 8:
                    view = last.derive(elements, added, removed)
            if view is None:
                view = self.view.build(elements)
            if len(memo) >= self.maxsize:
                memo.clear()
            memo[elements] = view
        self._last = view
        return view


class _Tally:
    """Σ over ω of a per-element cost, carried from the previous ω by the elements that changed (kept out of purity snapshots)."""

    __slots__ = ("_elements", "_total")

    def __init__(self) -> None:
        self._elements: frozenset = frozenset()
        self._total = 0

    def __call__(self, elements: frozenset, cost: Callable[[Element], Any]) -> Any:
        last = self._elements
        if elements is last:
            return self._total
        added, removed = elements - last, last - elements
        if len(added) + len(removed) < len(elements):
            total = self._total + sum(map(cost, added)) - sum(map(cost, removed))
        else:
            total = sum(map(cost, elements))
        self._elements, self._total = elements, total
        return total


def _shrink(space: StateSpace, element: Element, room: float) -> Element | None:
    """The element with its text cut (ending in "…") so that μ ≤ room, or ``None`` if even "…" does not fit."""
    if space.measure(element) <= room:
        return element
    text = element.text
    lo, hi = 1, max(1, count_tokens(text) - 1)
    best: Element | None = None
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = Element(truncate_to_tokens(text, mid) or _ELLIPSIS, element.meta.set(truncated=True))
        if space.measure(candidate) <= room:
            best, lo = candidate, mid + 1
        else:
            hi = mid - 1
    if best is None:
        candidate = Element(_ELLIPSIS, element.meta.set(truncated=True))
        if space.measure(candidate) <= room:
            best = candidate
    return best


def _check_budget(name: str, value: Any, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1{' or None' if allow_none else ''}, got {value!r}")
    return value


def _range_label(x: int, y: int) -> str:
    return f"step {x}" if x == y else f"steps {x}–{y}"
