"""The JSON form of a scenario and its validation, without the ``jsonschema`` package.

A scenario file is a JSON object; its schema is ``stmviz/scenarios/schema.json``
(JSON Schema 2020-12). :func:`validate` checks a decoded document against that
very file with a small interpreter of the keywords it uses, then checks the
rules a schema cannot state:

- every step has some text (a thought, an action or an observation), so that
  μ(e) > 0 for whatever element a mechanism makes of it;
- a ``{"op": "consolidate", "from": x}`` directive at step t has x < t: the
  directive at step t folds the previous interaction I_{t−1} (AgentFold), so
  the chain to merge is steps x … t−1, and step 0 has nothing to consolidate;
- ``subgoal_done`` closes a subgoal opened by an earlier (or the same) step's
  ``subgoal`` marker;
- ``meta.retrieve`` names a subgoal finished before the step, by id (0 for
  the first ``subgoal`` marker) or by its text;
- a probe asked at step t has 0 < t ≤ n (the number of steps), its
  ``evidence_step`` is < t, and its ``answer`` occurs (case-insensitively) in
  that step's text.

A minimal file (``steps`` is the only required field)::

    {
      "format": "stmviz-scenario", "version": 1,
      "name": "key_hunt", "title": "Find the key", "v_max": 120, "mechanism": "AgentFold",
      "query": "Find the key and open the door.",
      "tools": ["look(): describe the room", "lift(object)"],
      "steps": [
        {"thought": "Look first.", "action": "look()", "observation": "A blue mat.",
         "subgoal": "find the key"},
        {"thought": "Lift it.", "action": "lift('mat')", "observation": "A key!",
         "subgoal_done": true, "fold": {"op": "condense"}},
        {"observation": "Thanks! Now open the door.", "thought": "Opening it.",
         "fold": {"op": "consolidate", "from": 0}, "meta": {"retrieve": 0}}
      ],
      "probes": [{"t": 3, "question": "What hid the key?", "answer": "blue mat", "evidence_step": 0}]
    }

A step with a non-empty ``action`` reads as "the model thought, acted, and
the tool returned ``observation``"; a step without one as "the user said
``observation`` and the model replied ``thought``".

Each problem is reported as ``<file>: <where>: <what>``, e.g.
``fifo_chat.json: steps[12].fold.op: 'squash' is not one of condense, consolidate``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from ..core.errors import ScenarioFormatError, shorten

__all__ = ["SCHEMA_FILE", "json_schema", "validate", "problems", "FORMAT", "VERSION"]

FORMAT = "stmviz-scenario"
VERSION = 1
SCHEMA_FILE = "schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (a fresh copy of ``schema.json``).

    >>> json_schema()["$defs"]["fold"]["properties"]["op"]["enum"]
    ['condense', 'consolidate']
    """
    return json.loads(_schema_text())


# --------------------------------------------------------------- JSON Schema subset

