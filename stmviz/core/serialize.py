"""The versioned JSON form of a :class:`~stmviz.core.trace.Trace`.

A trace records the loop of Figure 1: ω_0, and for every step t the
operations o_t, the context c_t, and ω_{t+1} = U(ω_t, o_t, c_t) as what U
added and removed (and why), with Σμ(ω_t), Σμ(ω_{t+1}) and |π(ω_t)|. The
JSON form stores each element e = (i, d) once, with its μ(e); steps refer to
elements by index::

    {"format": "stmviz-trace", "version": 1,
     "mechanism": {"class", "name", "params"}, "space": {"size", "v_max"},
     "query", "tools", "meta", "checkpoint_every",
     "elements": [{"content", "meta", "size"}], "initial": [element index],
     "steps": [{"t", "operations", "step", "added", "removed", "reasons",
                "size_before", "size_after", "input_size", "extra"?}],
     "final_input_size"}

A step's ``"step"`` is its agent step, :meth:`~stmviz.core.context.AgentStep.to_json`:
the model's output (``thought``, ``action``, ``directives``) and the input that
arrived after it (``observation``), empty fields left out — so a step with no
output (the user spoke first) or no input (the last reply) reads back as it was.

Reading checks everything: a truncated, malformed, foreign or wrong-version
file raises :class:`~stmviz.core.errors.TraceFormatError` saying where and what.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from typing import Any

from .context import AgentStep, Context, History
from .element import Element, order_key, thaw
from .errors import STMError, TraceFormatError
from .formatting import format_number, shorten
from .jsonio import decode_json
from .mechanism import Mechanism
from .operation import Operation
from .sizes import tokens
from .space import State, StateSpace
from .trace import Step, Trace

__all__ = ["TRACE_FORMAT", "TRACE_VERSION", "trace_to_dict", "trace_to_json", "trace_from_json", "load_trace"]

#: The ``format`` field of every trace file.
TRACE_FORMAT = "stmviz-trace"
#: The version of the format this stmviz writes and reads.
TRACE_VERSION = 1


# ---------------------------------------------------------------- writing


def trace_to_dict(trace: Trace) -> dict[str, Any]:
    """A trace (ω_0 and every step ω_t → ω_{t+1}) as a JSON-ready dict of the versioned format."""
    index: dict[Element, int] = {}
    elements: list[dict[str, Any]] = []
    for element, size in trace.sizes.items():
        index[element] = len(elements)
        elements.append({**element.to_json(), "size": size})
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "mechanism": trace.mechanism_spec,
        "space": {"size": trace.size_name, "v_max": trace.v_max},
        "query": trace.query,
        "tools": list(trace.tools),
        "meta": thaw(trace.meta),
        "checkpoint_every": trace.checkpoint_every,
        "elements": elements,
        "initial": sorted(index[e] for e in trace.initial.elements),
        "steps": [_step_to_dict(step, index) for step in trace],
        "final_input_size": trace.final_input_size,
    }


def _step_to_dict(step: Step, index: Mapping[Element, int]) -> dict[str, Any]:
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
    return record


def trace_to_json(trace: Trace, path: str | os.PathLike[str] | None = None, *, indent: int | None = None) -> str:
    """A trace as JSON text of the versioned format; written to ``path`` (UTF-8) if given."""
    text = json.dumps(trace_to_dict(trace), ensure_ascii=False, indent=indent, allow_nan=False)
    if path is not None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return text


# ---------------------------------------------------------------- reading


def load_trace(path: str | os.PathLike[str], mechanism: Mechanism | None = None) -> Trace:
    """Read a trace from a JSON file written by :meth:`Trace.save`.

    Raises
    ------
    TraceFormatError
        if the file is not a complete, well-formed stmviz trace of this version.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"{path}: not a text file ({exc}); is it a stmviz trace?") from None
    return trace_from_json(text, mechanism, source=str(path))


