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
file raises :class:`~stmviz.core.errors.FormatError` saying where and what.
"""

from __future__ import annotations

import importlib
import math
import os
import re
from collections.abc import Mapping
from typing import Any

from ..core.guards import LARGEST, brief
from ..core.context import AgentStep, Context, History
from ..core.element import Element, Meta, order_key, thaw
from ..core.errors import STMError, FormatError
from ..core.formatting import format_number, shorten
from .files import json_text, read_bytes, write_text
from .jsonio import decode_json
from ..core.mechanism import Mechanism
from ..core.operation import Operation
from ..core.sizes import tokens
from ..core.space import State, StateSpace
from ..core.trace import Step, Trace

__all__ = [
    "TRACE_FORMAT", "TRACE_VERSION", "trace_to_dict", "trace_to_json", "trace_from_json", "load_trace", "mechanism_from_spec",
]

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
    """A trace as JSON text of the versioned format; written to ``path`` (UTF-8) if given.

    The text follows the JSON encoding policy of :mod:`stmviz.io.files` (a
    lone surrogate is written as a ``\\udXXX`` escape), and the file is
    written atomically: if anything fails, an existing file at ``path`` is
    left as it was.

    Raises
    ------
    FormatError
        if a value recorded in the trace (a step's metadata, an operation's
        parameter) cannot be written as JSON; nothing is written then.
    InvalidArgumentError
        if ``path`` cannot be written (a folder, a missing folder, no permission).
    """
    text = json_text(trace_to_dict(trace), indent=indent, error=FormatError, what="the trace")
    if path is not None:
        write_text(path, text, what="trace")
    return text


# ---------------------------------------------------------------- reading


def load_trace(path: str | os.PathLike[str], mechanism: Mechanism | None = None) -> Trace:
    """Read a trace from a JSON file written by :meth:`Trace.save`.

    The file is read as :func:`stmviz.io.files.read_bytes` reads: only a
    regular file, at most 200 MB unless ``STMVIZ_MAX_FILE_BYTES`` says more.

    Raises
    ------
    FormatError
        if the file is missing, unreadable, too large, not a regular file, or
        not a complete, well-formed stmviz trace of this version.
    """
    raw = read_bytes(path, what="trace file", error=FormatError)
    return trace_from_json(raw, mechanism, source=str(path))


def trace_from_json(text: str | bytes | Mapping[str, Any], mechanism: Mechanism | None = None, source: str = "trace") -> Trace:
    """Rebuild a trace from JSON text (or its decoded dict), checking it thoroughly.

    ``mechanism`` is the trace's mechanism; without one, a mechanism of
    stmviz's own is rebuilt from the recorded spec when possible.

    Raises
    ------
    FormatError
        if the input is truncated, malformed, foreign or of another version, saying where and what.
    """
    if isinstance(text, Mapping):  # checked as the same document read from a file would be (no NaN, not too deep)
        text = json_text(dict(text), error=FormatError, what=f"{source}: the decoded trace")
    data = decode_json(text, source, FormatError, allow_nan=False)
    reader = _Reader(data, source)
    trace = reader.trace(mechanism)
    reader.steps(trace)
    reader.check_mechanism(trace)
    return trace


class _Reader:
    """Reads one trace document; every defect is a :class:`FormatError` ``'<source>: <where>: <what>'``."""

    def __init__(self, data: Any, source: str) -> None:
        self.source = source
        self.data = self._checked_header(data)
        self.v_max, self.size_name = self._space()
        self.elements, self.sizes = self._elements()

    def fail(self, where: str, what: str) -> FormatError:
        """The error for a defect at ``where``."""
        return FormatError(f"{self.source}: {where}: {what}")

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
            raise self.fail("space.v_max", f"must be a positive finite number, got {brief(v_max)}")
        size_name = space.get("size")
        if not isinstance(size_name, str):
            raise self.fail("space.size", f"must name μ, got {brief(size_name)}")
        return v_max, size_name

    def _elements(self) -> tuple[list[Element], dict[Element, float]]:
        """Every element e the trace held, with its μ(e), in file order."""
        elements: list[Element] = []
        sizes: dict[Element, float] = {}
        for i, item in enumerate(self.data["elements"]):
            element = Element.from_json(item, where=f"{self.source}: elements[{i}]")
            size = item.get("size")
            if not _positive(size):
                raise self.fail(f"elements[{i}].size", f"μ must be a positive finite number, got {brief(size)}")
            if element in sizes:
                raise self.fail(f"elements[{i}]", f"duplicates an earlier element ({element.label()})")
            elements.append(element)
            sizes[element] = size
        return elements, sizes

    def pick(self, indices: Any, where: str) -> tuple[Element, ...]:
        """The elements named by a list of distinct indices."""
        if not isinstance(indices, list):
            raise self.fail(where, f"must be a list of element indices, got {brief(indices)}")
        top = len(self.elements)
        for j, k in enumerate(indices):
            if type(k) is not int or not 0 <= k < top:
                raise self.fail(f"{where}[{j}]", f"element index {brief(k)} is out of range (0 … {top - 1})")
        if len(set(indices)) != len(indices):
            twice = next(k for j, k in enumerate(indices) if k in indices[:j])
            raise self.fail(where, f"names element {twice} twice")
        return tuple(self.elements[k] for k in indices)

    def trace(self, mechanism: Mechanism | None) -> Trace:
        """The trace with ω_0 and its fields, no steps yet."""
        initial = State.from_trusted(frozenset(self.pick(self.data["initial"], "initial")))
        self._within_capacity(sum(self.sizes[e] for e in initial), "initial")
        query, tools = self._query_tools()
        spec = self._spec()
        every = self.data.get("checkpoint_every", 32)
        if type(every) is not int or not 1 <= every <= LARGEST:
            raise self.fail("checkpoint_every", f"must be a whole number ≥ 1, got {brief(every)}")
        final_input_size = self.data.get("final_input_size")
        if final_input_size is not None and not _count(final_input_size):
            raise self.fail("final_input_size", f"must be a whole number of tokens ≥ 0 (or null), got {brief(final_input_size)}")
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
            meta=self.frozen(self.data.get("meta"), "meta"),
            checkpoint_every=every,
            final_input_size=final_input_size,
        )

    def _spec(self) -> dict[str, Any]:
        """The mechanism's spec: ``{"class", "name", "params"}``, each optional."""
        spec = self.data.get("mechanism")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            raise self.fail("mechanism", f"must be an object with class, name and params, got {brief(spec)}")
        for key, kind, words in (("class", str, "text"), ("name", str, "text"), ("params", dict, "an object")):
            if spec.get(key) is not None and not isinstance(spec[key], kind):
                raise self.fail(f"mechanism.{key}", f"must be {words}, got {brief(spec[key])}")
        return spec

    def frozen(self, value: Any, where: str) -> Meta:
        """A metadata object of the file (the trace's meta, a step's extra) as a Meta; absent is empty."""
        if value is None:
            return Meta()
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, got {brief(value)}")
        try:
            return Meta(value)
        except STMError as exc:
            raise self.fail(where, str(exc)) from None

    def _within_capacity(self, size: float, where: str) -> None:
        """Refuse a state ω_t with Σμ(ω_t) > V_max: it is not in Ω_STM, so no run recorded it."""
        if size > self.v_max and not _close(size, self.v_max):
            raise self.fail(
                where,
                f"Σμ = {format_number(size)} > V_max = {format_number(self.v_max)}: the state is not in Ω_STM; the file is damaged",
            )

    def _query_tools(self) -> tuple[str, list[str]]:
        """The query Q and the tools T."""
        query, tools = self.data.get("query"), self.data.get("tools")
        query = "" if query is None else query
        tools = [] if tools is None else tools
        if not isinstance(query, str):
            raise self.fail("query", f"the query Q must be text, got {brief(query)}")
        if not isinstance(tools, list) or not all(isinstance(x, str) for x in tools):
            raise self.fail("tools", f"the tools T must be a list of texts, got {brief(tools)}")
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
            trace.record(step, frozenset(current))
            history.append(step.context.step)

    def step(
        self, t: int, record: Any, state: tuple[set[Element], float], trace: Trace, history: History
    ) -> tuple[Step, float]:
        """Step t, checked against ``state`` = (ω_t, Σμ(ω_t)); and Σμ(ω_{t+1}) from the elements."""
        current, size = state
        where = f"steps[{t}]"
        if not isinstance(record, dict):
            raise self.fail(where, f"must be an object, got {brief(record)}")
        if type(record.get("t")) is not int or record["t"] != t:
            raise self.fail(f"{where}.t", f"expected {t}, got {shorten(repr(record.get('t')))} (steps missing or out of order)")
        operations = self._operations(record, where)
        agent_step = self._agent_step(record, where)
        added, removed, reasons = self._diff(record, where, current, t)
        sb, sa = (self._number(record, where, key) for key in ("size_before", "size_after"))
        xs: Any = record.get("input_size")
        if not _count(xs):
            raise self.fail(f"{where}.input_size", f"|π(ω_t)| must be a whole number of tokens ≥ 0, got {brief(xs)}")
        new_size = size - sum(self.sizes[e] for e in removed) + sum(self.sizes[e] for e in added)
        if not _close(sb, size) or not _close(sa, new_size):
            raise self.fail(
                where,
                f"recorded Σμ {sb}→{sa} does not match the elements "
                f"({format_number(size)}→{format_number(new_size)}); the file is damaged",
            )
        self._within_capacity(new_size, f"{where}.size_after")
        context = Context(
            t=t, step=agent_step, query=trace.query, tools=trace.tools, history=history, meta=trace.meta,
            extra=self.frozen(record.get("extra"), f"{where}.extra"),
        )
        step = Step(t, operations, context, tuple(sorted(added, key=order_key)), removed, reasons, sb, sa, xs)
        return step, new_size

    def _operations(self, record: dict[str, Any], where: str) -> tuple[Operation, ...]:
        """The operations o_t: a list of ``{"type", "params"?, "reason"?}``."""
        operations = record.get("operations", [])
        if not isinstance(operations, list):
            raise self.fail(f"{where}.operations", f"must be a list of operations, got {brief(operations)}")
        out = []
        for k, data in enumerate(operations):
            at = f"{where}.operations[{k}]"
            if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                raise self.fail(at, f"an operation is an object with a 'type' text, got {brief(data)}")
            if not isinstance(data.get("params", {}), dict) or not isinstance(data.get("reason", ""), str):
                raise self.fail(at, f"'params' must be an object and 'reason' text, got {brief(data)}")
            try:
                out.append(Operation.from_json(data))
            except STMError as exc:
                raise self.fail(at, f"malformed operation ({exc})") from None
        return tuple(out)

    def _agent_step(self, record: dict[str, Any], where: str) -> AgentStep:
        step = record.get("step", {})
        if not isinstance(step, dict):
            raise self.fail(f"{where}.step", f"must be an object (thought, action, observation, ...), got {brief(step)}")
        try:
            return AgentStep.coerce(step, where=f"{self.source}: {where}.step")
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
        if set(added) & set(removed):
            raise self.fail(f"{where}.added", "an element is both added and removed")
        for e in removed:
            if e not in current:
                raise self.fail(f"{where}.removed", f"{e.label()} is removed but was not in ω_{t}")
        for e in added:
            if e in current:
                raise self.fail(f"{where}.added", f"{e.label()} is added but was already in ω_{t}")
        return added, removed, tuple(reasons)

    def _number(self, record: dict[str, Any], where: str, key: str) -> Any:
        value: Any = record.get(key)
        if not _finite(value) or value < 0:
            raise self.fail(f"{where}.{key}", f"must be a finite number ≥ 0, got {brief(value)}")
        return value

    def check_mechanism(self, trace: Trace) -> None:
        """Refuse elements the trace's mechanism cannot read (π, its hierarchy), and folds that form a cycle.

        Figures, the export and the player call π and the hierarchy of the
        mechanism on every state; an element whose metadata the mechanism
        cannot read (AgentFold's block without a valid ``range``) would make
        them fail later, far from the file. So each element is tried alone;
        an element the mechanism cannot read alone (a mechanism whose π needs
        company) is tried in the first recorded state that holds it, which is
        what a figure would show.
        """
        mechanism = trace.mechanism
        if mechanism is None:
            return
        name = trace.name
        first_state = dict.fromkeys(trace.initial.elements, 0)
        for step in trace:
            for element in step.added:
                first_state.setdefault(element, step.t + 1)
        for i, element in enumerate(self.elements):
            problem = _unreadable(mechanism, State.from_trusted(frozenset((element,))))
            if problem and element in first_state:
                problem = _unreadable(mechanism, trace.state_at(first_state[element]))
            if problem:  # the mechanism's own code fails on a value from the file
                raise self.fail(f"elements[{i}]", f"{name} cannot read this element ({element.label()}): {problem}")
        children: dict[Element, tuple[Element, ...]] = {}
        for step in trace:
            if step.added and step.removed:
                try:
                    folds = mechanism.folds(step.added, step.removed)
                except Exception as exc:
                    raise self.fail(f"steps[{step.t}]", f"{name} cannot read its folds: {type(exc).__name__}: {shorten(str(exc), 160)}") from None
                for parent, kids in folds.items():
                    children[parent] = tuple(kids)  # as the hierarchy figure reads them: a later fold of a parent wins
        cycle = _cycle(children)
        if cycle is not None:
            index = {e: i for i, e in enumerate(self.elements)}
            raise self.fail(
                "steps",
                "the folds form a cycle (" + " → ".join(f"elements[{index[e]}]" for e in cycle)
                + "): a summary block cannot contain itself; the file is damaged",
            )


