"""Operations o ∈ O = ⋃_{a∈τ} O_a, context c ∈ C, and the model input space X (Definition 2).

- An :class:`Operation` has a type a ∈ τ and parameters; a mechanism declares
  its operation types in an :class:`OperationSet`.
- A :class:`Context` c ∈ C is the information the update U may use: the
  query, the model's output, the observation, request metadata, the step
  history, and any further named component C_m. It is *not* the context window.
- An :class:`AgentStep` is one incoming step of an agent's trajectory (what
  the model said and did, and what it saw).
- A :class:`ModelInput` x ∈ X is what the projection π hands to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .element import Meta, freeze, thaw
from .errors import InvalidOperationError, ScenarioFormatError, UnsupportedOperationError, shorten

__all__ = [
    "Operation",
    "OperationType",
    "OperationSet",
    "AgentStep",
    "History",
    "Context",
    "Message",
    "ModelInput",
]

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

    def __init__(self, type: str, params: Mapping[str, Any] | None = None, reason: str = "", **kwargs: Any) -> None:
        if not isinstance(type, str) or not _TYPE_NAME.match(type):
            raise InvalidOperationError(
                f"an operation type a ∈ τ is a name like 'append' or 'evict_oldest'; got {shorten(repr(type))}"
            )
        if params is not None and not isinstance(params, Mapping):
            raise InvalidOperationError(
                f"operation parameters must be a mapping like {{'count': 2}}, got {params.__class__.__name__}"
            )
        merged = dict(params or {})
        merged.update(kwargs)
        if not isinstance(reason, str):
            raise InvalidOperationError(f"an operation's reason is a string, got {reason!r}")
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
        data: dict[str, Any] = {"type": self.type}
        if self.params:
            data["params"] = thaw(self.params)
        if self.reason:
            data["reason"] = self.reason
        return data

    @classmethod
    def from_json(cls, data: Any) -> "Operation":
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
            if not isinstance(item, OperationType) or not _TYPE_NAME.match(item.name):
                raise InvalidOperationError(
                    f"operation types are declared as names or OperationType; got {shorten(repr(item))}"
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
            raise InvalidOperationError(
                f"{owner} expected an Operation o ∈ O, got {type(operation).__name__} {shorten(repr(operation))}"
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


_STEP_FIELDS = ("thought", "action", "observation")

#: Step-record keys read as directives: shorthand for ``{"directives": {...}}`` in scenario files.
DIRECTIVE_SHORTHANDS = ("subgoal", "subgoal_done", "fold")


@dataclass(frozen=True, slots=True)
class AgentStep:
    """One incoming step of an agent trajectory: what the model said and did, and what it saw.

    Parameters
    ----------
    thought : str
        The model's text at this step: its reasoning or explanation (AgentFold's
        "explanation"), or, in a dialogue, its reply to the user.
    action : str
        The tool call the model made, as text (empty if none).
    observation : str
        What came back from outside: the result of the action, or, when there is
        no action, the user's message this step answers.
    directives : mapping
        What the model's output tells the memory mechanism's controller, by name:
        e.g. HiAgent's ``subgoal`` (the text of a subgoal this step starts) and
        ``subgoal_done``, AgentFold's ``fold`` (``{"op": "condense"}``). Each
        mechanism declares the directives it reads (``Mechanism.directives``).
    meta : mapping
        Any further request metadata (``source``, ``priority``, ``tool``,
        ``role``, a ``retrieve`` request, ...).

    >>> step = AgentStep.coerce({"observation": "Found it.", "subgoal": "find the file"})
    >>> step.directives["subgoal"]
    'find the file'
    """

    thought: str = ""
    action: str = ""
    observation: str = ""
    directives: Meta = field(default_factory=Meta)
    meta: Meta = field(default_factory=Meta)

    def __post_init__(self) -> None:
        for name in _STEP_FIELDS:
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, "")
            elif not isinstance(value, str):
                raise ScenarioFormatError(
                    f"step field {name!r} must be text, got {type(value).__name__} {shorten(repr(value))}"
                )
        for name in ("directives", "meta"):
            value = getattr(self, name)
            if not isinstance(value, Meta):
                if not isinstance(value, Mapping):
                    raise ScenarioFormatError(f"step field {name!r} must be an object, got {shorten(repr(value))}")
                object.__setattr__(self, name, Meta(value))

    @property
    def model_output(self) -> str:
        """The model's output at this step: thought and action."""
        if self.thought and self.action:
            return f"{self.thought}\n{self.action}"
        return self.thought or self.action

    @property
    def text(self) -> str:
        """The whole step as text."""
        return "\n".join(p for p in (self.thought, self.action, self.observation) if p)

    @classmethod
    def coerce(cls, item: Any, where: str = "step") -> "AgentStep":
        """Turn a step record into an AgentStep.

        Accepts an AgentStep, a mapping with the field names above (the keys
        ``subgoal``, ``subgoal_done`` and ``fold`` are shorthand for the
        directives of that name), or a bare string (taken as the observation).
        """
        if isinstance(item, AgentStep):
            return item
        if isinstance(item, str):
            return cls(observation=item)
        if isinstance(item, Mapping):
            known = {"thought", "action", "observation", "directives", "meta"}
            unknown = sorted(set(item) - known - set(DIRECTIVE_SHORTHANDS) - {"t"})
            if unknown:
                raise ScenarioFormatError(
                    f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; a step has "
                    f"{', '.join(sorted(known | set(DIRECTIVE_SHORTHANDS)))}"
                )
            fields = {k: item[k] for k in known if k in item}
            shorthand = {k: item[k] for k in DIRECTIVE_SHORTHANDS if k in item and item[k] is not None}
            if shorthand:
                nested = item.get("directives") or {}
                if not isinstance(nested, Mapping):
                    raise ScenarioFormatError(f"{where}: 'directives' must be an object, got {shorten(repr(nested))}")
                fields["directives"] = {**nested, **shorthand}
            try:
                return cls(**fields)
            except ScenarioFormatError as exc:
                raise ScenarioFormatError(f"{where}: {exc}") from None
            except Exception as exc:  # frozen metadata errors
                raise ScenarioFormatError(f"{where}: {exc}") from None
        raise ScenarioFormatError(
            f"{where}: a step record is an AgentStep, a dict with thought/action/observation, or a string; "
            f"got {type(item).__name__} {shorten(repr(item))}"
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in _STEP_FIELDS:
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.directives:
            data["directives"] = thaw(self.directives)
        if self.meta:
            data["meta"] = thaw(self.meta)
        return data


class History(Sequence[AgentStep]):
    """The steps before the current one, as an immutable view (a component of C).

    Views share one growing list, so giving every step its history costs O(1).
    """

    __slots__ = ("_steps", "_length")

    def __init__(self, steps: Sequence[AgentStep] = (), length: int | None = None) -> None:
        self._steps = steps
        self._length = len(steps) if length is None else length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self._steps[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(f"history has {self._length} steps; no step {index}")
        return self._steps[index]

    def __iter__(self) -> Iterator[AgentStep]:
        steps = self._steps
        for i in range(self._length):
            yield steps[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, History):
            return NotImplemented
        return self._length == other._length and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(self._length)

    def __repr__(self) -> str:
        return f"History({self._length} steps)"


@dataclass(frozen=True, eq=False, slots=True)
class Context:
    """Context information c ∈ C ⊆ C_1 × … × C_n: what the update U may use. Not the context window.

    Following the paper, C holds (1) the current request or input — here the
    current :class:`AgentStep` (model output and observation) and the query;
    (2) results of auxiliary model calls, as named components in ``extra``;
    (3) request metadata (timestamp, user id, task type, ...) in ``meta``.
    ``history`` holds the steps before this one (HiAgent's "step history").

    Attributes
    ----------
    t : int
        The step index.
    step : AgentStep
        The incoming step.
    query : str
        The user's task or question Q.
    tools : tuple of str
        The tools T available to the agent.
    history : History
        The steps 0 … t−1.
    meta : Meta
        Request metadata.
    extra : Meta
        Any further named component C_m.
    """

    t: int = 0
    step: AgentStep = field(default_factory=AgentStep)
    query: str = ""
    tools: tuple[str, ...] = ()
    history: History = field(default_factory=History)
    meta: Meta = field(default_factory=Meta)
    extra: Meta = field(default_factory=Meta)

    def __post_init__(self) -> None:
        if not isinstance(self.meta, Meta):
            object.__setattr__(self, "meta", Meta(self.meta))
        if not isinstance(self.extra, Meta):
            object.__setattr__(self, "extra", Meta(self.extra))
        if not isinstance(self.tools, tuple):
            object.__setattr__(self, "tools", tuple(self.tools))
        if not isinstance(self.step, AgentStep):
            object.__setattr__(self, "step", AgentStep.coerce(self.step))

    @classmethod
    def _trusted(cls, t: int, step: AgentStep, query: str, tools: tuple, history: History, meta: Meta, extra: Meta) -> "Context":
        """Build a context from already-checked parts (the fast path used by run())."""
        self = object.__new__(cls)
        put = object.__setattr__
        put(self, "t", t)
        put(self, "step", step)
        put(self, "query", query)
        put(self, "tools", tools)
        put(self, "history", history)
        put(self, "meta", meta)
        put(self, "extra", extra)
        return self

    @property
    def thought(self) -> str:
        return self.step.thought

    @property
    def action(self) -> str:
        return self.step.action

    @property
    def observation(self) -> str:
        return self.step.observation

    @property
    def model_output(self) -> str:
        return self.step.model_output

    def __getitem__(self, name: str) -> Any:
        """A named component C_m from ``extra`` (or a request metadata value)."""
        if name in self.extra:
            return self.extra[name]
        return self.meta[name]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Context):
            return NotImplemented
        return (
            self.t == other.t
            and self.step == other.step
            and self.query == other.query
            and self.tools == other.tools
            and self.meta == other.meta
            and self.extra == other.extra
            and len(self.history) == len(other.history)
        )

    def __hash__(self) -> int:
        return hash((self.t, self.step, self.query))

    def replace(self, **changes: Any) -> "Context":
        """A copy with some components changed."""
        values = {name: getattr(self, name) for name in ("t", "step", "query", "tools", "history", "meta", "extra")}
        values.update(changes)
        return Context(**values)


@dataclass(frozen=True)
class Message:
    """One message of a model input: a role and its content (text or parts)."""

    role: str
    content: Any
    name: str | None = None

    @property
    def text(self) -> str:
        from .element import content_text

        return content_text(self.content) if not isinstance(self.content, str) else self.content

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI chat format ``{"role": ..., "content": ...}``."""
        data = {"role": self.role, "content": self.text}
        if self.name:
            data["name"] = self.name
        return data


class ModelInput(Sequence[Message]):
    """A model input x ∈ X ⊆ (M_1 ∪ … ∪ M_l)*: a sequence of messages.

    The projection π returns one; a plain string or a list of strings or
    ``{"role", "content"}`` dicts is accepted and turned into one.

    >>> x = ModelInput.coerce("Hello")
    >>> x.text()
    'Hello'
    >>> ModelInput.coerce([{"role": "system", "content": "Be brief."}, "Hi"]).to_messages()
    [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages = tuple(messages)

    @classmethod
    def coerce(cls, value: Any) -> "ModelInput":
        if isinstance(value, ModelInput):
            return value
        if isinstance(value, str):
            return cls((Message("user", value),))
        if isinstance(value, Message):
            return cls((value,))
        if isinstance(value, Mapping):
            return cls((_message(value),))
        if isinstance(value, Iterable):
            out = []
            for item in value:
                if isinstance(item, Message):
                    out.append(item)
                elif isinstance(item, str):
                    out.append(Message("user", item))
                elif isinstance(item, Mapping):
                    out.append(_message(item))
                else:
                    from .element import Element

                    if isinstance(item, Element):
                        out.append(Message(str(item.meta.get("role", "user")), item.content))
                    else:
                        raise TypeError(f"cannot turn {type(item).__name__} into a message")
            return cls(out)
        raise TypeError(f"cannot turn {type(value).__name__} into a model input")

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, index):  # type: ignore[override]
        return self._messages[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ModelInput):
            return self._messages == other._messages
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._messages)

    def text(self, separator: str = "\n\n") -> str:
        """The model input rendered as one text."""
        return separator.join(m.text for m in self._messages)

    def to_messages(self) -> list[dict[str, Any]]:
        """The model input in the OpenAI chat format."""
        return [m.to_dict() for m in self._messages]

    def __repr__(self) -> str:
        shown = ", ".join(f"{m.role}: {shorten(m.text, 30)!r}" for m in self._messages[:4])
        more = f", … (+{len(self) - 4})" if len(self) > 4 else ""
        return f"ModelInput([{shown}{more}])"


def _message(data: Mapping[str, Any]) -> Message:
    content = data.get("content")
    if content is None:
        content = ""
    return Message(str(data.get("role", "user")), freeze(content) if not isinstance(content, str) else content, data.get("name"))
