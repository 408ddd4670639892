"""Checks of constructor parameters shared by the mechanisms and the text helpers.

Each check returns the value (normalized where it says so) or raises
:class:`~stmviz.errors.InvalidArgumentError` naming the parameter, the value
given (shortened) and what to pass instead. A bool is never a number here,
although Python counts ``True`` as 1: ``k=True`` is a slip, not a choice.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.errors import EncodingUnavailableError, InvalidArgumentError
from ..core.formatting import shorten

__all__ = [
    "check_whole",
    "check_real",
    "check_callable",
    "check_choice",
    "check_text",
    "check_encoding",
    "check_prompt",
]

#: the largest whole number a count or budget may be: any larger one is a slip, and breaks slicing
LARGEST = sys.maxsize


def _got(value: Any) -> str:
    return f"{type(value).__name__} {shorten(repr(value), 60)}"


def check_whole(name: str, value: Any, minimum: int, *, allow_none: bool = False, maximum: int = LARGEST) -> Any:
    """``value``, if it is a whole number in [minimum, maximum] (or ``None`` when allowed).

    >>> check_whole("k", 3, 0)
    3
    >>> check_whole("k", True, 0)
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: k must be a whole number ≥ 0, got bool True; pass an int such as 3
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        bound = f"≥ {minimum}" if maximum == LARGEST else f"in {minimum} … {maximum}"
        if isinstance(value, int) and not isinstance(value, bool) and value > maximum:
            bound = f"{minimum} ≤ {name} ≤ {maximum}"
        raise InvalidArgumentError(
            f"{name} must be a whole number {bound}{' or None' if allow_none else ''}, got {_got(value)}; "
            f"pass an int such as {max(minimum, min(3, maximum))}"
        )
    return value


def check_real(
    name: str, value: Any, low: float, high: float = math.inf, *, low_open: bool = False, high_open: bool = False
) -> float:
    """``float(value)``, if it is a finite real number in the interval; not a bool, not NaN, not ±∞.

    >>> check_real("share", 0.5, 0, 1, low_open=True)
    0.5
    """
    if high == math.inf:
        wanted = f"a finite number {'>' if low_open else '≥'} {low:g}"
    else:
        wanted = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    number = None
    if not isinstance(value, bool) and isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float
            number = None
    if (
        number is None
        or not math.isfinite(number)
        or (number <= low if low_open else number < low)
        or (number >= high if high_open else number > high)
    ):
        raise InvalidArgumentError(f"{name} must be {wanted}, got {_got(value)}")
    return number


def check_callable(name: str, value: Any, signature: str) -> Any:
    """``value``, if it is callable or ``None``; ``signature`` says what it is called with."""
    if value is not None and not callable(value):
        raise InvalidArgumentError(f"{name} must be a callable {signature} or None (the default), got {_got(value)}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str], explain: str = "") -> str:
    """``value``, if it is one of the string ``choices`` (listed in the message otherwise)."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        raise InvalidArgumentError(
            f"{name} must be one of {', '.join(map(repr, options))}, got {_got(value)}{': ' + explain if explain else ''}"
        )
    return value


def check_text(name: str, value: Any, example: str = "") -> str:
    """``value``, if it is a string with some non-whitespace character."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError(
            f"{name} must be a non-empty text, got {_got(value)}{'; e.g. ' + repr(example) if example else ''}"
        )
    return value


def check_encoding(name: str, value: Any) -> str:
    """``value``, if it names a tiktoken encoding (or model) that loads offline here."""
    from ..core.sizes import available_encodings, get_encoding

    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(
            f"{name} must name a tiktoken encoding, e.g. 'cl100k_base', got {_got(value)}; "
            f"available offline: {', '.join(available_encodings())}"
        )
    try:
        get_encoding(value)
    except EncodingUnavailableError as exc:
        raise EncodingUnavailableError(f"{name}: {exc}") from None
    return value


def check_prompt(name: str, value: Any, fields: Mapping[str, Any]) -> str:
    """``value``, if it is a ``str.format`` template that ``fields`` (name → a sample value) fill.

    A prompt need not use every field, but one it cannot fill (a misspelt
    ``{txt}``, a positional ``{0}``, an unclosed ``{``) would fail at the first
    model call; literal braces are written ``{{`` and ``}}``.

    >>> check_prompt("prompt", "Summarize {text} in {budget} tokens", {"text": "", "budget": 1})
    'Summarize {text} in {budget} tokens'
    """
    listed = ", ".join("{" + f + "}" for f in fields)
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError(f"{name} must be a non-empty prompt text that may use {listed}, got {_got(value)}")
    try:
        value.format(**fields)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
        raise InvalidArgumentError(
            f"{name} is not a prompt template stmviz can fill ({type(exc).__name__}: {shorten(str(exc), 60)}): "
            f"it may use {listed}; write literal braces as {{{{ and }}}}"
        ) from None
    return value
