"""Memory elements e = (i, d) ∈ E = I × D (Definition 1).

The paper: an element is a pair e = (i, d) of an information carrier i ∈ I ⊆ A*
(a finite word over an alphabet A: text, a record, image or audio codes; A covers
every modality used) and metadata d ∈ D ⊆ D_1 × … × D_k, one value per component
D_i. Metadata carries what the content does not (time, priority, source); it is
the only place where an order of elements lives.

Here i is a text, an :class:`ImagePart`, an :class:`AudioPart` or a tuple of them, and d a
:class:`Meta`, a frozen mapping of named components (``t``, ``type``, ...): elements are
immutable and hashable, so a state ω is a true set. Below the classes, beyond the paper:
how d is frozen, an element's id and canonical order, the JSON form of i. Every element
stmviz accepts comes back equal from a trace file (checked by :mod:`._element_checks`).
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Union

from . import _element_checks as _checks
from ._element_checks import MAX_NESTING, MAX_PIXELS, MAX_SAFE_INT  # re-exported: the limits of e
from .errors import FormatError, InvalidArgumentError
from .formatting import content_text, shorten
from .guards import brief

__all__ = ["Element", "ImagePart", "AudioPart", "Meta", "Content", "Part", "freeze", "thaw", "content_text", "element_id", "order_key"]


@dataclass(frozen=True)
class Element:
    """A memory element e = (i, d) ∈ E = I × D: a content i and its metadata d, frozen into a :class:`Meta`.

    Equal i and d make equal elements. A d that a trace file could not give back equal is refused.

    >>> e = Element("The user is allergic to peanuts.", {"t": 3, "priority": "high"})
    >>> e.meta["priority"], e == Element(e.content, {"priority": "high", "t": 3}), len({e, e})
    ('high', True, 1)
    """

    __slots__ = ("content", "meta", "_hash")
    content: Content
    meta: Meta
    _hash: ClassVar[int]  # a slot, not a field: the hash of (i, d), kept once e is built (benchmarks/mechanisms.py)

    def __init__(self, content: Content, meta: Mapping[str, Any] | None = None) -> None:
        content = content if type(content) is str else checked_content(content)
        frozen_meta = _NO_META if meta is None else as_meta(meta)
        if not frozen_meta._saveable:
            check_saveable(frozen_meta)  # e comes back equal from a trace file
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "meta", frozen_meta)
        object.__setattr__(self, "_hash", hash((content, frozen_meta)))

    @property
    def text(self) -> str:
        """The content i as text (non-text parts as placeholders)."""
        return content_text(self.content)

    @property
    def type(self) -> str:
        """The type of e, a component of d: ``meta['type']`` as text (``'element'`` when absent)."""
        kind = self.meta.get("type", "element")
        return kind if type(kind) is str else str(kind)

    @property
    def t(self) -> float | None:
        """The time of e, a component of d: ``meta['t']``, or ``None``."""
        value = self.meta.get("t")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def with_meta(self, **changes: Any) -> Element:
        """A new element (i, d') with some components of d changed (e itself never changes)."""
        return Element(self.content, self.meta.set(**changes))

    def with_content(self, content: Content) -> Element:
        """A new element (i', d) with the same metadata d and a new content i'."""
        return Element(content, self.meta)

    # -- beyond the paper: hash, name, text and JSON forms ------------------------
    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        meta = ", ".join(f"{k}={v!r}" for k, v in self.meta.items())
        return f"Element({brief(self.content, 48)}{', ' + meta if meta else ''})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Element, (self.content, thaw(self.meta)))

    @property
    def id(self) -> str:
        """The stable id of e: 12 hex digits of a SHA-1 of i and d (unlike ``hash``, the same in every process)."""
        return element_id(self)

    def label(self, width: int = 32) -> str:
        """A short name of e for messages: ``e#<id> '<shortened content>'``."""
        return f"e#{self.id[:8]} '{shorten(self.text, width)}'"

    def to_json(self) -> dict[str, Any]:
        """The element e as a JSON-ready dict ``{"content": ..., "meta": {...}}``."""
        return {"content": content_json(self.content), "meta": thaw(self.meta)}

    @classmethod
    def from_json(cls, data: Any, where: str = "element") -> Element:
        """The element e rebuilt from :meth:`to_json` output; a bad form is a :class:`~stmviz.errors.FormatError`."""
        if not isinstance(data, Mapping) or "content" not in data:
            raise FormatError(f"{where}: expected an object with 'content' and 'meta', got {brief(data)}")
        try:
            return cls(content_from_json(data["content"], where), data.get("meta") or {})
        except InvalidArgumentError as exc:
            raise FormatError(f"{where}: {exc}") from None


class Meta(Mapping[str, Any]):
    """One metadata value d ∈ D = D_1 × … × D_k: an immutable mapping from the names of the components D_i to values.

    Values are frozen (:func:`freeze`): lists become tuples, dicts Meta. The paper's d is a tuple of
    component values; a mapping of named components makes e = (i, d) hashable and a state a true set.

    >>> Meta({"priority": "high", "source": "user"}) == Meta(source="user", priority="high")
    True
    """

    __slots__ = ("_data", "_hash", "_saveable")
    _data: dict[str, Any]
    _hash: int | None
    _saveable: bool  # checked once by an Element holding it: every value round-trips through JSON

    def __init__(self, data: Mapping[str, Any] | None = None, /, **kwargs: Any) -> None:
        self._build(data, kwargs, "meta", 0)

    def set(self, **changes: Any) -> Meta:
        """d with some components D_i changed, as a new Meta (d itself never changes)."""
        return Meta({**self._data, **changes})

    def drop(self, *keys: str) -> Meta:
        """d without the given components D_i, as a new Meta."""
        return Meta({k: v for k, v in self._data.items() if k not in keys})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """d[key] if the component is present, else ``default`` (a direct dict lookup: this is hot)."""
        return self._data.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    # -- beyond the paper: immutability, hash, repr, pickling, freezing -----------
    def __setattr__(self, name: str, value: Any) -> None:  # pragma: no cover - guard
        raise AttributeError("Meta is immutable")

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(frozenset(self._data.items()))
            object.__setattr__(self, "_hash", h)
        return h

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Meta):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return "Meta(" + repr(self._data) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (thaw(self),))

    def _build(self, data: Mapping[str, Any] | None, kwargs: Mapping[str, Any], where: str, depth: int) -> None:
        object.__setattr__(self, "_saveable", False)
        object.__setattr__(self, "_hash", None)
        if not kwargs and type(data) is dict and _STR_KEYS.issuperset(map(type, data)) and _SCALARS.issuperset(map(type, data.values())):
            object.__setattr__(self, "_data", data.copy())  # fast path, checked in C: string keys, scalar values: a copy will do
            return
        items: dict[str, Any] = {}
        for source in (data or {}), kwargs:
            if not isinstance(source, Mapping):
                raise _checks.not_a_mapping(source)
            for key, value in source.items():
                key = key if type(key) is str else _checks.component_name(key)
                items[key] = freeze(value, f"{where}[{key!r}]", depth)
        object.__setattr__(self, "_data", items)


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image carrier in I: a reference (path, URL or id) and its size in pixels, from which μ is computed."""

    ref: str
    width: int
    height: int
    detail: str = "auto"

    def __post_init__(self) -> None:
        _checks.check_image(self)

    def __str__(self) -> str:
        return f"[image {self.ref} {self.width}×{self.height}]"


@dataclass(frozen=True, slots=True)
class AudioPart:
    """An audio carrier in I: a reference with its duration in seconds."""

    ref: str
    seconds: float

    def __post_init__(self) -> None:
        _checks.check_audio(self)

    def __str__(self) -> str:
        return f"[audio {self.ref} {self.seconds:g}s]"


Part = Union[str, ImagePart, AudioPart]
Content = Union[str, ImagePart, AudioPart, tuple]

_SCALARS = frozenset((str, int, float, bool, type(None)))
_STR_KEYS = frozenset((str,))
_PARTS = (ImagePart, AudioPart)
_NO_META = Meta()  # the metadata of an element built without any (immutable, so shared)
object.__setattr__(_NO_META, "_saveable", True)


# -- freezing d ------------------------------------------------------------------
def freeze(value: Any, where: str = "value", _depth: int = 0) -> Any:
    """A value of d (or an operation parameter) made immutable and hashable: lists become tuples, dicts Meta.

    Sets become frozensets; texts, numbers, booleans, ``None``, elements and parts stay (a str, int or float
    subclass, such as an enum member, as its plain value). Deeper than :data:`MAX_NESTING`, or else, is refused.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if _depth >= MAX_NESTING:
        raise _checks.too_deep(where)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (Meta, ImagePart, AudioPart, Element)):
        return value
    if isinstance(value, (list, tuple)):
        if _SCALARS.issuperset(map(type, value)):  # plain scalars only (an embedding, a range): checked in C
            return value if kind is tuple else tuple(value)
        return tuple(freeze(v, f"{where}[{i}]", _depth + 1) for i, v in enumerate(value))
    if isinstance(value, Mapping):  # a mapping nested inside d: a Meta, built one level deeper
        nested = object.__new__(Meta)
        nested._build(value, {}, where, _depth + 1)
        return nested
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v, where, _depth + 1) for v in value)
    if isinstance(value, numbers.Integral):  # numpy scalars, enum members and other whole numbers (bool is a scalar)
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise _checks.not_freezable(where, value)


