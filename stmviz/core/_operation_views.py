"""What :class:`~stmviz.core.operation.Operation` and :class:`~stmviz.core.operation.OperationSet` offer beyond Definition 2.

Not the paper: an operation's immutability, equality and hash, its parameters read like a
mapping, its repr and JSON form; an operation set read as a mapping, its repr and description. A reader of
Definition 2 can skip this module. It imports nothing from :mod:`stmviz.core.operation`
(which imports it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Type, TypeVar

from .element import Meta, thaw

_O = TypeVar("_O", bound="_OperationViews")


class _OperationViews:
    """An operation's value semantics, parameter access, repr and JSON form (a mixin of :class:`Operation`)."""

    __slots__ = ()
    type: str
    params: Meta
    reason: str
    _hash: int | None

    if TYPE_CHECKING:  # defined by Operation
        def __init__(self, type: str, params: Mapping[str, Any] | None = None, reason: str = "", **kwargs: Any) -> None: ...

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Operation is immutable")

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A parameter, or ``default``."""
        return self.params.get(key, default)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _OperationViews):
            return NotImplemented
        return self.type == other.type and self.params == other.params and self.reason == other.reason

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self.type, self.params, self.reason))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"Operation({self.type!r}{', ' + args if args else ''})"

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.type}({args})" if args else self.type

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.type, thaw(self.params), self.reason))

    def to_json(self) -> dict[str, Any]:
        """The operation o as a JSON-ready dict ``{"type", "params"?, "reason"?}``."""
        data: dict[str, Any] = {"type": self.type}
        if self.params:
            data["params"] = thaw(self.params)
        if self.reason:
            data["reason"] = self.reason
        return data

    @classmethod
    def from_json(cls: Type[_O], data: Any) -> _O:
        """The operation o rebuilt from :meth:`to_json` output."""
        return cls(data["type"], data.get("params") or {}, data.get("reason", ""))


class _OperationSetViews:
    """An operation set as a mapping type name → OperationType, its repr and description (a mixin of :class:`OperationSet`)."""

    __slots__ = ()
    _types: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self._types[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def __repr__(self) -> str:
        return "OperationSet(" + ", ".join(self._types) + ")"

    def describe(self) -> str:
        """One line per type: ``name(params): description``."""
        return "\n".join(str(t) for t in self._types.values())
