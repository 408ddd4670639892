"""Reading a :class:`~stmviz.core.trace.Step` and a :class:`~stmviz.core.trace.Trace`: ω_t, sizes, π(ω_t), words, JSON.

Not the paper: the loop of Figure 1 and what it records (ω_0 and each step
ω_t → ω_{t+1}) are in :mod:`stmviz.core.trace`; ``Step`` and ``Trace`` take the
methods below from :class:`_StepViews` and :class:`_TraceViews`, so a reader of
the loop can skip this module.
The JSON form of a trace is written and read by :mod:`stmviz.io.serialize`,
imported inside the methods that need it (the one call out of the core).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from . import _trace_text, guards
from ._trace_store import rebuild
from .context import Context
from .element import Element, Meta
from .formatting import format_number, plural
from .mechanism import Mechanism
from .model_input import ModelInput
from .operation import Operation
from .space import State, StateSpace

if TYPE_CHECKING:
    from .trace import Step, Trace


class _StepViews:
    """What :class:`~stmviz.core.trace.Step` gives a reader: the reasons by element, o_t as text, the step in words."""

    __slots__ = ()

    # recorded by Step.__init__ (see stmviz.core.trace)
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
        """Step t in words: what the model saw, what it answered, and what arrived then.

        Plain text (not escaped; a view escapes it). Agent texts are
        shortened to ``width`` characters each. Examples: tests/core/test_examples_trace.py.
        """
        return _trace_text.describe_step(self.t, self.context.step, self.input_size, width)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _StepViews):
            return NotImplemented
        recorded: tuple[str, ...] = self.__slots__  # Step's slots: what the loop records
        return all(getattr(self, k) == getattr(other, k) for k in recorded)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Step(t={self.t}, {self.operation}, +{len(self.added)} −{len(self.removed)}, "
            f"Σμ {format_number(self.size_before)}→{format_number(self.size_after)}, |π|={self.input_size})"
        )


class _TraceViews(Sequence["Step"]):
    """What :class:`~stmviz.core.trace.Trace` gives a reader, built on what it records."""

    # recorded by Trace.__init__ and Trace._append (see stmviz.core.trace)
    mechanism: Mechanism | None
    mechanism_spec: dict[str, Any]
    v_max: float
    size_name: str
    query: str
    tools: tuple[str, ...]
    meta: Meta
    sizes: dict[Element, float]
    final_input_size: int | None
    _steps: list[Step]
    _every: int
    _checkpoints: list[frozenset[Element]]
    _current: frozenset[Element]

    @property
    def checkpoint_every(self) -> int:
        """Every how many steps the trace keeps a whole state ω_t (the steps between are diffs)."""
        return self._every

    @property
    def name(self) -> str:
        """The mechanism's name."""
        return str(self.mechanism_spec.get("name") or (self.mechanism or "trace"))

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __repr__(self) -> str:
        return f"<Trace of {self.name}: {plural(len(self), 'step')}, V_max = {format_number(self.v_max)}, μ = {self.size_name}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _TraceViews):
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
        Examples: tests/core/test_examples_trace.py.
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

        Examples: tests/core/test_examples_trace.py.
        """
        return _trace_text.table(self, width, limit)

    # -- JSON (the format is in stmviz.io.serialize) ---------------------------
    def to_dict(self) -> dict[str, Any]:
        """The trace in its versioned JSON form (see :func:`stmviz.io.serialize.trace_to_dict`)."""
        return _trace_format().trace_to_dict(self._as_trace())

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = None) -> str:
        """The trace as JSON text (format ``stmviz-trace``, version 1); :meth:`save` writes it to a file.

        ``to_json(path)`` is deprecated (it warns, and still writes): one way to save, ``trace.save(path)``.
        """
        if path is not None:
            warnings.warn(
                "Trace.to_json(path) is deprecated and will be removed in the next release; use trace.save(path)",
                DeprecationWarning,
                stacklevel=2,
            )
        return _trace_format().trace_to_json(self._as_trace(), path, indent=indent)

    def save(self, path: str | os.PathLike[str], indent: int | None = None) -> None:
        """Write the trace to a JSON file (atomically: a failed save leaves the old file whole)."""
        _trace_format().trace_to_json(self._as_trace(), path, indent=indent)

    @classmethod
    def load(cls, path: str | os.PathLike[str], mechanism: Mechanism | None = None) -> Trace:
        """Read a trace from a JSON file written by :meth:`save` (see :func:`stmviz.io.serialize.load_trace`)."""
        return _trace_format().load_trace(path, mechanism)

    @classmethod
    def from_json(
        cls, text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace"
    ) -> Trace:
        """Rebuild a trace from :meth:`to_json` output, checking it thoroughly.

        A truncated, malformed, foreign or wrong-version input raises
        :class:`~stmviz.errors.FormatError` saying where and what.
        """
        return _trace_format().trace_from_json(text, mechanism, source)

    def _as_trace(self) -> Trace:
        """This object, typed as the Trace it is (``Trace`` is the only class built on these views)."""
        return cast("Trace", self)


def _trace_format() -> Any:
    """:mod:`stmviz.io.serialize`, the trace's versioned JSON format and its files.

    The core's one call out of itself, made on demand (never at import): the
    format and the file handling live beside the core, in :mod:`stmviz.io`.
    """
    from ..io import serialize

    return serialize
