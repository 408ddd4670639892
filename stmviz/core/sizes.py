"""Size functions μ : E → ℝ⁺ (Definition 1).

The paper: μ : E → ℝ⁺ is the size function of an element, e.g. its token count,
and the capacity V_max bounds Σ_{e ∈ ω} μ(e). μ exists because elements differ in
size and modality; it lets one store mix modalities. stmviz ships :func:`tokens`
(tiktoken's count of the text, images by :func:`image_tokens`, audio by
:func:`audio_tokens`), :data:`chars` and :data:`words`. Any callable
``Element -> number`` is a valid μ too; :class:`~stmviz.StateSpace` checks what it
returns.

Counting tokens is tiktoken's job, done offline by :mod:`stmviz.core.tokenizer` (its
``count_tokens``, ``encode_tokens``, ``get_encoding`` and ``available_encodings`` are named
here too); what μ refuses is checked by :mod:`._sizes_checks`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._sizes_checks import check_image_size, check_overhead, not_a_size, text_only
from .element import AudioPart, Element, ImagePart
from .errors import InvalidArgumentError
from .tokenizer import available_encodings, count_tokens, encode_tokens, encoding_name, get_encoding, token_counter

__all__ = [
    "SizeFunction", "tokens", "chars", "words", "image_tokens", "audio_tokens",
    "get_encoding", "available_encodings", "count_tokens", "encode_tokens", "part_tokens",
]


class SizeFunction:
    """A named size function μ : E → ℝ⁺: calling it on e gives μ(e); ``name`` identifies it in traces."""

    __slots__ = ("name", "_func", "encoding")

    def __init__(self, name: str, func: Callable[[Element], float], encoding: str | None = None) -> None:
        self.name = name
        self._func = func
        self.encoding = encoding

    def __call__(self, element: Element) -> float:
        return self._func(element)

    @property
    def counts_tokens(self) -> bool:
        """Whether μ counts tokens of a tiktoken encoding (``encoding`` names it)."""
        return self.encoding is not None

    def __repr__(self) -> str:
        return f"<μ {self.name}>"


def tokens(encoding: str = "cl100k_base", overhead: int = 0) -> SizeFunction:
    """μ(e) = the tiktoken tokens of e's content (parts by their formulas), plus ``overhead`` per element.

    ``overhead`` is e.g. the ~4 tokens a chat API spends on each message's role; it keeps μ > 0 for empty texts.

    >>> mu = tokens()
    >>> mu(Element("hello world")), mu(Element(("Look:", ImagePart("cat.png", 512, 512))))
    (2, 257)
    """
    overhead = check_overhead(overhead)
    count = token_counter(encoding).count

    def mu(element: Element) -> int:
        return content_tokens(element.content, count) + overhead

    name = f"tokens({encoding!r})" if not overhead else f"tokens({encoding!r}, overhead={overhead})"
    return SizeFunction(name, mu, encoding=encoding)


def image_tokens(width: int, height: int, detail: str = "auto") -> int:
    """μ of an image, by OpenAI's published tile formula: 85 tokens, plus 170 per 512 px tile unless ``detail="low"``.

    The image is first scaled to fit 2048 × 2048, then so that its shortest side is 768 px (never up).

    >>> image_tokens(1024, 1024), image_tokens(2048, 4096), image_tokens(4096, 8192, detail="low")
    (765, 1105, 85)
    """
    check_image_size(width, height, detail)
    if detail == "low":
        return 85
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
    """μ of an audio input at a fixed rate (default 10 tokens per second, rounded up)."""
    return max(1, math.ceil(seconds * per_second))


def content_tokens(content: Any, count: Callable[[str], int]) -> int:
    """The tokens of a content i: a text by ``count``, an image or audio part by its formula, a tuple part by part."""
    if isinstance(content, str):
        return count(content)
    if isinstance(content, tuple):
        return sum(part_tokens(p, count) for p in content)
    return part_tokens(content, count)


def part_tokens(part: Any, count: Callable[[str], int]) -> int:
    """The tokens of one part of a content i: text by ``count``, images and audio by their formulas."""
    if isinstance(part, str):
        return count(part)
    if isinstance(part, ImagePart):
        return image_tokens(part.width, part.height, part.detail)
    if isinstance(part, AudioPart):
        return audio_tokens(part.seconds)
    raise InvalidArgumentError(f"tokens() cannot measure a part of type {type(part).__name__}")


def _chars(element: Element) -> int:
    return len(text_only(element, "chars"))


def _words(element: Element) -> int:
    return len(text_only(element, "words").split())


#: μ(e) = the number of characters of e's text.
chars = SizeFunction("chars", _chars)
#: μ(e) = the number of whitespace-separated words of e's text.
words = SizeFunction("words", _words)


def resolve(size: Any) -> Callable[[Element], float]:
    """Turn ``"tokens"``, ``"chars"``, ``"words"``, ``"tokens:<encoding>"`` or a callable into a size function μ."""
    if isinstance(size, str):
        if size == "tokens":
            return tokens()
        if size in ("chars", "words"):
            return chars if size == "chars" else words
        if size.startswith("tokens:"):
            return tokens(size.split(":", 1)[1])
    elif callable(size):
        return size
    raise not_a_size(size)


def size_name(size: Callable[..., Any]) -> str:
    """A readable name of a size function, for traces and reprs."""
    if isinstance(size, SizeFunction):
        return size.name
    return getattr(size, "__qualname__", None) or getattr(size, "__name__", None) or repr(size)
