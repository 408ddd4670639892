"""The loop of the paper's Figure 1 and its record.

    x_t = π(ω_t) → model output → context c_t → o_t = controller(ω_t, c_t) → ω_{t+1} = U(ω_t, o_t, c_t)

:func:`run` drives a mechanism over a stream of agent steps and returns a
:class:`Trace`: every :class:`Step` with what was added and removed and why,
stored as diffs with periodic checkpoints so that any ω_t is rebuilt quickly.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .element import Element, Meta, order_key, thaw
from .errors import CapacityError, InvalidArgumentError, InvalidIndexError, STMError, TraceFormatError, UpdateFailedError
from .formatting import shorten
from .mechanism import Mechanism
from .operation import AgentStep, Context, History, ModelInput, Operation
from .space import State, StateSpace, _num

__all__ = ["Step", "Trace", "run", "TRACE_FORMAT", "TRACE_VERSION"]

TRACE_FORMAT = "stmviz-trace"
_NO_EXTRA = Meta()
TRACE_VERSION = 1


class Step:
    """The record of one pass of the loop: ω_t → ω_{t+1}.

    Attributes
    ----------
    t : int
        The step index.
    operations : tuple of Operation
        The operations o_t the controller chose, in the order U applied them.
    context : Context
        The context c_t (the incoming agent step, query, tools, history, ...).
    added, removed : tuple of Element
        ω_{t+1} ∖ ω_t and ω_t ∖ ω_{t+1}, in canonical order.
    reasons : tuple of str
        Why each removed element was removed (which operation, which rule).
    size_before, size_after : float
        Σμ(ω_t) and Σμ(ω_{t+1}).
    input_size : int
        |π(ω_t)| in tokens: the model input the LLM saw at this step.
    """

    __slots__ = ("t", "operations", "context", "added", "removed", "reasons", "size_before", "size_after", "input_size")

    def __init__(self, t, operations, context, added, removed, reasons, size_before, size_after, input_size):
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
        """Removed element → the reason it was removed."""
        return dict(zip(self.removed, self.reasons))

    @property
    def operation(self) -> str:
        """The operations as one readable string, e.g. ``'evict; append'``."""
        return "; ".join(str(o) for o in self.operations)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return (
            f"Step(t={self.t}, {self.operation}, +{len(self.added)} −{len(self.removed)}, "
            f"Σμ {_num(self.size_before)}→{_num(self.size_after)}, |π|={self.input_size})"
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
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be ≥ 1")
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
        self._checkpoints: list[frozenset] = [initial.elements]
        self._current = initial.elements
        self.final_input_size = final_input_size

    # -- building -----------------------------------------------------------
    def _append(self, step: Step, after: frozenset) -> None:
        self._steps.append(step)
        self._current = after
        if len(self._steps) % self._every == 0:
            self._checkpoints.append(after)

    # -- reading ------------------------------------------------------------
    @property
    def name(self) -> str:
        """The mechanism's name."""
        return str(self.mechanism_spec.get("name") or (self.mechanism or "trace"))

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index):  # type: ignore[override]
        return self._steps[index]

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __repr__(self) -> str:
        return f"<Trace of {self.name}: {len(self)} steps, V_max = {_num(self.v_max)}, μ = {self.size_name}>"

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
        """Check a time index t and return it as a non-negative int.

        With ``states=True`` t indexes the states ω_0 … ω_n (0 ≤ t ≤ n); otherwise
        the steps 0 … n − 1 (step t is ω_t → ω_{t+1}). Negative t counts from the
        end, as for lists.

        Raises
        ------
        InvalidArgumentError
            if t is not a whole number.
        InvalidIndexError
            if t is out of range.
        """
        n = len(self._steps)
        if isinstance(t, bool) or not isinstance(t, int):
            raise InvalidArgumentError(f"{where}: t must be a whole number of steps, got {shorten(repr(t))}")
        top = n if states else n - 1
        if top < 0:
            raise InvalidIndexError(f"{where}: the trace has no steps, so there is no step t = {t}")
        resolved = t + top + 1 if t < 0 else t
        if not 0 <= resolved <= top:
            what = f"states ω_0 … ω_{n}" if states else f"steps 0 … {n - 1} (ω_t → ω_{{t+1}})"
            raise InvalidIndexError(f"{where}: the trace has {what}; t = {t} is out of range")
        return resolved

    def state_at(self, t: int) -> State:
        """ω_t, the state before step t (``state_at(len(trace))`` is the final state).

        Negative t counts from the end, as for lists: ``state_at(-1)`` is ω_n.
        """
        t = self.resolve_t(t, where="state_at")
        n = len(self._steps)
        if t == n:
            return State._trusted(self._current)
        k = t // self._every
        elements = self._checkpoints[k]
        steps = self._steps
        for i in range(k * self._every, t):
            step = steps[i]
            if step.removed:
                elements = elements.difference(step.removed)
            if step.added:
                elements = elements.union(step.added)
        return State._trusted(elements)

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
        """π(ω_t), with the trace's mechanism (or the elements in order, if it has none)."""
        state = self.state_at(t)
        if self.mechanism is not None:
            return self.mechanism.input(state)
        return ModelInput.coerce(list(state))

    @property
    def space(self) -> StateSpace | None:
        return self.mechanism.space if self.mechanism is not None else None

    def elements(self) -> list[Element]:
        """Every element that was ever in the state, in order of first appearance."""
        return list(self.sizes)

    # -- tables ---------------------------------------------------------------
    def to_records(self) -> list[dict[str, Any]]:
        """One flat dict per step, ready for a table or a plot.

        Keys: ``t``, ``operation``, ``size_before``, ``size_after``, ``v_max``,
        ``occupancy`` (Σμ(ω_{t+1}) / V_max), ``input_tokens`` (|π(ω_t)|),
        ``n_elements`` (|ω_{t+1}|), ``n_added``, ``n_removed``, ``added``,
        ``removed`` (short labels) and ``why`` (the reasons, joined).
        """
        records = []
        n_elements = len(self._checkpoints[0])
        for step in self._steps:
            n_elements += len(step.added) - len(step.removed)
            records.append(
                {
                    "t": step.t,
                    "operation": step.operation,
                    "size_before": step.size_before,
                    "size_after": step.size_after,
                    "v_max": self.v_max,
                    "occupancy": step.size_after / self.v_max,
                    "input_tokens": step.input_size,
                    "n_elements": n_elements,
                    "n_added": len(step.added),
                    "n_removed": len(step.removed),
                    "added": ", ".join(e.label(24) for e in step.added),
                    "removed": ", ".join(e.label(24) for e in step.removed),
                    "why": "; ".join(dict.fromkeys(step.reasons)),
                }
            )
        return records

    def table(self, width: int = 100, limit: int | None = None) -> str:
        """The trace as a readable plain-text table: t, operation, Σμ / V_max, added, removed, why."""
        rows = [("t", "operation", "Σμ / V_max", "added", "removed", "why")]
        for record, step in zip(self.to_records(), self._steps):
            rows.append(
                (
                    str(step.t),
                    shorten(record["operation"], 22),
                    f"{_num(step.size_after)} / {_num(self.v_max)}",
                    shorten(", ".join(f"'{shorten(e.text, 14)}'" for e in step.added) or "—", 30),
                    shorten(", ".join(f"'{shorten(e.text, 14)}'" for e in step.removed) or "—", 30),
                    shorten(record["why"] or "—", 40),
                )
            )
        if limit is not None and len(rows) > limit + 1:
            rows = rows[: limit + 1]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        lines.insert(1, "  ".join("─" * w for w in widths))
        return "\n".join(line[: max(width, 40)] if width else line for line in lines)

    def to_html(self, path: str | os.PathLike, *, title: str | None = None, max_frames: int = 300):
        """Write one self-contained, offline HTML page that animates this trace (see :func:`stmviz.viz.export_html`).

        plotly is imported only when this is called, so ``import stmviz`` stays light.
        """
        from ..viz.export import export_html

        return export_html(self, path, title=title, max_frames=max_frames)

    # -- JSON -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The trace in its versioned JSON form (see :meth:`to_json`)."""
        index: dict[Element, int] = {}
        elements = []
        for element, size in self.sizes.items():
            index[element] = len(elements)
            item = element.to_json()
            item["size"] = size
            elements.append(item)
        steps = []
        for step in self._steps:
            record: dict[str, Any] = {
                "t": step.t,
                "operations": [o.to_json() for o in step.operations],
                "step": step.context.step.to_json(),
                "added": [index[e] for e in step.added],
                "removed": [index[e] for e in step.removed],
                "reasons": list(step.reasons),
                "size_before": step.size_before,
                "size_after": step.size_after,
                "input_size": step.input_size,
            }
            if step.context.extra:
                record["extra"] = thaw(step.context.extra)
            steps.append(record)
        return {
            "format": TRACE_FORMAT,
            "version": TRACE_VERSION,
            "mechanism": self.mechanism_spec,
            "space": {"size": self.size_name, "v_max": self.v_max},
            "query": self.query,
            "tools": list(self.tools),
            "meta": thaw(self.meta),
            "checkpoint_every": self._every,
            "elements": elements,
            "initial": sorted(index[e] for e in self.initial.elements),
            "steps": steps,
            "final_input_size": self.final_input_size,
        }

    def to_json(self, path: str | os.PathLike | None = None, indent: int | None = None) -> str:
        """Serialize to JSON (format ``stmviz-trace``, version 1); write it to ``path`` if given.

        The format: ``{"format", "version", "mechanism": {class, name, params},
        "space": {size, v_max}, "query", "tools", "meta", "elements": [{content,
        meta, size}], "initial": [element index], "steps": [{t, operations,
        step, added, removed, reasons, size_before, size_after, input_size}]}``.
        Elements are stored once; steps refer to them by index.
        """
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, allow_nan=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return text

    def save(self, path: str | os.PathLike) -> None:
        """Write the trace to a JSON file."""
        self.to_json(path)

    @classmethod
    def load(cls, path: str | os.PathLike, mechanism: Mechanism | None = None) -> "Trace":
        """Read a trace from a JSON file written by :meth:`save`."""
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except UnicodeDecodeError as exc:
            raise TraceFormatError(f"{path}: not a text file ({exc}); is it a stmviz trace?") from None
        return cls.from_json(text, mechanism=mechanism, source=str(path))

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace") -> "Trace":
        """Rebuild a trace from :meth:`to_json` output, checking it thoroughly.

        A truncated, malformed, foreign or wrong-version input raises
        :class:`~stmviz.errors.TraceFormatError` saying where and what.
        """
        if isinstance(text, Mapping):
            data: Any = text
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                truncated = exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()) - 1
                hint = " (the file looks truncated: was it written completely?)" if truncated else ""
                raise TraceFormatError(
                    f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}"
                ) from None
        return _load(data, mechanism, source)


