"""LongMemEval-style benchmark files as scenarios: a chat history of sessions, then one question.

A LongMemEval file (``longmemeval_s.json``, ``longmemeval_m.json`` or
``longmemeval_oracle.json`` of xiaowu0162/LongMemEval, which you download
yourself; stmviz bundles none) is a list of *entries*, one per question:
``question_id``, ``question_type``, ``question``, ``answer``,
``question_date``, and the chat history before it — ``haystack_sessions``
(each a list of turns ``{"role": "user" | "assistant", "content": …}``, the
turns that hold the evidence marked ``"has_answer": true``),
``haystack_session_ids``, ``haystack_dates`` and ``answer_session_ids`` (the
sessions that hold the evidence).

What each field becomes (:func:`load_longmemeval`), one scenario per entry:

- **turns → steps**, in the natural order of a chat: the user's turns are
  inputs, the assistant's turns the model's outputs, with the rules of
  :func:`~stmviz.scenarios.from_openai_messages` over the sessions in the
  file's order (sorted by time in ``_s`` and ``_m``; ``sort_sessions=True``
  sorts them by ``haystack_dates``, e.g. for ``_oracle``): step 0 holds the
  first user turn, each later step an assistant reply and the user turn
  after it. The first turn of each session starts with its date,
  ``"[2023/05/20 (Sat) 02:21] "``. Each step's ``meta`` holds ``session``
  (the id of its last turn's session) and ``date``.
- **the question** is the user's message after the last session, prefixed
  with ``question_date``; asked in the input of step k (the step of the
  history's last reply), it is answered from π(ω_{k+1}): the probe has
  t = k + 1 = n.
- **the answer**: the probe's ``reference`` is ``answer`` as text (a number
  by ``str``), and its key string ``answer`` is the same text (a probe with a
  reference need not find it verbatim in the evidence).
- **evidence**: the steps holding a turn marked ``has_answer``; if no turn
  of the entry is marked, every step holding a turn of an
  ``answer_session_ids`` session (``meta["evidence_from"]`` says which).
  An entry with neither raises, or with ``strict=False`` is skipped.
- ``meta`` holds ``benchmark``, ``question_id``, ``question_type``,
  ``question_date``, ``abstention`` (the id ends in ``_abs``) and
  ``evidence_from``.

Anomalies of a published file do not stop a load: by default an entry
without an answer or evidence is skipped, an empty session skipped, an
``answer_session_ids`` id that is no session dropped; each is listed with
its JSON path in the scenario's ``meta["anomalies"]`` (``{"where",
"problem"}``; a skipped entry's in the warning only) and all are summed up in
one :class:`~stmviz.scenarios.BenchmarkFileWarning` per load. ``strict=True``
raises at the first of them. The cleaned variants (``longmemeval_s_cleaned.json``
…) have the same format. Anything malformed — a missing key, a wrong type,
lists of sessions, ids and dates of different lengths, an unknown role —
raises :class:`~stmviz.core.errors.FormatError` in either mode,
naming the file, the JSON path and the fix.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from typing import Any

from ..core.context import AgentStep
from ..core.element import Meta
from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.formatting import shorten
from ._benchmarks import (
    MAX_BYTES, anomaly, answer_text, fail, field, kind, need_list, need_object, need_text, read_json_file, warn_anomalies,
)
from .chatlog import _steps_from_messages
from .scenario import Probe, Scenario

__all__ = ["load_longmemeval", "from_longmemeval"]

#: How the one warning of a load names each kind of anomaly (see :func:`~._benchmarks.warn_anomalies`).
_KINDS = {
    "has no evidence turn": "questions without an evidence turn (skipped)",
    "has no answer": "questions without an answer (skipped)",
    "is not one of haystack_session_ids": "answer_session_ids that name no session (dropped)",
    "holds no turn": "empty sessions (skipped)",
    "every turn of the session is empty": "sessions of empty turns (skipped)",
    "evidence turn (has_answer) is empty": "empty evidence turns (skipped)",
}

_EXPECTED = "a LongMemEval file is a JSON list of entries, each with a question and its haystack_sessions"
_FIX_SESSIONS = "haystack_sessions, haystack_session_ids and haystack_dates are lists of the same length, one item per session"


def load_longmemeval(
    path: str | os.PathLike,
    *,
    limit: int | None = None,
    question_ids: Collection[str] | None = None,
    sort_sessions: bool = False,
    strict: bool = False,
    max_bytes: int = MAX_BYTES,
) -> list[Scenario]:
    """Scenarios from a LongMemEval-style JSON file you downloaded: one per question (see the module's text).

    Parameters
    ----------
    path : str or path
        The file, e.g. ``longmemeval_s.json``.
    limit : int, optional
        At most this many entries (the first ones, after ``question_ids``).
    question_ids : collection of str, optional
        Only these questions, in the file's order.
    sort_sessions : bool
        Sort each history's sessions by ``haystack_dates`` (the dates are
        ``YYYY/MM/DD (Day) HH:MM`` and sort as text).
    strict : bool
        ``False`` (default): skip an entry without an answer or evidence, an
        empty session and an ``answer_session_ids`` id that is no session,
        list each anomaly in ``meta["anomalies"]`` (a skipped entry's in the
        warning only) and warn once (:class:`BenchmarkFileWarning`).
        ``True``: raise :class:`FormatError` at the first of them.
    max_bytes : int
        Refuse larger files (default 1 GiB; ``longmemeval_m.json`` is larger).

    Raises
    ------
    FormatError
        naming the file, the JSON path (``[3].haystack_sessions[2][5].role``) and the fix.
    InvalidArgumentError
        for a bad ``limit``, or ``question_ids`` that name no entry.
    """
    options = _options(limit, question_ids, sort_sessions, strict, "load_longmemeval")
    data, source = read_json_file(path, max_bytes=max_bytes, expected=_EXPECTED, where="load_longmemeval")
    anomalies: list[dict[str, str]] = []
    out = _from_longmemeval(data, source, *options, anomalies)
    warn_anomalies(source, anomalies, _KINDS)
    return out


def from_longmemeval(
    data: Any,
    *,
    source: str = "longmemeval",
    limit: int | None = None,
    question_ids: Collection[str] | None = None,
    sort_sessions: bool = False,
    strict: bool = False,
) -> list[Scenario]:
    """Scenarios from a decoded LongMemEval document (a list of entries, or one entry); see :func:`load_longmemeval`.

    >>> entry = {"question_id": "q1", "question_type": "single-session-user", "question": "What is my cat called?",
    ...          "answer": "Miso", "question_date": "2023/06/01 (Thu) 10:00",
    ...          "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/20 (Sat) 02:21"], "answer_session_ids": ["s1"],
    ...          "haystack_sessions": [[{"role": "user", "content": "My cat Miso is ill.", "has_answer": True},
    ...                                 {"role": "assistant", "content": "I am sorry to hear that."}]]}
    >>> [s] = from_longmemeval([entry])
    >>> [(step.thought, step.observation) for step in s.steps]
    [('', '[2023/05/20 (Sat) 02:21] My cat Miso is ill.'), ('I am sorry to hear that.', '[2023/06/01 (Thu) 10:00] What is my cat called?')]
    >>> s.probes[0].t, s.probes[0].evidence_steps, s.meta["evidence_from"]
    (2, (0,), 'has_answer')
    """
    options = _options(limit, question_ids, sort_sessions, strict, "from_longmemeval")
    source = guards.text(source, "source", where="from_longmemeval", example="longmemeval_s.json")
    anomalies: list[dict[str, str]] = []
    out = _from_longmemeval(data, source, *options, anomalies)
    warn_anomalies(source, anomalies, _KINDS)
    return out


def _options(
    limit: Any, question_ids: Any, sort_sessions: Any, strict: Any, where: str
) -> tuple[int | None, list[str] | None, bool, bool]:
    """The loaders' options, checked: (limit, question_ids, sort_sessions, strict)."""
    limit = guards.whole_number(limit, "limit", 0, maximum=None, where=where, none_ok=True)
    ids = None if question_ids is None else [
        guards.instance(i, f"question_ids[{k}]", str, where=where, what="a question id (str) such as 'e47becba'")
        for k, i in enumerate(guards.items(question_ids, "question_ids", where=where, what="ids such as ['e47becba']"))
    ]
    return (limit, ids, guards.flag(sort_sessions, "sort_sessions", where=where), guards.flag(strict, "strict", where=where))


