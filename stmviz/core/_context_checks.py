"""The checks of :mod:`stmviz.core.context`: which step records and context parts are accepted.

Functions called where an AgentStep or a Context is built (Definition 2 says what C
holds; these say which records — scenario files, dicts — and which parts stmviz
accepts, and what it says about the others). It imports nothing from
:mod:`stmviz.core.context`, which imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import guards
from .element import Meta
from .errors import InvalidArgumentError, FormatError, STMError
from .guards import brief

#: The text fields of a step: the model's output (thought, action), then the input (observation).
STEP_FIELDS = ("thought", "action", "observation")

#: Step-record keys read as directives: shorthand for ``{"directives": {...}}`` in scenario files.
DIRECTIVE_SHORTHANDS = ("subgoal", "subgoal_done", "fold")

_KNOWN_FIELDS = frozenset(("thought", "action", "observation", "directives", "meta"))


def check_step(step: Any) -> None:
    """An AgentStep's fields checked as it is built: texts (``None`` is ``""``), directives and meta frozen."""
    for name in STEP_FIELDS:
        value = getattr(step, name)
        if value is None:
            object.__setattr__(step, name, "")
        elif not isinstance(value, str):
            raise FormatError(
                f"step field {name!r} must be text, got {type(value).__name__} {brief(value)}"
            )
    for name in ("directives", "meta"):
        _freeze_mapping(step, name, lambda value: FormatError(f"step field {name!r} must be an object, got {brief(value)}"))


def step_fields(item: Any, where: str) -> dict[str, Any]:
    """The AgentStep fields of a step record (a mapping); the shorthand keys go into ``directives``."""
    if not isinstance(item, Mapping):
        raise FormatError(
            f"{where}: a step record is an AgentStep, a dict with thought/action/observation, or a string; "
            f"got {type(item).__name__} {brief(item)}"
        )
    unknown = sorted(set(item) - _KNOWN_FIELDS - set(DIRECTIVE_SHORTHANDS) - {"t"})
    if unknown:
        raise FormatError(
            f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; a step has "
            f"{', '.join(sorted(_KNOWN_FIELDS | set(DIRECTIVE_SHORTHANDS)))}"
        )
    fields = {k: item[k] for k in _KNOWN_FIELDS if k in item}
    shorthand = {k: item[k] for k in DIRECTIVE_SHORTHANDS if k in item and item[k] is not None}
    if shorthand:
        nested = item.get("directives") or {}
        if not isinstance(nested, Mapping):
            raise FormatError(f"{where}: 'directives' must be an object, got {brief(nested)}")
        fields["directives"] = {**nested, **shorthand}
    return fields


def check_context(context: Any) -> None:
    """A Context's t, query Q, meta, extra and tools T checked as it is built (meta and extra frozen, T a tuple)."""
    object.__setattr__(context, "t", guards.whole_number(context.t, "t", 0, where="Context"))
    if not isinstance(context.query, str):
        raise InvalidArgumentError(f"Context: query Q must be text, got {type(context.query).__name__} {brief(context.query)}")
    for name in ("meta", "extra"):
        _freeze_mapping(
            context, name, lambda value: InvalidArgumentError(f"Context: {name} must be a mapping, got {type(value).__name__} {brief(value)}")
        )
    if not isinstance(context.tools, tuple):
        if isinstance(context.tools, (str, bytes, Mapping)) or not isinstance(context.tools, Iterable):
            raise InvalidArgumentError(
                f"Context: tools T must be a list of tool names, got {type(context.tools).__name__} {brief(context.tools)}"
            )
        object.__setattr__(context, "tools", tuple(context.tools))
    if not all(isinstance(name, str) for name in context.tools):
        raise InvalidArgumentError(f"Context: each tool in T is named by text, got {brief(context.tools)}")


def check_history(history: Any) -> None:
    """A Context's history given as a sequence of step records (not a text or a mapping), or an InvalidArgumentError."""
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Sequence):
        raise InvalidArgumentError(f"Context: history must be a sequence of AgentStep, got {type(history).__name__}")


def _freeze_mapping(owner: Any, name: str, refusal: Callable[[Any], STMError]) -> None:
    """``owner.name`` frozen into a Meta, if it is a mapping; else the error ``refusal(value)`` is raised."""
    value = getattr(owner, name)
    if not isinstance(value, Meta):
        if not isinstance(value, Mapping):
            raise refusal(value)
        object.__setattr__(owner, name, Meta(value))
