"""Context information c ∈ C (Definition 2), and the agent steps it is made of.

The paper: C ⊆ C_1 × … × C_n is the context information, **not** the context
window. It may contain (1) the current user request or input; (2) results of
auxiliary model calls on it (reasoning, summaries, extracted key facts); (3)
request metadata (timestamp, user id, task type, location, …). C in the
signature of U : Ω_STM × O × C → Ω_STM lets updates depend on external factors.

An :class:`AgentStep` is one step t: the model's output, produced from
x_t = π(ω_t), then the input that arrives after it (seen from x_{t+1} on). A
:class:`History` is the steps before it; a :class:`Context` c_t is what U may
use at step t. A reader may skip :mod:`._context_checks` (what is accepted)
and :mod:`._context_views` (JSON, indexing, equality, shortcuts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _context_checks as _checks
from ._context_checks import DIRECTIVE_SHORTHANDS  # public, documented there
from ._context_views import ContextViews, HistoryView, StepViews
from .element import Meta

__all__ = ["AgentStep", "History", "Context", "DIRECTIVE_SHORTHANDS"]

#: The roles an input (an observation) can have: whose message or result it is.
_INPUT_ROLES = ("user", "tool", "system")


@dataclass(frozen=True, slots=True)
class AgentStep(StepViews):
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
    def input(self) -> str:
        """The input that arrived after the output (the observation); the model sees it from x_{t+1} on."""
        return self.observation

    @property
    def input_role(self) -> str:
        """Whose input the observation is: ``"user"``, ``"tool"`` or ``"system"``.

        ``meta["role"]`` if it is one of them; else ``"tool"`` after an action, or ``"user"``.
        """
        role = self.meta.get("role")
        if role in _INPUT_ROLES:
            return str(role)
        return "tool" if self.action else "user"

    @classmethod
    def coerce(cls, item: Any, where: str = "step") -> "AgentStep":
        """A step record (an AgentStep, a dict of its fields, a bare string: the observation) as the AgentStep it stands for."""
        if isinstance(item, AgentStep):
            return item
        if isinstance(item, str):
            return cls(observation=item)
        return _checks.step_from_record(cls, item, where)


class History(HistoryView):
    """The steps 0 … t−1 before the current one, as an immutable sequence (a component of c ∈ C)."""

    __slots__ = ("_steps", "_length")

    def __init__(self, steps: Sequence[AgentStep] = (), length: int | None = None) -> None:
        self._steps = steps
        self._length = len(steps) if length is None else length

    def steps(self) -> Sequence[AgentStep]:
        """The run's record of steps, of which this history is the first ``len(self)``: one object, growing, for the whole run.

        Read it, never change it; its identity tells a mechanism (SCM's memory stream) it still looks at the same run.
        """
        return self._steps


@dataclass(frozen=True, eq=False, slots=True)
class Context(ContextViews):
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

    def replace(self, **changes: Any) -> "Context":
        """c with some components C_m changed, as a new Context."""
        values = {name: getattr(self, name) for name in ("t", "step", "query", "tools", "history", "meta", "extra")}
        values.update(changes)
        return Context(**values)