def _from_longmemeval(
    data: Any, source: str, limit: int | None, question_ids: Collection[str] | None, sort_sessions: bool, strict: bool,
    anomalies: list[dict[str, str]],
) -> list[Scenario]:
    single = isinstance(data, Mapping) and "haystack_sessions" in data
    entries = need_list([data] if single else data, source, "", _EXPECTED)
    if isinstance(entries[0], Mapping) and "conversation" in entries[0] and "haystack_sessions" not in entries[0]:
        raise fail(source, "[0]", "this looks like a LoCoMo file (conversation and qa), not LongMemEval; read it with "
                   "stmviz.scenarios.load_locomo")
    chosen = list(range(len(entries)))
    if question_ids is not None:
        wanted = set(question_ids)
        ids = [e.get("question_id") if isinstance(e, Mapping) else None for e in entries]
        missing = wanted - set(ids)
        if missing:  # the file's own ids: what it holds, no guard's rule
            raise InvalidArgumentError(
                f"no entry of {source} has the question_id(s) {', '.join(shorten(repr(m), 30) for m in sorted(missing, key=str)[:5])}; "
                f"ids in the file include {', '.join(shorten(repr(i), 30) for i in ids[:5] if i is not None) or 'none'}"
            )
        chosen = [k for k in chosen if ids[k] in wanted]
    if limit is not None:
        chosen = chosen[:limit]
    out = []
    for k in chosen:
        scenario = _entry(entries[k], source, "" if single else f"[{k}]", sort_sessions, strict, anomalies)
        if scenario is not None:
            out.append(scenario)
    return out


