"""The checks of :mod:`stmviz.core.element`: what an element refuses, and the values a trace file gives back equal.

Functions called where an element, its metadata or one of its parts is built (Definition 1
puts no condition on i or d; these say what stmviz refuses, and why). They check plain
values — numbers, texts, tuples, mappings — and know no class of
:mod:`stmviz.core.element`, which imports this module and tells its own kinds apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .errors import InvalidArgumentError
from .formatting import shorten
from .guards import brief

#: How deeply metadata values may nest (a list in a dict in a list …): far more than any real record needs.
MAX_NESTING = 64
#: The largest whole number an element's metadata may hold, in absolute value: 2**53 − 1, the largest
#: integer every JSON reader (JavaScript's, in an exported page, too) reads back exactly, and a float
#: holds exactly, so figures can place it.
MAX_SAFE_INT = 2**53 - 1
#: The largest width or height of an :class:`~stmviz.core.element.ImagePart`, in pixels.
MAX_PIXELS = 1_000_000


def component_name(key: Any) -> str:
    """The name of a component D_i of d: a str (a str subclass, such as an enum member, as its plain text)."""
    if not isinstance(key, str):
        raise InvalidArgumentError(
            f"metadata key {brief(key)} is a {type(key).__name__}; the components D_i of "
            f"d are named by strings: use str({brief(key)}) or a descriptive name"
        )
    return str.__str__(key)  # its plain text, as JSON gives it back


def not_a_mapping(value: Any, meta: bool = False) -> InvalidArgumentError:
    """The error for metadata d (``meta=``, or the components given to Meta) that is not a mapping."""
    if meta:
        return InvalidArgumentError(f"meta d must be a mapping (e.g. a dict), got {type(value).__name__} {brief(value)}; pass meta={{'t': 0}}")
    return InvalidArgumentError(
        f"metadata d must be a mapping of component names to values, got {type(value).__name__}; "
        f"pass e.g. meta={{'t': 0, 'source': 'user'}}"
    )


def too_deep(where: str) -> InvalidArgumentError:
    """The error for a metadata value nested more than :data:`MAX_NESTING` levels deep."""
    return InvalidArgumentError(
        f"{shorten(where, 60)} is nested more than {MAX_NESTING} levels deep (a list or dict that holds "
        f"itself nests forever); metadata is a flat record of components: flatten it, or store the deep "
        f"structure as text"
    )


def not_freezable(where: str, value: Any) -> InvalidArgumentError:
    """The error for a metadata value of a kind that cannot be frozen."""
    return InvalidArgumentError(
        f"{where} = {brief(value)} is a {type(value).__name__}, which cannot be frozen; "
        f"use strings, numbers, booleans, None, lists/tuples or dicts of them"
    )


def not_a_content(content: Any, part: int | None = None) -> InvalidArgumentError:
    """The error for a content i (or its part number ``part``) that is neither text nor an image or audio part."""
    if part is not None:
        return InvalidArgumentError(
            f"content part {part} is a {type(content).__name__}; a multimodal content i is a tuple of str, ImagePart and AudioPart"
        )
    if isinstance(content, (list, tuple)):
        return InvalidArgumentError("content i is an empty sequence of parts; give at least one text, ImagePart or AudioPart")
    return InvalidArgumentError(
        f"content i = {brief(content)} is a {type(content).__name__}; I holds text (str), "
        f"ImagePart, AudioPart, or a tuple of them: convert it, e.g. Element(str(value))"
    )


def check_image(part: Any) -> None:
    """Refuse an ImagePart without a reference, with a size out of 1 … :data:`MAX_PIXELS`, or an unknown detail."""
    if not isinstance(part.ref, str) or not part.ref:
        raise InvalidArgumentError(f"ImagePart.ref must be a non-empty string, got {part.ref!r}")
    for name in ("width", "height"):
        v = getattr(part, name)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_PIXELS:
            raise InvalidArgumentError(
                f"ImagePart.{name} must be a whole number of pixels from 1 to {MAX_PIXELS:,}, got {brief(v)}"
            )
        object.__setattr__(part, name, int(v))
    if part.detail not in ("auto", "low", "high"):
        raise InvalidArgumentError(f"ImagePart.detail must be 'auto', 'low' or 'high', got {part.detail!r}")


def check_audio(part: Any) -> None:
    """Refuse an AudioPart without a reference or a positive finite duration; store the duration as a float."""
    if not isinstance(part.ref, str) or not part.ref:
        raise InvalidArgumentError(f"AudioPart.ref must be a non-empty string, got {part.ref!r}")
    s = part.seconds
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not _finite(s) or s <= 0:
        raise InvalidArgumentError(f"AudioPart.seconds must be a positive finite number, got {brief(s)}")
    object.__setattr__(part, "seconds", float(s))  # 2 and 2.0 are the same duration: one form, one id


def check_time(t: Any) -> None:
    """Refuse a time ``meta['t']`` that is not a finite number a trace file holds exactly (it orders the state)."""
    if type(t) not in (int, float) or not _finite(t) or (type(t) is int and abs(t) > MAX_SAFE_INT):
        shown = f"a whole number of {t.bit_length()} bits" if type(t) is int else _shown(t)
        raise InvalidArgumentError(
            f"meta['t'] = {shown}: the time t of an element orders the state, so it must be a finite "
            f"number (an int or a float); use e.g. the step index, or leave 't' out"
        )


def first_unsaveable(value: Any, where: str, depth: int) -> tuple[str, Any, str] | None:
    """The first value in a frozen metadata value that a trace's JSON would not give back equal: (where, value, why).

    Texts, booleans, ``None``, whole numbers within ±(2**53 − 1), finite floats, and tuples
    and mappings of them (at most :data:`MAX_NESTING` levels deep) come back equal;
    ``None`` if all of ``value`` does. A value of another kind is returned with a general
    reason, which the element module makes precise for its own kinds.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return None
    if kind is int or kind is float:
        why = _unsaveable_number(value, where)
        return None if why is None else (where, value, why)
    if depth >= MAX_NESTING:
        return (where, value, f"{where} is nested more than {MAX_NESTING} levels deep; flatten it, or store the structure as text")
    if kind is tuple:
        if value and not _json_safe_numbers(value):
            for i, item in enumerate(value):
                found = first_unsaveable(item, f"{where}[{i}]", depth + 1)
                if found is not None:
                    return found
        return None
    if kind is dict or isinstance(value, Mapping):  # every element's d passes here, as a dict: a plain loop
        for key, item in value.items():
            found = first_unsaveable(item, f"{where}[{key!r}]", depth + 1)
            if found is not None:
                return found
        return None
    if kind is frozenset:
        return (where, value, f"{where} is a set; a set has no order, so a trace file cannot give it back as a set: use a sorted list")
    return (where, value, f"{where} is a {kind.__name__}, which a trace file cannot hold")


