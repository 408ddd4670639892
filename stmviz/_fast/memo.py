"""A bounded memo: the cache behind the mechanisms' token counts, embeddings and summaries.

A speed-up, not part of the paper: a memoized value equals the value computed
afresh (the memoized functions are pure), which ``tests/test_fast.py`` checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Memo"]


class Memo:
    """A bounded memo of values that are pure functions of their keys (token counts, embeddings, summaries).

    One object for a mechanism's life: its identity never changes, so filling
    it is no change of the mechanism (``check_mechanism`` snapshots a
    mechanism's list, dict and set attributes, not this). When full it starts
    afresh: cheaper per lookup than an exact LRU, and a value recomputed
    equals the one forgotten.

    >>> memo = Memo(maxsize=2)
    >>> memo.lookup("ab", len), memo.lookup("ab", len), len(memo)
    (2, 2, 1)
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
        return self.put(key, compute(key))

    def get(self, key: Any, default: Any = None) -> Any:
        """The value kept for ``key``, else ``default``."""
        return self._data.get(key, default)

    def put(self, key: Any, value: Any) -> Any:
        """Keep ``value`` for ``key`` (forgetting everything first when full); return it."""
        data = self._data
        if len(data) >= self.maxsize:
            data.clear()
        data[key] = value
        return value

    def clear(self) -> None:
        """Forget every value."""
        self._data.clear()

    def __contains__(self, key: Any) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Memo({len(self._data)} of {self.maxsize})"
