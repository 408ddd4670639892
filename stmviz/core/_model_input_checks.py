"""The checks of :mod:`stmviz.core.model_input`: how what π returned is read as a point x ∈ X, and what is refused.

Functions called where a ModelInput is built (Definition 2 says π : Ω_STM → X; these say
which values stmviz reads as x — a string, a ``{"role", "content"}`` dict, an element, a
list of them — and what it refuses). It imports nothing from
:mod:`stmviz.core.model_input`, which imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .element import Element, freeze
from .errors import InvalidArgumentError
from .guards import brief


def not_a_message(value: Any) -> InvalidArgumentError:
    """The error for building a ModelInput of something that is not a Message."""
    return InvalidArgumentError(
        f"ModelInput holds Message objects, got {brief(value)}; "
        "for strings or {'role', 'content'} dicts use ModelInput.coerce"
    )


def message_parts(item: Any) -> tuple[str, Any, Any]:
    """(role, content, name) of one message, from a string (a user message), a dict, or an element (its ``role``)."""
    if isinstance(item, str):
        return ("user", item, None)
    if isinstance(item, Mapping):
        content = item.get("content")
        if content is None:
            content = ""
        return (str(item.get("role", "user")), content if isinstance(content, str) else freeze(content), item.get("name"))
    if isinstance(item, Element):
        return (str(item.meta.get("role", "user")), item.content, None)
    raise InvalidArgumentError(
        f"cannot turn {type(item).__name__} {brief(item)} into a message of a model input; "
        f"give a string, a Message, a {{'role', 'content'}} dict or an Element"
    )


def not_a_model_input(value: Any) -> InvalidArgumentError:
    """The error for a value π returned that cannot be read as a model input."""
    return InvalidArgumentError(
        f"cannot turn {type(value).__name__} into a model input x ∈ X; give a string, a Message, "
        f"a {{'role', 'content'}} dict, or a list of them"
    )
