"""The loop of the paper's Figure 1, and its record: :func:`run`, :class:`Step`, :class:`Trace`.

The paper (Figure 1): the mechanism projects the state with π and sends it
to the LLM; the LLM's output becomes context information c for the next
update U. Every new input (a user's message, a tool's result) enters ω
through U before π is taken for the model call that answers it. So a step t
holds the model's output, produced from x_t = π(ω_t), and then the input that
arrives after it, seen from x_{t+1} on:

    x_t = π(ω_t) → model output → context c_t → o_t = controller(ω_t, c_t) → ω_{t+1} = U(ω_t, o_t, c_t)

:func:`run` drives a mechanism over a stream of agent steps and returns a
:class:`Trace`: every :class:`Step` with what was added and removed and why,
stored as diffs with periodic checkpoints so that any ω_t is rebuilt quickly.
Its JSON form is in :mod:`stmviz.io.serialize`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import _trace_text, guards
from ._run_checks import NO_EXTRA, at_step, initial_state, projection_size, read_steps, run_inputs
from ._trace_store import Recorder, rebuild
from ._trace_text import describe_step, step_halves  # step_halves: public, imported from here by the figures
from .context import AgentStep, Context, History
from .element import Element, Meta
from .errors import InvalidArgumentError, STMError, UpdateFailedError
from .formatting import format_number, plural
from .mechanism import Mechanism, Transition
from .model_input import ModelInput
from .operation import Operation
from .space import State, StateSpace

__all__ = ["Step", "Trace", "run", "require_trace", "describe_step", "step_halves"]


class Step:
    """The record of one pass of the loop of Figure 1: ω_t → ω_{t+1}.

    ``context.step`` is the :class:`~stmviz.core.context.AgentStep` of step t:
    the model's output (thought, action, directives), which the model produced
    from x_t = π(ω_t), then the input that arrived after it (a tool's result,
    the user's next message), seen from x_{t+1} on. ``input_size`` is |π(ω_t)|,
    the size of the input that output was produced from, and
    ``trace.project(t)`` is that input itself. A step may have no output (the
    user spoke first) or no input (the conversation ends on a reply);
    :meth:`describe` says it in words.

    Attributes
    ----------
    t : int
        The step index.
    operations : tuple of Operation
        The operations o_t the controller chose, in the order U applied them.
    context : Context
        The context c_t: the agent step (output, then input), query, tools, history, ...
    added, removed : tuple of Element
        ω_{t+1} ∖ ω_t and ω_t ∖ ω_{t+1}, in canonical order.
    reasons : tuple of str
        Why each removed element was removed (which operation, which rule).
    size_before, size_after : float
        Σμ(ω_t) and Σμ(ω_{t+1}).
    input_size : int
        |π(ω_t)| in tokens: the model input from which the LLM produced this step's output.
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

    @property
    def why(self) -> dict[Element, str]:
        """Each removed element e ∈ ω_t ∖ ω_{t+1} → the reason it was removed."""
        return dict(zip(self.removed, self.reasons))

    @property
    def operation(self) -> str:
        """The operations o_t as one readable string, e.g. ``'evict; append'``."""
        return "; ".join(str(o) for o in self.operations)

    def describe(self, width: int = 80) -> str:
        """Step t in words: what the model saw, what it answered, and what arrived then.

        Plain text (not escaped; a view escapes it). Agent texts are
        shortened to ``width`` characters each.

        Examples
        --------
        >>> from stmviz import StateSpace, run, sizes
        >>> from stmviz.core.mechanism import _Example
        >>> trace = run(_Example(StateSpace(sizes.words, v_max=50)), [
        ...     {"observation": "Hi, my code is 7391.", "meta": {"role": "user"}},
        ...     {"thought": "Noted.", "observation": "What is my code?", "meta": {"role": "user"}},
        ...     {"thought": "It is 7391."}])
        >>> print(trace[0].describe())
        step 0: no model call at this step: the user spoke first; then arrived the user message “Hi, my code is 7391.”, seen from π(ω_1) on
        >>> print(trace[1].describe())
        step 1: the model saw π(ω_1) (9 tokens) and answered “Noted.”; then arrived the user message “What is my code?”, seen from π(ω_2) on
        >>> print(trace[2].describe())
        step 2: the model saw π(ω_2) (17 tokens) and answered “It is 7391.”; no input arrived after it
        """
        return describe_step(self.t, self.context.step, self.input_size, width)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Step(t={self.t}, {self.operation}, +{len(self.added)} −{len(self.removed)}, "
            f"Σμ {format_number(self.size_before)}→{format_number(self.size_after)}, |π|={self.input_size})"
        )


class Trace(Sequence[Step]):
    """The history of a run: ω_0 and every :class:`Step`, stored as diffs.

    ``len(trace)`` is the number of steps n; ``trace[t]`` is step t (ω_t →
    ω_{t+1}); ``trace.state_at(t)`` rebuilds ω_t for 0 ≤ t ≤ n from the nearest
    checkpoint; ``trace.final`` is ω_n.
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
        self.sizes: dict[Element, float] = dict(sizes)
        self._steps: list[Step] = []
        self._every = checkpoint_every
        self._checkpoints: list[frozenset[Element]] = [initial.elements]
        self._current = initial.elements
        self.final_input_size = final_input_size

    # -- building -----------------------------------------------------------
    def _append(self, step: Step, after: frozenset[Element]) -> None:
        self._steps.append(step)
        self._current = after
        if len(self._steps) % self._every == 0:
            self._checkpoints.append(after)

    # -- reading ------------------------------------------------------------
    @property
    def checkpoint_every(self) -> int:
        """Every how many steps the trace keeps a whole state ω_t (the steps between are diffs)."""
        return self._every

    @property
    def name(self) -> str:
        """The mechanism's name."""
        return str(self.mechanism_spec.get("name") or (self.mechanism or "trace"))

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index: Any) -> Any:
        return self._steps[index]

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __repr__(self) -> str:
        return f"<Trace of {self.name}: {plural(len(self), 'step')}, V_max = {format_number(self.v_max)}, μ = {self.size_name}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return (
            self._steps == other._steps
            and self.initial == other.initial
            and self.v_max == other.v_max
            and self.size_name == other.size_name
            and self.query == other.query
            and self.tools == other.tools
            and self.meta == other.meta
            and self.sizes == other.sizes
            and self.final_input_size == other.final_input_size
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def initial(self) -> State:
        """ω_0."""
        return State._trusted(self._checkpoints[0])

    @property
    def final(self) -> State:
        """ω_n, the state after the last step."""
        return State._trusted(self._current)

    def resolve_t(self, t: object, *, states: bool = True, where: str = "trace") -> int:
        """A time index t of ω_t (or of step t), checked and returned as a non-negative int.

        With ``states=True`` t indexes the states ω_0 … ω_n (0 ≤ t ≤ n); otherwise
        the steps 0 … n − 1 (step t is ω_t → ω_{t+1}). Negative t counts from the
        end, as for lists.

        Raises
        ------
        InvalidIndexError
            if t is not a whole number (an int or a numpy integer; the rule of every figure).
        InvalidIndexError
            if t is out of range.
        """
        return guards.time_index(self._steps, t, where, states=states)

    def state_at(self, t: int) -> State:
        """ω_t, the state before step t (``state_at(len(trace))`` is the final state).

        Negative t counts from the end, as for lists: ``state_at(-1)`` is ω_n.
        """
        t = self.resolve_t(t, where="state_at")
        n = len(self._steps)
        if t == n:
            return State._trusted(self._current)
        return State._trusted(rebuild(self._checkpoints, self._steps, self._every, t))

    def states(self) -> Iterator[State]:
        """ω_0, ω_1, …, ω_n in order (incrementally, without checkpoints)."""
        elements = self._checkpoints[0]
        yield State._trusted(elements)
        for step in self._steps:
            elements = elements.difference(step.removed).union(step.added)
            yield State._trusted(elements)

    def size_at(self, t: int) -> float:
        """Σμ(ω_t), for 0 ≤ t ≤ n (negative t counts from the end)."""
        t = self.resolve_t(t, where="size_at")
        n = len(self._steps)
        if t == n:
            return self._steps[-1].size_after if n else self.size_of(self.initial)
        return self._steps[t].size_before

    def size_of(self, state: Iterable[Element]) -> float:
        """Σμ over elements, with the sizes recorded in this trace."""
        sizes = self.sizes
        return sum(sizes[e] for e in state)

    def project(self, t: int) -> ModelInput:
        """π(ω_t): what the model saw when it produced step t's output (``self[t].context.step``).

        Computed with the trace's mechanism (or the elements in order, if it
        has none). For 0 ≤ t < n it is the input of step t's model call —
        it holds every input that arrived up to step t − 1 (the user message a
        reply answers, the tool result an action follows), as far as the
        mechanism kept it; ``project(n)`` is what the model would see next.
        ``self[t].input_size`` is its size |π(ω_t)|.
        """
        state = self.state_at(t)
        if self.mechanism is not None:
            return self.mechanism.input(state)
        return ModelInput.coerce(list(state))

    @property
    def space(self) -> StateSpace | None:
        """Ω_STM of the trace's mechanism (``None`` when the trace has no mechanism)."""
        return self.mechanism.space if self.mechanism is not None else None

    def elements(self) -> list[Element]:
        """Every element e that was ever in some ω_t, in order of first appearance."""
        return list(self.sizes)

    def describe(self, t: int, width: int = 80) -> str:
        """The loop at state ω_t in words: :meth:`Step.describe` of step t, or, at t = n, the final state.

        Plain text (not escaped). Negative t counts from the end.

        >>> from stmviz import StateSpace, run, sizes
        >>> from stmviz.core.mechanism import _Example
        >>> trace = run(_Example(StateSpace(sizes.words, v_max=50)), [{"thought": "Hello.", "observation": "Hi!"}])
        >>> print(trace.describe(1))
        ω_1 is the final state: the next model call would see π(ω_1) (4 tokens)
        """
        t = self.resolve_t(t, where="describe")
        if t < len(self._steps):
            return self._steps[t].describe(width)
        size = "" if self.final_input_size is None else f" ({plural(self.final_input_size, 'token')})"
        return f"ω_{t} is the final state: the next model call would see π(ω_{t}){size}"

    # -- tables ---------------------------------------------------------------
    def to_records(self, width: int | None = 24) -> list[dict[str, Any]]:
        """One flat dict per step ω_t → ω_{t+1}, ready for a table or a plot.

        Keys: ``t``, ``operation``, ``size_before``, ``size_after``, ``v_max``,
        ``occupancy`` (Σμ(ω_{t+1}) / V_max), ``input_tokens`` (|π(ω_t)|),
        ``n_elements`` (|ω_{t+1}|), ``n_added``, ``n_removed``, ``added``,
        ``removed`` (labels, each element's text cut to ``width`` characters;
        0 or None: whole) and ``why`` (the reasons, joined; never cut).
        """
        return _trace_text.records(self, width)

    def table(self, width: int | None = 40, limit: int | None = None) -> str:
        """The trace as a readable plain-text table: t, operation, Σμ / V_max, added, removed, why.

        Parameters
        ----------
        width : int or None
            The most characters shown of each element's text in the added and
            removed cells, and of the operation (at least 22 for it); ``0`` or
            ``None``: whole texts, each on one line. The why column is never cut.
        limit : int, optional
            Show at most this many steps.

        >>> from stmviz import StateSpace, run, sizes
        >>> from stmviz.core.mechanism import _Example
        >>> trace = run(_Example(StateSpace(sizes.words, v_max=4)), ["one two three", "four five"])
        >>> print(trace.table(width=8))
        t  operation  Σμ / V_max  added       removed     why
        ─  ─────────  ──────────  ──────────  ──────────  ─────────────────────────────────
        0  append     3 / 4       'one two…'  —           —
        1  append     2 / 4       'four fi…'  'one two…'  oldest element; Σμ exceeded V_max
        """
        return _trace_text.table(self, width, limit)

    # -- JSON (the format is in stmviz.io.serialize) ---------------------------
    def to_dict(self) -> dict[str, Any]:
        """The trace in its versioned JSON form (see :func:`stmviz.io.serialize.trace_to_dict`)."""
        from ..io.serialize import trace_to_dict

        return trace_to_dict(self)

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = None) -> str:
        """The trace as JSON text (format ``stmviz-trace``, version 1); :meth:`save` writes it to a file.

        ``to_json(path)`` is deprecated (it warns, and still writes): one way to save, ``trace.save(path)``.
        """
        from ..io.serialize import trace_to_json

        if path is not None:
            warnings.warn(
                "Trace.to_json(path) is deprecated and will be removed in the next release; use trace.save(path)",
                DeprecationWarning,
                stacklevel=2,
            )
        return trace_to_json(self, path, indent=indent)

    def save(self, path: str | os.PathLike[str], indent: int | None = None) -> None:
        """Write the trace to a JSON file (atomically: a failed save leaves the old file whole)."""
        from ..io.serialize import trace_to_json

        trace_to_json(self, path, indent=indent)

    @classmethod
    def load(cls, path: str | os.PathLike[str], mechanism: Mechanism | None = None) -> "Trace":
        """Read a trace from a JSON file written by :meth:`save` (see :func:`stmviz.io.serialize.load_trace`)."""
        from ..io.serialize import load_trace

        return load_trace(path, mechanism)

    @classmethod
    def from_json(
        cls, text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace"
    ) -> "Trace":
        """Rebuild a trace from :meth:`to_json` output, checking it thoroughly.

        A truncated, malformed, foreign or wrong-version input raises
        :class:`~stmviz.errors.FormatError` saying where and what.
        """
        from ..io.serialize import trace_from_json

        return trace_from_json(text, mechanism, source)


