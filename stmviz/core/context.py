"""Context information c ∈ C (Definition 2), and the agent steps it is made of.

The paper: C ⊆ C_1 × … × C_n is the context information, **not** the context
window. It may contain (1) the current user request or input; (2) results of
auxiliary model calls on it (reasoning, summaries, extracted key facts); (3)
request metadata (timestamp, user id, task type, location, …). C in the
signature of U : Ω_STM × O × C → Ω_STM lets updates depend on external factors.

An :class:`AgentStep` is one step t: the model's output, produced from x_t = π(ω_t),
then the input that arrives after it (seen from x_{t+1} on). A :class:`History` is the
steps before it; a :class:`Context` c_t is what U may use at step t. Each class opens
with the paper, then what it offers beyond it; which records and parts are accepted is
checked by :mod:`._context_checks`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from . import _context_checks as _checks
from ._context_checks import DIRECTIVE_SHORTHANDS, STEP_FIELDS  # DIRECTIVE_SHORTHANDS: public, documented there
from .element import Meta, thaw
from .errors import FormatError, InvalidIndexError, STMError, deprecated

__all__ = ["AgentStep", "History", "Context", "DIRECTIVE_SHORTHANDS"]

#: The roles an input (an observation) can have: whose message or result it is.
_INPUT_ROLES = ("user", "tool", "system")


@dataclass(frozen=True, slots=True)
class AgentStep:
    """One step t of an agent trajectory, the current input of c_t ∈ C: the model's output, then the input that follows it.

    The output was produced from x_t = π(ω_t): a ``thought`` (reasoning, or a
    reply to the user), an ``action`` (a tool call) and ``directives`` for the
    memory's controller (a fold, a subgoal). The input is the ``observation``:
    the action's result, else the user's next message (``meta["role"]`` says
    whose). Either half may be empty; U stores the output before the input.

    >>> first = AgentStep(observation="Hi, my locker code is 7391.", meta={"role": "user"})
    >>> first.has_output, first.has_input, first.input_role
    (False, True, 'user')
    """

    thought: str = ""
    action: str = ""
    observation: str = ""
    directives: Mapping[str, Any] = field(default_factory=Meta)
    meta: Mapping[str, Any] = field(default_factory=Meta)

    def __post_init__(self) -> None:
        _checks.check_step(self)

    @property
    def has_output(self) -> bool:
        """Whether the model produced something from π(ω_t) at this step (a thought, an action or a directive)."""
        return bool(self.thought or self.action or self.directives)

    @property
    def output(self) -> str:
        """The model's output text at this step, produced from x_t = π(ω_t): thought, then action (``""`` if none)."""
        if self.thought and self.action:
            return f"{self.thought}\n{self.action}"
        return self.thought or self.action

    @property
    def has_input(self) -> bool:
        """Whether an input (a tool's result, the user's next message) arrived after this step's output."""
        return bool(self.observation)

    @property
    def input_role(self) -> str:
        """Whose input the observation is: ``meta["role"]`` if ``"user"``, ``"tool"`` or ``"system"``; else ``"tool"`` after an action, or ``"user"``."""
        role = self.meta.get("role")
        if role in _INPUT_ROLES:
            return str(role)
        return "tool" if self.action else "user"

    # -- beyond the paper: records, text, JSON ----------------------------------
    @classmethod
    def coerce(cls, item: Any, where: str = "step") -> AgentStep:
        """A step record (an AgentStep, a dict of its fields, a bare string: the observation) as the AgentStep it stands for."""
        if isinstance(item, AgentStep):
            return item
        if isinstance(item, str):
            return cls(observation=item)
        fields = _checks.step_fields(item, where)
        try:
            return cls(**fields)
        except STMError as exc:  # a field that is not text, metadata that cannot be frozen
            raise FormatError(f"{where}: {exc}") from None

    @property
    def text(self) -> str:
        """The whole step as text."""
        return "\n".join(p for p in (self.thought, self.action, self.observation) if p)

    def to_json(self) -> dict[str, Any]:
        """The agent step as a JSON-ready dict (empty fields left out)."""
        data: dict[str, Any] = {name: getattr(self, name) for name in STEP_FIELDS if getattr(self, name)}
        if self.directives:
            data["directives"] = thaw(self.directives)
        if self.meta:
            data["meta"] = thaw(self.meta)
        return data

    @property
    def model_output(self) -> str:
        """Deprecated: :attr:`output` is the one name (it warns for one release)."""
        deprecated("AgentStep.model_output", "step.output")
        return self.output

    @property
    def input(self) -> str:
        """Deprecated: :attr:`observation` is the one name of the input (it warns for one release)."""
        deprecated("AgentStep.input", "step.observation")
        return self.observation


