"""A trace that loads works everywhere: corrupt one field of a saved trace at a time.

Each variant below damages one field of a valid saved trace (a wrong type, an
impossible value, a broken reference, a fold cycle). Loading it must either
raise :class:`FormatError` naming the field, or give a trace that every
figure, the export and the player accept. Nothing else: no raw exception from
deep inside a figure, no hang.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from stmviz import Trace
from stmviz.errors import FormatError

from _reliability_traces import saved_dict, use_everywhere

BIG = 10**400  # a 401-digit whole number: too large for a float


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A corruption that sets the field at ``path`` (dots and [i]) to ``value``."""

    def apply(doc: dict[str, Any]) -> None:
        *parents, last = _parts(path)
        node: Any = doc
        for part in parents:
            node = node[part]
        node[last] = value

    return apply


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = _parts(path)
        node: Any = doc
        for part in parents:
            node = node[part]
        del node[last]

    return apply


def _parts(path: str) -> list[Any]:
    parts: list[Any] = []
    for piece in path.replace("]", "").replace("[", ".").split("."):
        parts.append(int(piece) if piece.lstrip("-").isdigit() else piece)
    return parts


def _resum(doc: dict[str, Any]) -> None:
    """Recompute every step's Σμ before and after from the element sizes, so a structural corruption is not caught by the sums alone."""
    sizes = [e["size"] for e in doc["elements"]]
    current = set(doc["initial"])
    for record in doc["steps"]:
        record["size_before"] = sum(sizes[k] for k in current)
        current -= set(record["removed"])
        current |= set(record["added"])
        record["size_after"] = sum(sizes[k] for k in current)


def _swap_steps(doc: dict[str, Any]) -> None:
    doc["steps"][2], doc["steps"][3] = doc["steps"][3], doc["steps"][2]


def _fold_cycle(doc: dict[str, Any]) -> None:
    """Block B folds block A at one step; the next step folds B back into A (the same range): a cycle of folds."""
    steps = doc["steps"]
    for k, record in enumerate(steps[:-1]):
        blocks_removed = [i for i in record["removed"] if doc["elements"][i]["meta"].get("type") == "block"]
        blocks_added = [i for i in record["added"] if doc["elements"][i]["meta"].get("type") == "block"]
        if blocks_removed and blocks_added:
            a, b = blocks_removed[0], blocks_added[0]
            doc["elements"][a]["meta"]["range"] = list(doc["elements"][b]["meta"]["range"])
            following = steps[k + 1]
            following["added"] = [i for i in following["added"] if i != a] + [a]
            following["removed"] = [i for i in following["removed"] if i != b] + [b]
            following["reasons"] = ["folded"] * len(following["removed"])
            _resum(doc)
            return
    raise AssertionError("the saved AgentFold trace has no consolidation to corrupt")


def _self_fold(doc: dict[str, Any]) -> None:
    """A block whose range starts after it ends, said to fold itself."""
    for item in doc["elements"]:
        if item["meta"].get("type") == "block":
            item["meta"]["range"] = [item["meta"]["range"][1] + 3, item["meta"]["range"][0]]


