"""The plumbing behind :mod:`stmviz.core.context`: a step's JSON form, a history as a sequence, a context's shortcuts.

Not the paper: Definition 2 says what C holds; this module makes a step, a history and a
context behave as Python values (JSON, indexing, equality) and gives :func:`~stmviz.core.trace.run`
its fast path. A reader of Definition 2 can skip it. It imports nothing from
:mod:`stmviz.core.context` at run time (which imports it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ._context_checks import STEP_FIELDS
from .element import Meta, thaw
from .errors import InvalidIndexError

if TYPE_CHECKING:
    from .context import AgentStep, History

_Context = TypeVar("_Context", bound="ContextViews")


class StepViews:
    """An AgentStep's whole text and its JSON form (mixed into :class:`~stmviz.core.context.AgentStep`)."""

    __slots__ = ()

    if TYPE_CHECKING:
        thought: str
        action: str
        observation: str
        directives: Mapping[str, Any]
        meta: Mapping[str, Any]

        @property
        def output(self) -> str: ...

    @property
    def model_output(self) -> str:
        """The model's output at this step: thought and action (the same as :attr:`output`)."""
        return self.output

    @property
    def text(self) -> str:
        """The whole step as text."""
        return "\n".join(p for p in (self.thought, self.action, self.observation) if p)

    def to_json(self) -> dict[str, Any]:
        """The agent step as a JSON-ready dict (empty fields left out)."""
        data: dict[str, Any] = {}
        for name in STEP_FIELDS:
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.directives:
            data["directives"] = thaw(self.directives)
        if self.meta:
            data["meta"] = thaw(self.meta)
        return data


class HistoryView(Sequence["AgentStep"]):
    """A History as an immutable sequence: the first ``_length`` steps of the record ``_steps``."""

    __slots__ = ()

    if TYPE_CHECKING:
        _steps: Sequence[AgentStep]
        _length: int

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._steps[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise InvalidIndexError(f"the history has {self._length} steps (0 … {self._length - 1}); there is no step {index}")
        return self._steps[index]

    def __iter__(self) -> Iterator[AgentStep]:
        steps = self._steps
        for i in range(self._length):
            yield steps[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HistoryView):
            return NotImplemented
        return self._length == other._length and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(self._length)

    def __repr__(self) -> str:
        return f"History({self._length} steps)"


class ContextViews:
    """A Context's shortcuts to its step, its equality, and run()'s fast path (mixed into :class:`~stmviz.core.context.Context`)."""

    __slots__ = ()

    if TYPE_CHECKING:
        t: int
        step: AgentStep
        query: str
        tools: tuple[str, ...]
        history: History
        meta: Mapping[str, Any]
        extra: Mapping[str, Any]

    @classmethod
    def _trusted(
        cls: type[_Context], t: int, step: AgentStep, query: str, tools: tuple[str, ...], history: History, meta: Meta, extra: Meta
    ) -> _Context:
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
        """The model's thought at this step (from ``step``)."""
        return self.step.thought

    @property
    def action(self) -> str:
        """The model's action at this step (from ``step``)."""
        return self.step.action

    @property
    def observation(self) -> str:
        """The observation that arrived after the model's output (from ``step``)."""
        return self.step.observation

    @property
    def model_output(self) -> str:
        """The model's output at this step: thought and action (from ``step``)."""
        return self.step.model_output

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ContextViews):
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
