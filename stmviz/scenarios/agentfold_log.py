"""Importer: AgentFold transcripts — the released inference code's own output, or role records — become scenarios.

In AgentFold (arXiv 2510.24699) the model writes, with every response, what
to fold — a range of earlier steps and the summary text of that range —
besides its reasoning, a motivation and one tool call; the tool's response
follows. Response k becomes step k: its output is the explanation, the tool
call and the ``fold`` directive ``{"range": [x, y], "summary": σ}``, its
input the tool's response; the reasoning is kept in ``meta["thinking"]``
and never enters I_t.

The released code's output
--------------------------
``WebAgent/AgentFold/infer.py`` in Alibaba-NLP/DeepResearch writes one JSON
line per question, ``{question, answer, final_response, full_traj}``;
``full_traj`` is the text of every turn: ``[START OF A TURN] n``, the user
prompt after ``[START OF USER PROMPT]`` (``### Question`` and ``### Previous
Steps``, the step list), and the raw reply after ``[START OF ASSISTANT]``.
A reply is read as infer.py reads it: the reasoning is what precedes the last
``</think>``, then ``<compress>`` holds JSON ``{"compress_range": [...],
"compress_text": ...}`` (first and last entries count), ``<motivation>`` the
explanation, ``<tool_call>`` the call (its text as recorded) or ``<answer>``
ends the run. Tool responses appear only in the next prompt's ``[Step k]``
entry, so they are read from there. :func:`load_agentfold_log` reads such a
JSONL file (``run=`` picks the line) or a bare ``full_traj`` text;
:func:`load_agentfold_runs` returns every run; :func:`from_infer_trajectory`
reads one ``full_traj`` string. A ``<compress>`` in the first reply or in the
answer turn is ignored, as infer.py ignores it (kept in
``meta["ignored_compress"]``).

Role records
------------
A JSON list of records, an object ``{"messages": [...], "query"?: str,
"tools"?: [str, ...]}``, or JSONL (one record per line), each an object with
a ``role``:

- ``"system"`` — ignored (the system prompt; pass ``tools=`` to name the tools);
- ``"user"`` — the first one is the question Q. A later one is the input
  that follows the response before it: a tool response when its text is
  wrapped in ``<tool_response>…</tool_response>``, else a user message;
- ``"assistant"`` — one model response: tagged text (see
  :func:`parse_response`; the folding block bare or inside any one tag such as
  ``<compress>``, with the keys ``compress_range``/``compress_text`` or
  ``range``/``summary``) or structured fields ``thinking``, ``fold``,
  ``explanation``, ``tool_call``, ``answer``;
- ``"tool"`` — the tool's response to the response before it.

A folding block of response k folds steps [x, y] with 0 ≤ x ≤ y ≤ k − 1
(``step_base`` = the number the transcript gives its first response); as in
the released code, one in the first response or the answer turn is ignored
(``meta["ignored_fold"]``). Errors are :class:`~stmviz.FormatError`
naming the source, the record (``messages[3]``, ``line 4``, ``turn 2``) and
what is wrong.

>>> s = from_agentfold_records([
...     {"role": "user", "content": "Who wrote the fold paper?"},
...     {"role": "assistant", "content": "<think>Search first.</think><motivation>I will search.</motivation>"
...      '<tool_call>{"name": "search", "arguments": {"q": "AgentFold"}}</tool_call>'},
...     {"role": "tool", "content": "AgentFold, by Ye et al. (2025)."},
...     {"role": "assistant", "content": '<compress>{"compress_range": [0], "compress_text": "AgentFold is by Ye et al."}'
...      "</compress><motivation>Check the venue.</motivation><tool_call>open(1)</tool_call>"},
... ])
>>> s.query, [st.thought for st in s.steps], dict(s.steps[1].directives["fold"])
('Who wrote the fold paper?', ['I will search.', 'Check the venue.'], {'range': (0, 0), 'summary': 'AgentFold is by Ye et al.'})
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.context import AgentStep
from ..core import guards
from ..core.guards import brief
from ..core.errors import FormatError
from ..core.formatting import shorten
from ..io.files import as_path, read_bytes
from ..io.jsonio import MAX_DEPTH, decode_json, decode_json_lines
from .scenario import Scenario, _listed

__all__ = ["from_agentfold_records", "from_infer_trajectory", "is_infer_record", "load_agentfold_log", "load_agentfold_runs", "parse_response"]

_TAG = re.compile(r"<(?P<tag>[A-Za-z_][\w\-]*)>(?P<body>.*?)</(?P=tag)>", re.S)


def _fail(source: str, where: str, what: str) -> FormatError:
    return FormatError(f"{source + ': ' if source else ''}{where}: {what}")


_NOT_JSON = object()


def _loads(text: str, source: str, where: str) -> Any:
    """``json.loads`` of a block inside a reply (``<tool_call>``, ``<compress>``): ``_NOT_JSON`` if it is not JSON.

    JSON nested deeper than a file may be (``[[[[…`` thousands deep) is a
    :class:`FormatError` naming the record, never a ``RecursionError``.
    """
    too_deep = f"a block of the reply holds JSON nested more than {MAX_DEPTH} levels deep; this is not a tool call or a fold"
    try:
        value = json.loads(text)
    except RecursionError:
        raise _fail(source, where, too_deep) from None
    except ValueError:
        return _NOT_JSON
    level, depth = [value], 0
    while level:  # walked without recursion
        depth += 1
        if depth > MAX_DEPTH:
            raise _fail(source, where, too_deep)
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else node if isinstance(node, list) else ())
                 if isinstance(v, (dict, list))]
    return value


def _call_text(call: Any, where: str, source: str) -> str:
    """A tool call as ``name(arguments)``: from text (a JSON object or plain) or a mapping."""
    if isinstance(call, str):
        text = call.strip()
        decoded = _loads(text, source, where)
        if decoded is _NOT_JSON:
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
    """A folding block as a directive ``{"range": [x, y], "summary": σ}``.

    The released keys ``compress_range`` / ``compress_text`` are read as
    ``range`` / ``summary``; of a range list only the first and last entries
    count, as in the released code.
    """
    if not isinstance(value, Mapping):
        raise _fail(source, where, f"a folding block is an object {{'range': [x, y], 'summary': '…'}}, got {type(value).__name__}")
    span = value.get("range", value.get("compress_range"))
    summary = value.get("summary", value.get("compress_text"))
    if not (
        isinstance(span, (list, tuple)) and span and all(isinstance(v, int) and not isinstance(v, bool) for v in span)
    ):
        raise _fail(source, where, f"the folding block's range must be step numbers [x, …, y], got {brief(span, 40)}")
    if summary is not None and (not isinstance(summary, str) or not summary.strip()):
        raise _fail(source, where, f"the folding block's summary must be non-empty text, got {brief(summary, 40)}")
    out: dict[str, Any] = {"range": [span[0], span[-1]]}
    if summary:
        out["summary"] = summary.strip()
    return out


def _is_fold(decoded: Any) -> bool:
    return isinstance(decoded, Mapping) and ("range" in decoded or "compress_range" in decoded)


def parse_response(text: str, where: str = "response", source: str = "") -> dict[str, Any]:
    """The parts of one tagged AgentFold response: thinking, fold, explanation, tool_call, answer.

    As the released code reads a reply: the reasoning is everything before the
    last ``</think>`` (an opening ``<think>`` is optional), the rest holds the
    blocks; ``<motivation>`` (or the text outside the blocks) is the
    explanation, without its tags.

    >>> r = parse_response('<think>hm</think>{"range": [2, 4], "summary": "s"} Next. <tool_call>open(3)</tool_call>')
    >>> r["thinking"], r["fold"], r["explanation"], r["tool_call"]
    ('hm', {'range': [2, 4], 'summary': 's'}, 'Next.', 'open(3)')
    >>> parse_response("reasoning with no opening tag</think><motivation>Look.</motivation>")["explanation"]
    'Look.'
    """
    parts: dict[str, Any] = {"thinking": "", "fold": None, "explanation": "", "tool_call": "", "answer": ""}
    if "</think>" in text:
        pieces = text.split("</think>")
        parts["thinking"] = _strip_think(pieces[-2])
        text = pieces[-1]
    rest: list[str] = []
    folds: list[Any] = []
    motivation: str | None = None
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
        elif tag == "motivation":
            motivation = body if motivation is None else motivation
        else:
            decoded = _loads(body, source, where)
            decoded = None if decoded is _NOT_JSON else decoded
            if _is_fold(decoded):
                folds.append(decoded)
            elif tag in ("fold", "folding", "compress", "summary"):
                raise _fail(source, where, f"the <{tag}> block is not a JSON object with 'compress_range' (or 'range'): {shorten(body)}")
            else:
                rest.append(m.group(0))
    rest.append(text[pos:])
    outside = "".join(rest)
    # a bare folding JSON object in the explanation text
    for m in re.finditer(r"\{[^{}]*\"(?:compress_)?range\"[^{}]*\}", outside):
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
    parts["explanation"] = motivation if motivation is not None else " ".join(outside.split())
    return parts


def _strip_think(text: str) -> str:
    """The reasoning before ``</think>``, without an opening ``<think>``."""
    text = text.strip()
    return text[len("<think>"):].strip() if text.startswith("<think>") else text


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
    FormatError
        On a record that is not an object, an unknown role, a tool response
        before any model response, a malformed folding block or tool call, a
        range that does not end at the previous step, or no model response.
    """
    if isinstance(records, (str, bytes, Mapping)):
        raise _fail(source, "records", f"expected a list of records, got {type(records).__name__}")
    items = list(_listed(records, source or "AgentFold log", "records", "records (dicts with a role)"))
    labels = list(_labels) if _labels is not None else [f"messages[{k}]" for k in range(len(items))]
    step_base = guards.whole_number(step_base, "step_base", 0, where="from_agentfold_records",
                                    fix="; the number the log gives its first step, 0 or 1")
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
            ignored = None
            if fold is not None and (k == 0 or (parts["answer"] and not parts["tool_call"])):
                # the released code applies no <compress> in the first reply (nothing to fold) or the answer turn
                fold, ignored = None, fold
            if fold is not None:
                x, y = (v - step_base for v in fold["range"])
                if not 0 <= x <= y <= k - 1:
                    raise _fail(
                        source, where,
                        f"response {k + step_base} (step {k}) folds steps [x, y] with {step_base} ≤ x ≤ y ≤ "
                        f"{k - 1 + step_base} (the previous step); got {fold['range']} "
                        f"(if the transcript numbers its first response 1, pass step_base=1)",
                    )
                fold = {**fold, "range": [x, y]}
            thought = parts["explanation"]  # the reasoning never enters I_t: it stays in meta["thinking"]
            if parts["answer"]:
                thought = f"{thought} Answer: {parts['answer']}".strip()
            meta: dict[str, Any] = {"role": "assistant", "records": [where]}
            if parts["thinking"]:
                meta["thinking"] = parts["thinking"]
            if ignored is not None:
                meta["ignored_fold"] = ignored
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
    raw = read_bytes(path, what="transcript file", error=FormatError)  # bounded; never blocks on a pipe or device
    source = path.name
    name = guards.text(name, "name", where="load_agentfold_log", none_ok=True, blank_ok=True) or path.stem
    if raw.startswith(_TURN.format(n=0).encode()):  # a bare full_traj of infer.py
        return from_infer_trajectory(raw.decode("utf-8", errors="replace"), name, source=source, **kwargs)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        lines = decode_json_lines(raw, source, FormatError, expected="a transcript file holds one record per line")
        if lines and is_infer_record(lines[0][1]):  # infer.py's output: one run per line
            run_index = kwargs.pop("run", 0)
            runs = load_agentfold_runs(path, **kwargs)
            run_index = guards.whole_number(run_index, "run", 0, where="load_agentfold_log", fix="; the run's line, from 0")
            if run_index >= len(runs):  # the runs this file holds
                raise _fail(source, "run", f"the file holds {len(runs)} runs (0 … {len(runs) - 1}); got run={brief(run_index)}")
            return runs[run_index] if name == path.stem else dataclasses.replace(runs[run_index], name=name)
        return from_agentfold_records(
            [d for _, d in lines], name, source=source, _labels=[f"line {n}" for n, _ in lines], **kwargs
        )
    data = decode_json(raw, source, FormatError, expected="a transcript is a JSON list of records (or .jsonl)")
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


# -- the released inference code's own output (WebAgent/AgentFold/infer.py) -------------------------------------------

_TURN = "[START OF A TURN] {n}\n\n[START OF USER PROMPT]\n"
_ASSISTANT = "\n\n[START OF ASSISTANT]\n"
_LAST_TURN = "\n\nNow, provide your final answer without any other tool call."
_INFER_KEYS = ("question", "full_traj")


def is_infer_record(record: Any) -> bool:
    """Whether a JSON record is one line of infer.py's output: ``{question, answer, final_response, full_traj}``."""
    return isinstance(record, Mapping) and all(isinstance(record.get(k), str) for k in _INFER_KEYS)


def _first_tag(text: str, tag: str) -> str | None:
    """The stripped body of the first ``<tag>…</tag>``, or ``None``."""
    m = re.search(f"<{tag}>(.*?)</{tag}>", text, re.S)
    return m.group(1).strip() if m else None


def _turns(full_traj: str, source: str) -> list[str]:
    """The text of each turn (its prompt, then its reply): ``full_traj`` cut at each ``[START OF A TURN] n`` header."""
    chunks: list[str] = []
    pos, n = 0, 0
    if not full_traj.startswith(_TURN.format(n=0)):
        raise _fail(source, "full_traj", "expected it to start with '[START OF A TURN] 0' and '[START OF USER PROMPT]' "
                    "(the text infer.py writes); got " + shorten(full_traj[:60]))
    while True:
        head = _TURN.format(n=n)
        nxt = full_traj.find("\n\n" + _TURN.format(n=n + 1), pos + len(head))
        chunks.append(full_traj[pos + len(head): len(full_traj) if nxt < 0 else nxt + 2])
        if nxt < 0:
            break
        pos, n = nxt + 2, n + 1
    return chunks


def _reply(text: str, turn: int, source: str) -> dict[str, Any]:
    """One reply read as infer.py reads it: reasoning before the last ``</think>``, then the blocks."""
    where = f"turn {turn}"
    pieces = text.split("</think>")
    thinking, action = (_strip_think(pieces[-2]), pieces[-1]) if len(pieces) > 1 else ("", text)
    answer = _first_tag(action, "answer") if "<answer>" in action and "</answer>" in action else None
    compress = _first_tag(action, "compress")
    fold = None
    if compress is not None and answer is None and turn > 0:
        decoded = _loads(compress, source, where)
        if decoded is _NOT_JSON:
            raise _fail(source, where, f"the <compress> block is not JSON: {shorten(compress)}") from None
        fold = _fold(decoded, where, source)
    call = _first_tag(action, "tool_call")
    if answer is None and not call:
        raise _fail(source, where, "a reply holds a <tool_call> or an <answer> (infer.py retries a reply with neither)")
    return {"thinking": thinking, "motivation": _first_tag(action, "motivation") or "", "tool_call": call or "",
            "answer": answer, "fold": fold, "ignored_compress": compress if compress is not None and fold is None else None}


def from_infer_trajectory(
    full_traj: str,
    name: str = "agentfold_run",
    *,
    question: str | None = None,
    reference: str | None = None,
    v_max: float | None = None,
    source: str = "",
) -> Scenario:
    """The scenario of one run of the released ``infer.py``: its ``full_traj`` text.

    Turn k's reply becomes step k: its ``<motivation>`` the explanation, its
    ``<tool_call>`` (the text infer.py records) the action, its ``<compress>``
    the ``fold`` directive, its reasoning ``meta["thinking"]`` (never part of
    I_t). The tool's response is read from the next prompt's ``[Step k]``
    entry, the only place ``full_traj`` holds it (a run cut off after a tool
    call has none for its last step). A ``<compress>`` in the first reply or
    the answer turn is ignored, as infer.py ignores it (kept in
    ``meta["ignored_compress"]``). The answer turn is the last step.

    Raises
    ------
    FormatError
        When the text is not infer.py's layout (turn headers, prompts, a reply
        without a tool call or an answer, a ``<compress>`` that is not JSON).
    """
    guards.text(full_traj, "full_traj (the text infer.py records for a run)", where="from_infer_trajectory", blank_ok=True)
    turns = _turns(full_traj, source)
    replies: list[dict[str, Any]] = []
    prompts: list[str] = []
    for n, chunk in enumerate(turns):
        if n == 0:
            cut = chunk.find(_ASSISTANT)
        else:  # the prompt ends after the tool response of step n−1, which may hold anything: start the search past its header
            previous = replies[-1]
            anchor = f"**[Step {n - 1}]**\n" + (f"**Motivation:** {previous['motivation']}\n" if previous["motivation"] else "")
            anchor += f"**Tool call:** {previous['tool_call']}\n**Tool response:** "
            at = chunk.find(anchor)
            if at < 0:
                raise _fail(source, f"turn {n}", f"the prompt has no entry {shorten(anchor, 60)!r} for the previous step")
            cut = chunk.find(_ASSISTANT, at + len(anchor))
            previous["observation_at"] = (at + len(anchor), cut)
        if cut < 0:
            raise _fail(source, f"turn {n}", "no '[START OF ASSISTANT]' after the prompt (a run cut short?)")
        prompt = chunk[:cut]
        if not prompt.startswith("### Question\n"):
            raise _fail(source, f"turn {n}", "the prompt does not start with '### Question'")
        if n > 0:
            a, b = replies[-1].pop("observation_at")
            observation = chunk[a:b]
            observation = observation[: -len(_LAST_TURN)] if observation.endswith(_LAST_TURN) else observation
            replies[-1]["observation"] = observation[:-2] if observation.endswith("\n\n") else observation
        prompts.append(prompt)
        reply_text = chunk[cut + len(_ASSISTANT):]
        replies.append(_reply(reply_text[:-2] if reply_text.endswith("\n\n") else reply_text, n, source))
        if replies[-1]["answer"] is not None:
            break
    head = prompts[0]
    asked = head[len("### Question\n"): head.rfind("\n\n### Previous Steps\n")]
    steps = []
    for n, r in enumerate(replies):
        meta: dict[str, Any] = {"role": "tool" if r["answer"] is None else "assistant", "turn": n}
        if r["thinking"]:
            meta["thinking"] = r["thinking"]
        if r["ignored_compress"] is not None:
            meta["ignored_compress"] = r["ignored_compress"]
        if r["answer"] is not None:
            meta["answer"] = r["answer"]
        thought = r["motivation"] if r["answer"] is None else r["answer"]
        steps.append(AgentStep(thought=thought, action=r["tool_call"] if r["answer"] is None else "",
                               observation=r.get("observation", ""), directives={"fold": r["fold"]} if r["fold"] else {},
                               meta=meta))
    tools: dict[str, None] = {}
    for k, r in enumerate(replies):
        called = _loads(r["tool_call"], source, f"turn {k}: <tool_call>") if r["tool_call"] else None
        if isinstance(called, Mapping) and isinstance(called.get("name"), str):
            tools.setdefault(called["name"], None)
    description = f"A run of AgentFold's released infer.py: {len(prompts)} prompts"
    if reference is not None:
        description += f"; the data set's reference answer: {reference}"
    return Scenario(
        name=name, title="", description=description, query=question if question is not None else asked,
        tools=tuple(tools), steps=tuple(steps), v_max=v_max, mechanism="AgentFold", source=source,
    )


def load_agentfold_runs(path: str | os.PathLike, **kwargs: Any) -> list[Scenario]:
    """Every run in a file infer.py wrote (JSONL, one ``{question, answer, final_response, full_traj}`` per line), or a bare ``full_traj``."""
    path = as_path(path, "transcript file")
    raw = read_bytes(path, what="transcript file", error=FormatError)
    source = path.name
    text = raw.decode("utf-8", errors="replace")
    if text.startswith(_TURN.format(n=0)):
        return [from_infer_trajectory(text, path.stem, source=source, **kwargs)]
    lines = decode_json_lines(raw, source, FormatError, expected="infer.py writes one JSON record per line")
    runs = []
    for n, record in lines:
        if not is_infer_record(record):
            raise _fail(source, f"line {n}", "expected infer.py's record {question, answer, final_response, full_traj}")
        reference = record.get("answer") if isinstance(record.get("answer"), str) else None
        runs.append(from_infer_trajectory(record["full_traj"], f"{path.stem}_{n}", question=record["question"],
                                          reference=reference, source=f"{source}: line {n}", **kwargs))
    return runs