def _unreadable(mechanism: Mechanism, state: State) -> str | None:
    """What goes wrong when the figures ask ``mechanism`` for π(ω) and the hierarchy of ω (``None``: nothing)."""
    try:
        mechanism.input(state)
        mechanism.hierarchy(state)
    except Exception as exc:
        return f"{type(exc).__name__}: {shorten(str(exc), 160)}"
    return None


def _cycle(children: Mapping[Element, tuple[Element, ...]]) -> list[Element] | None:
    """A cycle of the fold graph parent → child, as a list of elements, or ``None`` (iterative depth-first search)."""
    state: dict[Element, int] = {}  # 1: on the current path, 2: done
    for root in children:
        if root in state:
            continue
        path: list[Element] = [root]
        todo: list[Any] = [iter(children.get(root, ()))]
        state[root] = 1
        while todo:
            child = next(todo[-1], None)
            if child is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                todo.append(iter(children.get(child, ())))
    return None


def _finite(value: Any) -> bool:
    """Whether a JSON value is a finite number (a whole number too large for a float is not)."""
    if type(value) is int:
        return abs(value) <= _FLOAT_MAX
    return type(value) is float and math.isfinite(value)


def _positive(value: Any) -> bool:
    """Whether a JSON value is a positive finite number (μ(e), V_max)."""
    return _finite(value) and value > 0


