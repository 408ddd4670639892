"""Operations o ∈ O = ⋃_{a ∈ τ} O_a (Definition 2).

O is the set of all operations, τ the set of operation types and O_a the operations of
type a. The paper fixes no particular operation set: each mechanism declares its own
(FIFO: ``append``; AgentFold: granular condensation and deep consolidation; ...). Each
class opens with the paper, then what it offers beyond it; what is refused is checked by
:mod:`._operation_checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._operation_checks import check_operation, is_type_name, not_a_type, not_an_operation, not_declared
from .element import Meta, thaw

__all__ = ["Operation", "OperationType", "OperationSet"]


class Operation:
    """An operation o ∈ O_a of type a ∈ τ, with its parameters and the reason the controller chose it.

    >>> o = Operation("consolidate", {"start": 3, "end": 7}, reason="steps 3–7 finished one sub-task")
    >>> o.type, o["start"], o.get("missing", 0)
    ('consolidate', 3, 0)
    """

    __slots__ = ("type", "params", "reason", "_hash")
    type: str  # a ∈ τ, e.g. "append", "condense"
    params: Meta  # frozen: strings, numbers, tuples, nested mappings
    reason: str  # recorded in the trace as the reason for what o removes
    _hash: int | None

    def __init__(self, type: str, params: Mapping[str, Any] | None = None, reason: str = "", **kwargs: Any) -> None:
        check_operation(type, params, reason)
        merged = dict(params or {})
        merged.update(kwargs)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "params", Meta(merged))
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "_hash", None)

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A parameter, or ``default``."""
        return self.params.get(key, default)

    # -- beyond the paper: a value, its repr and JSON form ----------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Operation is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Operation):
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
    def from_json(cls, data: Any) -> Operation:
        """The operation o rebuilt from :meth:`to_json` output."""
        return cls(data["type"], data.get("params") or {}, data.get("reason", ""))


@dataclass(frozen=True)
class OperationType:
    """One operation type a ∈ τ: its name, what it does, and its parameters."""

    name: str
    doc: str = ""
    params: tuple[str, ...] = ()

    def __str__(self) -> str:
        params = f"({', '.join(self.params)})" if self.params else ""
        return f"{self.name}{params}: {self.doc}" if self.doc else f"{self.name}{params}"


class OperationSet(Mapping[str, OperationType]):
    """The operation set O = ⋃_{a∈τ} O_a of a mechanism, grouped by type a ∈ τ: a mapping type name → :class:`OperationType`.

    Built from ``{type: description}`` or from names or :class:`OperationType`; ``o in O``
    tests whether o's type is declared.

    >>> O = OperationSet({"append": "add the new message", "evict": "drop the oldest message"})
    >>> list(O.types), Operation("append") in O, Operation("fold") in O
    (['append', 'evict'], True, False)
    """

    __slots__ = ("_types",)
    _types: dict[str, OperationType]

    def __init__(self, types: Mapping[str, Any] | Iterable[Any] = ()) -> None:
        if isinstance(types, Mapping):  # {type: description}, or another OperationSet
            types = [
                v if isinstance(v, OperationType) else OperationType(k, v if isinstance(v, str) else "")
                for k, v in types.items()
            ]
        self._types = {}
        for item in types:
            if isinstance(item, str):
                item = OperationType(item)
            if not isinstance(item, OperationType) or not is_type_name(item.name):
                raise not_a_type(item)
            self._types[item.name] = item

    @property
    def types(self) -> tuple[str, ...]:
        """τ, the names of the operation types."""
        return tuple(self._types)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Operation):
            return item.type in self._types
        return item in self._types

    def __getitem__(self, name: str) -> OperationType:
        return self._types[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def require(self, operation: Operation, owner: str = "the mechanism") -> None:
        """Raise :class:`UnsupportedOperationError` unless o's type a ∈ τ."""
        if not isinstance(operation, Operation):
            raise not_an_operation(operation, owner)
        if operation.type not in self._types:
            raise not_declared(operation.type, owner, self._types)

    # -- beyond the paper: repr and description -------------------------------
    def __repr__(self) -> str:
        return "OperationSet(" + ", ".join(self._types) + ")"

    def describe(self) -> str:
        """One line per type: ``name(params): description``."""
        return "\n".join(str(t) for t in self._types.values())
