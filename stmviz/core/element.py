"""Memory elements e = (i, d) ∈ E = I × D (Definition 1).

The paper: E = I × D is the space of structured memory elements, and an
element is a pair e = (i, d). I ⊆ A* holds the information carriers, finite
words over an alphabet A (tokens, sentences, paragraphs, structured records,
image or audio codes); for multimodal content, A is chosen so that I holds a
representation of every modality used. D ⊆ D_1 × … × D_k is the metadata
space: D_i is the set of values of one metadata component, k ∈ ℕ its
dimension. Metadata carries what the content itself does not — timestamps,
priorities, source — and is the only place where an order of elements lives.

Here, an element pairs an information carrier i ∈ I (its *content*: text, an image
part, or a tuple of such parts for multimodal content) with metadata
d ∈ D = D_1 × … × D_k (its *meta*: a frozen mapping of named components such
as a timestamp ``t``, a ``priority`` or a ``source``).

Elements are immutable and hashable, so a state ω can be a true set of them.
Two elements with equal content and equal metadata are the same element: to
keep two identical texts apart, give them different metadata (e.g. ``t``).
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Union

from ._element_checks import MAX_NESTING, MAX_SAFE_INT, Kinds, _finite, check_saveable
from .guards import brief
from .errors import InvalidArgumentError, FormatError
from .formatting import shorten

__all__ = ["Element", "ImagePart", "AudioPart", "Meta", "Content", "Part", "freeze", "thaw", "content_text", "element_id", "order_key"]


class Meta(Mapping[str, Any]):
    """An immutable, hashable mapping: one metadata value d ∈ D = D_1 × … × D_k.

    Keys are the names of the components D_i (strings); values are frozen
    recursively (lists become tuples, dicts become ``Meta``).

    >>> d = Meta({"priority": "high", "source": "user"})
    >>> d["priority"]
    'high'
    >>> hash(d) == hash(Meta({"source": "user", "priority": "high"}))
    True
    """

    __slots__ = ("_data", "_hash", "_saveable")
    _data: dict[str, Any]
    _hash: int | None
    _saveable: bool  # checked once by an Element holding it: every value round-trips through JSON

    def __init__(self, data: Mapping[str, Any] | None = None, /, **kwargs: Any) -> None:
        self._build(data, kwargs, "meta", 0)

    @classmethod
    def _frozen(cls, data: Mapping[str, Any], where: str, depth: int) -> "Meta":
        """A Meta of a mapping nested ``depth`` levels inside another value (see :func:`freeze`)."""
        self = object.__new__(cls)
        self._build(data, {}, where, depth)
        return self

    def _build(self, data: Mapping[str, Any] | None, kwargs: Mapping[str, Any], where: str, depth: int) -> None:
        object.__setattr__(self, "_saveable", False)
        if (
            not kwargs
            and type(data) is dict
            and _STR_KEYS.issuperset(map(type, data))
            and _FAST_SCALARS.issuperset(map(type, data.values()))
        ):  # fast path, checked in C: string keys and scalar values need no freezing, a copy will do
            object.__setattr__(self, "_data", data.copy())
            object.__setattr__(self, "_hash", None)
            return
        items: dict[str, Any] = {}
        for source in (data or {}), kwargs:
            if not isinstance(source, Mapping):
                raise InvalidArgumentError(
                    f"metadata d must be a mapping of component names to values, got "
                    f"{type(source).__name__}; pass e.g. meta={{'t': 0, 'source': 'user'}}"
                )
            for key, value in source.items():
                if type(key) is not str:
                    if not isinstance(key, str):
                        raise InvalidArgumentError(
                            f"metadata key {brief(key)} is a {type(key).__name__}; the components D_i of "
                            f"d are named by strings: use str({brief(key)}) or a descriptive name"
                        )
                    key = str.__str__(key)  # a str subclass (an enum member): its plain text, as JSON gives back
                items[key] = freeze(value, where=f"{where}[{key!r}]", _depth=depth)
        object.__setattr__(self, "_data", items)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:  # pragma: no cover - guard
        raise AttributeError("Meta is immutable")

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def get(self, key: str, default: Any = None) -> Any:
        """d[key] if the component is present, else ``default`` (a direct dict lookup: this is hot)."""
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

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

    def __reduce__(self):  # pickling support
        return (Meta, (thaw(self),))

    def set(self, **changes: Any) -> "Meta":
        """d with some components D_i changed, as a new Meta (d itself never changes)."""
        merged = dict(self._data)
        merged.update(changes)
        return Meta(merged)

    def drop(self, *keys: str) -> "Meta":
        """d without the given components D_i, as a new Meta."""
        return Meta({k: v for k, v in self._data.items() if k not in keys})


_SCALARS = (str, int, float, bool, type(None))
_FAST_SCALARS = frozenset(_SCALARS)
_STR_KEYS = frozenset((str,))


def freeze(value: Any, where: str = "value", _depth: int = 0) -> Any:
    """A metadata value of d ∈ D (or an operation parameter), made immutable and hashable.

    Lists and tuples become tuples, dicts become :class:`Meta`, sets become
    frozensets; strings, numbers, booleans, ``None``, elements and parts stay
    as they are (a subclass of str, int or float, such as an enum member,
    becomes the plain value, so that it reads back from JSON the same).
    Values nested more than :data:`MAX_NESTING` levels deep, and anything
    else, are refused with :class:`InvalidArgumentError`.
    """
    kind = type(value)
    if kind in _FAST_SCALARS:
        return value
    if _depth >= MAX_NESTING:
        raise InvalidArgumentError(
            f"{shorten(where, 60)} is nested more than {MAX_NESTING} levels deep (a list or dict that holds "
            f"itself nests forever); metadata is a flat record of components: flatten it, or store the deep "
            f"structure as text"
        )
    if isinstance(value, bool):  # pragma: no cover - bool cannot be subclassed
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (Meta, ImagePart, AudioPart, Element)):
        return value
    if isinstance(value, (list, tuple)):
        return _frozen_sequence(value, where, _depth + 1)
    if isinstance(value, Mapping):
        return Meta._frozen(value, where, _depth + 1)
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v, where=where, _depth=_depth + 1) for v in value)
    if isinstance(value, numbers.Integral):  # numpy scalars, enum members and other whole numbers
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise InvalidArgumentError(
        f"{where} = {brief(value)} is a {type(value).__name__}, which cannot be frozen; "
        f"use strings, numbers, booleans, None, lists/tuples or dicts of them"
    )


def _frozen_sequence(value: list[Any] | tuple[Any, ...], where: str, depth: int = 0) -> tuple[Any, ...]:
    """A list or tuple of metadata values, frozen into a tuple."""
    if _FAST_SCALARS.issuperset(map(type, value)):  # plain scalars only (an embedding, a range): checked in C
        return value if type(value) is tuple else tuple(value)
    return tuple(freeze(v, where=f"{where}[{i}]", _depth=depth) for i, v in enumerate(value))


def thaw(value: Any) -> Any:
    """A frozen value of d ∈ D back in JSON form (inverse of :func:`freeze`): tuples become lists, ``Meta`` dicts."""
    if isinstance(value, Meta):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((thaw(v) for v in value), key=repr)
    return value


#: The largest width or height of an :class:`ImagePart`, in pixels.
MAX_PIXELS = 1_000_000


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image carrier in I: a reference (path, URL or id) with its pixel size.

    Following the paper's multimodal remark, I holds representations of every
    modality; an image is represented here by a reference and its dimensions,
    from which a size function such as :func:`stmviz.sizes.image_tokens`
    computes μ.

    >>> ImagePart("chart.png", width=1024, height=768)
    ImagePart(ref='chart.png', width=1024, height=768, detail='auto')
    """

    ref: str
    width: int
    height: int
    detail: str = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.ref, str) or not self.ref:
            raise InvalidArgumentError(f"ImagePart.ref must be a non-empty string, got {self.ref!r}")
        for name in ("width", "height"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_PIXELS:
                raise InvalidArgumentError(
                    f"ImagePart.{name} must be a whole number of pixels from 1 to {MAX_PIXELS:,}, got {brief(v)}"
                )
            object.__setattr__(self, name, int(v))
        if self.detail not in ("auto", "low", "high"):
            raise InvalidArgumentError(
                f"ImagePart.detail must be 'auto', 'low' or 'high', got {self.detail!r}"
            )

    def __str__(self) -> str:
        return f"[image {self.ref} {self.width}×{self.height}]"


@dataclass(frozen=True, slots=True)
class AudioPart:
    """An audio carrier in I: a reference with its duration in seconds."""

    ref: str
    seconds: float

    def __post_init__(self) -> None:
        if not isinstance(self.ref, str) or not self.ref:
            raise InvalidArgumentError(f"AudioPart.ref must be a non-empty string, got {self.ref!r}")
        s = self.seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not _finite(s) or s <= 0:
            raise InvalidArgumentError(f"AudioPart.seconds must be a positive finite number, got {brief(s)}")
        object.__setattr__(self, "seconds", float(s))  # 2 and 2.0 are the same duration: one form, one id

    def __str__(self) -> str:
        return f"[audio {self.ref} {self.seconds:g}s]"


Part = Union[str, ImagePart, AudioPart]
Content = Union[str, ImagePart, AudioPart, tuple]


def _check_content(content: Any) -> Content:
    if isinstance(content, str):
        return str.__str__(content)  # a str subclass: its plain text, as JSON gives it back
    if isinstance(content, (ImagePart, AudioPart)):
        return content
    if isinstance(content, (list, tuple)):
        parts = tuple(content)
        if not parts:
            raise InvalidArgumentError(
                "content i is an empty sequence of parts; give at least one text, ImagePart or AudioPart"
            )
        for k, part in enumerate(parts):
            if not isinstance(part, (str, ImagePart, AudioPart)):
                raise InvalidArgumentError(
                    f"content part {k} is a {type(part).__name__}; a multimodal content i is a tuple "
                    f"of str, ImagePart and AudioPart"
                )
        return tuple(str.__str__(p) if isinstance(p, str) else p for p in parts)
    raise InvalidArgumentError(
        f"content i = {brief(content)} is a {type(content).__name__}; I holds text (str), "
        f"ImagePart, AudioPart, or a tuple of them: convert it, e.g. Element(str(value))"
    )


def content_text(content: Content) -> str:
    """The text of a content i: parts are joined, non-text parts shown as placeholders."""
    if isinstance(content, str):
        return content
    if isinstance(content, tuple):
        return " ".join(str(p) for p in content)
    return str(content)


def _json_content(content: Content) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, ImagePart):
        return {"image": content.ref, "width": content.width, "height": content.height, "detail": content.detail}
    if isinstance(content, AudioPart):
        return {"audio": content.ref, "seconds": content.seconds}
    return [_json_content(p) for p in content]