def _entry(
    record: Any, source: str, where: str, sort_sessions: bool, strict: bool, anomalies: list[dict[str, str]],
) -> Scenario | None:
    record = need_object(record, source, where, _EXPECTED)
    found: list[dict[str, str]] = []

    def at(key: str) -> str:
        return f"{where}.{key}".lstrip(".")

    def text(key: str, fix: str, *, empty_ok: bool = False) -> str:
        return need_text(field(record, key, source, where, fix), source, at(key), fix, empty_ok=empty_ok)

    question_id = text("question_id", "give the entry its question id").strip()
    question_type = text("question_type", "give the question's type, e.g. 'single-session-user'", empty_ok=True).strip()
    question = text("question", "give the question").strip()
    if "answer" not in record and not strict:
        anomaly(anomalies, where or "top level", f"question {shorten(question_id, 40)!r} has no answer (skipped)")
        return None
    reference = answer_text(field(record, "answer", source, where, "give the reference answer"), source, at("answer"))
    question_date = need_text(record.get("question_date", ""), source, at("question_date"),
                              "give the question's date as text", empty_ok=True).strip()
    sessions = need_list(field(record, "haystack_sessions", source, where, _FIX_SESSIONS), source,
                         at("haystack_sessions"), "give the chat history, a list of sessions")
    ids = need_list(field(record, "haystack_session_ids", source, where, _FIX_SESSIONS), source,
                    at("haystack_session_ids"), _FIX_SESSIONS)
    dates = need_list(record.get("haystack_dates", [""] * len(sessions)), source, at("haystack_dates"), _FIX_SESSIONS)
    for key, values in (("haystack_session_ids", ids), ("haystack_dates", dates)):
        if len(values) != len(sessions):
            raise fail(source, at(key), f"holds {len(values)} item(s) for {len(sessions)} session(s); {_FIX_SESSIONS}")
    for j, value in enumerate(ids):
        need_text(value, source, f"{at('haystack_session_ids')}[{j}]", "a session id is text")
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise fail(source, at("haystack_session_ids"), f"the session id {shorten(twice)!r} occurs twice; ids must differ")
    for j, value in enumerate(dates):
        need_text(value, source, f"{at('haystack_dates')}[{j}]", "a session's date is text", empty_ok=True)
    answer_sessions = need_list(record.get("answer_session_ids", []), source, at("answer_session_ids"),
                                "list the ids of the evidence sessions", empty_ok=True)
    for j, value in enumerate(answer_sessions):
        value = need_text(value, source, f"{at('answer_session_ids')}[{j}]", "a session id is text")
        if value not in ids:
            if strict:
                raise fail(source, f"{at('answer_session_ids')}[{j}]",
                           f"{shorten(value)!r} is not one of haystack_session_ids; fix the id or remove it, or load "
                           f"with strict=False to drop such ids")
            anomaly(found, f"{at('answer_session_ids')}[{j}]", f"{shorten(value, 30)!r} is not one of haystack_session_ids (dropped)")
    answer_sessions = [value for value in answer_sessions if value in ids]

    order = list(range(len(sessions)))
    if sort_sessions:
        order.sort(key=lambda j: dates[j])
    messages: list[dict[str, str]] = []
    labels: list[str] = []
    session_of: list[int] = []  # the session (index into the file's lists) of each message
    marked: list[int] = []  # messages with has_answer
    for j in order:
        session_at = f"{at('haystack_sessions')}[{j}]"
        turns = need_list(sessions[j], source, session_at, "a session is a list of turns", empty_ok=True)
        if not turns:
            if strict:
                raise fail(source, session_at, "the list is empty; a session is a non-empty list of turns; remove empty "
                           "sessions, or load with strict=False to skip them")
            anomaly(found, session_at, "the session holds no turn (skipped)")
            continue
        first = True
        for m, turn in enumerate(turns):
            turn_at = f"{session_at}[{m}]"
            turn = need_object(turn, source, turn_at, "a turn is an object with role and content")
            role = field(turn, "role", source, turn_at, "say who speaks: 'user' or 'assistant'")
            if role not in ("user", "assistant"):
                raise fail(source, f"{turn_at}.role", f"expected 'user' or 'assistant', got {kind(role)}; fix the role")
            content = need_text(field(turn, "content", source, turn_at, "give the turn's text"), source,
                                f"{turn_at}.content", "give the turn's text", empty_ok=True).strip()
            has_answer = turn.get("has_answer", False)
            if not isinstance(has_answer, bool):
                raise fail(source, f"{turn_at}.has_answer", f"expected true or false, got {kind(has_answer)}")
            if not content:
                if has_answer:
                    if strict:
                        raise fail(source, f"{turn_at}.content", "an evidence turn (has_answer) is empty; give its text, "
                                   "or load with strict=False to skip it")
                    anomaly(found, f"{turn_at}.content", "an evidence turn (has_answer) is empty (skipped)")
                continue  # an empty turn holds nothing to remember
            if first and dates[j].strip():
                content = f"[{dates[j].strip()}] {content}"
            first = False
            if has_answer:
                marked.append(len(messages))
            messages.append({"role": role, "content": content})
            labels.append(turn_at)
            session_of.append(j)
        if first:
            if strict:
                raise fail(source, session_at, "every turn of the session is empty; remove the session or give it text, "
                           "or load with strict=False to skip it")
            anomaly(found, session_at, "every turn of the session is empty (skipped)")
    asked_at = len(messages)
    messages.append({"role": "user", "content": f"[{question_date}] {question}" if question_date else question})
    labels.append(at("question"))

    _, raw = _steps_from_messages(messages, labels, source)
    step_of = {}
    steps = []
    for k, step in enumerate(raw):
        held = list(step.meta["messages"])
        for m in held:
            step_of[m] = k
        last = held[-1]
        meta = dict(step.meta)
        if last == asked_at:
            meta["question"] = True
        else:
            meta["session"], meta["date"] = ids[session_of[last]], dates[session_of[last]]
        steps.append(AgentStep(thought=step.thought, action=step.action, observation=step.observation, meta=meta))

    evidence_from = "has_answer"
    evidence = {step_of[m] for m in marked}
    if not evidence:
        evidence_from = "answer_session_ids"
        wanted = {ids.index(s) for s in answer_sessions}
        evidence = {step_of[m] for m in range(asked_at) if session_of[m] in wanted}
    t = step_of[asked_at] + 1
    evidence = {s for s in evidence if s < t}
    if not evidence:
        if strict:
            raise fail(source, where, "no turn is marked has_answer and answer_session_ids names no session: the "
                       "question has no evidence; mark the evidence turns, or load with strict=False to skip it")
        anomalies.extend(found)
        anomaly(anomalies, where or "top level", f"question {shorten(question_id, 40)!r} has no evidence turn (skipped)")
        return None
    anomalies.extend(found)
    ordered = sorted(evidence)
    probe = Probe(t=t, question=question, answer=reference, evidence_step=ordered[0], evidence_steps=tuple(ordered),
                  reference=reference)
    meta = {
        "benchmark": "LongMemEval", "question_id": question_id, "question_type": question_type, "source": source,
        "question_date": question_date, "abstention": question_id.endswith("_abs"), "evidence_from": evidence_from,
        "sessions": len(sessions), "anomalies": found,
    }
    kind_ = f" ({question_type})" if question_type else ""
    return Scenario(
        name=f"longmemeval_{question_id}",
        title=f"LongMemEval {question_id}{kind_}",
        description=(f"A chat history of {len(sessions)} session(s) ({len(messages) - 1} turns), then the question: "
                     f"{shorten(question, 80)}"),
        query="You are a chat assistant with a long history with the user; answer the user's question.",
        steps=tuple(steps),
        probes=(probe,),
        meta=Meta(meta),
        source=source,
    )
