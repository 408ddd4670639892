"""The STM update mechanism (O, E, Ω_STM, C, U, X, π) of Definition 2.

The paper: the mechanism is the seven-tuple (O, E, Ω_STM, C, U, X, π). The
update function U : Ω_STM × O × C → Ω_STM takes a state, an operation and
context, and returns a new state; it holds all transformation logic (adding
and removing elements, changing metadata, forgetting strategies), and having
C in its signature lets updates depend on external factors. The projection
π : Ω_STM → X turns the whole current state into the model's input format:
it is not retrieval, it decides the order and form in which the state is fed
to the model.

A :class:`Mechanism` bundles

- ``operations`` — O = ⋃_{a∈τ} O_a, declared as an :class:`OperationSet`;
- ``space`` — the state space Ω_STM over E (Definition 1);
- ``update(state, operation, context)`` — U : Ω_STM × O × C → Ω_STM;
- ``project(state)`` — π : Ω_STM → X;
- ``controller(state, context)`` — the policy that picks o for a step
  (AgentFold's folding directive, HiAgent's subgoal switch, SCM's memory
  controller).

U and π must be pure. The framework (:meth:`Mechanism.apply`) checks every
result of U against Ω_STM; :func:`check_mechanism` checks the whole contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from . import _mechanism_checks as _checks
from .element import Element, content_text
from .context import Context
from .errors import ContractError, InvalidArgumentError, STMError
from .model_input import ModelInput
from .operation import Operation, OperationSet
from .sizes import count_tokens, part_tokens
from .space import State, StateSpace

__all__ = ["Mechanism", "Transition", "make_mechanism"]


class Transition:
    """What U may return instead of a bare State: the new state and why elements left.

    ``reasons`` maps removed elements to a sentence; the trace records it.
    """

    __slots__ = ("state", "reasons")

    def __init__(self, state: State, reasons: Mapping[Element, str] | None = None) -> None:
        self.state = state
        # a fresh dict from U is taken as it is (U builds it per call); anything else is copied
        self.reasons = reasons if type(reasons) is dict else dict(reasons or {})

    def __repr__(self) -> str:
        return f"Transition({self.state!r}, {len(self.reasons)} reasons)"


class Mechanism:
    """An STM mechanism, the seven-tuple (O, E, Ω_STM, C, U, X, π).

    Subclass it and define ``operations``, :meth:`update` and :meth:`project`
    (and :meth:`controller` when there is more than one operation type), or
    build one from plain functions with :func:`make_mechanism`.

    Examples
    --------
    >>> from stmviz import Element, Mechanism, StateSpace, run, sizes
    >>> class KeepNewest(Mechanism):
    ...     '''Append each step's output, then its input; drop the oldest elements while Σμ > V_max.'''
    ...     operations = {"append": "add the output and the input, evicting the oldest on overflow"}
    ...     def update(self, state, operation, context):
    ...         halves = (context.step.output, context.step.input)  # the output came first
    ...         state = state | {Element(x, {"t": context.t + k / 2}) for k, x in enumerate(halves) if x}
    ...         while state not in self.space:
    ...             state = state - {state.ordered()[0]}
    ...         return state
    ...     def project(self, state):
    ...         return " ".join(e.text for e in state)
    >>> m = KeepNewest(StateSpace(sizes.words, v_max=4))
    >>> trace = run(m, ["a b", "c d", "e"])
    >>> m.project(trace.final)
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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ops = cls.__dict__.get("operations")
        if ops is not None and not isinstance(ops, OperationSet):
            cls.operations = OperationSet(ops)

    def hierarchy(self, state: State) -> Any:
        """The hierarchy of ω: its elements as nodes and parent → child edges (``None``: ω is flat).

        Override it when ω has a structure (HiAgent: task → subgoals → pairs);
        return a :class:`stmviz.protocol.Hierarchy`.
        """
        return None

    def folds(self, added: Sequence[Element], removed: Sequence[Element]) -> Mapping[Element, Sequence[Element]]:
        """For one step: which elements it adds are the parents of which elements it removes (folding).

        A folding mechanism (AgentFold) overrides it so the fold tree, with the
        folded-away elements, can be drawn from a trace. Default: no folds.
        """
        return {}

    def __init__(self, space: StateSpace) -> None:
        if not isinstance(space, StateSpace):
            raise InvalidArgumentError(
                f"space: a mechanism needs a StateSpace (Ω_STM), got {type(space).__name__}; "
                f"e.g. {type(self).__name__}(StateSpace(tokens(), v_max=4096))"
            )
        self.space = space

    # -- the seven-tuple ----------------------------------------------------
    def __str__(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self}({self.space!r}{', ' + params if params else ''})"

    def initial_state(self, context: Context) -> State:
        """ω_0, the state before the first step (default ∅). ``context.t`` is 0."""
        return State()

    def controller(self, state: State, context: Context) -> Operation | Sequence[Operation]:
        """Choose the operation(s) o ∈ O for this step from (ω, c).

        The default works for a mechanism with exactly one operation type.
        Return one Operation or a sequence applied in order (each result is
        checked against Ω_STM).
        """
        types = self.operations.types
        if len(types) == 1:
            return _only_operation(types[0])
        raise ContractError(
            f"{self} declares {len(types)} operation types ({', '.join(types) or 'none'}), so it must "
            f"define controller(state, context) to choose one per step"
        )

    def update(self, state: State, operation: Operation, context: Context) -> State | Transition:
        """U : Ω_STM × O × C → Ω_STM. Must be pure and stay in Ω_STM."""
        raise NotImplementedError(f"{type(self).__name__} must define update(state, operation, context)")

    def project(self, state: State) -> ModelInput | str | Sequence[Any]:
        """π : Ω_STM → X. The default lists the elements in canonical order."""
        return ModelInput.coerce(list(state))

    def params(self) -> dict[str, Any]:
        """The parameters of U and π as JSON-ready values (recorded in traces)."""
        return {}

    # -- checked versions used by run() ---------------------------------------
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
        """π(ω) as a :class:`ModelInput`."""
        x = self.project(state)
        try:
            return ModelInput.coerce(x)
        except InvalidArgumentError as exc:
            raise ContractError(
                f"{self}.project(ω) returned {type(x).__name__}; π must return a ModelInput, a string, "
                f"or a list of strings or messages ({exc})"
            ) from None

    @property
    def encoding(self) -> str:
        """The tiktoken encoding used to measure π(ω) (μ's, if μ counts tokens)."""
        return getattr(self.space.mu, "encoding", None) or "cl100k_base"

    def count_tokens(self, text: str) -> int:
        """Tokens of a string, with :attr:`encoding`."""
        return count_tokens(text, self.encoding)

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: the size of the model input, as a model would be billed for it.

        The default projects ω and counts each message's tokens (text with
        tiktoken, images by the tile formula). Mechanisms whose π is the
        identity may return Σμ directly.
        """
        count = self.count_tokens
        total = 0
        for message in self.input(state):
            content = message.content
            if isinstance(content, str):
                total += count(content)
            elif isinstance(content, tuple):
                total += sum(part_tokens(p, count) for p in content)
            else:
                try:
                    total += part_tokens(content, count)
                except STMError:
                    total += count(content_text(content))
        return total

    def removal_reason(self, operation: Operation) -> str:
        """The default reason recorded for the elements e ∈ ω that an operation o removes."""
        if operation.reason:
            return f"{operation.type}: {operation.reason}"
        declared = self.operations.get(operation.type)
        if declared is not None and declared.doc:
            return f"{operation.type}: {declared.doc}"
        return operation.type

    # -- rebuilding from a trace -------------------------------------------------
    def spec(self) -> dict[str, Any]:
        """The mechanism (O, E, Ω_STM, C, U, X, π) described for a trace file: class path, name and parameters."""
        cls = type(self)
        return {"class": f"{cls.__module__}:{cls.__qualname__}", "name": str(self), "params": self.params()}

    @staticmethod
    def from_spec(space: StateSpace, spec: Mapping[str, Any]) -> "Mechanism | None":
        """Rebuild a mechanism of stmviz's own from :meth:`spec`; ``None`` if that is not possible.

        Only classes inside the ``stmviz`` package are imported, so loading a
        trace file never runs foreign code.
        """
        path = spec.get("class") if isinstance(spec, Mapping) else None
        cls = _checks.mechanism_class(path, Mechanism) if isinstance(path, str) else None
        if cls is None:
            return None
        try:
            return cls(space, **dict(spec.get("params") or {}))
        except Exception:
            return None


@lru_cache(maxsize=256)
def _only_operation(type_name: str) -> Operation:
    """The parameterless operation of a single-type mechanism (operations are immutable, so shared)."""
    return Operation(type_name)


class _FunctionMechanism(Mechanism):
    """A mechanism whose U, π, controller and ω_0 are plain functions (see :func:`make_mechanism`)."""

    def __init__(
        self,
        space: StateSpace,
        name: str,
        operations: Mapping[str, str] | Iterable[str],
        update: Callable[..., State | Transition],
        project: Callable[..., Any] | None,
        controller: Callable[..., Operation | Sequence[Operation]] | None,
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
        if self._project is None:
            return super().project(state)
        return self._project(self, state)

    def controller(self, state: State, context: Context) -> Operation | Sequence[Operation]:
        if self._controller is None:
            return super().controller(state, context)
        return self._controller(self, state, context)

    def initial_state(self, context: Context) -> State:
        if self._initial is None:
            return State()
        return self._initial(self, context)


def make_mechanism(
    space: StateSpace,
    *,
    operations: Mapping[str, str] | Iterable[str],
    update: Callable[..., State | Transition],
    project: Callable[..., Any] | None = None,
    controller: Callable[..., Operation | Sequence[Operation]] | None = None,
    initial: Callable[..., State] | None = None,
    name: str = "mechanism",
) -> Mechanism:
    """A mechanism (O, E, Ω_STM, C, U, X, π) built from plain functions for U, π and the controller.

    Each function receives the mechanism first (so it can reach
    ``m.space``): ``update(m, state, operation, context)``,
    ``project(m, state)``, ``controller(m, state, context)``,
    ``initial(m, context)``.

    Raises :class:`~stmviz.errors.InvalidArgumentError` naming the argument
    when ``space`` is no StateSpace, ``operations`` declares no operation type
    (or is a str: ``operations="add"`` would be the types a and d), ``update``
    is not callable, ``project``/``controller``/``initial`` are neither callable
    nor None, or ``name`` is not a non-empty text.

    >>> from stmviz import Element, StateSpace, run, sizes
    >>> def add(m, state, op, c):
    ...     new = state | {Element(c.observation, {"t": c.t})}
    ...     return new if new in m.space else state
    >>> m = make_mechanism(StateSpace(sizes.chars, 10), operations={"add": "add if it fits"}, update=add, name="greedy")
    >>> [e.text for e in run(m, ["hello", "hi", "world"]).final]
    ['hello', 'hi']
    """
    functions = {
        "project": (project, "project(m, state) -> model input"),
        "controller": (controller, "controller(m, state, context) -> Operation"),
        "initial": (initial, "initial(m, context) -> State"),
    }
    declared = _checks.declared_operations(space, operations, update, functions, name)
    return _FunctionMechanism(space, name, declared, update, project, controller, initial)


class _Example(Mechanism):
    """A small reference mechanism used in docs and tests: append, evict oldest on overflow."""

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

    def project(self, state: State) -> ModelInput:
        """π(ω): one user message per element, in canonical (time) order — the identity."""
        return ModelInput.coerce(list(state))

    def projection_size(self, state: State) -> int:
        """|π(ω)| = Σμ when μ counts tokens of the content (π is the identity)."""
        mu = self.space.mu
        if getattr(mu, "encoding", None) and "overhead" not in getattr(mu, "name", ""):
            return int(self.space.size(state))
        return super().projection_size(state)
