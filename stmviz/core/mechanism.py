"""The STM update mechanism (O, E, Ω_STM, C, U, X, π) of Definition 2.

The paper: U : Ω_STM × O × C → Ω_STM takes a state, an operation and context,
and returns a new state; it holds all transformation logic (adding and removing
elements, changing metadata, forgetting strategies). π : Ω_STM → X turns the
whole current state into the model's input format: it is not retrieval, it
decides the order and form in which the state is fed to the model.

A :class:`Mechanism` bundles O (``operations``), Ω_STM (``space``), U (``update``),
π (``project``) and the ``controller`` that picks o for a step (AgentFold's folding
directive, HiAgent's subgoal switch, SCM's memory controller); then the checked forms
:func:`~stmviz.run` calls, and what it offers beyond the paper (its record in a trace,
its token meter, the structure it declares for the figures). What stmviz refuses is
checked by :mod:`._mechanism_checks`; ``stmviz.check_mechanism`` checks the whole contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import _mechanism_checks as _checks
from .context import Context
from .element import Element
from .errors import STMError
from .formatting import content_text
from .model_input import ModelInput
from .operation import Operation, OperationSet
from .sizes import content_tokens, count_tokens
from .space import State, StateSpace

__all__ = ["Mechanism", "Transition", "make_mechanism", "ExampleMechanism"]


class Mechanism:
    """An STM mechanism, the seven-tuple (O, E, Ω_STM, C, U, X, π).

    Subclass it and define ``operations``, :meth:`update` and :meth:`project`
    (and :meth:`controller` when there is more than one operation type), or
    build one from plain functions with :func:`make_mechanism`.

    >>> from stmviz import Element, Mechanism, StateSpace, run, sizes
    >>> class KeepNewest(Mechanism):
    ...     '''Append each step's output, then its input; drop the oldest elements while Σμ > V_max.'''
    ...     operations = {"append": "add the output and the input, evicting the oldest on overflow"}
    ...     def update(self, state, operation, context):
    ...         halves = (context.step.output, context.step.observation)  # the output came first
    ...         state = state | {Element(x, {"t": context.t + k / 2}) for k, x in enumerate(halves) if x}
    ...         while state not in self.space:
    ...             state = state - {state.ordered()[0]}
    ...         return state
    ...     def project(self, state):
    ...         return " ".join(e.text for e in state)
    >>> m = KeepNewest(StateSpace(sizes.words, v_max=4))
    >>> m.project(run(m, ["a b", "c d", "e"]).final)
    'c d e'
    """

    #: O: the operation types τ with what each does (a dict or OperationSet).
    operations: OperationSet = OperationSet()
    #: A readable name; defaults to the class name.
    name: str = ""
    #: The element types e.meta["type"] it makes, name → stmviz.protocol.ElementType (meaning, colour),
    #: or {name: (meaning, colour)}; the figures, metrics and widgets read them (:mod:`stmviz.protocol`).
    element_types: Mapping[str, Any] = {}
    #: The directives its controller reads from a step (keys of AgentStep.directives), name → meaning.
    directives: Mapping[str, str] = {}
    #: The metadata components U and π read from each element type, type → keys; :func:`run`
    #: checks a given initial state ω_0 against it, so a foreign element is named at the start.
    required_meta: Mapping[str, tuple[str, ...]] = {}

    def __init__(self, space: StateSpace) -> None:
        self.space = _checks.a_space(self, space)

    def initial_state(self, context: Context) -> State:
        """ω_0, the state before the first step (default ∅). ``context.t`` is 0."""
        return State()

    def controller(self, state: State, context: Context) -> Operation | Sequence[Operation]:
        """Choose the operation(s) o ∈ O for this step from (ω, c): one Operation, or several applied in order.
        The default works for a mechanism with exactly one operation type."""
        return _checks.the_only_operation(self)

    def update(self, state: State, operation: Operation, context: Context) -> State | Transition:
        """U : Ω_STM × O × C → Ω_STM. Must be pure and stay in Ω_STM."""
        raise NotImplementedError(f"{type(self).__name__} must define update(state, operation, context)")

    def project(self, state: State) -> ModelInput | str | Sequence[Any]:
        """π : Ω_STM → X. The default lists the elements in canonical order."""
        return ModelInput.coerce(list(state))

    # -- the checked forms run() calls -----------------------------------------
    def choose(self, state: State, context: Context) -> tuple[Operation, ...]:
        """o_t = controller(ω_t, c_t), checked: a tuple of operations of declared types a ∈ τ."""
        return _checks.chosen_operations(self, self.controller(state, context))

    def apply(self, state: State, operation: Operation, context: Context) -> Transition:
        """U(ω, o, c), checked: o's type is declared, the result is a State in Ω_STM."""
        if operation not in self.operations:
            self.operations.require(operation, owner=str(self))  # raises, saying what is wrong
        result = self.update(state, operation, context)
        transition = result if isinstance(result, Transition) else Transition(_checks.a_state(self, operation, result))
        _checks.check_in_space(self, operation, transition.state)
        return transition

    def input(self, state: State) -> ModelInput:
        """π(ω), checked, as a :class:`ModelInput`."""
        return _checks.model_input(self, self.project(state))

    # -- beyond the paper: its record, its token meter, its structure ------------
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ops = cls.__dict__.get("operations")
        if ops is not None and not isinstance(ops, OperationSet):
            cls.operations = OperationSet(ops)

    def params(self) -> dict[str, Any]:
        """The parameters of U and π as JSON-ready values (recorded in traces)."""
        return {}

    def __str__(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self}({self.space!r}{', ' + params if params else ''})"

    def spec(self) -> dict[str, Any]:
        """The mechanism (O, E, Ω_STM, C, U, X, π) described for a trace file: class path, name and parameters."""
        cls = type(self)
        return {"class": f"{cls.__module__}:{cls.__qualname__}", "name": str(self), "params": self.params()}

    @classmethod
    def from_spec(cls, space: StateSpace, spec: Mapping[str, Any]) -> Mechanism | None:
        """The mechanism :meth:`spec` describes, rebuilt over ``space``: ``None`` unless it is stmviz's own, loaded, and builds.

        Its class (this one or a subclass) is looked up, never imported: reading a trace file,
        :func:`stmviz.io.mechanism_from_spec` loads the stmviz module the spec names first."""
        found = _checks.spec_class(spec)
        if isinstance(found, type) and issubclass(found, cls):
            try:
                return found(space, **dict(spec.get("params") or {}))
            except Exception:  # parameters the class refuses: the trace is read without its mechanism
                return None
        return None

    def removal_reason(self, operation: Operation) -> str:
        """The default reason recorded for the elements e ∈ ω that an operation o removes."""
        if operation.reason:
            return f"{operation.type}: {operation.reason}"
        declared = self.operations.get(operation.type)
        if declared is not None and declared.doc:
            return f"{operation.type}: {declared.doc}"
        return operation.type

    @property
    def encoding(self) -> str:
        """The tiktoken encoding used to measure π(ω) (μ's, if μ counts tokens)."""
        return getattr(self.space.mu, "encoding", None) or "cl100k_base"

    def count_tokens(self, text: str) -> int:
        """Tokens of a string, with :attr:`encoding`."""
        return count_tokens(text, self.encoding)

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, as a model would be billed: each message of π(ω) counted (a mechanism whose π is the identity may return Σμ)."""
        count = self.count_tokens
        total = 0
        for message in self.input(state):
            try:
                total += content_tokens(message.content, count)
            except STMError:
                if isinstance(message.content, (str, tuple)):
                    raise
                total += count(content_text(message.content))  # a content of no kind μ knows: its text
        return total

    def hierarchy(self, state: State) -> Any:
        """The hierarchy of ω, a :class:`stmviz.protocol.Hierarchy` of nodes and parent → child edges (HiAgent:
        task → subgoals → pairs); ``None``, the default: ω is flat."""
        return None

    def folds(self, added: Sequence[Element], removed: Sequence[Element]) -> Mapping[Element, Sequence[Element]]:
        """For one step: which elements it adds are the parents of which it removes, so that a folding mechanism's
        (AgentFold's) fold tree can be drawn from a trace. Default: no folds."""
        return {}


class Transition:
    """What U may return instead of a bare State: the new state, and why elements left (``reasons``, recorded in the trace)."""

    __slots__ = ("state", "reasons")

    def __init__(self, state: State, reasons: Mapping[Element, str] | None = None) -> None:
        self.state = state
        # a fresh dict from U is taken as it is (U builds it per call); anything else is copied
        self.reasons = reasons if type(reasons) is dict else dict(reasons or {})

    def __repr__(self) -> str:
        return f"Transition({self.state!r}, {len(self.reasons)} reasons)"


def make_mechanism(
    space: StateSpace, *, operations: Mapping[str, str] | Iterable[str], update: Callable[..., State | Transition],
    project: Callable[..., Any] | None = None, controller: Callable[..., Operation | Sequence[Operation]] | None = None,
    initial: Callable[..., State] | None = None, name: str = "mechanism",
) -> Mechanism:
    """A mechanism (O, E, Ω_STM, C, U, X, π) built from plain functions for U, π and the controller.

    Each receives the mechanism first (so it can reach ``m.space``): ``update(m, state, operation, context)``,
    ``project(m, state)``, ``controller(m, state, context)``, ``initial(m, context)``. A wrong argument is an
    InvalidArgumentError naming it.
    """
    functions = {
        "project": (project, "project(m, state) -> model input"),
        "controller": (controller, "controller(m, state, context) -> Operation"),
        "initial": (initial, "initial(m, context) -> State"),
    }
    declared = _checks.declared_operations(space, operations, update, functions, name)
    return _FunctionMechanism(space, name, declared, update, project, controller, initial)


class _FunctionMechanism(Mechanism):
    """A mechanism whose U, π, controller and ω_0 are plain functions (see :func:`make_mechanism`)."""

    def __init__(
        self, space: StateSpace, name: str, operations: Mapping[str, str] | Iterable[str], update: Callable[..., State | Transition],
        project: Callable[..., Any] | None, controller: Callable[..., Operation | Sequence[Operation]] | None,
        initial: Callable[..., State] | None,
    ) -> None:
        super().__init__(space)
        self.name = name
        self.operations = OperationSet(operations)
        self._update = update
        self._project = project
        self._controller = controller
        self._initial = initial

    def update(self, state: State, operation: Operation, context: Context) -> State | Transition:
        return self._update(self, state, operation, context)

    def project(self, state: State) -> ModelInput | str | Sequence[Any]:
        return super().project(state) if self._project is None else self._project(self, state)

    def controller(self, state: State, context: Context) -> Operation | Sequence[Operation]:
        return super().controller(state, context) if self._controller is None else self._controller(self, state, context)

    def initial_state(self, context: Context) -> State:
        return State() if self._initial is None else self._initial(self, context)


class ExampleMechanism(Mechanism):
    """The smallest useful mechanism, for examples and tests: U appends each step as one element and
    evicts the oldest while Σμ > V_max; π is the identity. ``from stmviz.core.mechanism import ExampleMechanism``."""

    name = "example"
    operations = OperationSet({"append": "add the step as one element, evicting the oldest on overflow"})

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        space = self.space
        text = context.step.text or "(empty step)"
        element = Element(text, {"t": context.t, "type": "step"})
        if not space.fits(element):
            return Transition(state)
        total = space.size(state) + space.measure(element)
        reasons = {}
        if total > space.v_max:
            for oldest in state.ordered():
                reasons[oldest] = "oldest element; Σμ exceeded V_max"
                total -= space.measure(oldest)
                if total <= space.v_max:
                    break
        return Transition(state.replace(reasons, (element,)) if reasons else state | {element}, reasons)

    def projection_size(self, state: State) -> int:
        """|π(ω)| = Σμ when μ counts tokens of the content (π is the identity)."""
        mu = self.space.mu
        if getattr(mu, "encoding", None) and "overhead" not in getattr(mu, "name", ""):
            return int(self.space.size(state))
        return super().projection_size(state)
