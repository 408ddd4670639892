"""Memory elements e = (i, d) ∈ E = I × D (Definition 1).

The paper: an element is a pair e = (i, d) of an information carrier i ∈ I ⊆ A*
(a finite word over an alphabet A: text, a record, image or audio codes; A covers
every modality used) and metadata d ∈ D ⊆ D_1 × … × D_k, one value per component
D_i. Metadata carries what the content does not (time, priority, source); it is
the only place where an order of elements lives.

Here i is a text, an :class:`ImagePart`, an :class:`AudioPart` or a tuple of them,
and d a :class:`Meta`, a frozen mapping of named components (``t``, ``type``,
``priority``, ...). Elements are immutable and hashable, so a state ω is a true
set: equal content and metadata make the same element. A reader may skip
``_element_meta`` (how d is frozen), ``_element_checks`` (what e refuses) and
``_element_forms`` (its text and JSON forms, its id, the canonical ``order_key``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Union

from ._element_checks import MAX_NESTING, MAX_PIXELS, MAX_SAFE_INT  # re-exported: the limits of e
from ._element_checks import Kinds, check_audio, check_image, check_saveable, checked_content
from ._element_forms import content_json, content_text, element_from_json, stable_id
from ._element_forms import order_key  # re-exported: the canonical order of ω
from ._element_meta import FrozenMapping, as_meta, frozen, thaw
from .guards import brief
from .formatting import shorten

__all__ = ["Element", "ImagePart", "AudioPart", "Meta", "Content", "Part", "freeze", "thaw", "content_text", "element_id", "order_key"]


class Meta(FrozenMapping):
    """One metadata value d ∈ D = D_1 × … × D_k: an immutable mapping from the names of the components D_i to values.

    Values are frozen (:func:`freeze`): lists become tuples, dicts Meta.

    >>> Meta({"priority": "high", "source": "user"}) == Meta(source="user", priority="high")
    True
    """

    __slots__ = ()

    def __init__(self, data: Mapping[str, Any] | None = None, /, **kwargs: Any) -> None:
        self._build(data, kwargs, "meta", 0, _KINDS)

    def set(self, **changes: Any) -> Meta:
        """d with some components D_i changed, as a new Meta (d itself never changes)."""
        merged = dict(self._data)
        merged.update(changes)
        return Meta(merged)

    def drop(self, *keys: str) -> Meta:
        """d without the given components D_i, as a new Meta."""
        return Meta({k: v for k, v in self._data.items() if k not in keys})


def freeze(value: Any, where: str = "value", _depth: int = 0) -> Any:
    """A value of d (or an operation parameter) made immutable and hashable: lists become tuples, dicts Meta."""
    return frozen(value, where, _depth, _KINDS)


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image carrier in I: a reference (path, URL or id) and its size in pixels, from which μ is computed."""

    ref: str
    width: int
    height: int
    detail: str = "auto"

    def __post_init__(self) -> None:
        check_image(self)

    def __str__(self) -> str:
        return f"[image {self.ref} {self.width}×{self.height}]"


@dataclass(frozen=True, slots=True)
class AudioPart:
    """An audio carrier in I: a reference with its duration in seconds."""

    ref: str
    seconds: float

    def __post_init__(self) -> None:
        check_audio(self)

    def __str__(self) -> str:
        return f"[audio {self.ref} {self.seconds:g}s]"


Part = Union[str, ImagePart, AudioPart]
Content = Union[str, ImagePart, AudioPart, tuple]


@dataclass(frozen=True)
class Element:
    """A memory element e = (i, d) ∈ E = I × D: a content i and its metadata d, frozen into a :class:`Meta`.

    Equal i and d make equal elements. A d that a trace file could not give back equal is refused
    (see ``_element_checks``).

    >>> e = Element("The user is allergic to peanuts.", {"t": 3, "priority": "high"})
    >>> e.meta["priority"], e == Element(e.content, {"priority": "high", "t": 3}), len({e, e})
    ('high', True, 1)
    """

    __slots__ = ("content", "meta", "_hash")
    content: Content
    meta: Meta
    _hash: ClassVar[int]  # a slot, not a field: the hash of (i, d), kept once e is built (benchmarks/mechanisms.py)

    def __init__(self, content: Content, meta: Mapping[str, Any] | None = None) -> None:
        content = content if type(content) is str else checked_content(content, _KINDS)
        frozen_meta = _NO_META if meta is None else as_meta(meta, _KINDS)
        if not frozen_meta._saveable:
            check_saveable(frozen_meta, _KINDS)  # e comes back equal from a trace file
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "meta", frozen_meta)
        object.__setattr__(self, "_hash", hash((content, frozen_meta)))

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

    def label(self, width: int = 32) -> str:
        """A short name of e for messages: ``e#<id> '<shortened content>'``."""
        return f"e#{self.id[:8]} '{shorten(self.text, width)}'"

    def with_meta(self, **changes: Any) -> Element:
        """A new element (i, d') with some components of d changed (e itself never changes)."""
        return Element(self.content, self.meta.set(**changes))

    def with_content(self, content: Content) -> Element:
        """A new element (i', d) with the same metadata d and a new content i'."""
        return Element(content, self.meta)

    def to_json(self) -> dict[str, Any]:
        """The element e as a JSON-ready dict ``{"content": ..., "meta": {...}}``."""
        return {"content": content_json(self.content, _KINDS), "meta": thaw(self.meta)}

    @classmethod
    def from_json(cls, data: Any, where: str = "element") -> Element:
        """The element e rebuilt from :meth:`to_json` output."""
        return element_from_json(cls, data, where, _KINDS)


#: The classes the side modules tell apart (they cannot import this module, which imports them).
_KINDS = Kinds(Meta, Element, ImagePart, AudioPart)
_NO_META = Meta()  # the metadata of an element built without any (immutable, so shared)
object.__setattr__(_NO_META, "_saveable", True)


@lru_cache(maxsize=1 << 16)
def element_id(element: Element) -> str:
    """The stable id of an element e = (i, d), computed once per element (a bounded cache)."""
    return stable_id(element.content, element.meta, _KINDS)
