"""The checks behind :mod:`stmviz.core.model_input`: what a model input holds, and how what π returned is read as x.

Not the paper: Definition 2 says π : Ω_STM → X; this module says which values stmviz
reads as a point x ∈ X (a string, a ``{"role", "content"}`` dict, an element, a list of
them), and what it refuses. A reader of Definition 2 can skip it. It imports nothing from
:mod:`stmviz.core.model_input` (which imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import guards
from .element import Element, freeze
from .errors import InvalidArgumentError
from .guards import brief


def checked_messages(messages: Any, kind: type) -> tuple[Any, ...]:
    """The messages of a ModelInput as a tuple, each checked to be a ``kind`` (a :class:`Message`)."""
    found = tuple(guards.items(messages, "messages", where="ModelInput", what="Message"))
    for message in found:
        if not isinstance(message, kind):
            raise InvalidArgumentError(
                f"ModelInput holds Message objects, got {brief(message)}; "
                "for strings or {'role', 'content'} dicts use ModelInput.coerce"
            )
    return found


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
