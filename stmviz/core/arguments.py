"""Checks of the arguments of public functions, with the errors the README promises.

Every public entry point checks its arguments at the top, before it reads
them, so that a wrong value gives an :class:`~stmviz.InvalidArgumentError`
(or, for a time index t, an :class:`~stmviz.InvalidIndexError`) saying what was
wrong, the value, and the fix — never a ``TypeError`` from deep inside, or a
figure that fails later. The checks only read a value's type, so they also
hold for objects whose ``str``, ``==``, ``hash`` or ``len`` raise:
:func:`describe` shows a value without trusting its ``repr``.

>>> whole_number(3, "loop_figure", "t")
3
>>> whole_number(1.5, "loop_figure", "t")
Traceback (most recent call last):
...
stmviz.core.errors.InvalidArgumentError: loop_figure: t must be a whole number, got 1.5
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .errors import IndexTypeError, InvalidArgumentError, InvalidIndexError
from .formatting import shorten

if TYPE_CHECKING:  # pragma: no cover
    from .trace import Trace

__all__ = [
    "IndexTypeError",
    "describe",
    "whole_number",
    "optional_whole_number",
    "flag",
    "optional_flag",
    "optional_text",
    "items",
    "time_index",
    "integer_value",
]


def describe(value: object, width: int = 60) -> str:
    """``repr(value)`` on one line, shortened to ``width`` characters; a value whose repr raises is named by its type.

    >>> describe("a" * 100, 12)
    "'aaaaaaaaaa…"
    """
    try:
        shown = repr(value)
    except Exception:
        return f"a {type(value).__name__} (its repr fails)"
    return shorten(shown, width)


def integer_value(value: object) -> int | None:
    """``value`` as an int if it is a whole number (int, numpy integer; not bool, not float), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (float, complex, str, bytes)) or not hasattr(type(value), "__index__"):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]  # a numpy integer
    except Exception:
        return None


def whole_number(value: object, where: str, name: str, *, minimum: int | None = None,
                 maximum: int | None = None, fix: str = "") -> int:
    """``value`` as an int, if it is a whole number (not a bool) in ``minimum`` … ``maximum``."""
    number = integer_value(value)
    bounds = ""
    if minimum is not None and maximum is not None:
        bounds = f" from {minimum} to {maximum}"
    elif minimum is not None:
        bounds = f" ≥ {minimum}"
    elif maximum is not None:
        bounds = f" ≤ {maximum}"
    if number is None or (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise InvalidArgumentError(f"{where}: {name} must be a whole number{bounds}, got {describe(value)}{fix}")
    return number


def optional_whole_number(value: object, where: str, name: str, *, minimum: int | None = None,
                          maximum: int | None = None, fix: str = "") -> int | None:
    """None, or a whole number as :func:`whole_number` checks it."""
    if value is None:
        return None
    return whole_number(value, where, name, minimum=minimum, maximum=maximum,
                        fix=fix or "; or pass None for the default")


def flag(value: object, where: str, name: str) -> bool:
    """``value`` if it is True or False (not 0, 1, "yes" or an array)."""
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"{where}: {name} must be True or False, got {describe(value)}")
    return value


def optional_flag(value: object, where: str, name: str) -> bool | None:
    """None (the default), True or False."""
    if value is not None and not isinstance(value, bool):
        raise InvalidArgumentError(f"{where}: {name} must be True, False or None (the default), got {describe(value)}")
    return value


def optional_text(value: object, where: str, name: str) -> str | None:
    """None or a str."""
    if value is not None and not isinstance(value, str):
        raise InvalidArgumentError(f"{where}: {name} must be a str or None, got {describe(value)}")
    return value


def items(value: object, where: str, name: str, *, what: str = "items") -> list[Any]:
    """The items of an iterable (a list, a tuple, a generator...), not of a str, bytes or mapping, as a list.

    An iterable that fails while it is read (a broken generator, an object whose
    ``__iter__`` raises) is reported as such, with the error it raised.
    """
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise InvalidArgumentError(
            f"{where}: {name} must be a list (or another iterable) of {what}, got {describe(value)}"
        )
    try:
        return list(value)
    except Exception as exc:
        raise InvalidArgumentError(
            f"{where}: {name} could not be read: iterating it raised {type(exc).__name__}; pass a list of {what}"
        ) from exc


def time_index(trace: "Trace", t: object, where: str = "trace", *, states: bool = True) -> int:
    """A time index t of ``trace`` checked as every figure checks it, as a non-negative int.

    t names a state ω_t (``states=True``: 0 ≤ t ≤ n) or a step (0 ≤ t < n);
    negative t counts from the end, as for lists. Anything else raises
    :class:`~stmviz.InvalidIndexError`: a t out of range, and a t that is not a
    whole number (an :class:`IndexTypeError`: ``1.5``, ``True``, ``"2"``).
    A numpy integer is a whole number.
    """
    number = integer_value(t)
    if number is None:
        last = len(trace) if states else len(trace) - 1
        raise IndexTypeError(
            f"{where}: t must be a whole number (an int) naming "
            f"{'a state ω_t' if states else 'a step'}, got {describe(t)}; pass t = 0 … {max(last, 0)}"
        )
    return trace.resolve_t(number, states=states, where=where)