def _then_resum(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        change(doc)
        _resum(doc)

    return apply


def _element_of_type(kind: str, path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set ``meta.<path>`` of every element of type ``kind``."""

    def apply(doc: dict[str, Any]) -> None:
        for item in doc["elements"]:
            if item["meta"].get("type") == kind:
                item["meta"][path] = value

    return apply


CORRUPTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    # the header and the space
    "format missing": _drop("format"),
    "version 2": _set("version", 2),
    "version as text": _set("version", "1"),
    "v_max as text": _set("space.v_max", "900"),
    "v_max negative": _set("space.v_max", -900),
    "v_max zero": _set("space.v_max", 0),
    "v_max infinite": _set("space.v_max", float("inf")),
    "v_max NaN": _set("space.v_max", float("nan")),
    "v_max 401 digits": _set("space.v_max", BIG),
    "v_max below the states": _set("space.v_max", 10),
    "v_max true": _set("space.v_max", True),
    "size name a number": _set("space.size", 5),
    "size name unknown": _set("space.size", "bytes"),
    "space a list": _set("space", [900]),
    # the mechanism, query, tools, meta
    "mechanism a string": _set("mechanism", "AgentFold"),
    "mechanism class a number": _set("mechanism.class", 5),
    "mechanism class foreign": _set("mechanism.class", "os:system"),
    "mechanism params a list": _set("mechanism.params", [1, 2]),
    "mechanism params junk": _set("mechanism.params", {"share": "half"}),
    "mechanism name a list": _set("mechanism.name", ["a"]),
    "query a number": _set("query", 123),
    "tools a string": _set("tools", "search"),
    "tools of numbers": _set("tools", [1, 2]),
    "meta a list": _set("meta", [1]),
    "meta NaN": _set("meta", {"x": float("nan")}),
    "checkpoint_every zero": _set("checkpoint_every", 0),
    "checkpoint_every 1.5": _set("checkpoint_every", 1.5),
    "checkpoint_every text": _set("checkpoint_every", "3"),
    "checkpoint_every true": _set("checkpoint_every", True),
    "checkpoint_every huge": _set("checkpoint_every", BIG),
    "final_input_size text": _set("final_input_size", "x"),
    "final_input_size negative": _set("final_input_size", -5),
    "final_input_size 1.5": _set("final_input_size", 1.5),
    "final_input_size NaN": _set("final_input_size", float("nan")),
    # the elements
    "elements an object": _set("elements", {"0": 1}),
    "element a number": _set("elements[3]", 5),
    "element content a number": _set("elements[3].content", 5),
    "element content null": _set("elements[3].content", None),
    "element content empty list": _set("elements[3].content", []),
    "element content nested list": _set("elements[3].content", [["a"]]),
    "element image part junk": _set("elements[3].content", {"image": "a.png", "width": "wide", "height": 3}),
    "element image part huge": _set("elements[3].content", {"image": "a.png", "width": BIG, "height": 3}),
    "element missing content": _drop("elements[3].content"),
    "element meta a string": _set("elements[3].meta", "x"),
    "element meta a list": _set("elements[3].meta", [1]),
    "element t as text": _set("elements[3].meta.t", "3"),
    "element t NaN": _set("elements[3].meta.t", float("nan")),
    "element t infinite": _set("elements[3].meta.t", float("inf")),
    "element t huge": _set("elements[3].meta.t", BIG),
    "element t null": _set("elements[3].meta.t", None),
    "element type a number": _set("elements[3].meta.type", 7),
    "element type unknown": _set("elements[3].meta.type", "zzz"),
    "element meta NaN": _set("elements[3].meta.score", float("nan")),
    "element meta 4100 digits": _set("elements[3].meta.n", 10**4100),
    "element step as text": _set("elements[3].meta.step", "two"),
    "element step negative": _set("elements[3].meta.step", -7),
    "block range reversed": _element_of_type("block", "range", [9, 2]),
    "block range text": _element_of_type("block", "range", "0-3"),
    "block range one number": _element_of_type("block", "range", [1]),
    "block range of floats": _element_of_type("block", "range", [0.5, 2.5]),
    "block range huge": _element_of_type("block", "range", [0, BIG]),
    "block folds itself": _self_fold,
    "element size text": _set("elements[3].size", "3"),
    "element size negative": _set("elements[3].size", -3),
    "element size zero": _set("elements[3].size", 0),
    "element size NaN": _set("elements[3].size", float("nan")),
    "element size huge": _set("elements[3].size", BIG),
    "element size missing": _drop("elements[3].size"),
    "element duplicated": lambda doc: doc["elements"].append(dict(doc["elements"][2])),
    # ω_0
    "initial out of range": _set("initial", [999]),
    "initial index as text": _set("initial", ["0"]),
    "initial negative index": _set("initial", [-1]),
    "initial index 1.0": _set("initial", [1.0]),
    "initial an object": _set("initial", {"0": 0}),
    "initial duplicated": lambda doc: doc["initial"].extend(doc["initial"]),
    # the steps
    "steps an object": _set("steps", {"0": {}}),
    "step a string": _set("steps[2]", "step"),
    "step t as text": _set("steps[2].t", "2"),
    "step t as float": _set("steps[2].t", 2.0),
    "step t true": _set("steps[1].t", True),
    "step t missing": _drop("steps[2].t"),
    "steps out of order": _swap_steps,
    "operations a string": _set("steps[2].operations", "condense"),
    "operations an object": _set("steps[2].operations", {"type": "condense"}),
    "operation a number": _set("steps[2].operations", [5]),
    "operation type a number": _set("steps[2].operations", [{"type": 5}]),
    "operation type missing": _set("steps[2].operations", [{"params": {}}]),
    "operation params a list": _set("steps[2].operations", [{"type": "condense", "params": [1]}]),
    "operation params NaN": _set("steps[2].operations", [{"type": "condense", "params": {"x": float("nan")}}]),
    "operation reason a number": _set("steps[2].operations", [{"type": "condense", "reason": 5}]),
    "operation undeclared type": _set("steps[2].operations", [{"type": "explode"}]),
    "agent step a string": _set("steps[2].step", "text"),
    "agent step a number": _set("steps[2].step", 5),
    "agent step thought a number": _set("steps[2].step", {"thought": 5}),
    "agent step unknown field": _set("steps[2].step", {"mood": "good"}),
    "agent step meta NaN": _set("steps[2].step", {"thought": "x", "meta": {"x": float("nan")}}),
    "agent step role a number": _set("steps[2].step", {"observation": "x", "meta": {"role": 5}}),
    "agent step directives a list": _set("steps[2].step", {"thought": "x", "directives": [1]}),
    "added out of range": _set("steps[2].added", [999]),
    "added as text": _set("steps[2].added", "0"),
    "added index 0.5": _set("steps[2].added", [0.5]),
    "added twice": lambda doc: doc["steps"][4]["added"].extend(doc["steps"][4]["added"][:1]),
    "added twice, sums fixed": _then_resum(lambda doc: doc["steps"][4]["added"].extend(doc["steps"][4]["added"][:1])),
    "removed twice": lambda doc: doc["steps"][4]["removed"].extend(doc["steps"][4]["removed"][:1]),
    "removed not present": _set("steps[0].removed", [len(saved_dict("AgentFold")["elements"]) - 1]),
    "reasons missing": _set("steps[4].reasons", []),
    "reasons numbers": lambda doc: doc["steps"][4].__setitem__("reasons", [5] * len(doc["steps"][4]["removed"])),
    "size_before text": _set("steps[2].size_before", "1"),
    "size_before NaN": _set("steps[2].size_before", float("nan")),
    "size_before wrong": _set("steps[2].size_before", 1),
    "size_after huge": _set("steps[2].size_after", BIG),
    "input_size text": _set("steps[2].input_size", "5"),
    "input_size negative": _set("steps[2].input_size", -1),
    "input_size 1.5": _set("steps[2].input_size", 1.5),
    "input_size NaN": _set("steps[2].input_size", float("nan")),
    "input_size huge": _set("steps[2].input_size", BIG),
    "extra a list": _set("steps[2].extra", [1]),
    "extra NaN": _set("steps[2].extra", {"x": float("nan")}),
    "fold cycle": _fold_cycle,
    "a state over V_max, sums fixed": _then_resum(lambda doc: doc["elements"][4].__setitem__("size", 5000)),
}

HIAGENT_CORRUPTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "subgoal index as text": _element_of_type("pair", "subgoal", "zero"),
    "subgoal index huge": _element_of_type("pair", "subgoal", BIG),
    "subgoal index negative": _element_of_type("pair", "subgoal", -3),
    "current a number": _element_of_type("pair", "current", 5),
    "pair step a list": _element_of_type("pair", "step", [1, 2]),
}


def _load_and_use(mechanism: str, corrupt: Callable[[dict[str, Any]], None], folder: Path) -> str:
    """Corrupt the saved trace, load it from its JSON text, and use it everywhere; 'refused' or 'works'."""
    doc = saved_dict(mechanism)
    corrupt(doc)
    text = json.dumps(doc)  # NaN and infinity as Python writes them: a hostile file may hold them
    try:
        trace = Trace.from_json(text, source="bad.json")
    except FormatError as exc:
        assert str(exc).startswith("bad.json: ") and "\n" not in str(exc).strip(), str(exc)
        return "refused"
    use_everywhere(trace, folder)
    Trace.from_json(trace.to_json())  # what loaded saves again, and loads again
    return "works"


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_a_corrupted_agentfold_trace_is_refused_or_works_everywhere(name, tmp_path):
    _load_and_use("AgentFold", CORRUPTIONS[name], tmp_path)


@pytest.mark.parametrize("name", sorted(HIAGENT_CORRUPTIONS))
def test_a_corrupted_hiagent_trace_is_refused_or_works_everywhere(name, tmp_path):
    _load_and_use("HiAgent", HIAGENT_CORRUPTIONS[name], tmp_path)


@pytest.mark.parametrize(
    "name, where",
    [
        ("v_max as text", "space.v_max"),
        ("v_max 401 digits", "space.v_max"),
        ("query a number", "query"),
        ("tools a string", "tools"),
        ("meta a list", "meta"),
        ("final_input_size text", "final_input_size"),
        ("element t as text", "elements[3]"),
        ("element size huge", "elements[3].size"),
        ("step t as float", "steps[2].t"),
        ("operations a string", "steps[2].operations"),
        ("input_size negative", "steps[2].input_size"),
        ("extra a list", "steps[2].extra"),
        ("added twice, sums fixed", "steps[4].added"),
        ("a state over V_max, sums fixed", "V_max"),
    ],
)
def test_the_refusal_names_the_field(name, where, tmp_path):
    doc = saved_dict("AgentFold")
    CORRUPTIONS[name](doc)
    with pytest.raises(FormatError, match=r"^bad\.json: ") as info:
        Trace.from_json(json.dumps(doc), source="bad.json")
    assert where in str(info.value)


@pytest.mark.parametrize("mechanism", ["FIFOWindow", "SCM", "HiAgent", "AgentFold"])
def test_the_uncorrupted_traces_load_and_work_everywhere(mechanism, tmp_path):
    assert _load_and_use(mechanism, lambda doc: None, tmp_path) == "works"


def test_a_valid_trace_of_a_mechanism_whose_pi_needs_company_still_loads(tmp_path):
    """π that fails on an element alone (it needs the system prompt) is judged on the states the trace recorded."""
    from stmviz import Element, Mechanism, State, StateSpace, run, sizes

    class NeedsSystem(Mechanism):
        operations = {"append": "add the step"}

        def initial_state(self, context):
            return State([Element("You are helpful.", {"t": -1, "type": "system"})])

        def update(self, state, operation, context):
            return state | {Element(context.observation or "x", {"t": context.t, "type": "user"})}

        def project(self, state):
            system = next(e for e in state if e.type == "system")  # StopIteration without it
            return [system.text] + [e.text for e in state.ordered() if e is not system]

    mechanism = NeedsSystem(StateSpace(sizes.words, 100))
    trace = run(mechanism, ["a", "b"])
    again = Trace.from_json(trace.to_json(), mechanism)
    assert again == trace
    use_everywhere(again, tmp_path)
