"""Importer: AgentFold-style transcripts, where each model response carries its folding directive, become scenarios.

In AgentFold (arXiv 2510.24699) the model writes, with every response, what
to fold — a range of earlier steps [x, t−1] and the summary text of that
range — besides its reasoning, an explanation and one tool call; the tool's
response follows. This module reads such transcripts into a
:class:`~stmviz.scenarios.Scenario` for :class:`~stmviz.AgentFold`: response k
becomes step k, whose output is the explanation, the tool call and the
``fold`` directive ``{"range": [x, k−1], "summary": σ}``, and whose input is
the tool's response.

Accepted format
---------------
A JSON list of records, an object ``{"messages": [...], "query"?: str,
"tools"?: [str, ...]}``, or JSONL (one record per line). Each record is an
object with a ``role``:

- ``"system"`` — ignored (the system prompt; pass ``tools=`` to name the tools);
- ``"user"`` — the first one is the question Q. A later one is the input
  that follows the response before it: a tool response when its text is
  wrapped in ``<tool_response>…</tool_response>`` (some transcripts send tool
  results as user turns), else a user message (``meta["role"] = "user"``);
- ``"assistant"`` — one model response. Its ``content`` is either

  * **tagged text**: ``<think>…</think>`` (reasoning, kept in the step's
    ``meta["thinking"]``), the folding block — a JSON object with ``range``
    and ``summary``, bare or inside any one tag (``<fold>``, ``<compress>``,
    …) —, ``<tool_call>…</tool_call>`` (a JSON ``{"name", "arguments"}`` or
    plain text) or ``<answer>…</answer>``; the text outside these is the
    explanation; or
  * **structured fields** on the record: ``thinking``, ``fold`` (or
    ``folding``) ``{"range": [x, y], "summary": "…"}``, ``explanation``,
    ``tool_call`` (text or ``{"name", "arguments"}``), ``answer``;

- ``"tool"`` — the tool's response to the response before it (several are
  joined by blank lines).

The folding block of response k must have range [x, k − 1 + step_base] with
0 ≤ x (``step_base`` = the number the transcript gives its first response,
default 0); the first response folds nothing and may carry no folding block.
A response without a folding block becomes a step without directive (the
mechanism's rule controller decides).

What the importer does not know of the released code: the exact tags of
the original's prompt (its ``infer.py`` was not available to us), so any one
tag around the folding JSON is accepted.

Errors are :class:`~stmviz.errors.ScenarioFormatError` naming the source, the record
(``messages[3]`` or ``line 4``) and what is wrong.

>>> s = from_agentfold_records([
...     {"role": "user", "content": "Who wrote the fold paper?"},
...     {"role": "assistant", "content": "<think>Search first.</think>I will search."
...      '<tool_call>{"name": "search", "arguments": {"q": "AgentFold"}}</tool_call>'},
...     {"role": "tool", "content": "AgentFold, by Ye et al. (2025)."},
...     {"role": "assistant", "content": '<fold>{"range": [0, 0], "summary": "Search: AgentFold is by Ye et al."}</fold>'
...      "Found it.<answer>Ye et al.</answer>"},
... ])
>>> s.query, [st.action for st in s.steps], s.steps[1].directives["fold"]["summary"]
('Who wrote the fold paper?', ['search({"q": "AgentFold"})', ''], 'Search: AgentFold is by Ye et al.')
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.context import AgentStep
from ..core.guards import brief
from ..core.errors import ScenarioFormatError
from ..core.formatting import shorten
from ..io.files import as_path, read_bytes
from ..io.jsonio import decode_json, decode_json_lines
from .scenario import Scenario, _listed

__all__ = ["from_agentfold_records", "load_agentfold_log", "parse_response"]

_TAG = re.compile(r"<(?P<tag>[A-Za-z_][\w\-]*)>(?P<body>.*?)</(?P=tag)>", re.S)
_KNOWN = ("think", "thinking", "tool_call", "answer", "tool_response")


def _fail(source: str, where: str, what: str) -> ScenarioFormatError:
    return ScenarioFormatError(f"{source + ': ' if source else ''}{where}: {what}")


def _call_text(call: Any, where: str, source: str) -> str:
    """A tool call as ``name(arguments)``: from text (a JSON object or plain) or a mapping."""
    if isinstance(call, str):
        text = call.strip()
        try:
            decoded = json.loads(text)
        except ValueError:
            return text
        call = decoded
    if isinstance(call, Mapping):
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise _fail(source, where, f"a tool call needs a 'name', got {shorten(json.dumps(call, default=repr))}")
        args = call.get("arguments", call.get("args", {}))
        if isinstance(args, str):
            return f"{name}({args})"
        return f"{name}({json.dumps(args, ensure_ascii=False)})"
    raise _fail(source, where, f"a tool call is text or an object {{'name', 'arguments'}}, got {type(call).__name__}")


def _fold(value: Any, where: str, source: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(source, where, f"a folding block is an object {{'range': [x, y], 'summary': '…'}}, got {type(value).__name__}")
    span, summary = value.get("range"), value.get("summary")
    if not (
        isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in span)
    ):
        raise _fail(source, where, f"the folding block's range must be two step numbers [x, y], got {brief(span, 40)}")
    if summary is not None and (not isinstance(summary, str) or not summary.strip()):
        raise _fail(source, where, f"the folding block's summary must be non-empty text, got {brief(summary, 40)}")
    out: dict[str, Any] = {"range": [span[0], span[1]]}
    if summary:
        out["summary"] = summary.strip()
    return out


def parse_response(text: str, where: str = "response", source: str = "") -> dict[str, Any]:
    """The parts of one tagged AgentFold-style response: thinking, fold, explanation, tool_call, answer.

    >>> r = parse_response('<think>hm</think>{"range": [2, 4], "summary": "s"} Next. <tool_call>open(3)</tool_call>')
    >>> r["thinking"], r["fold"], r["explanation"], r["tool_call"]
    ('hm', {'range': [2, 4], 'summary': 's'}, 'Next.', 'open(3)')
    """
    parts: dict[str, Any] = {"thinking": "", "fold": None, "explanation": "", "tool_call": "", "answer": ""}
    rest: list[str] = []
    folds: list[Any] = []
    pos = 0
    for m in _TAG.finditer(text):
        rest.append(text[pos : m.start()])
        pos = m.end()
        tag, body = m.group("tag").lower(), m.group("body").strip()
        if tag in ("think", "thinking"):
            parts["thinking"] = body
        elif tag == "tool_call":
            parts["tool_call"] = _call_text(body, where, source)
        elif tag == "answer":
            parts["answer"] = body
        else:
            try:
                decoded = json.loads(body)
            except ValueError:
                decoded = None
            if isinstance(decoded, Mapping) and "range" in decoded:
                folds.append(decoded)
            elif tag in ("fold", "folding", "compress", "summary"):
                raise _fail(source, where, f"the <{tag}> block is not a JSON object with 'range': {shorten(body)}")
            else:
                rest.append(m.group(0))
    rest.append(text[pos:])
    outside = "".join(rest)
    # a bare folding JSON object in the explanation text
    for m in re.finditer(r"\{[^{}]*\"range\"[^{}]*\}", outside):
        try:
            decoded = json.loads(m.group(0))
        except ValueError:
            raise _fail(source, where, f"the folding block is not valid JSON: {shorten(m.group(0))}") from None
        folds.append(decoded)
        outside = outside.replace(m.group(0), " ", 1)
    if len(folds) > 1:
        raise _fail(source, where, f"a response holds one folding block, found {len(folds)}")
    if folds:
        parts["fold"] = _fold(folds[0], where, source)
    parts["explanation"] = " ".join(outside.split())
    return parts


def _content(record: Mapping[str, Any], where: str, source: str) -> str:
    content = record.get("content", "")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI-style parts
        return "".join(p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content)
    raise _fail(source, f"{where}.content", f"expected text, got {type(content).__name__}")


def from_agentfold_records(
    records: Iterable[Any],
    name: str = "agentfold_log",
    *,
    query: str | None = None,
    tools: Sequence[str] | None = None,
    v_max: float | None = None,
    step_base: int = 0,
    title: str = "",
    description: str = "",
    source: str = "",
    _labels: Sequence[str] | None = None,
) -> Scenario:
    """The scenario of an AgentFold-style transcript (see the module docstring for the format).

    Parameters
    ----------
    records : iterable of mapping
        The transcript's records, in order.
    name, title, description : str
        The scenario's name and texts.
    query : str, optional
        Q; default: the first user record.
    tools : sequence of str, optional
        T; default: the tool names called, in order of first use.
    v_max : float, optional
        The capacity the scenario is meant to run at.
    step_base : int
        The number the transcript's ranges give its first response (0 or 1).
    source : str
        The file name, for error messages.

    Returns
    -------
    Scenario
        For the mechanism ``"AgentFold"``; step k's ``directives["fold"]`` is
        ``{"range": [x, k − 1], "summary": σ}`` (ranges renumbered from 0).

    Raises
    ------
    ScenarioFormatError
        On a record that is not an object, an unknown role, a tool response
        before any model response, a malformed folding block or tool call, a
        range that does not end at the previous step, or no model response.
    """
    if isinstance(records, (str, bytes, Mapping)):
        raise _fail(source, "records", f"expected a list of records, got {type(records).__name__}")
    items = list(_listed(records, source or "AgentFold log", "records", "records (dicts with a role)"))
    labels = list(_labels) if _labels is not None else [f"messages[{k}]" for k in range(len(items))]
    if isinstance(step_base, bool) or not isinstance(step_base, int) or step_base < 0:
        raise ScenarioFormatError(f"step_base must be a whole number ≥ 0 (0 or 1), got {brief(step_base)}")
    question: str | None = None
    steps: list[dict[str, Any]] = []
    for record, where in zip(items, labels):
        if not isinstance(record, Mapping):
            raise _fail(source, where, f"expected a record object with a 'role', got {type(record).__name__}")
        role = record.get("role")
        if role == "system":
            continue
        if role == "assistant":
            k = len(steps)
            text = _content(record, where, source)
            parts = parse_response(text, where, source)
            for key in ("thinking", "explanation", "answer"):
                value = record.get(key) if key != "thinking" else record.get("thinking", record.get("think"))
                if value is not None:
                    if not isinstance(value, str):
                        raise _fail(source, f"{where}.{key}", f"expected text, got {type(value).__name__}")
                    parts[key] = value.strip()
            if record.get("tool_call") is not None:
                parts["tool_call"] = _call_text(record["tool_call"], f"{where}.tool_call", source)
            structured = record.get("fold", record.get("folding"))
            if structured is not None:
                if parts["fold"] is not None:
                    raise _fail(source, where, "a response holds one folding block, found one in its text and one as a field")
                parts["fold"] = _fold(structured, f"{where}.fold", source)
            fold = parts["fold"]
            if fold is not None:
                x, y = (v - step_base for v in fold["range"])
                if k == 0:
                    raise _fail(source, where, "the first response has no earlier step to fold; drop its folding block")
                if y != k - 1 or not 0 <= x <= y:
                    raise _fail(
                        source, where,
                        f"response {k + step_base} (step {k}) folds a range ending at the previous step, "
                        f"[x, {k - 1 + step_base}] with {step_base} ≤ x; got {fold['range']} "
                        f"(if the transcript numbers its first response 1, pass step_base=1)",
                    )
                fold = {**fold, "range": [x, y]}
            thought = parts["explanation"] or parts["thinking"]
            if parts["answer"]:
                thought = f"{thought} Answer: {parts['answer']}".strip()
            meta: dict[str, Any] = {"role": "assistant", "records": [where]}
            if parts["thinking"]:
                meta["thinking"] = parts["thinking"]
            steps.append({"thought": thought, "action": parts["tool_call"], "fold": fold, "inputs": [], "meta": meta})
            continue
        if role not in ("user", "tool"):
            raise _fail(source, f"{where}.role", f"expected one of system, user, assistant, tool, got {brief(role, 40)}")
        text = _content(record, where, source)
        wrapped = re.fullmatch(r"\s*<tool_response>(.*)</tool_response>\s*", text, re.S)
        if role == "user" and question is None and not steps and not wrapped:
            question = text.strip()
            continue
        if not steps:
            raise _fail(source, where, f"a {role} message before any model response: a tool response follows the response that called it")
        kind = "tool" if role == "tool" or wrapped else "user"
        step = steps[-1]
        step["inputs"].append(wrapped.group(1).strip() if wrapped else text.strip())
        step["meta"]["role"] = kind
        step["meta"]["records"].append(where)
    if not steps:
        raise _fail(source, "records", "no assistant record (model response): nothing to run")
    if tools is None:
        seen: dict[str, None] = {}
        for step in steps:
            if step["action"]:
                seen.setdefault(step["action"].split("(", 1)[0], None)
        tools = tuple(seen)
    out = []
    for step in steps:
        directives = {"fold": step["fold"]} if step["fold"] is not None else {}
        meta = {**step["meta"], "records": tuple(step["meta"]["records"])}
        out.append(
            AgentStep(
                thought=step["thought"], action=step["action"], observation="\n\n".join(step["inputs"]),
                directives=directives, meta=meta,
            )
        )
    return Scenario(
        name=name, title=title, description=description, query=(question or "") if query is None else query,
        tools=tuple(tools), steps=tuple(out), v_max=v_max, mechanism="AgentFold", source=source,
    )


def load_agentfold_log(path: str | os.PathLike, name: str | None = None, **kwargs: Any) -> Scenario:
    """The scenario of an AgentFold-style transcript file: JSON (a list or ``{"messages": [...]}``) or JSONL.

    ``query`` and ``tools`` at the top of a JSON object are used unless given
    as keyword arguments; other keyword arguments go to
    :func:`from_agentfold_records`.
    """
    path = as_path(path, "transcript file")
    raw = read_bytes(path, what="transcript file", error=ScenarioFormatError)  # bounded; never blocks on a pipe or device
    source, name = path.name, name or path.stem
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        lines = decode_json_lines(raw, source, ScenarioFormatError, expected="a transcript file holds one record per line")
        return from_agentfold_records(
            [d for _, d in lines], name, source=source, _labels=[f"line {n}" for n, _ in lines], **kwargs
        )
    data = decode_json(raw, source, ScenarioFormatError, expected="a transcript is a JSON list of records (or .jsonl)")
    if isinstance(data, Mapping):
        if not isinstance(data.get("messages"), list):
            raise _fail(source, "top level", "expected a list of records or an object with a 'messages' list")
        for key in ("query", "tools"):
            if key in data and key not in kwargs:
                kwargs[key] = data[key]
        data = data["messages"]
    elif not isinstance(data, list):
        raise _fail(source, "top level", f"expected a list of records, got {type(data).__name__}")
    return from_agentfold_records(data, name, source=source, **kwargs)
