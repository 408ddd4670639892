"""The JSON form of a scenario and its validation.

A scenario file is a JSON object; its schema is ``stmviz/scenarios/schema.json``
(JSON Schema 2020-12). :func:`validate` checks a decoded document against that
very file with ``jsonschema`` (each of its errors told in plain words, at a
path such as ``steps[12].fold.op``), then checks the rules a schema cannot
state:

- every step has some text (a thought, an action or an observation), so that
  μ(e) > 0 for whatever element a mechanism makes of it;
- a ``{"op": "consolidate", "from": x}`` directive at step t has x < t: the
  directive at step t folds the previous interaction I_{t−1} (AgentFold), so
  the chain to merge is steps x … t−1, and step 0 has nothing to consolidate;
- ``subgoal_done`` closes a subgoal opened by an earlier (or the same) step's
  ``subgoal`` marker;
- ``meta.retrieve`` names a subgoal finished before the step, by id (0 for
  the first ``subgoal`` marker) or by its text;
- a probe looks at π(ω_t), the model input from which the answer is
  produced (t = k + 1 for a question asked in the observation of step k):
  0 < t ≤ n (the number of steps), its ``evidence_step`` is < t, and its
  ``answer`` occurs (case-insensitively) in that step's text, its output or
  its input.

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
        {"thought": "Here is your key.", "observation": "Thanks! Now open the door.",
         "fold": {"op": "consolidate", "from": 0}, "meta": {"retrieve": 0}}
      ],
      "probes": [{"t": 3, "question": "What hid the key?", "answer": "blue mat", "evidence_step": 0}]
    }

A step with a non-empty ``action`` reads as "the model thought, acted, and
the tool returned ``observation``"; a step without one as "the model replied
``thought``, then the user said ``observation``" — the model's output first,
produced from π(ω_t), then the input that arrives after it, which the model
sees from π(ω_{t+1}) on. Step 0 of a chat holds only the user's first
message; the last step of a chat that ends on a reply holds only the reply.

Each problem is reported as ``<file>: <where>: <what>``, e.g.
``fifo_chat.json: steps[12].fold.op: 'squash' is not one of condense, consolidate``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any, TypeGuard

from ..core.errors import FormatError
from ..core.formatting import shorten

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


# --------------------------------------------------------------- the schema's problems in plain words

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


def _position(data: Any, path: Sequence[str | int]) -> tuple[int, ...]:
    """Where ``path`` lies in the document, as positions (the k-th key, the k-th item), to list problems in reading order."""
    out = []
    node = data
    for key in path:
        if isinstance(node, Mapping):
            keys = list(node)
            out.append(keys.index(key) if key in node else len(keys))
        else:
            out.append(key if isinstance(key, int) else 0)
        node = node.get(key) if isinstance(node, Mapping) else (node[key] if isinstance(key, int) and key < len(node) else None)
    return tuple(out)


@lru_cache(maxsize=1)
def _validator() -> Any:
    """The validator of ``schema.json`` for the draft it declares (2020-12), built on first use.

    ``jsonschema`` is imported here, not at the top: where Jupyter's optional
    format checkers are installed, importing it takes about a second, which
    ``import stmviz`` should not pay. Arrays may also be tuples and objects any
    mapping, so a document built in Python validates like its JSON text.
    """
    import jsonschema

    schema = json_schema()
    draft = jsonschema.validators.validator_for(schema)
    types = draft.TYPE_CHECKER.redefine_many(
        {"array": lambda _, value: isinstance(value, (list, tuple)), "object": lambda _, value: isinstance(value, Mapping)}
    )
    return jsonschema.validators.extend(draft, type_checker=types)(schema)


def _explain(error: Any) -> list[tuple[list[str | int], str]]:
    """One ``jsonschema`` error in plain words: ``(path, what)`` pairs (an unknown field names its own path)."""
    path: list[str | int] = list(error.absolute_path)
    keyword, wanted, value = error.validator, error.validator_value, error.instance
    if keyword == "type":
        names: list[str] = wanted if isinstance(wanted, list) else [wanted]
        return [(path, f"expected {' or '.join(_TYPE_NAMES.get(t, t) for t in names)}, got {_show(value)}")]
    if keyword == "const":
        return [(path, f"expected {json.dumps(wanted)}, got {_show(value)}")]
    if keyword == "enum":
        shown = repr(value) if isinstance(value, str) else _show(value)
        return [(path, f"{shown} is not one of {', '.join(map(str, wanted))}")]
    if keyword == "minLength":
        return [(path, "must not be empty" if wanted == 1 else f"needs ≥ {wanted} characters")]
    if keyword == "minimum":
        return [(path, f"must be ≥ {wanted}, got {value}")]
    if keyword == "exclusiveMinimum":
        return [(path, f"must be > {wanted}, got {value}")]
    if keyword == "minItems":
        return [(path, f"needs at least {wanted} item(s), got {len(value)}")]
    if keyword == "required":
        return [(path, f"missing required field {key!r}") for key in wanted if key not in value]
    if keyword == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        return [([*path, key], f"unknown field {key!r}; allowed here: {', '.join(allowed)}") for key in value if key not in allowed]
    if keyword == "not" and wanted.get("required"):
        return [(path, f"field {wanted['required'][0]!r} is not allowed here")]
    return [(path, error.message)]  # pragma: no cover - schema.json uses only the keywords above


def _schema_problems(data: Any) -> list[tuple[str, str]]:
    """The problems ``schema.json`` finds, in reading order, each once."""
    found: dict[tuple[tuple[int, ...], str, str], None] = {}
    for error in _validator().iter_errors(data):
        for path, what in _explain(error):
            where = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")
            found[(_position(data, path), where or "top level", what)] = None
    return [(where, what) for _, where, what in sorted(found, key=lambda problem: problem[0])]


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
        span = fold.get("range") if isinstance(fold, Mapping) else None
        if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in span):
            if t == 0 or span[1] > t - 1 or span[0] > span[1]:  # as in AgentFold's released code, y < t−1 is allowed
                what = (
                    "step 0 has no earlier interaction to fold"
                    if t == 0
                    else f"the directive at step {t} folds a range [x, y] with x ≤ y ≤ {t - 1}, got {list(span)}"
                )
                found.append((f"{where}.fold.range", what))
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
            asked, ev, answer = probe.get("t"), probe.get("evidence_step"), probe.get("answer")
            if not (_is_whole(asked) and _is_whole(ev)):
                continue
            if asked > n:
                found.append((f"{where}.t", f"t = {asked} is after the last state ω_{n} (the scenario has {n} steps)"))
            extra = probe.get("evidence_steps")
            if isinstance(extra, list):
                for j, step in enumerate(extra):
                    if _is_whole(step) and not step < min(asked, n):
                        found.append(
                            (f"{where}.evidence_steps[{j}]", f"evidence step {step} is not a step before t = {asked} of the {n} steps")
                        )
            if ev >= asked:
                found.append(
                    (f"{where}.evidence_step", f"the evidence must lie at a step before t = {asked}, got evidence_step = {ev}")
                )
            elif ev >= n:
                found.append((f"{where}.evidence_step", f"there is no step {ev} (the scenario has {n} steps)"))
            elif probe.get("reference") is None and isinstance(answer, str) and answer and (evidence := texts[ev]) is not None:
                if answer.casefold() not in evidence.casefold():
                    found.append(
                        (f"{where}.answer", f"{shorten(answer)!r} does not occur in the text of steps[{ev}], its evidence step")
                    )
    return found


def _is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def problems(data: Any) -> list[tuple[str, str]]:
    """Every problem of a decoded scenario document, as ``(where, what)`` pairs (empty if valid).

    First what ``schema.json`` finds (in reading order), else the rules beyond
    the schema (see the module's text).

    Parameters
    ----------
    data : object
        The decoded JSON document (lists and tuples, dicts and other mappings alike).

    Returns
    -------
    list of (str, str)
        ``where`` is a path such as ``steps[12].fold.op`` (``top level`` for the
        document itself); ``what`` says what is wrong in plain words.

    >>> problems({"steps": [{"observation": "hi", "fold": {"op": "squash"}}]})
    [('steps[0].fold.op', "'squash' is not one of condense, consolidate")]
    >>> problems({"steps": [{"observation": "hi"}]})
    []
    """
    try:
        return _schema_problems(data) or _semantic(data)
    except Exception as exc:  # an object no JSON decoder makes (its own methods fail), not a document
        return [("top level", f"not a JSON document: checking it raised {type(exc).__name__}")]


def validate(data: Any, source: str = "scenario") -> None:
    """Check a decoded scenario document; raise :class:`FormatError` naming file, place and field.

    Parameters
    ----------
    data : object
        The decoded JSON document.
    source : str
        The file name (or another label) that starts every message.

    >>> validate({"steps": [{"thought": "x", "fold": {"op": "squash"}}]}, source="fifo_chat.json")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.FormatError: fifo_chat.json: steps[0].fold.op: 'squash' is not one of condense, consolidate
    """
    found = problems(data)
    if not found:
        return
    lines = [f"{source}: {where}: {what}" for where, what in found[:6]]
    if len(found) > 6:
        lines.append(f"… and {len(found) - 6} more problem(s)")
    raise FormatError("\n  ".join(lines))
