"""A summarizer a user plugs into a mechanism: its type, the check of what it returns, and its memo.

Where an original system calls a model to summarize (SCM, HiAgent, AgentFold,
the practitioners' managers), stmviz calls ``summarize(texts, budget) -> str``:
the offline :func:`~stmviz.text.summarize` by default, or any callable a user
passes. :func:`cached_summarizer` checks each answer and remembers it per
(texts, budget), so a deterministic summarizer keeps U pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._fast.memo import Memo
from ..core import guards
from .fit import ELLIPSIS
from .summarize import summarize as default_summarize
from .summarize import truncate_to_tokens

__all__ = ["Summarizer", "cached_summarizer", "pluggable_summarizer"]

#: ``summarize(texts, budget) -> str``: what a mechanism calls where its original calls a model.
Summarizer = Callable[[Sequence[str], int], str]


def cached_summarizer(summarize: Summarizer, maxsize: int = 4096, *, one_line: bool = True) -> Summarizer:
    """``summarize(texts, budget)``, checked and memoized per (texts, budget).

    With ``one_line=True`` (the paper's mechanisms: SCM, HiAgent and AgentFold
    put each summary on one line of their prompt) the result's whitespace is
    collapsed to single spaces; with ``one_line=False`` (the practitioners'
    managers, whose originals pass the model's summary on as it wrote it) the
    result is kept as written. A blank summary falls back to the texts cut to
    the budget (or "…"). For a deterministic summarizer a cached answer
    equals a fresh one, so U stays pure.
    """
    checked = guards.function(summarize, "summarize", "(texts, budget) -> str", none_ok=False, returns=str)
    memo = Memo(guards.whole_number(maxsize, "maxsize", 1, where="cached_summarizer"))
    guards.flag(one_line, "one_line")

    def compute(key: tuple[tuple[str, ...], int]) -> str:
        texts, budget = key
        result = checked(list(texts), budget)
        written = " ".join(result.split()) if one_line else (result if result.strip() else "")
        return written or truncate_to_tokens(" ".join(" ".join(texts).split()), budget) or ELLIPSIS

    def summarize_cached(texts: Sequence[str], budget: int) -> str:
        return memo.lookup((tuple(texts), budget), compute)

    return summarize_cached


def pluggable_summarizer(summarize: Summarizer | None) -> tuple[Summarizer, Summarizer]:
    """The summarizer a manager calls where its original calls a model: (as given or the offline default, memoized).

    ``summarize(texts, budget) -> str``, checked; default :func:`stmviz.text.summarize`. A given
    summarizer's text is kept as written, line breaks included (the managers' originals pass the model's
    text on unchanged); the offline default's is one line, as that stand-in writes it.
    """
    guards.function(summarize, "summarize", "(texts, budget) -> str")
    chosen = summarize or default_summarize
    return chosen, cached_summarizer(chosen, one_line=summarize is None)