def require_trace(value: object, where: str) -> Trace:
    """Return ``value`` if it is a :class:`Trace` (the record of Figure 1's loop), else say what to pass.

    Every function that reads a trace — metrics, figures, players, the export —
    checks its argument with this one function.

    Raises
    ------
    InvalidArgumentError
        if ``value`` is not a Trace.
    """
    if not isinstance(value, Trace):
        raise InvalidArgumentError(
            f"{where} needs a Trace (the record of run(mechanism, steps)), got {type(value).__name__}; "
            f"build one with stmviz.run(mechanism, steps)"
        )
    return value


def run(
    mechanism: Mechanism,
    steps: Iterable[Any],
    *,
    query: str | None = None,
    tools: Sequence[str] | None = None,
    meta: Mapping[str, Any] | None = None,
    initial: State | None = None,
    checkpoint_every: int = 32,
) -> Trace:
    """Run the loop of Figure 1 and record it.

    The contract. A step t holds, in this order, **the model's output** —
    ``thought``, ``action`` and any directive for the memory (a fold, a
    subgoal, a retrieval request) — which the model produced from
    x_t = π(ω_t), and then **the input that arrives after it** —
    ``observation``: the tool's result, or the user's next message — which the
    model sees from x_{t+1} = π(ω_{t+1}) on. Step 0 may hold an input and no
    output (the user speaks first); the last step may hold an output and no
    input. So for every step t of the trace:

    1. x_t = π(ω_t) is measured: ``trace[t].input_size`` = |x_t|, and
       ``trace.project(t)`` rebuilds x_t — what the model saw when it produced
       step t's output;
    2. the step (output, then input) becomes the context c_t, as the paper's
       C holds "the current request or input" and "the results of model
       calls";
    3. the controller picks o_t, and ω_{t+1} = U(ω_t, o_t, c_t), checked
       against Ω_STM; a mechanism stores the output before the input.

    For a dialogue u_0, a_0, u_1, a_1, …, u_n, a_n: step 0 = (no output, u_0);
    step k = (a_{k−1}, u_k); the last step = (a_n, no input). Reply a_k is
    produced from π(ω_{k+1}), which holds u_k when the mechanism kept it.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism (O, E, Ω, C, U, X, π) to run.
    steps : iterable
        Step records: :class:`AgentStep`, dicts with ``thought`` / ``action`` /
        ``observation``, or strings (observations). A scenario object with
        ``steps``, ``query`` and ``tools`` attributes is accepted as well.
    query, tools, meta : optional
        The user's query Q, the tools T and request metadata, shared by every c_t.
    initial : State, optional
        ω_0; by default ``mechanism.initial_state(c_0)``.
    checkpoint_every : int
        Every how many steps the trace keeps a whole state (the others are diffs).

    Returns
    -------
    Trace

    Raises
    ------
    InvalidArgumentError
        when ``mechanism`` is not a Mechanism, ``steps`` is a single string or
        not iterable, ``query`` is not text, ``tools`` is not a list of texts
        (a single string is refused, not split into letters), ``meta`` is not
        a mapping, or ``checkpoint_every`` is not a whole number ≥ 1.
    FormatError
        when a step record is not an AgentStep, a dict or a string; it names the step.
    CapacityError, ContractError, UnsupportedOperationError
        when U leaves Ω_STM, returns a non-State, or gets an undeclared operation.
    UpdateFailedError
        when U (or a summarizer it calls), the controller or π raises; the
        error names the step, and ``error.trace`` holds the steps before it.

    >>> from stmviz import StateSpace, sizes
    >>> from stmviz.core.mechanism import _Example
    >>> trace = run(_Example(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> len(trace), [e.text for e in trace.final]
    (3, ['three', 'four five'])
    >>> trace[2].reasons
    ('oldest element; Σμ exceeded V_max',)
    """
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgumentError(
            f"run() needs a Mechanism (O, E, Ω_STM, C, U, X, π), got {type(mechanism).__name__}; "
            f"e.g. run(FIFOWindow(StateSpace(tokens(), v_max=4096)), steps)"
        )
    steps, query, tools, frozen_meta = run_inputs(steps, query, tools, meta)
    state = initial_state(mechanism, initial, Context(t=0, query=query, tools=tools, meta=frozen_meta))
    trace = Trace(
        initial=state,
        sizes={e: mechanism.space.measure(e) for e in state.ordered()},  # canonical, not hash, order
        v_max=mechanism.space.v_max,
        size_name=mechanism.space.name,
        mechanism=mechanism,
        query=query,
        tools=tools,
        meta=frozen_meta,
        checkpoint_every=checkpoint_every,
    )
    recorder = Recorder(trace.sizes, mechanism.space, mechanism.space.size(state))
    history: list[AgentStep] = []
    for t, raw in enumerate(read_steps(steps)):
        step = raw if type(raw) is AgentStep else AgentStep.coerce(raw, where=f"step {t}")
        context = Context._trusted(t, step, query, tools, History(history, t), frozen_meta, NO_EXTRA)
        input_size = projection_size(mechanism, state, t, trace)  # |x_t|, x_t = π(ω_t): what the model saw
        operations, new, reasons = _update(mechanism, state, context, trace)
        diff = recorder.diff(state.elements, new.elements, reasons)  # added, removed, why, Σμ(ω_t), Σμ(ω_{t+1})
        trace._append(Step(t, operations, context, *diff, input_size), new.elements)
        state = new
        history.append(step)
    trace.final_input_size = projection_size(mechanism, state, len(trace), trace)
    return trace