def _unsaveable_number(value: int | float, where: str) -> str | None:
    """Why a number would not come back exactly from JSON: a whole number beyond ±(2**53 − 1), NaN or an infinity."""
    if type(value) is int:
        if -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            return None
        return (
            f"{where} is a whole number of {value.bit_length()} bits, beyond ±(2**53 − 1), the whole numbers JSON "
            f"readers and figures hold exactly; store it as text: str(value)"
        )
    if math.isfinite(value):
        return None
    return (
        f"{where} = {value!r}: NaN and infinities are not JSON, and NaN is not even equal to itself (two copies "
        f"of one element would differ); use None, or a finite number"
    )


def _json_safe_numbers(values: tuple[Any, ...]) -> bool:
    """Whether a tuple is a vector of finite, JSON-safe numbers (an embedding), checked in C by fsum, min and max."""
    try:  # fsum refuses text and containers, and is NaN or inf if a float among them is
        return math.isfinite(math.fsum(values)) and -MAX_SAFE_INT <= min(values) and max(values) <= MAX_SAFE_INT
    except (TypeError, OverflowError, ValueError):
        return False


def _finite(x: int | float) -> bool:
    """Whether a real number is finite as a float (a whole number beyond the float range is not)."""
    if type(x) is int:
        return -_FLOAT_MAX <= x <= _FLOAT_MAX
    return math.isfinite(x)


_FLOAT_MAX = 1.7976931348623157e308


def _shown(value: Any) -> str:
    """A short repr of a value for a message, even of one that holds a number too long for ``repr``."""
    try:
        return brief(value)
    except ValueError:
        return f"a {type(value).__name__} holding a number too long to show"
