"""What the size functions of :mod:`stmviz.core.sizes` refuse, and how a μ given by name is found.

Not the paper: μ : E → ℝ⁺ is any size function (Definition 1). stmviz checks the
arguments of its own: an image's size and detail (:func:`check_image_size`), a content
that ``chars`` and ``words`` cannot measure because it holds images or audio
(:func:`text_only`), and a μ named by a string such as ``"tokens"`` (:func:`resolved`).
A reader of Definition 1 can skip this module. It imports nothing from
:mod:`stmviz.core.sizes` (which imports it): the sizes module passes its functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .errors import InvalidArgumentError
from .formatting import shorten
from .guards import as_int, brief, is_finite


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


def resolved(size: Any, tokens: Callable[..., Any], named: Mapping[str, Any]) -> Any:
    """The μ that ``size`` names: ``"tokens"``, ``"tokens:<encoding>"``, a name in ``named``, or a callable."""
    if isinstance(size, str):
        if size == "tokens":
            return tokens()
        if size in named:
            return named[size]
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