def _update(
    mechanism: Mechanism, state: State, context: Context, trace: Trace
) -> tuple[tuple[Operation, ...], State, dict[Element, str]]:
    """o_t = controller(ω_t, c_t), then ω_{t+1} = U(ω_t, o_t, c_t); an error names step t and carries the trace."""
    try:
        return _apply_chosen(mechanism, state, context)
    except UpdateFailedError as exc:
        exc.trace = trace
        raise
    except STMError as exc:
        raise at_step(exc, context.t, trace)
    except Exception as exc:
        t = context.t
        raise UpdateFailedError(
            f"step {t}: {mechanism} failed in the controller or in U: {type(exc).__name__}: {exc}. "
            f"ω_{t} was left as it was; error.trace holds steps 0…{t - 1}",
            step=t,
            trace=trace,
        ) from exc


def _apply_chosen(
    mechanism: Mechanism, state: State, context: Context
) -> tuple[tuple[Operation, ...], State, dict[Element, str]]:
    """The operations the controller chooses, applied in order: (o_t, ω_{t+1}, why each element left)."""
    operations = mechanism.choose(state, context)
    reasons: dict[Element, str] = {}
    for operation in operations:
        transition = mechanism.apply(state, operation, context)
        if transition.state.elements is not state.elements:
            _explain(mechanism, state.elements - transition.state.elements, transition, operation, reasons)
        state = transition.state
    return operations, state, reasons


def _explain(
    mechanism: Mechanism, gone: Iterable[Element], transition: Transition, operation: Operation, reasons: dict[Element, str]
) -> None:
    """Record why each element in ``gone`` left: the transition's reason, else the operation's."""
    default = None
    for element in gone:
        why = transition.reasons.get(element)
        if why is None:
            if default is None:
                default = mechanism.removal_reason(operation)
            why = default
        reasons[element] = why