_NO_META = Meta()  # the metadata of an element built without any (immutable, so shared)
object.__setattr__(_NO_META, "_saveable", True)


@dataclass(frozen=True)
class Element:
    """A memory element e = (i, d) ∈ E = I × D.

    Parameters
    ----------
    content : str, ImagePart, AudioPart or tuple of them
        The information carrier i ∈ I ⊆ A*.
    meta : mapping, optional
        The metadata d ∈ D, frozen on construction into a :class:`Meta`.
        Conventional components: ``t`` (time, used for the canonical order),
        ``type`` (the kind of element, used for colours and stacking),
        ``role``, ``priority``, ``source``.

    Two elements are equal when their content and metadata are equal, and
    equal elements have equal hashes: ``hash(e) == hash((e.content, e.meta))``,
    computed once when e is built (as ``str`` and ``frozenset`` keep theirs).
    Elements are hashed on every set and dict operation of a run; computing
    the hash anew each time made ``run`` of the FIFO window 24 % slower and
    ``Trace.state_at`` 35–70 % slower (benchmarks/mechanisms.py).

    What an element holds, it can save: every element the constructor accepts
    comes back from a trace file (``to_json`` → ``from_json``) equal, with
    the same id and the same place in the canonical order. So the metadata d
    is checked once, when e is built, and :class:`InvalidArgumentError` refuses:

    - ``meta['t']`` that is not a finite number (it orders the state);
    - NaN and infinities anywhere (not JSON; NaN is not equal to itself);
    - whole numbers beyond ±(2**53 − 1) (:data:`MAX_SAFE_INT`: what every JSON
      reader, and a float in a figure, holds exactly);
    - an element, an image or audio part, or a set inside d (store an id, put
      parts in the content, use a sorted list);
    - values nested more than :data:`MAX_NESTING` (64) levels deep, and keys
      that are not strings.

    Lists and tuples are both stored as tuples (and come back as tuples);
    ``True`` stays a boolean; a subclass of str, int or float (an enum member)
    is stored as its plain value. Text may hold any character, lone surrogates
    included (they are saved as JSON escapes, see :mod:`stmviz.io.files`);
    a surrogate *pair* held as two separate code points is read back, as JSON
    defines, as the one character the pair encodes.

    Examples
    --------
    >>> e = Element("The user is allergic to peanuts.", {"t": 3, "priority": "high", "source": "user"})
    >>> e.meta["priority"]
    'high'
    >>> e == Element("The user is allergic to peanuts.", {"source": "user", "t": 3, "priority": "high"})
    True
    >>> len({e, e})
    1
    """

    __slots__ = ("content", "meta", "_hash")
    content: Content
    meta: Meta
    _hash: ClassVar[int]  # a slot, not a field: set in __init__

    def __init__(self, content: Content, meta: Mapping[str, Any] | None = None) -> None:
        content = content if type(content) is str else _check_content(content)
        frozen = _frozen_meta(meta)
        if not frozen._saveable:
            check_saveable(frozen, _KINDS)
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "meta", frozen)
        object.__setattr__(self, "_hash", hash((content, frozen)))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        meta = ", ".join(f"{k}={v!r}" for k, v in self.meta.items())
        return f"Element({brief(self.content, 48)}{', ' + meta if meta else ''})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Element, (self.content, thaw(self.meta)))

    @property
    def id(self) -> str:
        """The stable id of e = (i, d): 12 hex digits of a SHA-1 of i and d.

        It does not depend on the process (unlike ``hash``), so it gives a
        reproducible order and names elements in traces and error messages.

        >>> Element("hello", {"t": 1}).id == Element("hello", {"t": 1.0}).id
        True
        """
        return element_id(self)

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
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        return None

    def label(self, width: int = 32) -> str:
        """A short name of e for messages: ``e#<id> '<shortened content>'``."""
        return f"e#{self.id[:8]} '{shorten(self.text, width)}'"

    def with_meta(self, **changes: Any) -> "Element":
        """A new element (i, d') with some components of d changed (e itself never changes)."""
        return Element(self.content, self.meta.set(**changes))

    def with_content(self, content: Content) -> "Element":
        """A new element (i', d) with the same metadata d and a new content i'."""
        return Element(content, self.meta)

    def to_json(self) -> dict[str, Any]:
        """The element e as a JSON-ready dict ``{"content": ..., "meta": {...}}``."""
        return {"content": _json_content(self.content), "meta": thaw(self.meta)}

    @classmethod
    def from_json(cls, data: Any, where: str = "element") -> "Element":
        """The element e rebuilt from :meth:`to_json` output."""
        if not isinstance(data, Mapping) or "content" not in data:
            raise FormatError(f"{where}: expected an object with 'content' and 'meta', got {brief(data)}")
        try:
            return cls(_content_from_json(data["content"], where), data.get("meta") or {})
        except InvalidArgumentError as exc:
            raise FormatError(f"{where}: {exc}") from None


