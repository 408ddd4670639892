"""The checks of an element e = (i, d): what :class:`~stmviz.core.element.Element` refuses, and why.

Not the paper: Definition 1 puts no condition on i or d. stmviz checks the parts of a
content i (:func:`checked_content`, :func:`check_image`, :func:`check_audio`) and promises
that every element it accepts comes back equal from a trace file (JSON), so
``Element(i, d)`` calls :func:`check_saveable` once per new metadata value:

- ``meta['t']`` must be a finite number (it orders the state);
- NaN and infinities are refused anywhere (not JSON; NaN is not equal to itself);
- whole numbers beyond ±(2**53 − 1) (:data:`MAX_SAFE_INT`: what every JSON reader, and a
  float in a figure, holds exactly) are refused;
- an element, an image or audio part, or a set inside d is refused (store an id, put parts
  in the content, use a sorted list);
- values nested more than :data:`MAX_NESTING` (64) levels deep, and keys that are not
  strings, are refused.

Lists and tuples are both stored as tuples (and come back as tuples); ``True`` stays a
boolean; a subclass of str, int or float (an enum member) is stored as its plain value.
Text may hold any character, lone surrogates included (they are saved as JSON escapes, see
:mod:`stmviz.io.files`); a surrogate *pair* held as two separate code points is read back,
as JSON defines, as the one character the pair encodes.

A reader of Definition 1 can skip this module. It imports nothing from
:mod:`stmviz.core.element` (which imports it): the element module passes its classes in
:class:`Kinds`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple

from .errors import InvalidArgumentError
from .guards import brief

#: How deeply metadata values may nest (a list in a dict in a list …): far more than any real record needs.
MAX_NESTING = 64
#: The largest whole number an element's metadata may hold, in absolute value: 2**53 − 1, the largest
#: integer every JSON reader (JavaScript's, in an exported page, too) reads back exactly, and a float
#: holds exactly, so figures can place it.
MAX_SAFE_INT = 2**53 - 1
#: The largest width or height of an :class:`~stmviz.core.element.ImagePart`, in pixels.
MAX_PIXELS = 1_000_000


def _finite(x: int | float) -> bool:
    """Whether a real number is finite as a float (a whole number beyond the float range is not)."""
    if type(x) is int:
        return -_FLOAT_MAX <= x <= _FLOAT_MAX
    return math.isfinite(x)


_FLOAT_MAX = 1.7976931348623157e308


class Kinds(NamedTuple):
    """The classes of :mod:`stmviz.core.element` the checks tell apart: Meta, Element, and the parts of I."""

    meta: Any  # the classes themselves, typed Any: this module cannot import them to name their type
    element: Any
    image: Any
    audio: Any

    @property
    def parts(self) -> tuple[Any, Any]:
        """The non-text parts of a content i: ImagePart and AudioPart."""
        return (self.image, self.audio)


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
        raise InvalidArgumentError(
            f"ImagePart.detail must be 'auto', 'low' or 'high', got {part.detail!r}"
        )


def check_audio(part: Any) -> None:
    """Refuse an AudioPart without a reference or a positive finite duration; store the duration as a float."""
    if not isinstance(part.ref, str) or not part.ref:
        raise InvalidArgumentError(f"AudioPart.ref must be a non-empty string, got {part.ref!r}")
    s = part.seconds
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not _finite(s) or s <= 0:
        raise InvalidArgumentError(f"AudioPart.seconds must be a positive finite number, got {brief(s)}")
    object.__setattr__(part, "seconds", float(s))  # 2 and 2.0 are the same duration: one form, one id


def checked_content(content: Any, kinds: Kinds) -> Any:
    """A content i checked: a text, a part, or a non-empty tuple of them (a str subclass becomes plain text)."""
    if isinstance(content, str):
        return str.__str__(content)  # a str subclass: its plain text, as JSON gives it back
    if isinstance(content, kinds.parts):
        return content
    if isinstance(content, (list, tuple)):
        parts = tuple(content)
        if not parts:
            raise InvalidArgumentError(
                "content i is an empty sequence of parts; give at least one text, ImagePart or AudioPart"
            )
        for k, part in enumerate(parts):
            if not isinstance(part, (str, *kinds.parts)):
                raise InvalidArgumentError(
                    f"content part {k} is a {type(part).__name__}; a multimodal content i is a tuple "
                    f"of str, ImagePart and AudioPart"
                )
        return tuple(str.__str__(p) if isinstance(p, str) else p for p in parts)
    raise InvalidArgumentError(
        f"content i = {brief(content)} is a {type(content).__name__}; I holds text (str), "
        f"ImagePart, AudioPart, or a tuple of them: convert it, e.g. Element(str(value))"
    )


def check_saveable(meta: Any, kinds: Kinds) -> None:
    """Refuse metadata d (a :class:`~stmviz.core.element.Meta`) that would not come back equal from a trace file; mark it as checked."""
    t = meta._data.get("t", _ABSENT)
    if t is not _ABSENT and (type(t) not in (int, float) or not _finite(t) or (type(t) is int and abs(t) > MAX_SAFE_INT)):
        shown = f"a whole number of {t.bit_length()} bits" if type(t) is int else _shown(t)
        raise InvalidArgumentError(
            f"meta['t'] = {shown}: the time t of an element orders the state, so it must be a finite "
            f"number (an int or a float); use e.g. the step index, or leave 't' out"
        )
    problem = _unsaveable(meta, "meta", 0, kinds)
    if problem:
        raise InvalidArgumentError(problem)
    object.__setattr__(meta, "_saveable", True)


_ABSENT = object()


def _shown(value: Any) -> str:
    """A short repr of a value for a message, even of one that holds a number too long for ``repr``."""
    try:
        return brief(value)
    except ValueError:
        return f"a {type(value).__name__} holding a number too long to show"


def _unsaveable(value: Any, where: str, depth: int, kinds: Kinds) -> str | None:
    """Why a frozen metadata value would not round-trip through a trace's JSON exactly (``None`` if it does)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return None
    if kind is int or kind is float:
        return _unsaveable_number(value, where)
    if depth >= MAX_NESTING:
        return f"{where} is nested more than {MAX_NESTING} levels deep; flatten it, or store the structure as text"
    if kind is tuple:
        if not value or _json_safe_numbers(value):
            return None
        return _first_unsaveable(((f"{where}[{i}]", item) for i, item in enumerate(value)), depth, kinds)
    if kind is kinds.meta:  # every element's d passes here: a plain loop
        for key, item in value._data.items():
            problem = _unsaveable(item, f"{where}[{key!r}]", depth + 1, kinds)
            if problem:
                return problem
        return None
    if kind is kinds.element:
        return (
            f"{where} is an element ({value.label()}); an element inside metadata cannot be saved in a trace "
            f"and ties two elements of a state together: store its id instead ({where} = e.id)"
        )
    if kind in kinds.parts:
        return f"{where} is a {kind.__name__}; images and audio belong in the content i: Element((text, part), meta)"
    if kind is frozenset:
        return f"{where} is a set; a set has no order, so a trace file cannot give it back as a set: use a sorted list"
    return f"{where} is a {kind.__name__}, which a trace file cannot hold"


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


def _first_unsaveable(items: Iterable[tuple[str, Any]], depth: int, kinds: Kinds) -> str | None:
    """The first reason one of the (where, value) items would not round-trip, or ``None``."""
    for where, item in items:
        problem = _unsaveable(item, where, depth + 1, kinds)
        if problem:
            return problem
    return None