def _load(data: Any, mechanism: Mechanism | None, source: str) -> Trace:
    def fail(where: str, what: str) -> TraceFormatError:
        return TraceFormatError(f"{source}: {where}: {what}")

    if not isinstance(data, dict):
        raise fail("top level", f"expected a JSON object, got {type(data).__name__}")
    if data.get("format") != TRACE_FORMAT:
        raise fail("format", f"expected {TRACE_FORMAT!r}, got {shorten(repr(data.get('format')))}; this is not a stmviz trace")
    version = data.get("version")
    if version != TRACE_VERSION:
        raise fail(
            "version",
            f"this stmviz reads trace version {TRACE_VERSION}, the file has version {version!r}; "
            f"upgrade stmviz or re-export the trace",
        )
    for key, kind in (("space", dict), ("elements", list), ("initial", list), ("steps", list)):
        if not isinstance(data.get(key), kind):
            raise fail(key, f"missing or not a JSON {'object' if kind is dict else 'array'}")
    space = data["space"]
    v_max = space.get("v_max")
    if isinstance(v_max, bool) or not isinstance(v_max, (int, float)) or not math.isfinite(v_max) or v_max <= 0:
        raise fail("space.v_max", f"must be a positive number, got {v_max!r}")
    size_name = space.get("size")
    if not isinstance(size_name, str):
        raise fail("space.size", f"must name μ, got {size_name!r}")

    elements: list[Element] = []
    sizes: dict[Element, float] = {}
    for i, item in enumerate(data["elements"]):
        element = Element.from_json(item, where=f"{source}: elements[{i}]")
        size = item.get("size")
        if isinstance(size, bool) or not isinstance(size, (int, float)) or not math.isfinite(size) or size <= 0:
            raise fail(f"elements[{i}].size", f"μ must be a positive number, got {size!r}")
        if element in sizes:
            raise fail(f"elements[{i}]", f"duplicates an earlier element ({element.label()})")
        elements.append(element)
        sizes[element] = size

    def pick(indices: Any, where: str) -> tuple[Element, ...]:
        if not isinstance(indices, list):
            raise fail(where, "must be a list of element indices")
        out = []
        for j, k in enumerate(indices):
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(elements):
                raise fail(f"{where}[{j}]", f"element index {k!r} is out of range (0 … {len(elements) - 1})")
            out.append(elements[k])
        return tuple(out)

    initial = State._trusted(frozenset(pick(data["initial"], "initial")))
    query = data.get("query") or ""
    tools = data.get("tools") or []
    if not isinstance(query, str) or not isinstance(tools, list) or not all(isinstance(x, str) for x in tools):
        raise fail("query/tools", "query must be text and tools a list of texts")
    spec = data.get("mechanism") or {}
    if not isinstance(spec, dict):
        raise fail("mechanism", "must be an object")
    every = data.get("checkpoint_every", 32)
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise fail("checkpoint_every", f"must be a whole number ≥ 1, got {every!r}")
    if mechanism is None and spec:
        rebuilt_space = _space_from_name(size_name, v_max)
        if rebuilt_space is not None:
            mechanism = Mechanism.from_spec(rebuilt_space, spec)
    trace = Trace(
        initial=initial,
        sizes=sizes,
        v_max=v_max,
        size_name=size_name,
        mechanism=mechanism,
        mechanism_spec=spec,
        query=query,
        tools=tools,
        meta=data.get("meta") or {},
        checkpoint_every=every,
        final_input_size=data.get("final_input_size"),
    )
    history: list[AgentStep] = []
    current = set(initial.elements)
    size = sum(sizes[e] for e in current)
    for t, record in enumerate(data["steps"]):
        where = f"steps[{t}]"
        if not isinstance(record, dict):
            raise fail(where, "must be an object")
        if record.get("t") != t:
            raise fail(f"{where}.t", f"expected {t}, got {record.get('t')!r} (steps missing or out of order)")
        try:
            operations = tuple(Operation.from_json(o) for o in record.get("operations", []))
        except (STMError, KeyError, TypeError, AttributeError) as exc:
            raise fail(f"{where}.operations", f"malformed operation ({exc})") from None
        try:
            agent_step = AgentStep.coerce(record.get("step", {}), where=f"{source}: {where}.step")
        except STMError as exc:
            raise fail(f"{where}.step", str(exc)) from None
        added = pick(record.get("added", []), f"{where}.added")
        removed = pick(record.get("removed", []), f"{where}.removed")
        reasons = record.get("reasons", [])
        if not isinstance(reasons, list) or len(reasons) != len(removed) or not all(isinstance(r, str) for r in reasons):
            raise fail(f"{where}.reasons", "must be a list of texts, one per removed element")
        for e in removed:
            if e not in current:
                raise fail(f"{where}.removed", f"{e.label()} is removed but was not in ω_{t}")
        for e in added:
            if e in current:
                raise fail(f"{where}.added", f"{e.label()} is added but was already in ω_{t}")
        sb, sa, xs = record.get("size_before"), record.get("size_after"), record.get("input_size")
        for key, value in (("size_before", sb), ("size_after", sa), ("input_size", xs)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise fail(f"{where}.{key}", f"must be a number, got {value!r}")
        current.difference_update(removed)
        current.update(added)
        new_size = size - sum(sizes[e] for e in removed) + sum(sizes[e] for e in added)
        if not math.isclose(sb, size, rel_tol=1e-9, abs_tol=1e-6) or not math.isclose(sa, new_size, rel_tol=1e-9, abs_tol=1e-6):
            raise fail(where, f"recorded Σμ {sb}→{sa} does not match the elements ({_num(size)}→{_num(new_size)}); the file is damaged")
        size = new_size
        extra = record.get("extra") or {}
        context = Context(
            t=t, step=agent_step, query=query, tools=tuple(tools), history=History(history, t), meta=trace.meta, extra=extra
        )
        step = Step(
            t, operations, context, tuple(sorted(added, key=order_key)), tuple(removed), tuple(reasons), sb, sa, xs
        )
        trace._append(step, frozenset(current))
        history.append(agent_step)
    return trace


def _explain(mechanism: Mechanism, gone: Iterable[Element], transition: Any, operation: Operation, reasons: dict) -> None:
    """Record why each element in ``gone`` left: the transition's reason, else the operation's."""
    default = None
    given = transition.reasons
    for element in gone:
        why = given.get(element)
        if why is None:
            if default is None:
                default = mechanism.removal_reason(operation)
            why = default
        reasons[element] = why


def _space_from_name(size_name: str, v_max: float) -> StateSpace | None:
    """The state space a recorded μ name stands for, when stmviz can rebuild it."""
    import re

    if size_name in ("chars", "words"):
        return StateSpace(size_name, v_max)
    match = re.fullmatch(r"tokens\('([\w\-.]+)'(?:, overhead=(\d+))?\)", size_name)
    if match:
        from .sizes import tokens

        try:
            return StateSpace(tokens(match.group(1), int(match.group(2) or 0)), v_max)
        except STMError:
            return None
    return None


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

    For each incoming step t: x_t = π(ω_t) is measured (the model's input), the
    step's model output and observation become the context c_t, the
    controller picks o_t, and ω_{t+1} = U(ω_t, o_t, c_t), checked against
    Ω_STM.

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

    Returns
    -------
    Trace

    Raises
    ------
    CapacityError, InvalidUpdateError, UnsupportedOperationError
        when U leaves Ω_STM, returns a non-State, or gets an undeclared operation.
    UpdateFailedError
        when U (or a summarizer it calls) raises; the error names the step,
        and ``error.trace`` holds the steps before it.

    >>> from stmviz import StateSpace, sizes
    >>> from stmviz.core.mechanism import _Example
    >>> trace = run(_Example(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> len(trace), [e.text for e in trace.final]
    (3, ['three', 'four five'])
    >>> trace[2].reasons
    ('oldest element; Σμ exceeded V_max',)
    """
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"run() needs a Mechanism, got {type(mechanism).__name__}")
    if hasattr(steps, "steps") and not isinstance(steps, (str, bytes, Mapping)):
        scenario = steps
        steps = scenario.steps  # type: ignore[attr-defined]
        if query is None:
            query = getattr(scenario, "query", "") or ""
        if tools is None:
            tools = tuple(getattr(scenario, "tools", ()) or ())
        if meta is None:
            meta = getattr(scenario, "meta", None)
    if isinstance(steps, (str, bytes)):
        raise TypeError("steps must be an iterable of step records, not a single string; wrap it in a list")
    query = query or ""
    tools = tuple(tools or ())
    frozen_meta = Meta(meta or {})
    space = mechanism.space
    measure = space.measure
    context0 = Context(t=0, query=query, tools=tools, meta=frozen_meta)
    state = mechanism.initial_state(context0) if initial is None else initial
    if not isinstance(state, State):
        state = State(state)
    try:
        space.check(state)
    except CapacityError as exc:
        raise CapacityError(f"the initial state ω_0 of {mechanism} is not in Ω_STM: {exc}") from None
    sizes: dict[Element, float] = {e: measure(e) for e in state.ordered()}  # canonical, not hash, order
    trace = Trace(
        initial=state,
        sizes=sizes,
        v_max=space.v_max,
        size_name=space.name,
        mechanism=mechanism,
        query=query,
        tools=tools,
        meta=frozen_meta,
        checkpoint_every=checkpoint_every,
    )
    sizes = trace.sizes
    history: list[AgentStep] = []
    size = space.size(state)
    for t, raw in enumerate(steps):
        step = raw if type(raw) is AgentStep else AgentStep.coerce(raw, where=f"step {t}")
        context = Context._trusted(t, step, query, tools, History(history, t), frozen_meta, _NO_EXTRA)
        input_size = mechanism.projection_size(state)
        before = state.elements
        reasons: dict[Element, str] = {}
        try:
            operations = mechanism.choose(state, context)
            single = len(operations) == 1
            for operation in operations:
                transition = mechanism.apply(state, operation, context)
                new = transition.state
                if new.elements is not state.elements:
                    if single:  # one operation: its removals are the step's, computed once below
                        last_transition, last_operation = transition, operation
                    else:
                        _explain(mechanism, state.elements - new.elements, transition, operation, reasons)
                state = new
        except STMError as exc:
            if isinstance(exc, UpdateFailedError):
                exc.trace = trace
                raise
            message = str(exc)
            prefix = f"step {t}: "
            error = type(exc)(message if message.startswith(prefix) else prefix + message)
            error.step = t  # type: ignore[attr-defined]
            error.trace = trace  # type: ignore[attr-defined]
            raise error from exc
        except Exception as exc:
            raise UpdateFailedError(
                f"step {t}: {mechanism} failed in the controller or in U: {type(exc).__name__}: {exc}. "
                f"ω_{t} was left as it was; error.trace holds steps 0…{t - 1}",
                step=t,
                trace=trace,
            ) from exc
        after = state.elements
        if after is before:
            step_record = Step(t, operations, context, (), (), (), size, size, input_size)
        else:
            added_set = after - before
            removed_set = before - after
            added = tuple(sorted(added_set, key=order_key)) if len(added_set) > 1 else tuple(added_set)
            removed = tuple(sorted(removed_set, key=order_key)) if len(removed_set) > 1 else tuple(removed_set)
            for element in added:  # in canonical order, so trace.sizes is ordered the same in every process
                if element not in sizes:
                    sizes[element] = measure(element)
            if removed:
                if single:
                    _explain(mechanism, removed, last_transition, last_operation, reasons)
                why = tuple([reasons.get(e, "removed") for e in removed])
                new_size = size - sum(map(sizes.__getitem__, removed)) + sum(map(sizes.__getitem__, added))
            else:
                why = ()
                new_size = size + sum(map(sizes.__getitem__, added))
            step_record = Step(t, operations, context, added, removed, why, size, new_size, input_size)
            size = new_size
        trace._append(step_record, after)
        history.append(step)
    trace.final_input_size = mechanism.projection_size(state)
    return trace
