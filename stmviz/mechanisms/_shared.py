"""Helpers shared by the summarizing mechanisms (HiAgent, AgentFold): caches kept out of purity snapshots, cutting to fit."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ..core.element import Element
from ..core.errors import InvalidOperationError, shorten
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
    """A bounded memo for derived values (token counts, embeddings, groupings), kept out of purity snapshots.

    When full it starts afresh: cheaper per lookup than an exact LRU, and values are pure functions of their keys.
    """

    __slots__ = ("maxsize", "_data")

    def __init__(self, maxsize: int = 8192) -> None:
        self.maxsize = maxsize
        self._data: dict[Any, Any] = {}

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        data = self._data
        try:
            return data[key]
        except KeyError:
            pass
        value = make()
        if len(data) >= self.maxsize:
            data.clear()
        data[key] = value
        return value


_KINDS = _Cache(256)


def _by_type(state: State) -> dict[str, list[Element]]:
    """The elements of ω grouped by ``type``, each group in canonical order (cached per state)."""

    def group() -> dict[str, list[Element]]:
        groups: dict[str, list[Element]] = {}
        for e in state.ordered():
            groups.setdefault(e.type, []).append(e)
        return groups

    return _KINDS.get(state.elements, group)


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
