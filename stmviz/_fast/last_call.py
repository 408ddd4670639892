"""The result of the last call per context: the FIFO window's controller and U build a step's messages once.

A speed-up, not part of the paper: the value kept for a context equals the
value computed afresh (the computation is a pure function of the context),
which ``tests/test_fast.py`` checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LastCall"]


class LastCall:
    """``compute(context)`` for the last context asked about, kept until another context comes (never changes a result).

    One object for the mechanism's life (its identity never changes), so a
    purity check sees the mechanism unchanged. The context and its result are
    one pair, written whole, so threads sharing the mechanism never read one
    run's context with another run's result.

    >>> last, calls = LastCall(), []
    >>> context = object()
    >>> last(context, lambda c: calls.append(c) or len(calls)), last(context, lambda c: calls.append(c) or len(calls))
    (1, 1)
    """

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Any, Any] | None = None

    def __call__(self, context: Any, compute: Callable[[Any], Any]) -> Any:
        last = self.last  # one read of the pair: another thread may replace it
        if last is not None and last[0] is context:
            return last[1]
        result = compute(context)
        self.last = (context, result)
        return result

    def __repr__(self) -> str:
        return "LastCall()"
