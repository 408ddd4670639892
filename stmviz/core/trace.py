"""The loop of the paper's Figure 1, and its record: :func:`run`, :class:`Step`, :class:`Trace`.

The paper (Figure 1): the mechanism projects the state with π and sends it
to the LLM; the LLM's output becomes context information c for the next
update U. A step t holds the model's output (thought, action, directives),
which the model produced from x_t = π(ω_t), then the input that arrived after
it (a tool's result, the user's next message), seen from x_{t+1} on:

    x_t = π(ω_t) → model output → context c_t → o_t = controller(ω_t, c_t) → ω_{t+1} = U(ω_t, o_t, c_t)

For a dialogue u_0, a_0, …, u_n, a_n: step 0 = (no output, u_0); step k = (a_{k−1}, u_k);
the last step = (a_n, no input). :func:`run` drives a mechanism over such steps (its
arguments and errors checked by :mod:`._run_checks`) and returns a :class:`Trace` of every
:class:`Step`: what was added and removed, and why, as diffs with a whole state every
``checkpoint_every`` steps. A trace's words and tables are written by :mod:`.formatting`,
its JSON form and files by :mod:`stmviz.io.serialize`: the core's one call out of itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._fast.carry import carried_sum
from . import guards
from ._run_checks import NO_EXTRA, ErrorsAtStep, initial_state, projection_size, read_steps, run_inputs
from .context import AgentStep, Context, History
from .element import Element, Meta, order_key
from .errors import InvalidArgumentError, deprecated
from .formatting import describe_final, describe_step, format_number, plural, step_halves, trace_records, trace_table
from .mechanism import Mechanism
from .model_input import ModelInput
from .operation import Operation
from .space import State, StateSpace

__all__ = ["Step", "Trace", "run", "require_trace", "describe_step", "step_halves"]


def run(
    mechanism: Mechanism, steps: Iterable[Any], *, query: str | None = None, tools: Sequence[str] | None = None,
    meta: Mapping[str, Any] | None = None, initial: State | None = None, checkpoint_every: int = 32,
) -> Trace:
    """Run the loop of Figure 1 over ``steps`` (records of AgentStep, dicts or texts) from ω_0 and record it.

    ``query``, ``tools`` and ``meta`` (Q, T, request metadata) are shared by every c_t; ω_0 is
    ``initial``, else ``mechanism.initial_state(c_0)``. Checks and errors: :mod:`._run_checks`.

    >>> from stmviz import StateSpace, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> len(trace), [e.text for e in trace.final], trace[2].reasons
    (3, ['three', 'four five'], ('oldest element; Σμ exceeded V_max',))
    """
    steps, query, tools, request = run_inputs(mechanism, steps, query, tools, meta)
    state = initial_state(mechanism, initial, Context(t=0, query=query, tools=tools, meta=request))  # ω_0
    space = mechanism.space
    trace = Trace(
        initial=state, sizes={e: space.measure(e) for e in state.ordered()}, v_max=space.v_max, size_name=space.name,
        mechanism=mechanism, query=query, tools=tools, meta=request, checkpoint_every=checkpoint_every,
    )
    size = space.size(state)  # Σμ(ω_t), carried from step to step
    history: list[AgentStep] = []
    for t, step in enumerate(read_steps(steps)):  # the model's output, then the input that arrived
        context = Context.from_trusted(t, step, query, tools, History(history, t), request, NO_EXTRA)  # c_t
        input_size = projection_size(mechanism, state, t, trace)  # |x_t|, x_t = π(ω_t): what the model saw
        with ErrorsAtStep(mechanism, t, trace):  # an error names step t; ω_t is left as it was
            operations = mechanism.choose(state, context)  # o_t = controller(ω_t, c_t)
            new, reasons = _update(mechanism, state, operations, context)  # ω_{t+1} = U(ω_t, o_t, c_t)
        added, removed, why, new_size = _diff(trace.sizes, space, state.elements, new.elements, reasons, size)
        trace.record(Step(t, operations, context, added, removed, why, size, new_size, input_size), new.elements)
        state, size = new, new_size
        history.append(step)
    trace.final_input_size = projection_size(mechanism, state, len(trace), trace)  # |π(ω_n)|
    return trace


def _update(mechanism: Mechanism, state: State, operations: tuple[Operation, ...], context: Context) -> tuple[State, dict[Element, str]]:
    """ω_{t+1} = U(ω_t, o_t, c_t), the operations of o_t in order; and why each element left (U's reason, else o's)."""
    reasons: dict[Element, str] = {}
    for operation in operations:
        transition = mechanism.apply(state, operation, context)
        if transition.state.elements is not state.elements:
            default = None
            for element in state.elements - transition.state.elements:
                why = transition.reasons.get(element)
                if why is None:
                    if default is None:
                        default = mechanism.removal_reason(operation)
                    why = default
                reasons[element] = why
        state = transition.state
    return state, reasons


def _diff(
    sizes: dict[Element, float], space: StateSpace, before: frozenset[Element], after: frozenset[Element], reasons: Mapping[Element, str], size: float
) -> tuple[tuple[Element, ...], tuple[Element, ...], tuple[str, ...], float]:
    """ω_{t+1} ∖ ω_t and ω_t ∖ ω_{t+1} in canonical order, why each left, and Σμ(ω_{t+1}) carried from ``size`` = Σμ(ω_t).

    μ of each new element is added to ``sizes``, the trace's μ of every element ever seen.
    """
    if after is before:
        return (), (), (), size
    added = tuple(sorted(after - before, key=order_key))
    removed = tuple(sorted(before - after, key=order_key))
    for element in added:  # in canonical order, so trace.sizes is ordered the same in every process
        if element not in sizes:
            sizes[element] = space.measure(element)
    why = tuple([reasons.get(e, "removed") for e in removed])
    return added, removed, why, carried_sum(size, sizes, removed, added)


@dataclass(slots=True)
class Step:
    """The record of one pass of the loop of Figure 1: ω_t → ω_{t+1} (equal to another when every field is).

    ``context`` is c_t: its ``step`` is the model's output, produced from x_t = π(ω_t) (``trace.project(t)``),
    then the input that arrived after it. ``operations`` is o_t, in the order U applied them; ``added`` =
    ω_{t+1} ∖ ω_t and ``removed`` = ω_t ∖ ω_{t+1} (canonical order), ``reasons`` why each was removed;
    ``size_before``, ``size_after`` are Σμ(ω_t), Σμ(ω_{t+1}); ``input_size`` is |π(ω_t)| in tokens.
    """

    t: int
    operations: tuple[Operation, ...]
    context: Context
    added: tuple[Element, ...]
    removed: tuple[Element, ...]
    reasons: tuple[str, ...]
    size_before: float
    size_after: float
    input_size: int

    @property
    def why(self) -> dict[Element, str]:
        """Each removed element e ∈ ω_t ∖ ω_{t+1} → the reason it was removed."""
        return dict(zip(self.removed, self.reasons))

    @property
    def operation(self) -> str:
        """The operations o_t as one readable string, e.g. ``'evict; append'``."""
        return "; ".join(str(o) for o in self.operations)

    def describe(self, width: int = 80) -> str:
        """Step t in words: what the model saw, what it answered, what arrived then (plain text, agent texts cut to ``width``)."""
        return describe_step(self.t, self.context.step, self.input_size, width)

    def __repr__(self) -> str:
        return (
            f"Step(t={self.t}, {self.operation}, +{len(self.added)} −{len(self.removed)}, "
            f"Σμ {format_number(self.size_before)}→{format_number(self.size_after)}, |π|={self.input_size})"
        )


class Trace(Sequence[Step]):
    """The history of a run: ω_0 and every :class:`Step`, stored as diffs. ``len(trace)`` is the number of steps n;
    ``trace[t]`` is step t (ω_t → ω_{t+1}); ``trace.state_at(t)`` rebuilds ω_t for 0 ≤ t ≤ n; ``trace.final`` is ω_n."""

    def __init__(
        self, *, initial: State, sizes: Mapping[Element, float], v_max: float, size_name: str, mechanism: Mechanism | None = None,
        mechanism_spec: Mapping[str, Any] | None = None, query: str = "", tools: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None, checkpoint_every: int = 32, final_input_size: int | None = None,
    ) -> None:
        checkpoint_every = guards.whole_number(checkpoint_every, "checkpoint_every", 1, fix="; the default is 32")
        self.mechanism = mechanism
        self.mechanism_spec = dict(mechanism_spec or (mechanism.spec() if mechanism else {}))
        self.v_max = v_max
        self.size_name = size_name
        self.query = query
        self.tools = tuple(tools)
        self.meta = Meta(meta or {})
        self.sizes: dict[Element, float] = dict(sizes)  # μ(e) of every e ever in some ω_t
        self._steps: list[Step] = []
        self._every = checkpoint_every
        self._checkpoints: list[frozenset[Element]] = [initial.elements]  # ω_0, ω_every, ω_2·every, …
        self._current = initial.elements  # ω_n
        self.final_input_size = final_input_size  # |π(ω_n)|

    def record(self, step: Step, after: frozenset[Element]) -> None:
        """Record step t and the elements of ω_{t+1} = ``after``, without a check: for :func:`run` and for
        :mod:`stmviz.io` reading a trace file it has checked."""
        self._steps.append(step)
        self._current = after
        if len(self._steps) % self._every == 0:
            self._checkpoints.append(after)

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index: Any) -> Any:
        return self._steps[index]

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    @property
    def initial(self) -> State:
        """ω_0."""
        return State.from_trusted(self._checkpoints[0])

    @property
    def final(self) -> State:
        """ω_n, the state after the last step."""
        return State.from_trusted(self._current)

    def state_at(self, t: int) -> State:
        """ω_t, the state before step t (negative t counts from the end: ``state_at(-1)`` is ω_n, the final state).

        It is rebuilt from the nearest checkpoint at or before t, with the diffs of the steps between."""
        t = self.resolve_t(t, where="state_at")
        if t == len(self._steps):
            return State.from_trusted(self._current)
        k = t // self._every
        elements = self._checkpoints[k]
        for step in self._steps[k * self._every : t]:
            if step.removed:
                elements = elements.difference(step.removed)
            if step.added:
                elements = elements.union(step.added)
        return State.from_trusted(elements)

    def states(self) -> Iterator[State]:
        """ω_0, ω_1, …, ω_n in order (incrementally, without checkpoints)."""
        elements = self._checkpoints[0]
        yield State.from_trusted(elements)
        for step in self._steps:
            elements = elements.difference(step.removed).union(step.added)
            yield State.from_trusted(elements)

    def size_at(self, t: int) -> float:
        """Σμ(ω_t), for 0 ≤ t ≤ n (negative t counts from the end)."""
        t = self.resolve_t(t, where="size_at")
        n = len(self._steps)
        if t == n:
            return self._steps[-1].size_after if n else self.size_of(self.initial)
        return self._steps[t].size_before

    def project(self, t: int) -> ModelInput:
        """π(ω_t): what the model saw when it produced step t's output; ``project(n)``: what it would see next.

        It holds every input that arrived up to step t − 1, as far as the mechanism kept it
        (computed with the trace's mechanism, else the elements in order); its size is ``self[t].input_size``.
        """
        state = self.state_at(t)
        if self.mechanism is not None:
            return self.mechanism.input(state)
        return ModelInput.coerce(list(state))

    # -- beyond the paper: reading a trace --------------------------------------------
    @property
    def checkpoint_every(self) -> int:
        """Every how many steps the trace keeps a whole state ω_t (the steps between are diffs)."""
        return self._every

    @property
    def name(self) -> str:
        """The mechanism's name."""
        return str(self.mechanism_spec.get("name") or (self.mechanism or "trace"))

    @property
    def space(self) -> StateSpace | None:
        """Ω_STM of the trace's mechanism (``None`` when the trace has no mechanism)."""
        return self.mechanism.space if self.mechanism is not None else None

    def __repr__(self) -> str:
        return f"<Trace of {self.name}: {plural(len(self), 'step')}, V_max = {format_number(self.v_max)}, μ = {self.size_name}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        recorded = ("_steps", "initial", "v_max", "size_name", "query", "tools", "meta", "sizes", "final_input_size")
        return all(getattr(self, name) == getattr(other, name) for name in recorded)

    __hash__ = None  # type: ignore[assignment]

    def resolve_t(self, t: object, *, states: bool = True, where: str = "trace") -> int:
        """A time index t of ω_t (or of step t), checked and returned as a non-negative int.

        With ``states=True`` t indexes the states ω_0 … ω_n (0 ≤ t ≤ n); otherwise
        the steps 0 … n − 1. Negative t counts from the end, as for lists.

        Raises
        ------
        InvalidIndexError
            if t is not a whole number (an int or a numpy integer: the rule of every figure), or out of range.
        """
        return guards.time_index(self._steps, t, where, states=states)

    def size_of(self, state: Iterable[Element]) -> float:
        """Σμ over elements, with the sizes recorded in this trace."""
        return sum(map(self.sizes.__getitem__, state))

    def elements(self) -> list[Element]:
        """Every element e that was ever in some ω_t, in order of first appearance."""
        return list(self.sizes)

    def describe(self, t: int, width: int = 80) -> str:
        """The loop at ω_t in words: :meth:`Step.describe` of step t, or, at t = n, the final state (negative t from the end)."""
        t = self.resolve_t(t, where="describe")
        if t < len(self._steps):
            return self._steps[t].describe(width)
        return describe_final(t, self.final_input_size)

    def to_records(self, width: int | None = 24) -> list[dict[str, Any]]:
        """One flat dict per step ω_t → ω_{t+1}, ready for a table or a plot.

        Keys: ``t``, ``operation``, ``size_before``, ``size_after``, ``v_max``, ``occupancy`` (Σμ(ω_{t+1}) / V_max),
        ``input_tokens`` (|π(ω_t)|), ``n_elements`` (|ω_{t+1}|), ``n_added``, ``n_removed``, ``added``, ``removed``
        (labels, texts cut to ``width`` characters; 0 or None: whole) and ``why`` (the reasons, joined; never cut).
        """
        cut = guards.whole_number(width, "width", 0, where="to_records", none_ok=True) or 0
        return trace_records(self._steps, len(self._checkpoints[0]), self.v_max, cut)

    def table(self, width: int | None = 40, limit: int | None = None) -> str:
        """The trace as a readable plain-text table: t, operation, Σμ / V_max, added, removed, why.

        Parameters
        ----------
        width : int or None
            The most characters shown of each element's text (and of the operation, at least 22); ``0`` or
            ``None``: whole texts, each on one line. The why column is never cut.
        limit : int, optional
            Show at most this many steps. Examples: tests/core/test_examples_trace.py.
        """
        cut = guards.whole_number(width, "width", where="Trace.table", none_ok=True, minimum=0, fix="; 0 or None shows whole texts") or 0
        limit = guards.whole_number(limit, "limit", where="Trace.table", none_ok=True, minimum=0)
        return trace_table(self._steps if limit is None else self._steps[:limit], self.v_max, cut)

    # -- JSON and files: the format is stmviz.io.serialize's --------------------------
    def to_dict(self) -> dict[str, Any]:
        """The trace in its versioned JSON form (see :func:`stmviz.io.serialize.trace_to_dict`)."""
        return _trace_format().trace_to_dict(self)

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = None) -> str:
        """The trace as JSON text (format ``stmviz-trace``, version 1); ``to_json(path)`` is deprecated: :meth:`save`."""
        if path is not None:
            deprecated("Trace.to_json(path)", "trace.save(path)")
        return _trace_format().trace_to_json(self, path, indent=indent)

    def save(self, path: str | os.PathLike[str], indent: int | None = None) -> None:
        """Write the trace to a JSON file (atomically: a failed save leaves the old file whole)."""
        _trace_format().trace_to_json(self, path, indent=indent)

    @classmethod
    def load(cls, path: str | os.PathLike[str], mechanism: Mechanism | None = None) -> Trace:
        """Read a trace from a JSON file written by :meth:`save` (see :func:`stmviz.io.serialize.load_trace`)."""
        return _trace_format().load_trace(path, mechanism)

    @classmethod
    def from_json(
        cls, text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace"
    ) -> Trace:
        """Rebuild a trace from :meth:`to_json` output; a bad input is a :class:`~stmviz.errors.FormatError` saying where and what."""
        return _trace_format().trace_from_json(text, mechanism, source)


def _trace_format() -> Any:
    """:mod:`stmviz.io.serialize`, the trace's JSON format and files: the core's one call out of itself, made on demand."""
    from ..io import serialize

    return serialize


def require_trace(value: object, where: str) -> Trace:
    """``value`` if it is a :class:`Trace` (the record of Figure 1's loop), else an error saying what to pass."""
    if not isinstance(value, Trace):
        raise InvalidArgumentError(
            f"{where} needs a Trace (the record of run(mechanism, steps)), got {type(value).__name__}; "
            f"build one with stmviz.run(mechanism, steps)"
        )
    return value