def thaw(value: Any) -> Any:
    """A frozen value of d ∈ D back in JSON form (inverse of ``freeze``): tuples become lists, ``Meta`` dicts."""
    if isinstance(value, Meta):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((thaw(v) for v in value), key=repr)
    return value


def as_meta(meta: Any) -> Meta:
    """The metadata d of a new element (not ``None``), frozen into a Meta."""
    if isinstance(meta, Meta):
        return meta
    if isinstance(meta, Mapping):
        return Meta(meta)
    raise _checks.not_a_mapping(meta, meta=True)


# -- the id of e and the canonical order of ω --------------------------------------
@lru_cache(maxsize=1 << 16)
def element_id(element: Element) -> str:
    """The stable id of an element e = (i, d): 12 hex digits of a SHA-1 of i and d, the same in every process.

    Computed once per element (a bounded cache).
    """
    digest = hashlib.sha1()
    content = element.content
    if isinstance(content, str):
        digest.update(b"s\0")
        digest.update(content.encode("utf-8", "surrogatepass"))
    else:
        digest.update(b"j\0")
        digest.update(json.dumps(content_json(content), sort_keys=True).encode("utf-8"))
    digest.update(b"\0")
    if element.meta:
        digest.update(repr(_canonical(element.meta)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:12]


def _canonical(value: Any) -> Any:
    """A process-independent, order-independent form of a saveable metadata value (for ids: no sets, no elements)."""
    if isinstance(value, Meta):
        return tuple(sorted((k, _canonical(v)) for k, v in value._data.items()))
    if isinstance(value, tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 1.0 == 1 and hash(1.0) == hash(1): they must share an id too
    if value is True or value is False:
        return int(value)  # True == 1 as well: equal elements share one id, whichever was seen first
    return value


@lru_cache(maxsize=1 << 16)
def order_key(element: Element) -> tuple[int, float, str]:
    """The canonical order of elements e ∈ ω: by ``meta['t']`` (elements without one last), then by id.

    The paper puts no order on ω; this one only makes iteration and display
    reproducible. Computed once per element (a bounded cache).
    """
    t = element.t
    return (0, t, element.id) if t is not None else (1, 0, element.id)


# -- the content i as JSON -------------------------------------------------------------
def content_json(content: Any) -> Any:
    """A content i in JSON form: text as it is, parts as objects, a tuple of parts as a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, ImagePart):
        return {"image": content.ref, "width": content.width, "height": content.height, "detail": content.detail}
    if isinstance(content, AudioPart):
        return {"audio": content.ref, "seconds": content.seconds}
    return [content_json(p) for p in content]


def content_from_json(data: Any, where: str) -> Any:
    """A content i rebuilt from :func:`content_json` output."""
    if isinstance(data, str):
        return data
    if isinstance(data, list):
        return tuple(content_from_json(p, where) for p in data)
    if isinstance(data, Mapping):
        try:
            if "image" in data:
                return ImagePart(data["image"], data["width"], data["height"], data.get("detail", "auto"))
            if "audio" in data:
                return AudioPart(data["audio"], data["seconds"])
        except KeyError as exc:
            raise FormatError(f"{where}: content part is missing field {exc}") from None
    raise FormatError(f"{where}: unknown content {brief(data)}")


# -- what an element refuses ----------------------------------------------------------
def checked_content(content: Any) -> Any:
    """A content i checked: a text, a part, or a non-empty tuple of them (a str subclass becomes plain text)."""
    if isinstance(content, str):
        return str.__str__(content)  # a str subclass: its plain text, as JSON gives it back
    if isinstance(content, _PARTS):
        return content
    if not isinstance(content, (list, tuple)) or not content:
        raise _checks.not_a_content(content)
    for k, part in enumerate(content):
        if not isinstance(part, (str, *_PARTS)):
            raise _checks.not_a_content(part, part=k)
    return tuple(str.__str__(p) if isinstance(p, str) else p for p in content)


def check_saveable(meta: Meta) -> None:
    """Refuse metadata d that would not come back equal from a trace file (see :mod:`._element_checks`); mark it as checked."""
    if "t" in meta._data:
        _checks.check_time(meta._data["t"])
    found = _checks.first_unsaveable(meta._data, "meta", 0)
    if found is not None:
        where, value, why = found
        if type(value) is Element:
            why = (
                f"{where} is an element ({value.label()}); an element inside metadata cannot be saved in a trace "
                f"and ties two elements of a state together: store its id instead ({where} = e.id)"
            )
        elif type(value) in _PARTS:
            why = f"{where} is a {type(value).__name__}; images and audio belong in the content i: Element((text, part), meta)"
        raise InvalidArgumentError(why)
    object.__setattr__(meta, "_saveable", True)
