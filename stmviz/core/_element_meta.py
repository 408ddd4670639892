"""How :class:`~stmviz.core.element.Meta` holds a metadata value d: a frozen, hashable mapping.

Not the paper: d ∈ D = D_1 × … × D_k is a tuple of component values (Definition 1).
stmviz holds it as an immutable mapping of component names to values, so that an element
e = (i, d) can be hashed and a state ω be a true set. This module holds the machinery a
reader can skip: the slots, a fast path for the common flat record of strings and
numbers (checked in C), the cached hash, and :func:`frozen` / :func:`thaw`, which turn
lists, dicts and sets into tuples, Meta and frozensets and back. It imports nothing from
:mod:`stmviz.core.element` (which imports it): the element module passes its classes in
:class:`~stmviz.core._element_checks.Kinds`.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping
from typing import Any

from ._element_checks import MAX_NESTING, Kinds
from .errors import InvalidArgumentError
from .formatting import shorten
from .guards import brief

SCALARS = (str, int, float, bool, type(None))
FAST_SCALARS = frozenset(SCALARS)
_STR_KEYS = frozenset((str,))


class FrozenMapping(Mapping[str, Any]):
    """An immutable, hashable mapping of component names to frozen values: the body of :class:`Meta`."""

    __slots__ = ("_data", "_hash", "_saveable")
    _data: dict[str, Any]
    _hash: int | None
    _saveable: bool  # checked once by an Element holding it: every value round-trips through JSON

    @classmethod
    def _frozen(cls, data: Mapping[str, Any], where: str, depth: int, kinds: Kinds) -> Any:
        """A Meta of a mapping nested ``depth`` levels inside another value (see :func:`frozen`)."""
        self = object.__new__(cls)
        self._build(data, {}, where, depth, kinds)
        return self

    def _build(
        self, data: Mapping[str, Any] | None, kwargs: Mapping[str, Any], where: str, depth: int, kinds: Kinds
    ) -> None:
        object.__setattr__(self, "_saveable", False)
        if (
            not kwargs
            and type(data) is dict
            and _STR_KEYS.issuperset(map(type, data))
            and FAST_SCALARS.issuperset(map(type, data.values()))
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
                items[key] = frozen(value, f"{where}[{key!r}]", depth, kinds)
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
        if isinstance(other, FrozenMapping):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return "Meta(" + repr(self._data) + ")"

    def __reduce__(self):  # pickling support
        return (type(self), (thaw(self),))


def frozen(value: Any, where: str, depth: int, kinds: Kinds) -> Any:
    """A value made immutable and hashable (the body of :func:`~stmviz.core.element.freeze`).

    Lists and tuples become tuples, dicts become Meta, sets become frozensets;
    strings, numbers, booleans, ``None``, elements and parts stay as they are (a
    subclass of str, int or float, such as an enum member, becomes the plain value,
    so that it reads back from JSON the same). Values nested more than
    :data:`MAX_NESTING` levels deep, and anything else, are refused.
    """
    kind = type(value)
    if kind in FAST_SCALARS:
        return value
    if depth >= MAX_NESTING:
        raise InvalidArgumentError(
            f"{shorten(where, 60)} is nested more than {MAX_NESTING} levels deep (a list or dict that holds "
            f"itself nests forever); metadata is a flat record of components: flatten it, or store the deep "
            f"structure as text"
        )
    if isinstance(value, bool):  # pragma: no cover - bool cannot be subclassed
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (kinds.meta, kinds.image, kinds.audio, kinds.element)):
        return value
    if isinstance(value, (list, tuple)):
        return _frozen_sequence(value, where, depth + 1, kinds)
    if isinstance(value, Mapping):
        return kinds.meta._frozen(value, where, depth + 1, kinds)
    if isinstance(value, (set, frozenset)):
        return frozenset(frozen(v, where, depth + 1, kinds) for v in value)
    if isinstance(value, numbers.Integral):  # numpy scalars, enum members and other whole numbers
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise InvalidArgumentError(
        f"{where} = {brief(value)} is a {type(value).__name__}, which cannot be frozen; "
        f"use strings, numbers, booleans, None, lists/tuples or dicts of them"
    )


def _frozen_sequence(value: list[Any] | tuple[Any, ...], where: str, depth: int, kinds: Kinds) -> tuple[Any, ...]:
    """A list or tuple of metadata values, frozen into a tuple."""
    if FAST_SCALARS.issuperset(map(type, value)):  # plain scalars only (an embedding, a range): checked in C
        return value if type(value) is tuple else tuple(value)
    return tuple(frozen(v, f"{where}[{i}]", depth, kinds) for i, v in enumerate(value))


def thaw(value: Any) -> Any:
    """A frozen value of d ∈ D back in JSON form (inverse of ``freeze``): tuples become lists, ``Meta`` dicts."""
    if isinstance(value, FrozenMapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((thaw(v) for v in value), key=repr)
    return value


def as_meta(meta: Any, kinds: Kinds) -> Any:
    """The metadata d of a new element (not ``None``), frozen into a Meta."""
    if isinstance(meta, kinds.meta):
        return meta
    if isinstance(meta, Mapping):
        return kinds.meta(meta)
    raise InvalidArgumentError(
        f"meta d must be a mapping (e.g. a dict), got {type(meta).__name__} "
        f"{brief(meta)}; pass meta={{'t': 0}}"
    )