#: The classes the saveability check tells apart (see :mod:`stmviz.core._element_checks`).
_KINDS = Kinds(Meta, Element, (ImagePart, AudioPart))


def _frozen_meta(meta: Mapping[str, Any] | None) -> Meta:
    """The metadata d of a new element, frozen into a :class:`Meta`."""
    if meta is None:
        return _NO_META
    if isinstance(meta, Meta):
        return meta
    if isinstance(meta, Mapping):
        return Meta(meta)
    raise InvalidArgumentError(
        f"meta d must be a mapping (e.g. a dict), got {type(meta).__name__} "
        f"{brief(meta)}; pass meta={{'t': 0}}"
    )


def _content_from_json(data: Any, where: str) -> Content:
    if isinstance(data, str):
        return data
    if isinstance(data, list):
        return tuple(_content_from_json(p, where) for p in data)
    if isinstance(data, Mapping):
        try:
            if "image" in data:
                return ImagePart(data["image"], data["width"], data["height"], data.get("detail", "auto"))
            if "audio" in data:
                return AudioPart(data["audio"], data["seconds"])
        except KeyError as exc:
            raise FormatError(f"{where}: content part is missing field {exc}") from None
    raise FormatError(f"{where}: unknown content {brief(data)}")


def _canonical(value: Any) -> Any:
    """A process-independent, order-independent form of a frozen value (for ids)."""
    if isinstance(value, Meta):
        return tuple(sorted((k, _canonical(v)) for k, v in value._data.items()))
    if isinstance(value, tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_canonical(v)) for v in value)))
    if isinstance(value, Element):
        return ("element", value.id)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 1.0 == 1 and hash(1.0) == hash(1): they must share an id too
    if value is True or value is False:
        return int(value)  # True == 1 as well: equal elements share one id, whichever was seen first
    return value


