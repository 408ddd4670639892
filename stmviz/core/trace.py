"""The loop of the paper's Figure 1, and its record: :func:`run`, :class:`Step`, :class:`Trace`.

The paper (Figure 1): the mechanism projects the state with π and sends it
to the LLM; the LLM's output becomes context information c for the next
update U. A step t holds the model's output (thought, action, directives),
which the model produced from x_t = π(ω_t), then the input that arrived after
it (a tool's result, the user's next message), seen from x_{t+1} on:

    x_t = π(ω_t) → model output → context c_t → o_t = controller(ω_t, c_t) → ω_{t+1} = U(ω_t, o_t, c_t)

The step becomes c_t as the paper's C holds "the current request or input" and
"the results of model calls". For a dialogue u_0, a_0, u_1, a_1, …, u_n, a_n:
step 0 = (no output, u_0); step k = (a_{k−1}, u_k); the last step = (a_n, no
input). :func:`run` drives a mechanism over such steps and returns a
:class:`Trace` of every :class:`Step`: what was added and removed, and why.

A reader may skip the side modules: :mod:`._run_checks` (run's arguments and
errors), :mod:`._trace_store` (diffs and checkpoints), :mod:`._trace_views`
(reading a trace: ω_t, sizes, π(ω_t), tables, JSON) and :mod:`._trace_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import guards
from ._run_checks import NO_EXTRA, ErrorsAtStep, initial_state, projection_size, read_steps, run_inputs
from ._trace_store import Recorder, explain
from ._trace_text import describe_step, step_halves  # public, imported from here by the figures
from ._trace_views import _StepViews, _TraceViews
from .context import AgentStep, Context, History
from .element import Element, Meta
from .errors import InvalidArgumentError
from .mechanism import Mechanism
from .operation import Operation
from .space import State

__all__ = ["Step", "Trace", "run", "require_trace", "describe_step", "step_halves"]


class Step(_StepViews):
    """The record of one pass of the loop of Figure 1: ω_t → ω_{t+1}.

    ``context`` is c_t; its ``step`` is the model's output, produced from x_t = π(ω_t)
    (``trace.project(t)``), then the input that arrived after it (either may be
    missing: :meth:`describe` says it in words). ``operations`` is o_t, in the order U
    applied them; ``added`` = ω_{t+1} ∖ ω_t and ``removed`` = ω_t ∖ ω_{t+1} (canonical
    order), ``reasons`` why each was removed; ``size_before``, ``size_after`` are
    Σμ(ω_t), Σμ(ω_{t+1}); ``input_size`` is |π(ω_t)| in tokens.
    """

    __slots__ = ("t", "operations", "context", "added", "removed", "reasons", "size_before", "size_after", "input_size")

    def __init__(
        self,
        t: int,
        operations: tuple[Operation, ...],
        context: Context,
        added: tuple[Element, ...],
        removed: tuple[Element, ...],
        reasons: tuple[str, ...],
        size_before: float,
        size_after: float,
        input_size: int,
    ) -> None:
        self.t = t
        self.operations = operations
        self.context = context
        self.added = added
        self.removed = removed
        self.reasons = reasons
        self.size_before = size_before
        self.size_after = size_after
        self.input_size = input_size


class Trace(_TraceViews):
    """The history of a run: ω_0 and every :class:`Step`, stored as diffs.

    ``len(trace)`` is the number of steps n; ``trace[t]`` is step t (ω_t → ω_{t+1});
    ``trace.state_at(t)`` rebuilds ω_t for 0 ≤ t ≤ n; ``trace.final`` is ω_n.
    """

    def __init__(
        self,
        *,
        initial: State,
        sizes: Mapping[Element, float],
        v_max: float,
        size_name: str,
        mechanism: Mechanism | None = None,
        mechanism_spec: Mapping[str, Any] | None = None,
        query: str = "",
        tools: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
        checkpoint_every: int = 32,
        final_input_size: int | None = None,
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

    def _append(self, step: Step, after: frozenset[Element]) -> None:
        """Record step t and ω_{t+1} = ``after``."""
        self._steps.append(step)
        self._current = after
        if len(self._steps) % self._every == 0:
            self._checkpoints.append(after)

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index: Any) -> Any:
        return self._steps[index]


def require_trace(value: object, where: str) -> Trace:
    """``value`` if it is a :class:`Trace` (the record of Figure 1's loop), else an error saying what to pass."""
    if not isinstance(value, Trace):
        raise InvalidArgumentError(
            f"{where} needs a Trace (the record of run(mechanism, steps)), got {type(value).__name__}; "
            f"build one with stmviz.run(mechanism, steps)"
        )
    return value


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
    sizes = {e: space.measure(e) for e in state.ordered()}  # canonical, not hash, order
    trace = Trace(
        initial=state, sizes=sizes, v_max=space.v_max, size_name=space.name, mechanism=mechanism,
        query=query, tools=tools, meta=request, checkpoint_every=checkpoint_every,
    )
    recorder = Recorder(trace.sizes, space, space.size(state))
    history: list[AgentStep] = []
    for t, step in enumerate(read_steps(steps)):  # the model's output, then the input that arrived
        context = Context._trusted(t, step, query, tools, History(history, t), request, NO_EXTRA)  # c_t
        input_size = projection_size(mechanism, state, t, trace)  # |x_t|, x_t = π(ω_t): what the model saw
        with ErrorsAtStep(mechanism, t, trace):  # an error names step t; ω_t is left as it was
            operations = mechanism.choose(state, context)  # o_t = controller(ω_t, c_t)
            new, reasons = _update(mechanism, state, operations, context)  # ω_{t+1} = U(ω_t, o_t, c_t)
        diff = recorder.diff(state.elements, new.elements, reasons)  # added, removed, why, Σμ(ω_t), Σμ(ω_{t+1})
        trace._append(Step(t, operations, context, *diff, input_size), new.elements)
        state = new
        history.append(step)
    trace.final_input_size = projection_size(mechanism, state, len(trace), trace)  # |π(ω_n)|
    return trace


def _update(
    mechanism: Mechanism, state: State, operations: tuple[Operation, ...], context: Context
) -> tuple[State, dict[Element, str]]:
    """ω_{t+1} = U(ω_t, o_t, c_t), the operations of o_t applied in order; and why each removed element left."""
    reasons: dict[Element, str] = {}
    for operation in operations:
        transition = mechanism.apply(state, operation, context)
        if transition.state.elements is not state.elements:
            explain(mechanism, state.elements - transition.state.elements, transition, operation, reasons)
        state = transition.state
    return state, reasons
