"""Operations o ∈ O = ⋃_{a ∈ τ} O_a (Definition 2).

The paper: O is the set of all operations, τ the set of operation types and
O_a the operations of type a. The abstract O fixes no particular operation
set: each mechanism declares its own (FIFO: ``append``; AgentFold: granular
condensation and deep consolidation; ...).

- An :class:`Operation` o ∈ O_a has a type a ∈ τ and parameters.
- An :class:`OperationType` describes one a ∈ τ.
- An :class:`OperationSet` is a mechanism's O, grouped by type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .guards import brief
from .element import Meta, thaw
from .errors import InvalidArgumentError, UnsupportedOperationError
from .formatting import shorten

__all__ = ["Operation", "OperationType", "OperationSet"]

_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class Operation:
    """An operation o ∈ O_a of type a ∈ τ, with parameters.

    Parameters
    ----------
    type : str
        The operation type a ∈ τ, e.g. ``"append"``, ``"condense"``.
    params : mapping, optional
        Its parameters, frozen (strings, numbers, tuples, nested mappings).
    reason : str, optional
        Why the controller chose it; recorded in the trace as the reason for
        what the operation removes.

    >>> o = Operation("consolidate", {"start": 3, "end": 7}, reason="steps 3–7 finished one sub-task")
    >>> o.type, o["start"], o.get("missing", 0)
    ('consolidate', 3, 0)
    >>> o == Operation("consolidate", {"end": 7, "start": 3}, reason="steps 3–7 finished one sub-task")
    True
    """

    __slots__ = ("type", "params", "reason", "_hash")
    type: str
    params: Meta
    reason: str
    _hash: int | None

    def __init__(self, type: str, params: Mapping[str, Any] | None = None, reason: str = "", **kwargs: Any) -> None:
        if not isinstance(type, str) or not _TYPE_NAME.match(type):
            raise InvalidArgumentError(
                f"an operation type a ∈ τ is a name like 'append' or 'evict_oldest'; got {brief(type)}"
            )
        if params is not None and not isinstance(params, Mapping):
            raise InvalidArgumentError(
                f"operation parameters must be a mapping like {{'count': 2}}, got {params.__class__.__name__}"
            )
        merged = dict(params or {})
        merged.update(kwargs)
        if not isinstance(reason, str):
            raise InvalidArgumentError(f"an operation's reason is a string, got {reason!r}")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "params", Meta(merged))
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Operation is immutable")

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A parameter, or ``default``."""
        return self.params.get(key, default)

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

    def __reduce__(self):
        return (Operation, (self.type, thaw(self.params), self.reason))

    def to_json(self) -> dict[str, Any]:
        """The operation o as a JSON-ready dict ``{"type", "params"?, "reason"?}``."""
        data: dict[str, Any] = {"type": self.type}
        if self.params:
            data["params"] = thaw(self.params)
        if self.reason:
            data["reason"] = self.reason
        return data

    @classmethod
    def from_json(cls, data: Any) -> "Operation":
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
    """The operation set O = ⋃_{a∈τ} O_a of a mechanism, grouped by type a ∈ τ.

    Build it from a mapping ``{type: description}`` or from a list of names
    or :class:`OperationType`. ``o in O`` tests whether o's type is declared.

    >>> O = OperationSet({"append": "add the new message", "evict": "drop the oldest message"})
    >>> list(O.types)
    ['append', 'evict']
    >>> Operation("append") in O, Operation("fold") in O
    (True, False)
    """

    __slots__ = ("_types",)
    _types: dict[str, OperationType]

    def __init__(self, types: Mapping[str, Any] | Iterable[Any] = ()) -> None:
        found: dict[str, OperationType] = {}
        items: Iterable[Any]
        if isinstance(types, OperationSet):
            items = types.values()
        elif isinstance(types, Mapping):
            items = [
                v if isinstance(v, OperationType) else OperationType(k, v if isinstance(v, str) else "")
                for k, v in types.items()
            ]
        else:
            items = types
        for item in items:
            if isinstance(item, str):
                item = OperationType(item)
            if not isinstance(item, OperationType) or not isinstance(item.name, str) or not _TYPE_NAME.match(item.name):
                raise InvalidArgumentError(
                    f"operation types are declared as names or OperationType; got {brief(item)}"
                )
            found[item.name] = item
        object.__setattr__(self, "_types", found)

    def __getitem__(self, name: str) -> OperationType:
        return self._types[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Operation):
            return item.type in self._types
        return item in self._types

    @property
    def types(self) -> tuple[str, ...]:
        """τ, the names of the operation types."""
        return tuple(self._types)

    def require(self, operation: Operation, owner: str = "the mechanism") -> None:
        """Raise :class:`UnsupportedOperationError` unless o's type a ∈ τ."""
        if not isinstance(operation, Operation):
            raise InvalidArgumentError(
                f"{owner} expected an Operation o ∈ O, got {type(operation).__name__} {brief(operation)}"
            )
        if operation.type not in self._types:
            raise UnsupportedOperationError(
                f"operation type {operation.type!r} ∉ τ of {owner}; τ = {{{', '.join(self._types)}}}. "
                f"Declare it in `operations`, or use one of those types"
            )

    def __repr__(self) -> str:
        return "OperationSet(" + ", ".join(self._types) + ")"

    def describe(self) -> str:
        """One line per type: ``name(params): description``."""
        return "\n".join(str(t) for t in self._types.values())