class History(Sequence[AgentStep]):
    """The steps 0 … t−1 before the current one, as an immutable sequence (a component of c ∈ C)."""

    __slots__ = ("_steps", "_length")

    def __init__(self, steps: Sequence[AgentStep] = (), length: int | None = None) -> None:
        self._steps = steps
        self._length = len(steps) if length is None else length

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
        return islice(self._steps, self._length)

    # -- beyond the paper: the shared record, equality, repr ------------------------
    def steps(self) -> Sequence[AgentStep]:
        """The run's record of steps, of which this history is the first ``len(self)``: one object, growing, for the whole
        run. Read it, never change it; its identity tells a mechanism (SCM's memory stream) it still looks at the same run."""
        return self._steps

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

    (1) the current request or input: the :class:`AgentStep` ``step``, the
    user's task Q (``query``), the tools T; (2) results of auxiliary model
    calls, named, in ``extra``; (3) request metadata in ``meta``. ``history``
    holds the steps 0 … t−1 (HiAgent's "step history").
    """

    t: int = 0
    step: AgentStep = field(default_factory=AgentStep)
    query: str = ""
    tools: tuple[str, ...] = ()
    history: History = field(default_factory=History)
    meta: Mapping[str, Any] = field(default_factory=Meta)
    extra: Mapping[str, Any] = field(default_factory=Meta)

    def __post_init__(self) -> None:
        _checks.check_context(self)
        if not isinstance(self.history, History):
            _checks.check_history(self.history)
            steps = [AgentStep.coerce(s, where=f"history[{k}]") for k, s in enumerate(self.history)]
            object.__setattr__(self, "history", History(steps))
        if not isinstance(self.step, AgentStep):
            object.__setattr__(self, "step", AgentStep.coerce(self.step))

    def __getitem__(self, name: str) -> Any:
        """A named component C_m from ``extra`` (or a request metadata value)."""
        if name in self.extra:
            return self.extra[name]
        return self.meta[name]

    # -- beyond the paper: a new c, c from checked parts, shortcuts, equality -------------
    def replace(self, **changes: Any) -> Context:
        """c with some components C_m changed, as a new Context."""
        values = {name: getattr(self, name) for name in ("t", "step", "query", "tools", "history", "meta", "extra")}
        values.update(changes)
        return Context(**values)

    @classmethod
    def from_trusted(cls, t: int, step: AgentStep, query: str, tools: tuple[str, ...], history: History, meta: Meta, extra: Meta) -> Context:
        """c from parts already checked, in the order of the fields: no check (the fast path of :func:`~stmviz.run`)."""
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
        """Deprecated: ``context.step.output`` is the one name (it warns for one release)."""
        deprecated("Context.model_output", "context.step.output")
        return self.step.output

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Context):
            return NotImplemented
        compared = ("t", "step", "query", "tools", "meta", "extra")  # and the history's length, not its steps
        return all(getattr(self, name) == getattr(other, name) for name in compared) and len(self.history) == len(other.history)

    def __hash__(self) -> int:
        return hash((self.t, self.step, self.query))