def trace_from_json(text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace") -> Trace:
    """Rebuild a trace from JSON text (or its decoded dict), checking it thoroughly.

    ``mechanism`` is the trace's mechanism; without one, a mechanism of
    stmviz's own is rebuilt from the recorded spec when possible.

    Raises
    ------
    TraceFormatError
        if the input is truncated, malformed, foreign or of another version, saying where and what.
    """
    data = text if isinstance(text, Mapping) else decode_json(text, source, TraceFormatError)
    reader = _Reader(data, source)
    trace = reader.trace(mechanism)
    reader.steps(trace)
    return trace


class _Reader:
    """Reads one trace document; every defect is a :class:`TraceFormatError` ``'<source>: <where>: <what>'``."""

    def __init__(self, data: Any, source: str) -> None:
        self.source = source
        self.data = self._checked_header(data)
        self.v_max, self.size_name = self._space()
        self.elements, self.sizes = self._elements()

    def fail(self, where: str, what: str) -> TraceFormatError:
        """The error for a defect at ``where``."""
        return TraceFormatError(f"{self.source}: {where}: {what}")

    def _checked_header(self, data: Any) -> dict[str, Any]:
        """The document, if it is a stmviz trace of this version with its four sections."""
        if not isinstance(data, dict):
            raise self.fail("top level", f"expected a JSON object, got {type(data).__name__}")
        if data.get("format") != TRACE_FORMAT:
            found = shorten(repr(data.get("format")))
            raise self.fail("format", f"expected {TRACE_FORMAT!r}, got {found}; this is not a stmviz trace")
        if data.get("version") != TRACE_VERSION:
            raise self.fail(
                "version",
                f"this stmviz reads trace version {TRACE_VERSION}, the file has version {data.get('version')!r}; "
                f"upgrade stmviz or re-export the trace",
            )
        for key, kind in (("space", dict), ("elements", list), ("initial", list), ("steps", list)):
            if not isinstance(data.get(key), kind):
                raise self.fail(key, f"missing or not a JSON {'object' if kind is dict else 'array'}")
        return data

    def _space(self) -> tuple[float, str]:
        """V_max and the name of μ."""
        space = self.data["space"]
        v_max = space.get("v_max")
        if not _positive(v_max):
            raise self.fail("space.v_max", f"must be a positive number, got {v_max!r}")
        size_name = space.get("size")
        if not isinstance(size_name, str):
            raise self.fail("space.size", f"must name μ, got {size_name!r}")
        return v_max, size_name

    def _elements(self) -> tuple[list[Element], dict[Element, float]]:
        """Every element e the trace held, with its μ(e), in file order."""
        elements: list[Element] = []
        sizes: dict[Element, float] = {}
        for i, item in enumerate(self.data["elements"]):
            element = Element.from_json(item, where=f"{self.source}: elements[{i}]")
            size = item.get("size")
            if not _positive(size):
                raise self.fail(f"elements[{i}].size", f"μ must be a positive number, got {size!r}")
            if element in sizes:
                raise self.fail(f"elements[{i}]", f"duplicates an earlier element ({element.label()})")
            elements.append(element)
            sizes[element] = size
        return elements, sizes

    def pick(self, indices: Any, where: str) -> tuple[Element, ...]:
        """The elements named by a list of indices."""
        if not isinstance(indices, list):
            raise self.fail(where, "must be a list of element indices")
        top = len(self.elements)
        for j, k in enumerate(indices):
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < top:
                raise self.fail(f"{where}[{j}]", f"element index {k!r} is out of range (0 … {top - 1})")
        return tuple(self.elements[k] for k in indices)

    def trace(self, mechanism: Mechanism | None) -> Trace:
        """The trace with ω_0 and its fields, no steps yet."""
        initial = State._trusted(frozenset(self.pick(self.data["initial"], "initial")))
        query, tools = self._query_tools()
        spec = self.data.get("mechanism") or {}
        if not isinstance(spec, dict):
            raise self.fail("mechanism", "must be an object")
        every = self.data.get("checkpoint_every", 32)
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise self.fail("checkpoint_every", f"must be a whole number ≥ 1, got {every!r}")
        if mechanism is None and spec:
            mechanism = _mechanism_from_spec(spec, self.size_name, self.v_max)
        return Trace(
            initial=initial,
            sizes=self.sizes,
            v_max=self.v_max,
            size_name=self.size_name,
            mechanism=mechanism,
            mechanism_spec=spec,
            query=query,
            tools=tools,
            meta=self.data.get("meta") or {},
            checkpoint_every=every,
            final_input_size=self.data.get("final_input_size"),
        )

    def _query_tools(self) -> tuple[str, list[str]]:
        """The query Q and the tools T."""
        query, tools = self.data.get("query") or "", self.data.get("tools") or []
        if not isinstance(query, str) or not isinstance(tools, list) or not all(isinstance(x, str) for x in tools):
            raise self.fail("query/tools", "query must be text and tools a list of texts")
        return query, tools

    def steps(self, trace: Trace) -> None:
        """Read every step into ``trace``, checking each diff against the state it applies to."""
        history: list[AgentStep] = []
        current = set(trace.initial.elements)
        size = sum(self.sizes[e] for e in current)
        for t, record in enumerate(self.data["steps"]):
            step, size = self.step(t, record, (current, size), trace, History(history, t))
            current.difference_update(step.removed)
            current.update(step.added)
            trace._append(step, frozenset(current))
            history.append(step.context.step)

    def step(
        self, t: int, record: Any, state: tuple[set[Element], float], trace: Trace, history: History
    ) -> tuple[Step, float]:
        """Step t, checked against ``state`` = (ω_t, Σμ(ω_t)); and Σμ(ω_{t+1}) from the elements."""
        current, size = state
        where = f"steps[{t}]"
        if not isinstance(record, dict):
            raise self.fail(where, "must be an object")
        if record.get("t") != t:
            raise self.fail(f"{where}.t", f"expected {t}, got {record.get('t')!r} (steps missing or out of order)")
        operations = self._operations(record, where)
        agent_step = self._agent_step(record, where)
        added, removed, reasons = self._diff(record, where, current, t)
        sb, sa, xs = (self._number(record, where, key) for key in ("size_before", "size_after", "input_size"))
        new_size = size - sum(self.sizes[e] for e in removed) + sum(self.sizes[e] for e in added)
        if not _close(sb, size) or not _close(sa, new_size):
            raise self.fail(
                where,
                f"recorded Σμ {sb}→{sa} does not match the elements "
                f"({format_number(size)}→{format_number(new_size)}); the file is damaged",
            )
        context = Context(
            t=t, step=agent_step, query=trace.query, tools=trace.tools, history=history, meta=trace.meta,
            extra=record.get("extra") or {},
        )
        step = Step(t, operations, context, tuple(sorted(added, key=order_key)), removed, reasons, sb, sa, xs)
        return step, new_size

    def _operations(self, record: dict[str, Any], where: str) -> tuple[Operation, ...]:
        try:
            return tuple(Operation.from_json(o) for o in record.get("operations", []))
        except (STMError, KeyError, TypeError, AttributeError) as exc:
            raise self.fail(f"{where}.operations", f"malformed operation ({exc})") from None

    def _agent_step(self, record: dict[str, Any], where: str) -> AgentStep:
        try:
            return AgentStep.coerce(record.get("step", {}), where=f"{self.source}: {where}.step")
        except STMError as exc:
            raise self.fail(f"{where}.step", str(exc)) from None

    def _diff(
        self, record: dict[str, Any], where: str, current: set[Element], t: int
    ) -> tuple[tuple[Element, ...], tuple[Element, ...], tuple[str, ...]]:
        """ω_{t+1} ∖ ω_t, ω_t ∖ ω_{t+1} and the reasons, checked against ω_t."""
        added = self.pick(record.get("added", []), f"{where}.added")
        removed = self.pick(record.get("removed", []), f"{where}.removed")
        reasons = record.get("reasons", [])
        if not isinstance(reasons, list) or len(reasons) != len(removed) or not all(isinstance(r, str) for r in reasons):
            raise self.fail(f"{where}.reasons", "must be a list of texts, one per removed element")
        for e in removed:
            if e not in current:
                raise self.fail(f"{where}.removed", f"{e.label()} is removed but was not in ω_{t}")
        for e in added:
            if e in current:
                raise self.fail(f"{where}.added", f"{e.label()} is added but was already in ω_{t}")
        return added, removed, tuple(reasons)

    def _number(self, record: dict[str, Any], where: str, key: str) -> Any:
        value = record.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{where}.{key}", f"must be a number, got {value!r}")
        return value


def _positive(value: Any) -> bool:
    """Whether a JSON value is a positive finite number (μ(e), V_max)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _close(recorded: float, computed: float) -> bool:
    return math.isclose(recorded, computed, rel_tol=1e-9, abs_tol=1e-6)


def _mechanism_from_spec(spec: Mapping[str, Any], size_name: str, v_max: float) -> Mechanism | None:
    """The trace's mechanism rebuilt from its spec, when stmviz can rebuild μ and the class."""
    space = _space_from_name(size_name, v_max)
    return Mechanism.from_spec(space, spec) if space is not None else None


def _space_from_name(size_name: str, v_max: float) -> StateSpace | None:
    """The state space a recorded μ name stands for, when stmviz can rebuild it."""
    if size_name in ("chars", "words"):
        return StateSpace(size_name, v_max)
    match = re.fullmatch(r"tokens\('([\w\-.]+)'(?:, overhead=(\d+))?\)", size_name)
    if match:
        try:
            return StateSpace(tokens(match.group(1), int(match.group(2) or 0)), v_max)
        except STMError:
            return None
    return None
