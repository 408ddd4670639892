"""Token counts without the wait: long texts encoded in segments, the counts of recent strings cached.

A speed-up of μ = tokens (:func:`stmviz.sizes.tokens`), not part of the paper: the plain
definition is ``len(encoding.encode_ordinary(text))``. :class:`TokenCounter` gives the same
count (``tests/test_fast.py`` holds them equal), but

- remembers the counts of recent strings (a bounded cache): a mechanism measures the same
  text again and again (μ per element, |π(ω)| per step);
- encodes a text longer than :data:`SEGMENT` characters piece by piece (:func:`segments`):
  tiktoken's BPE takes a time that grows faster than the length of one pre-token, and a
  10 MB run of letters took minutes.

Standard library only: the tiktoken encoding is handed in by :mod:`stmviz.core.sizes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

__all__ = ["SEGMENT", "REACH", "TokenCounter", "segments"]

#: A text longer than this many characters is encoded in segments of about this length (see :func:`segments`).
SEGMENT = 1 << 14
#: How far past a segment's length a safe cut is looked for before a segment is cut by position.
REACH = 1 << 16
#: Where a segment may end without changing a token: before a space that follows a non-space
#: character, or after a newline that a non-space character follows. No pre-token of tiktoken's
#: encodings (r50k, p50k, cl100k, o200k) spans such a place: a pre-token holds a space only as its
#: first character or among whitespace alone, and a newline only among whitespace or at the end of
#: a run of punctuation.
_SAFE_CUT = re.compile(r"(?<=\S) |(?<=\n)(?=\S)")


def segments(text: str, size: int = SEGMENT, reach: int = REACH) -> Iterator[str]:
    """``text`` in consecutive pieces of about ``size`` characters, cut where no token spans the cut.

    A piece ends at the first safe cut (:data:`_SAFE_CUT`) at least ``size``
    characters after its start; the pieces' tokens are then exactly the text's.
    Only where no safe cut comes within ``reach`` characters after that (a giant
    "word") is the piece cut by position, and its tokens may differ from
    tiktoken's at the cut, by a token or so. So every text without ``reach``
    characters in a row free of safe cuts — prose, code, data, even a 60 KB
    base64 line — gets exactly tiktoken's tokens.

    >>> list(segments("one two three four", size=5))
    ['one two', ' three', ' four']
    >>> [len(p) for p in segments("x" * 20, size=4, reach=2)]
    [4, 4, 4, 4, 4]
    """
    start, n = 0, len(text)
    free = 0  # text[:free] was searched already and holds no safe cut past the last cut
    while n - start > size:
        target = start + size
        found = _safe_cut(text, max(target, free), target + reach)
        if found is not None:
            cut = found
        elif n <= target + reach:  # no safe cut before the end, which is within reach: one last piece
            break
        else:  # no safe cut within reach: cut by position, keeping a surrogate pair together
            free = target + reach
            cut = target + 1 if "\ud800" <= text[target - 1] <= "\udbff" else target
        yield text[start:cut]
        start = cut
    yield text[start:]


def _safe_cut(text: str, lo: int, hi: int) -> int | None:
    """The first safe cut p with lo ≤ p < hi, if any (a stretch without a space or newline is skipped at C speed)."""
    space = text.find(" ", lo, hi)
    newline = text.find("\n", max(lo - 1, 0), hi)
    if space == -1 and newline == -1:
        return None
    first = min(i for i in (space, newline) if i != -1)
    found = _SAFE_CUT.search(text, max(lo, first), hi)
    return found.start() if found is not None else None


class TokenCounter:
    """Counts and encodes strings with one tiktoken encoding, caching the counts of recent strings.

    ``count(text)`` equals ``len(encoding.encode_ordinary(text))`` (special tokens counted
    as text) for every text without :data:`REACH` characters in a row free of safe cuts;
    ``count.cache_clear()`` starts the cache afresh.
    """

    def __init__(self, encoding: str, loaded: Any) -> None:
        self.encoding_name = encoding
        self.encoding = loaded  # the tiktoken Encoding that stmviz.core.sizes.get_encoding loaded
        core = getattr(self.encoding, "_core_bpe", None)
        fast = getattr(core, "encode_ordinary", None)
        encode = self.encoding.encode_ordinary
        if fast is None:  # pragma: no cover - a tiktoken without the Rust core object
            one: Callable[[str], list[int]] = encode
        else:

            def one(text: str) -> list[int]:
                # Encoding.encode_ordinary's own body, without its Python frame: the count is the hot path
                try:
                    return fast(text)
                except UnicodeEncodeError:  # lone surrogates: tiktoken's wrapper repairs them the same way
                    return encode(text)

        self._one = one

        @lru_cache(maxsize=1 << 16)
        def count(text: str) -> int:
            if len(text) <= SEGMENT:
                return len(one(text))
            return sum(map(len, map(one, segments(text))))

        self.count = count

    def encode(self, text: str, limit: int | None = None) -> list[int]:
        """The tokens of ``text`` that :attr:`count` counts; with ``limit``, only the first ≥ ``limit`` of them."""
        if len(text) <= SEGMENT:
            return self._one(text)
        ids: list[int] = []
        for piece in segments(text):
            ids.extend(self._one(piece))
            if limit is not None and len(ids) >= limit:
                break
        return ids