@lru_cache(maxsize=1 << 16)
def element_id(element: Element) -> str:
    """The stable id of an element e = (i, d): 12 hex digits of a SHA-1 of i and d.

    Computed once per element (a bounded cache); :attr:`Element.id` reads it.

    >>> element_id(Element("hello"))
    '9ca5afd6eb03'
    """
    digest = hashlib.sha1()
    content, meta = element.content, element.meta
    if isinstance(content, str):
        digest.update(b"s\0")
        digest.update(content.encode("utf-8", "surrogatepass"))
    else:
        digest.update(b"j\0")
        digest.update(json.dumps(_json_content(content), sort_keys=True).encode("utf-8"))
    digest.update(b"\0")
    if meta:
        digest.update(repr(_canonical(meta)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:12]


@lru_cache(maxsize=1 << 16)
def order_key(element: Element) -> tuple[int, float, str]:
    """The canonical order of elements e ∈ ω: by ``meta['t']`` (elements without one last), then by id.

    The paper puts no order on ω; this one only makes iteration and display
    reproducible. Computed once per element (a bounded cache).

    >>> a, b, c = Element("a", {"t": 2}), Element("b", {"t": 1}), Element("c")
    >>> [e.text for e in sorted([a, b, c], key=order_key)]
    ['b', 'a', 'c']
    """
    t = element.t
    return (0, t, element.id) if t is not None else (1, 0, element.id)
