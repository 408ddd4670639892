"""The checks of :mod:`stmviz.core.operation`: what an operation type's name, an operation's parameters and reason may be.

Functions called where an Operation or an OperationSet is built (Definition 2 fixes no
operation set; these say what stmviz refuses, and how). It imports nothing from
:mod:`stmviz.core.operation`, which imports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import InvalidArgumentError, UnsupportedOperationError
from .guards import brief

_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def is_type_name(name: Any) -> bool:
    """Whether ``name`` can name an operation type a ∈ τ: an identifier-like string such as ``'evict_oldest'``."""
    return isinstance(name, str) and bool(_TYPE_NAME.match(name))


def check_operation(type: Any, params: Any, reason: Any) -> None:
    """An operation's type a is a name, its parameters a mapping (or ``None``), its reason a string."""
    if not is_type_name(type):
        raise InvalidArgumentError(
            f"an operation type a ∈ τ is a name like 'append' or 'evict_oldest'; got {brief(type)}"
        )
    if params is not None and not isinstance(params, Mapping):
        raise InvalidArgumentError(
            f"operation parameters must be a mapping like {{'count': 2}}, got {params.__class__.__name__}"
        )
    if not isinstance(reason, str):
        raise InvalidArgumentError(f"an operation's reason is a string, got {reason!r}")


def not_a_type(item: Any) -> InvalidArgumentError:
    """The error for declaring something that is neither a type name nor an OperationType."""
    return InvalidArgumentError(f"operation types are declared as names or OperationType; got {brief(item)}")


def not_an_operation(operation: Any, owner: str) -> InvalidArgumentError:
    """The error for giving a mechanism something that is not an Operation."""
    return InvalidArgumentError(
        f"{owner} expected an Operation o ∈ O, got {type(operation).__name__} {brief(operation)}"
    )


def not_declared(type: str, owner: str, types: Iterable[str]) -> UnsupportedOperationError:
    """The error for an operation whose type a ∉ τ."""
    return UnsupportedOperationError(
        f"operation type {type!r} ∉ τ of {owner}; τ = {{{', '.join(types)}}}. "
        f"Declare it in `operations`, or use one of those types"
    )
