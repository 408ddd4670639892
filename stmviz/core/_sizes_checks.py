"""The checks of :mod:`stmviz.core.sizes`: what the size functions μ refuse, and a μ named by a string.

Functions called where μ is built or measures (Definition 1: μ : E → ℝ⁺ is any size
function; these say what stmviz's own refuse). It imports nothing from
:mod:`stmviz.core.sizes`, which imports it.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidArgumentError
from .formatting import shorten
from .guards import LARGEST, as_int, brief, is_finite


def check_overhead(overhead: Any) -> int:
    """The tokens ``tokens()`` adds per element: a whole number ≥ 0."""
    number = as_int(overhead)
    if number is None or not 0 <= number <= LARGEST:
        raise InvalidArgumentError(f"overhead must be a whole number ≥ 0 of tokens, got {brief(overhead)}")
    return number


def check_image_size(width: Any, height: Any, detail: Any) -> None:
    """Refuse an image size that is not a positive whole number of pixels, or a detail other than low, high, auto."""
    for name, v in (("width", width), ("height", height)):
        number = as_int(v)
        if number is None or number <= 0 or not is_finite(number):
            raise InvalidArgumentError(f"image {name} must be a positive whole number of pixels, got {brief(v)}")
    if detail not in ("low", "high", "auto"):
        raise InvalidArgumentError(f"image detail must be 'low', 'high' or 'auto', got {detail!r}")


def text_only(element: Any, what: str) -> str:
    """The text of an element whose content holds text only; one with image or audio parts is refused."""
    content = element.content
    if isinstance(content, str):
        return content
    if isinstance(content, tuple) and all(isinstance(p, str) for p in content):
        return " ".join(content)
    raise InvalidArgumentError(
        f"{what} measures text, but {element.label()} has a {type(content).__name__} content "
        f"with non-text parts; use stmviz.sizes.tokens(), which sizes images by image_tokens()"
    )


def not_a_size(size: Any) -> InvalidArgumentError:
    """The error for a μ that is neither a callable nor the name of one of stmviz's."""
    if isinstance(size, str):
        return InvalidArgumentError(
            f"unknown size function {size!r}; use 'tokens', 'chars', 'words', "
            f"'tokens:<encoding>', or any callable Element -> number"
        )
    return InvalidArgumentError(
        f"μ must be a callable Element -> positive number (or 'tokens', 'chars', 'words'), "
        f"got {type(size).__name__} {shorten(repr(size))}"
    )