_TYPE_NAMES = {
    "string": "text (a JSON string)",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "a JSON object",
    "array": "a JSON array",
    "null": "null",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _is_type(value: Any, name: str) -> bool:
    kind = _json_type(value)
    if name == "number":
        return kind in ("integer", "number")
    return kind == name


def _show(value: Any) -> str:
    kind = _json_type(value)
    if kind in ("object", "array"):
        return f"{'an object' if kind == 'object' else 'an array'} {shorten(json.dumps(value, default=repr), 30)}"
    if kind == "string":
        return f"text {shorten(repr(value), 30)}"
    return f"{kind} {shorten(json.dumps(value, default=repr), 30)}"


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


class _Checker:
    """Applies the JSON Schema keywords used by ``schema.json`` and collects problems."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.found: list[tuple[str, str]] = []

    def resolve(self, node: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/"):  # pragma: no cover - schema.json only uses local refs
                raise ValueError(f"unsupported $ref {ref!r}")
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target[part]
            node = target
        return node

    def matches(self, value: Any, node: Mapping[str, Any]) -> bool:
        sub = _Checker(self.root)
        sub.check(value, node, "")
        return not sub.found

    def check(self, value: Any, node: Mapping[str, Any], path: str) -> None:
        node = self.resolve(node)
        report = self.found.append
        where = path or "top level"
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(_is_type(value, t) for t in types):
                wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in types)
                report((where, f"expected {wanted}, got {_show(value)}"))
                return
        if "const" in node and not (value == node["const"] and _json_type(value) == _json_type(node["const"])):
            report((where, f"expected {json.dumps(node['const'])}, got {_show(value)}"))
            return
        if "enum" in node and value not in node["enum"]:
            shown = repr(value) if isinstance(value, str) else _show(value)
            report((where, f"{shown} is not one of {', '.join(map(str, node['enum']))}"))
            return
        if isinstance(value, str) and "minLength" in node and len(value) < node["minLength"]:
            report((where, "must not be empty" if node["minLength"] == 1 else f"needs ≥ {node['minLength']} characters"))
        if _is_type(value, "number") and not isinstance(value, bool):
            if "minimum" in node and value < node["minimum"]:
                report((where, f"must be ≥ {node['minimum']}, got {value}"))
            if "exclusiveMinimum" in node and value <= node["exclusiveMinimum"]:
                report((where, f"must be > {node['exclusiveMinimum']}, got {value}"))
        if isinstance(value, Mapping):
            for key in node.get("required", ()):
                if key not in value:
                    report((where, f"missing required field {key!r}"))
            props = node.get("properties", {})
            extra = node.get("additionalProperties", True)
            for key, item in value.items():
                if key in props:
                    self.check(item, props[key], _join(path, key))
                elif extra is False:
                    allowed = ", ".join(props)
                    report((_join(path, key), f"unknown field {key!r}; allowed here: {allowed}"))
        if isinstance(value, (list, tuple)):
            if "minItems" in node and len(value) < node["minItems"]:
                report((where, f"needs at least {node['minItems']} item(s), got {len(value)}"))
            if "items" in node:
                for i, item in enumerate(value):
                    self.check(item, node["items"], _join(path, i))
        for sub in node.get("allOf", ()):
            self.check(value, sub, path)
        if "if" in node and self.matches(value, node["if"]):
            if "then" in node:
                self.check(value, node["then"], path)
        if "not" in node and self.matches(value, node["not"]):
            banned = self.resolve(node["not"]).get("required")
            if banned:
                report((where, f"field {banned[0]!r} is not allowed here"))
            else:  # pragma: no cover - schema.json uses `not` only with `required`
                report((where, "matches a form that is not allowed"))


# --------------------------------------------------------------- rules beyond the schema


def _semantic(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    steps = data.get("steps")
    if not isinstance(steps, list):
        return found
    subgoals: list[str] = []  # texts, by id
    finished: set[int] = set()
    open_id: int | None = None
    texts: list[str | None] = []
    for t, step in enumerate(steps):
        where = f"steps[{t}]"
        if not isinstance(step, Mapping):
            texts.append(None)
            continue
        parts = [step.get(k) for k in ("thought", "action", "observation")]
        text = "\n".join(p for p in parts if isinstance(p, str) and p)
        texts.append(text)
        if not text.strip():
            found.append((where, "has no text: give it a thought, an action or an observation"))
        nested = step.get("directives")
        directives = {**(nested if isinstance(nested, Mapping) else {}), **{k: step[k] for k in ("subgoal", "subgoal_done", "fold") if k in step}}
        fold = directives.get("fold")
        if isinstance(fold, Mapping) and fold.get("op") == "consolidate":
            start = fold.get("from")
            if isinstance(start, int) and not isinstance(start, bool) and start >= t:
                what = (
                    "step 0 has no earlier interaction to consolidate"
                    if t == 0
                    else f"the directive at step {t} folds steps from … {t - 1}, so from must be ≤ {t - 1}, got {start}"
                )
                found.append((f"{where}.fold.from", what))
        meta = step.get("meta")
        retrieve = meta.get("retrieve") if isinstance(meta, Mapping) else None
        if retrieve is not None and not isinstance(retrieve, bool):
            done_names = [subgoals[i].casefold() for i in sorted(finished)]
            if isinstance(retrieve, int):
                if retrieve not in finished:
                    known = ", ".join(f"{i} ({shorten(subgoals[i], 20)!r})" for i in sorted(finished)) or "none yet"
                    found.append(
                        (f"{where}.meta.retrieve", f"subgoal {retrieve} is not a subgoal finished before this step; "
                         f"finished: {known}")
                    )
            elif isinstance(retrieve, str) and retrieve.casefold() not in done_names:
                known = ", ".join(repr(shorten(subgoals[i], 20)) for i in sorted(finished)) or "none yet"
                found.append(
                    (f"{where}.meta.retrieve", f"{shorten(retrieve)!r} is not the text of a subgoal finished before this step; "
                     f"finished: {known}")
                )
        subgoal = directives.get("subgoal")
        if isinstance(subgoal, str) and subgoal:
            if open_id is not None:
                finished.add(open_id)  # a new subgoal marker ends the previous one
            subgoals.append(subgoal)
            open_id = len(subgoals) - 1
        if directives.get("subgoal_done") is True:
            if open_id is None:
                found.append(
                    (f"{where}.subgoal_done", "no subgoal is open here (no earlier 'subgoal' marker, or it is already done)")
                )
            else:
                finished.add(open_id)
                open_id = None
    probes = data.get("probes")
    if isinstance(probes, list):
        n = len(steps)
        for k, probe in enumerate(probes):
            if not isinstance(probe, Mapping):
                continue
            where = f"probes[{k}]"
            t, ev, answer = probe.get("t"), probe.get("evidence_step"), probe.get("answer")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (t, ev)):
                continue
            if t > n:
                found.append((f"{where}.t", f"t = {t} is after the last state ω_{n} (the scenario has {n} steps)"))
            if ev >= t:
                found.append(
                    (f"{where}.evidence_step", f"the evidence must lie at a step before t = {t}, got evidence_step = {ev}")
                )
            elif ev >= n:
                found.append((f"{where}.evidence_step", f"there is no step {ev} (the scenario has {n} steps)"))
            elif isinstance(answer, str) and answer and texts[ev] is not None:
                if answer.casefold() not in texts[ev].casefold():  # type: ignore[union-attr]
                    found.append(
                        (f"{where}.answer", f"{shorten(answer)!r} does not occur in the text of steps[{ev}], its evidence step")
                    )
    return found


def problems(data: Any) -> list[tuple[str, str]]:
    """Every problem of a decoded scenario document, as ``(where, what)`` pairs (empty if valid).

    >>> problems({"steps": [{"observation": "hi", "fold": {"op": "squash"}}]})
    [('steps[0].fold.op', "'squash' is not one of condense, consolidate")]
    >>> problems({"steps": [{"observation": "hi"}]})
    []
    """
    checker = _Checker(json_schema())
    checker.check(data, checker.root, "")
    if checker.found:
        return checker.found
    return _semantic(data)


def validate(data: Any, source: str = "scenario") -> None:
    """Check a decoded scenario document; raise :class:`ScenarioFormatError` naming file, place and field.

    Parameters
    ----------
    data : object
        The decoded JSON document.
    source : str
        The file name (or another label) that starts every message.

    >>> validate({"steps": [{"thought": "x", "fold": {"op": "squash"}}]}, source="fifo_chat.json")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.ScenarioFormatError: fifo_chat.json: steps[0].fold.op: 'squash' is not one of condense, consolidate
    """
    found = problems(data)
    if not found:
        return
    lines = [f"{source}: {where}: {what}" for where, what in found[:6]]
    if len(found) > 6:
        lines.append(f"… and {len(found) - 6} more problem(s)")
    raise ScenarioFormatError("\n  ".join(lines))