def _count(value: Any) -> bool:
    """Whether a JSON value is a whole number ≥ 0 that a float holds exactly (a number of tokens)."""
    return type(value) is int and 0 <= value <= _MAX_COUNT


_FLOAT_MAX = 1.7976931348623157e308
_MAX_COUNT = 2**53 - 1


def _close(recorded: float, computed: float) -> bool:
    return math.isclose(recorded, computed, rel_tol=1e-9, abs_tol=1e-6)


def _mechanism_from_spec(spec: Mapping[str, Any], size_name: str, v_max: float) -> Mechanism | None:
    """The trace's mechanism rebuilt from its spec, when stmviz can rebuild μ and the class."""
    space = _space_from_name(size_name, v_max)
    return mechanism_from_spec(space, spec) if space is not None else None


def mechanism_from_spec(space: StateSpace, spec: Mapping[str, Any]) -> Mechanism | None:
    """The mechanism a trace file's spec describes (:meth:`~stmviz.core.mechanism.Mechanism.spec`), rebuilt over ``space``.

    The spec names its class as ``"module:QualName"``; the module is loaded only if it is
    stmviz's own (an old path that moved is a stub that forwards), and
    :meth:`Mechanism.from_spec <stmviz.core.mechanism.Mechanism.from_spec>` builds it.
    ``None`` if it cannot: the trace is then read without its mechanism. Never runs foreign code.
    """
    path = spec.get("class") if isinstance(spec, Mapping) else None
    module = path.partition(":")[0] if isinstance(path, str) else ""
    if module == "stmviz" or module.startswith("stmviz."):
        try:
            importlib.import_module(module)
        except Exception:  # a module that does not load: the trace is read without its mechanism
            return None
    return Mechanism.from_spec(space, spec)


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
