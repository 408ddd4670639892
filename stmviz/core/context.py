"""Context information c ∈ C (Definition 2), and the agent steps it is made of.

The paper: C ⊆ C_1 × … × C_n is the context information; each C_m is one
kind of context. It is **not** the context window. C may contain (1) the
current user request or input; (2) results of auxiliary model calls on that
input (reasoning, summaries, extracted key facts); (3) request metadata
(timestamp, user id, task type, location, …). Having C in the signature of
U : Ω_STM × O × C → Ω_STM lets updates depend on external factors.

- An :class:`AgentStep` is one step t of an agent's trajectory: first the
  model's output (thought, action, directives for the memory), produced from
  x_t = π(ω_t), then the input that arrives after it (a tool's result, the
  user's next message), which the model sees from x_{t+1} on.
- A :class:`History` is the steps before the current one.
- A :class:`Context` c_t is what U may use at step t.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _context_checks as _checks
from ._context_checks import DIRECTIVE_SHORTHANDS, STEP_FIELDS  # DIRECTIVE_SHORTHANDS: public, documented there
from .element import Meta, thaw
from .errors import InvalidArgumentError, InvalidIndexError

__all__ = ["AgentStep", "History", "Context", "DIRECTIVE_SHORTHANDS"]

#: The roles an input (an observation) can have: whose message or result it is.
_INPUT_ROLES = ("user", "tool", "system")


@dataclass(frozen=True, slots=True)
class AgentStep:
    """One step t of an agent trajectory, the current input of c_t ∈ C: the model's output, then the input that follows it.

    A step holds two halves, in this order (the loop of the paper's Figure 1):

    1. **the output** the model produced from x_t = π(ω_t): its ``thought``
       (reasoning, AgentFold's explanation, or a reply to the user), its
       ``action`` (a tool call) and its ``directives`` for the memory (a fold,
       a subgoal, a retrieval request);
    2. **the input** that arrives after that output: the ``observation`` —
       the tool's result when there is an action, else the user's next message
       (``meta["role"]`` says whose: ``"user"``, ``"tool"``, ``"system"``). The
       model sees it from x_{t+1} = π(ω_{t+1}) on.

    Either half may be empty: step 0 of a conversation holds the user's first
    message and no output (:attr:`has_output` is false: no model call yet); a
    conversation that ends on a reply ends with a step that has an output and
    no input (:attr:`has_input` is false). U(ω_t, o_t, c_t) receives both halves
    in c_t and stores the output before the input.

    Parameters
    ----------
    thought : str
        The model's text at this step: its reasoning or explanation (AgentFold's
        "explanation"), or, in a dialogue, its reply to the user.
    action : str
        The tool call the model made, as text (empty if none).
    observation : str
        The input that arrived after the model's output: the result of the
        action, or, when there is no action, the user's next message.
    directives : mapping
        What the model's output tells the memory mechanism's controller, by name:
        e.g. HiAgent's ``subgoal`` (the text of a subgoal this step starts) and
        ``subgoal_done``, AgentFold's ``fold`` (``{"op": "condense"}``). Each
        mechanism declares the directives it reads (``Mechanism.directives``).
    meta : mapping
        Any further request metadata (``role`` of the input, ``source``,
        ``priority``, ``tool``, a ``retrieve`` request, ...).

    Examples
    --------
    >>> step = AgentStep.coerce({"observation": "Found it.", "subgoal": "find the file"})
    >>> step.directives["subgoal"]
    'find the file'
    >>> first = AgentStep(observation="Hi, my locker code is 7391.", meta={"role": "user"})
    >>> first.has_output, first.has_input, first.input_role
    (False, True, 'user')
    >>> reply = AgentStep(thought="Noted.", observation="What is my code?", meta={"role": "user"})
    >>> reply.output, reply.input
    ('Noted.', 'What is my code?')
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
        """Whether the model produced something at this step (a thought, an action or a directive).

        False for a step that only brings an input: step 0 when the user
        speaks first, or a user message that follows tool results without a
        reply in between. Then no model call happened from π(ω_t).
        """
        return bool(self.thought or self.action or self.directives)

    @property
    def output(self) -> str:
        """The model's output text at this step, produced from x_t = π(ω_t): thought, then action (``""`` if none)."""
        if self.thought and self.action:
            return f"{self.thought}\n{self.action}"
        return self.thought or self.action

    @property
    def model_output(self) -> str:
        """The model's output at this step: thought and action (the same as :attr:`output`)."""
        return self.output

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
        """Whose input the observation is: ``meta["role"]`` when it is ``"user"``, ``"tool"`` or ``"system"``.

        Without such a role: ``"tool"`` when the step has an action (the
        observation is its result), else ``"user"``.
        """
        role = self.meta.get("role")
        if role in _INPUT_ROLES:
            return str(role)
        return "tool" if self.action else "user"

    @property
    def text(self) -> str:
        """The whole step as text."""
        return "\n".join(p for p in (self.thought, self.action, self.observation) if p)

    @classmethod
    def coerce(cls, item: Any, where: str = "step") -> "AgentStep":
        """A step record (a dict, a string or an AgentStep) as the AgentStep it stands for in c ∈ C.

        Accepts an AgentStep, a mapping with the field names above (the keys
        ``subgoal``, ``subgoal_done`` and ``fold`` are shorthand for the
        directives of that name), or a bare string (taken as the observation).
        """
        if isinstance(item, AgentStep):
            return item
        if isinstance(item, str):
            return cls(observation=item)
        return _checks.step_from_record(cls, item, where)

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


class History(Sequence[AgentStep]):
    """The steps 0 … t−1 before the current one, as an immutable view (a component of c ∈ C).

    During a run every step's history is a view of one growing record of the
    run's steps, so giving each step its history costs O(1).

    >>> steps = [AgentStep(observation="a"), AgentStep(observation="b")]
    >>> h = History(steps, 1)
    >>> len(h), h[0].observation, h.steps() is steps
    (1, 'a', True)
    """

    __slots__ = ("_steps", "_length")

    def __init__(self, steps: Sequence[AgentStep] = (), length: int | None = None) -> None:
        self._steps = steps
        self._length = len(steps) if length is None else length

    def steps(self) -> Sequence[AgentStep]:
        """The record of steps this history is a view of: the same object for every step of one run.

        Its first ``len(self)`` items are this history; during a run it grows
        by one step after each step. Read it, never change it. A mechanism that
        keeps something per step of the history (SCM's memory stream) can tell
        from its identity that it still looks at the same run.
        """
        return self._steps

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
    current :class:`AgentStep` (the model's output produced from π(ω_t), then
    the input that arrived after it) and the query;
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
    meta: Mapping[str, Any] = field(default_factory=Meta)
    extra: Mapping[str, Any] = field(default_factory=Meta)

    def __post_init__(self) -> None:
        _checks.check_context(self)
        if not isinstance(self.history, History):
            if isinstance(self.history, (str, bytes, Mapping)) or not isinstance(self.history, Sequence):
                raise InvalidArgumentError(f"Context: history must be a sequence of AgentStep, got {type(self.history).__name__}")
            object.__setattr__(self, "history", History([AgentStep.coerce(s, where=f"history[{k}]") for k, s in enumerate(self.history)]))
        if not isinstance(self.step, AgentStep):
            object.__setattr__(self, "step", AgentStep.coerce(self.step))

    @classmethod
    def _trusted(
        cls, t: int, step: AgentStep, query: str, tools: tuple[str, ...], history: History, meta: Meta, extra: Meta
    ) -> "Context":
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
        """c with some components C_m changed, as a new Context."""
        values = {name: getattr(self, name) for name in ("t", "step", "query", "tools", "history", "meta", "extra")}
        values.update(changes)
        return Context(**values)
