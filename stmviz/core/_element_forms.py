"""An element's other forms: its text, its JSON form, its stable id and its place in the canonical order.

Not the paper: Definition 1 needs none of them. A content i is shown as text with
placeholders for images and audio (:func:`content_text`). A trace file holds each element
e = (i, d) as ``{"content": ..., "meta": {...}}`` (:meth:`~stmviz.core.element.Element.to_json`).
An element is named in traces, figures and messages by 12 hex digits of a SHA-1 of i and d
(:func:`~stmviz.core.element.element_id`): unlike ``hash``, the same in every process. And
the paper puts no order on a state ω: :func:`order_key` gives one (time, then id) only to
make iteration and display reproducible.
A reader of Definition 1 can skip this module. It imports nothing from
:mod:`stmviz.core.element` (which imports it): the element module passes its classes in
:class:`~stmviz.core._element_checks.Kinds`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._element_checks import Kinds
from .errors import InvalidArgumentError, FormatError
from .guards import brief

if TYPE_CHECKING:
    from .element import Element


def content_text(content: Any) -> str:
    """The text of a content i: parts are joined, non-text parts shown as placeholders."""
    if isinstance(content, str):
        return content
    if isinstance(content, tuple):
        return " ".join(str(p) for p in content)
    return str(content)


def content_json(content: Any, kinds: Kinds) -> Any:
    """A content i in JSON form: text as it is, parts as objects, a tuple of parts as a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, kinds.image):
        return {"image": content.ref, "width": content.width, "height": content.height, "detail": content.detail}
    if isinstance(content, kinds.audio):
        return {"audio": content.ref, "seconds": content.seconds}
    return [content_json(p, kinds) for p in content]


def content_from_json(data: Any, where: str, kinds: Kinds) -> Any:
    """A content i rebuilt from :func:`content_json` output."""
    if isinstance(data, str):
        return data
    if isinstance(data, list):
        return tuple(content_from_json(p, where, kinds) for p in data)
    if isinstance(data, Mapping):
        try:
            if "image" in data:
                return kinds.image(data["image"], data["width"], data["height"], data.get("detail", "auto"))
            if "audio" in data:
                return kinds.audio(data["audio"], data["seconds"])
        except KeyError as exc:
            raise FormatError(f"{where}: content part is missing field {exc}") from None
    raise FormatError(f"{where}: unknown content {brief(data)}")


def element_from_json(cls: Any, data: Any, where: str, kinds: Kinds) -> Any:
    """The element ``cls(i, d)`` rebuilt from ``{"content": ..., "meta": ...}``; a bad form is a FormatError."""
    if not isinstance(data, Mapping) or "content" not in data:
        raise FormatError(f"{where}: expected an object with 'content' and 'meta', got {brief(data)}")
    try:
        return cls(content_from_json(data["content"], where, kinds), data.get("meta") or {})
    except InvalidArgumentError as exc:
        raise FormatError(f"{where}: {exc}") from None


def _canonical(value: Any, kinds: Kinds) -> Any:
    """A process-independent, order-independent form of a frozen value (for ids)."""
    if isinstance(value, kinds.meta):
        return tuple(sorted((k, _canonical(v, kinds)) for k, v in value._data.items()))
    if isinstance(value, tuple):
        return tuple(_canonical(v, kinds) for v in value)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_canonical(v, kinds)) for v in value)))
    if isinstance(value, kinds.element):
        return ("element", value.id)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 1.0 == 1 and hash(1.0) == hash(1): they must share an id too
    if value is True or value is False:
        return int(value)  # True == 1 as well: equal elements share one id, whichever was seen first
    return value


def stable_id(content: Any, meta: Any, kinds: Kinds) -> str:
    """12 hex digits of a SHA-1 of a content i and a metadata d, the same in every process."""
    digest = hashlib.sha1()
    if isinstance(content, str):
        digest.update(b"s\0")
        digest.update(content.encode("utf-8", "surrogatepass"))
    else:
        digest.update(b"j\0")
        digest.update(json.dumps(content_json(content, kinds), sort_keys=True).encode("utf-8"))
    digest.update(b"\0")
    if meta:
        digest.update(repr(_canonical(meta, kinds)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:12]


@lru_cache(maxsize=1 << 16)
def order_key(element: Element) -> tuple[int, float, str]:
    """The canonical order of elements e ∈ ω: by ``meta['t']`` (elements without one last), then by id.

    The paper puts no order on ω; this one only makes iteration and display
    reproducible. Computed once per element (a bounded cache).
    """
    t = element.t
    return (0, t, element.id) if t is not None else (1, 0, element.id)
