"""LoCoMo-style benchmark files as scenarios: long two-person conversations, with questions on evidence turns.

A LoCoMo file (e.g. ``locomo10.json`` of snap-research/locomo, which you
download yourself; stmviz bundles none) is a list of *samples*. Each sample
has a ``conversation`` — ``speaker_a``, ``speaker_b``, and sessions
``session_1``, ``session_2``, … (lists of turns ``{"speaker", "dia_id":
"D1:3", "text"}``, optionally with an image's ``blip_caption``), each with its
``session_N_date_time`` — and ``qa``: questions with an ``answer``, the
``evidence`` turns (dia_ids) and a ``category`` (5: adversarial, with an
``adversarial_answer`` and no ``answer``).

What each field becomes (:func:`load_locomo`):

- **turns → steps.** Both speakers are people, and neither is the model
  whose memory is measured: by default (``assistant=None``) the model
  *listens*. Every turn is the input of a step of its own,
  ``AgentStep(observation="Caroline: Hey Mel! …")`` with no output, as step 0
  of any conversation is. Both speakers' turns are treated alike — a
  mechanism that handles outputs and inputs differently would otherwise keep
  one person's facts better than the other's — and each question is asked
  of a model that has only heard the conversation, as in LoCoMo's own
  question answering. With ``assistant="speaker_a"`` (or ``"speaker_b"``, or
  a speaker's name) that speaker's turns become the model's outputs and the
  other's its inputs, in the conversation's order (the rules of
  :func:`~stmviz.scenarios.from_openai_messages`: a step holds an output,
  then the input after it; consecutive turns of the other speaker share a
  step's input).
- **text.** ``"<speaker>: <text>"``, plus ``" [shares a photo: <caption>]"``
  for a turn with an image caption; the first turn of each session starts
  with its date, ``"[1:56 pm on 8 May, 2023] "``. Each step's ``meta`` holds
  ``dia_ids``, ``speakers``, ``session`` (its number) and ``date``.
- **questions → probes.** By default (``questions="appended"``) every
  question becomes an input-only step after the conversation, ``AgentStep(
  observation=question, meta={"role": "user", "qa": j, "category": c})``;
  asked in the input of step k, it is answered from π(ω_{k+1}), so its probe
  has t = k + 1. Later questions are asked after earlier ones, which take
  room in the memory too. ``questions="final"`` adds no steps and probes
  every question at t = n (the model input after the whole conversation);
  ``questions="each"`` makes one scenario per question (the conversation,
  then that question alone).
- **answers.** The probe's ``reference`` is the answer as text (a number
  such as ``2022`` by ``str``; a list joined by "; "), and its key string
  ``answer`` is the same text: LoCoMo's answers are free text that need not
  occur verbatim in the evidence, which a probe with a reference allows.
- **evidence.** Each dia_id in ``evidence`` names a turn; the probe's
  ``evidence_steps`` are the steps holding them, ``evidence_step`` the first.
  An evidence item may hold several ids separated by ";" or "," (a few do in
  ``locomo10.json``); ``"D1:03"`` and ``"D:1:3"`` match turn ``"D1:3"``; a
  fragment without a number (a bare ``"D"``, which ``locomo10.json`` also
  holds) names nothing and is ignored.
- **skipped questions.** A question without an ``answer`` (category 5
  holds only an ``adversarial_answer``), with no evidence, or outside
  ``categories`` gives no probe; ``meta["skipped"]`` lists each with the
  reason. The scenario's ``meta`` also holds ``benchmark``, ``sample_id``,
  ``speakers`` and, aligned with ``probes``, ``qa`` (the question's index in
  the sample's ``qa``) and ``categories``.

What the published files hold besides (the anomalies) does not stop a
load: ``locomo10.json`` names a few evidence turns that do not exist
(``"D10:19"`` in a conversation whose session 10 is shorter), and a question
may be left with no answer or no evidence. By default such an evidence id is
dropped, such a question skipped, an empty turn skipped, and each anomaly is
listed with its JSON path in the scenario's ``meta["anomalies"]`` (a list of
``{"where", "problem"}``) and summed up in one
:class:`~stmviz.scenarios.BenchmarkFileWarning` per load. ``strict=True``
raises :class:`~stmviz.core.errors.FormatError` at the first of them
instead. Anything malformed — a missing key, a wrong type, an empty session,
a turn of an unknown speaker, a duplicated dia_id — raises in either mode,
naming the file, the JSON path and the fix.

Besides the published ``locomo10.json`` (a list of samples), the loader reads
one sample object, and the archive ``locomo10.zip`` of the same repository
(a folder of per-conversation files ``26.json`` … ``50.json`` whose
conversation keys sit at the top level beside ``qa``; sample ids become
``conv-26`` …): pass the archive, the folder it unpacks to, or one file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..core.context import AgentStep
from ..core.element import Meta
from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.guards import brief
from ..core.formatting import shorten
from ._benchmarks import (
    MAX_BYTES, anomaly, answer_text, fail, field, kind, need_list, need_object, need_text, read_json_files, warn_anomalies,
)
from .chatlog import _steps_from_messages
from .scenario import Probe, Scenario

__all__ = ["load_locomo", "from_locomo"]

_SESSION = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^\s*D\s*:?\s*(\d{1,9})\s*:\s*(\d{1,9})\s*$", re.IGNORECASE)  # longer numbers name no turn
_EXPECTED = "a LoCoMo file is a JSON list of samples, each with 'conversation' and 'qa'"
_MODES = ("appended", "final", "each")
#: How the one warning of a load names each kind of anomaly (see :func:`~._benchmarks.warn_anomalies`).
_KINDS = {
    "is the id of no turn": "evidence ids that name no turn (dropped)",
    "has no evidence turn": "questions without an evidence turn (skipped)",
    "has no answer": "questions without an answer (skipped)",
    "no text and no image caption": "empty turns (skipped)",
}


@dataclass(frozen=True)
class _Turn:
    dia_id: str
    speaker: str
    text: str  # as the step shows it
    session: int
    date: str


def load_locomo(
    path: str | os.PathLike,
    *,
    sample: int | str | None = None,
    assistant: str | None = None,
    questions: Literal["appended", "final", "each"] = "appended",
    categories: Collection[int] | None = None,
    strict: bool = False,
    max_bytes: int = MAX_BYTES,
) -> list[Scenario]:
    """Scenarios from a LoCoMo-style JSON file you downloaded: one per sample (see the module's text for the mapping).

    Parameters
    ----------
    path : str or path
        The file, e.g. ``locomo10.json``; or ``locomo10.zip``, or the folder it
        unpacks to (every ``*.json`` in it, in natural order).
    sample : int or str, optional
        Only this sample: its position in the file, or its ``sample_id``
        (``"conv-26"``). Default: every sample.
    assistant : str, optional
        ``None`` (default): the model listens, every turn is an input.
        ``"speaker_a"``, ``"speaker_b"`` or a speaker's name: that speaker's
        turns are the model's outputs.
    questions : {"appended", "final", "each"}
        Where the questions go: appended after the conversation as inputs
        (default), nowhere (every probe at t = n), or one scenario per question.
    categories : collection of int, optional
        Keep only questions of these categories (default: every question that
        has an ``answer``).
    strict : bool
        ``False`` (default): drop evidence ids that name no turn, skip empty
        turns and questions without an answer or evidence, list each in
        ``meta["anomalies"]`` and warn once (:class:`BenchmarkFileWarning`).
        ``True``: raise :class:`FormatError` at the first of them.
    max_bytes : int
        Refuse larger files (default 1 GiB).

    Returns
    -------
    list of Scenario
        One per sample (``questions="each"``: one per question).

    Raises
    ------
    FormatError
        naming the file, the JSON path (``[0].qa[12].evidence[1]``) and the fix.
    InvalidArgumentError
        for a bad argument (``sample`` not in the file, an unknown ``questions``).
    """
    out: list[Scenario] = []
    anomalies: list[dict[str, str]] = []
    documents = read_json_files(path, max_bytes=max_bytes, expected=_EXPECTED, where="load_locomo")
    if sample is not None and len(documents) > 1:
        documents = [(_flat_documents(documents), os.path.basename(os.fspath(path)) or "locomo")]
    for data, source in documents:
        out.extend(_from_locomo(data, source, sample, assistant, questions, categories, strict, anomalies, "load_locomo"))
    source = documents[0][1] if len(documents) == 1 else os.path.basename(os.fspath(path))
    warn_anomalies(source, anomalies, _KINDS)
    return out


def from_locomo(
    data: Any,
    *,
    source: str = "locomo",
    sample: int | str | None = None,
    assistant: str | None = None,
    questions: Literal["appended", "final", "each"] = "appended",
    categories: Collection[int] | None = None,
    strict: bool = False,
) -> list[Scenario]:
    """Scenarios from a decoded LoCoMo document (a list of samples, or one sample); see :func:`load_locomo`.

    >>> sample = {"sample_id": "tiny", "conversation": {
    ...     "speaker_a": "Ana", "speaker_b": "Ben", "session_1_date_time": "9:00 am on 1 May, 2023",
    ...     "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat called Miso."},
    ...                   {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!"}]},
    ...     "qa": [{"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 1}]}
    >>> [s] = from_locomo([sample])
    >>> [step.observation for step in s.steps]
    ['[9:00 am on 1 May, 2023] Ana: I adopted a cat called Miso.', 'Ben: Lovely!', "What is Ana's cat called?"]
    >>> s.probes[0].t, s.probes[0].evidence_steps, s.probes[0].reference
    (3, (0,), 'Miso')
    """
    source = guards.text(source, "source", where="from_locomo", example="locomo10.json")
    anomalies: list[dict[str, str]] = []
    out = _from_locomo(data, source, sample, assistant, questions, categories, strict, anomalies, "from_locomo")
    warn_anomalies(source, anomalies, _KINDS)
    return out


def _flat_documents(documents: list[tuple[Any, str]]) -> list[Any]:
    """The samples of several files (a folder or archive of one sample per file) as one list, so ``sample`` can pick one."""
    samples: list[Any] = []
    for data, source in documents:
        samples.extend(_as_samples(data, source)[0])
    return samples


def _as_samples(data: Any, source: str) -> tuple[Any, bool]:
    """The list of samples of a document, and whether it held one sample only.

    Besides the published list of ``{"sample_id", "conversation", "qa"}``,
    reads one such sample, and the per-conversation files of the archive
    ``locomo10.zip`` (``26.json``: the conversation's keys at the top, beside
    ``qa``), whose sample id is then ``conv-26``, as in ``locomo10.json``.
    """
    if isinstance(data, Mapping) and "conversation" in data:
        return [data], True
    if isinstance(data, Mapping) and "speaker_a" in data and "qa" in data:
        stem = os.path.splitext(os.path.basename(source.rsplit(":", 1)[-1]))[0]
        sample_id = data.get("sample_id", f"conv-{stem}" if stem.isdigit() else stem)
        conversation = {k: v for k, v in data.items() if k in ("speaker_a", "speaker_b") or _SESSION.match(str(k))
                        or (isinstance(k, str) and k.endswith("_date_time"))}
        return [{"sample_id": sample_id, "conversation": conversation, "qa": data["qa"]}], True
    return data, False


def _from_locomo(
    data: Any, source: str, sample: int | str | None, assistant: str | None, questions: str,
    categories: Collection[int] | None, strict: bool, anomalies: list[dict[str, str]], caller: str,
) -> list[Scenario]:
    guards.choice(questions, "questions", _MODES, where=caller)
    strict = guards.flag(strict, "strict", where=caller)
    guards.text(assistant, "assistant", where=caller, none_ok=True, example="speaker_a")
    chosen_categories = None if categories is None else frozenset(
        guards.whole_number(c, f"categories[{k}]", where=caller, fix="; LoCoMo's categories are 1 … 5")
        for k, c in enumerate(guards.items(categories, "categories", where=caller, what="whole numbers such as {1, 2}"))
    )
    data, single = _as_samples(data, source)
    samples = need_list(data, source, "", _EXPECTED)
    if isinstance(samples[0], Mapping) and "haystack_sessions" in samples[0] and "conversation" not in samples[0]:
        raise fail(source, "[0]", "this looks like a LongMemEval file (haystack_sessions), not LoCoMo; read it with "
                   "stmviz.scenarios.load_longmemeval")
    chosen = _choose(samples, sample, source, caller)
    out: list[Scenario] = []
    for i in chosen:
        where = "" if single else f"[{i}]"
        out.extend(_sample(samples[i], source, where, i, assistant, questions, chosen_categories, strict, anomalies))
    if chosen_categories is not None and chosen and not any(s.probes for s in out):
        _no_question_of(chosen_categories, [samples[i] for i in chosen], source, caller)
    return out


def _no_question_of(categories: frozenset[int], samples: list[Any], source: str, caller: str) -> None:
    """A category filter that keeps no question is a mistake to say, not an empty list of probes to return."""
    found: set[int] = set()
    for s in samples:
        qa = s.get("qa") if isinstance(s, Mapping) else None
        for q in qa if isinstance(qa, list) else ():
            if isinstance(q, Mapping) and isinstance(q.get("category"), int) and not isinstance(q["category"], bool):
                found.add(q["category"])
    present = sorted(found)
    # the file's own categories: what it holds, no guard's rule
    raise InvalidArgumentError(
        f"{caller}: no question of {source} with an answer and evidence is of the categories "
        f"{sorted(categories)}; the file's questions are of the categories {present or 'none'}; pass some of these, "
        f"or categories=None for every question"
    )


def _choose(samples: list[Any], sample: int | str | None, source: str, caller: str) -> list[int]:
    if sample is None:
        return list(range(len(samples)))
    if isinstance(sample, str):
        ids = [s.get("sample_id") if isinstance(s, Mapping) else None for s in samples]
        if sample in ids:
            return [ids.index(sample)]
        known = ", ".join(shorten(repr(x), 30) for x in ids[:10] if x is not None) or "none"
        # the file's own ids: what it holds, no guard's rule
        raise InvalidArgumentError(f"{caller}: no sample has sample_id {brief(sample)} in {source}; sample ids: {known}")
    position = guards.whole_number(sample, "sample", where=caller,
                                   fix="; pass a position or a sample_id (str) such as 'conv-26', or None for every sample")
    if not -len(samples) <= position < len(samples):  # the positions the file holds
        raise InvalidArgumentError(
            f"{caller}: sample = {position}, but {source} holds {len(samples)} sample(s) (0 … {len(samples) - 1})"
        )
    return [position % len(samples)]


def _sample(
    record: Any, source: str, where: str, index: int, assistant: str | None, questions: str,
    categories: frozenset[int] | None, strict: bool, anomalies: list[dict[str, str]],
) -> list[Scenario]:
    found: list[dict[str, str]] = []
    record = need_object(record, source, where or "top level", _EXPECTED)
    sample_id = record.get("sample_id", index)
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)) or not str(sample_id).strip():
        raise fail(source, f"{where}.sample_id", f"expected text or a number, got {kind(sample_id)}; fix the sample's id")
    sample_id = str(sample_id)
    conv_at = f"{where}.conversation".lstrip(".")
    conversation = need_object(field(record, "conversation", source, where, "each sample needs its conversation"),
                               source, conv_at, "the conversation holds speaker_a, speaker_b and session_N lists")
    speakers = [need_text(field(conversation, key, source, conv_at, "name both speakers"), source, f"{conv_at}.{key}",
                          "name the speaker") for key in ("speaker_a", "speaker_b")]
    if speakers[0] == speakers[1]:
        raise fail(source, f"{conv_at}.speaker_b", f"both speakers are called {speakers[0]!r}; give them different names")
    model = _assistant(assistant, speakers)
    turns = _turns(conversation, speakers, source, conv_at, strict, found)
    qa_at = f"{where}.qa".lstrip(".")
    qa = need_list(field(record, "qa", source, where, "each sample needs its list of questions"), source, qa_at,
                   "give the sample's questions", empty_ok=True)

    steps, step_of = _conversation_steps(turns, model)
    asked, skipped = _questions(qa, source, qa_at, turns, step_of, categories, strict, found)
    anomalies.extend(found)
    meta_base: dict[str, Any] = {
        "benchmark": "LoCoMo", "sample_id": sample_id, "source": source, "speakers": speakers,
        "assistant": model, "questions": questions, "skipped": skipped, "anomalies": found,
    }
    title = f"LoCoMo {sample_id}: {speakers[0]} and {speakers[1]}"
    who = "the model listens to both" if model is None else f"{model}'s turns are the model's outputs"
    query = f"Read the conversation between {speakers[0]} and {speakers[1]}, then answer questions about it."
    description = (
        f"{len(turns)} turns in {len({t.session for t in turns})} session(s) ({who}); "
        f"{len(asked)} question(s) with evidence turns and reference answers."
    )

    def build(name: str, chosen: list[_Question]) -> Scenario:
        all_steps = list(steps)
        probes = []
        for q in chosen:
            if questions == "final":
                t = len(steps)
            else:
                all_steps.append(AgentStep(observation=q.question, meta={"role": "user", "qa": q.index, "category": q.category}))
                t = len(all_steps)
            probes.append(Probe(t=t, question=q.question, answer=q.reference, evidence_step=q.evidence[0],
                                evidence_steps=q.evidence, reference=q.reference))
        meta = {**meta_base, "qa": [q.index for q in chosen], "categories": [q.category for q in chosen]}
        return Scenario(name=name, title=title, description=description, query=query, steps=tuple(all_steps),
                        probes=tuple(probes), meta=Meta(meta), source=source)

    if questions == "each":
        return [build(f"locomo_{sample_id}_q{q.index}", [q]) for q in asked]
    return [build(f"locomo_{sample_id}", asked)]


def _assistant(assistant: str | None, speakers: list[str]) -> str | None:
    if assistant is None:
        return None
    chosen = guards.choice(assistant, "assistant", ("speaker_a", "speaker_b", *speakers),
                           "a key of the conversation or a speaker's name; or None, and the model listens")
    return {"speaker_a": speakers[0], "speaker_b": speakers[1]}.get(chosen, chosen)


def _sessions(conversation: Mapping[str, Any], source: str, where: str) -> list[tuple[int, str]]:
    """The session keys in their numeric order."""
    found = []
    for key in conversation:
        match = _SESSION.match(key) if isinstance(key, str) else None
        if match:
            if len(match.group(1)) > 9:
                raise fail(source, f"{where}.{shorten(key, 30)}", "the session number is too large; number sessions 1, 2, …")
            found.append((int(match.group(1)), key))
    if not found:
        raise fail(source, where, "no session_N list of turns; a conversation holds session_1, session_2, …")
    return sorted(found)


def _turns(
    conversation: Mapping[str, Any], speakers: list[str], source: str, where: str, strict: bool,
    anomalies: list[dict[str, str]],
) -> list[_Turn]:
    turns: list[_Turn] = []
    seen: dict[tuple[int, int] | str, str] = {}
    for number, key in _sessions(conversation, source, where):
        at = f"{where}.{key}"
        session = need_list(conversation[key], source, at, "a session is a non-empty list of turns; remove empty sessions")
        date = conversation.get(f"{key}_date_time", "")
        date = need_text(date, source, f"{where}.{key}_date_time", "give the session's date as text", empty_ok=True).strip()
        first = True
        for j, turn in enumerate(session):
            turn_at = f"{at}[{j}]"
            turn = need_object(turn, source, turn_at, "a turn is an object with speaker, dia_id and text")
            speaker = need_text(field(turn, "speaker", source, turn_at, "name who speaks"), source, f"{turn_at}.speaker",
                                "name who speaks")
            if speaker not in speakers:
                raise fail(source, f"{turn_at}.speaker", f"{shorten(repr(speaker))} is neither speaker_a ({speakers[0]!r}) "
                           f"nor speaker_b ({speakers[1]!r}); fix the name")
            dia_id = need_text(field(turn, "dia_id", source, turn_at, "give the turn's id, e.g. 'D1:3'"), source,
                               f"{turn_at}.dia_id", "give the turn's id, e.g. 'D1:3'").strip()
            key_of = _dia_key(dia_id)
            if key_of in seen:
                raise fail(source, f"{turn_at}.dia_id", f"{shorten(repr(dia_id))} is also the id of the turn at {seen[key_of]}; "
                           f"every turn needs its own id")
            seen[key_of] = turn_at
            text = need_text(turn.get("text", ""), source, f"{turn_at}.text", "give the turn's text", empty_ok=True).strip()
            caption = turn.get("blip_caption")
            if caption is not None:
                caption = need_text(caption, source, f"{turn_at}.blip_caption", "give the caption as text", empty_ok=True).strip()
                if caption:
                    text = f"{text} [shares a photo: {caption}]".strip()
            if not text:
                if strict:
                    raise fail(source, f"{turn_at}.text", "the turn has no text and no image caption; give it its text, "
                               "or load with strict=False to skip empty turns")
                anomaly(anomalies, turn_at, "the turn has no text and no image caption (skipped)")
                continue
            line = f"{speaker}: {text}"
            if first and date:
                line = f"[{date}] {line}"
            first = False
            turns.append(_Turn(dia_id, speaker, line, number, date))
    if not turns:
        raise fail(source, where, "the conversation has no turn with text")
    return turns


def _dia_key(dia_id: str) -> tuple[int, int] | str:
    """A dia_id's (session, turn) numbers, so that "D1:03" and "D1:3" name the same turn; other ids as they are."""
    match = _DIA_ID.match(dia_id)
    return (int(match.group(1)), int(match.group(2))) if match else dia_id.strip()


def _conversation_steps(turns: list[_Turn], model: str | None) -> tuple[list[AgentStep], dict[tuple[int, int] | str, int]]:
    """The conversation's steps, and the step that holds each turn (by its dia_id's key)."""
    if model is None:
        steps = [
            AgentStep(observation=t.text, meta={"role": "user", "speakers": [t.speaker], "dia_ids": [t.dia_id],
                                                "session": t.session, "date": t.date})
            for t in turns
        ]
        return steps, {_dia_key(t.dia_id): k for k, t in enumerate(turns)}
    messages = [{"role": "assistant" if t.speaker == model else "user", "content": t.text} for t in turns]
    _, raw = _steps_from_messages(messages, [f"turn {t.dia_id}" for t in turns], "")
    steps, step_of = [], {}
    for k, step in enumerate(raw):
        held = [turns[m] for m in step.meta["messages"]]
        for t in held:
            step_of[_dia_key(t.dia_id)] = k
        last = held[-1]
        meta = {**step.meta, "speakers": [t.speaker for t in held], "dia_ids": [t.dia_id for t in held],
                "session": last.session, "date": last.date}
        steps.append(AgentStep(thought=step.thought, action=step.action, observation=step.observation, meta=meta))
    return steps, step_of


@dataclass(frozen=True)
class _Question:
    index: int
    question: str
    reference: str
    evidence: tuple[int, ...]
    category: int | None


def _questions(
    qa: list[Any], source: str, where: str, turns: list[_Turn], step_of: Mapping[tuple[int, int] | str, int],
    categories: frozenset[int] | None, strict: bool, anomalies: list[dict[str, str]],
) -> tuple[list[_Question], list[dict[str, Any]]]:
    asked: list[_Question] = []
    skipped: list[dict[str, Any]] = []
    for j, item in enumerate(qa):
        at = f"{where}[{j}]"
        item = need_object(item, source, at, "a question is an object with question, answer, evidence and category")
        question = need_text(field(item, "question", source, at, "give the question"), source, f"{at}.question",
                             "give the question").strip()
        category = item.get("category")
        if category is not None and (isinstance(category, bool) or not isinstance(category, int)):
            raise fail(source, f"{at}.category", f"expected a whole number (1 … 5), got {kind(category)}; fix the category")
        if categories is not None and category not in categories:
            skipped.append({"qa": j, "reason": f"category {category} not asked for"})
            continue
        if "answer" not in item:
            if "adversarial_answer" in item:
                skipped.append({"qa": j, "reason": "adversarial: no answer (only an adversarial_answer)"})
                continue
            if strict:
                raise fail(source, at, "missing the field 'answer'; give the reference answer, or load with strict=False "
                           "to skip such questions")
            anomaly(anomalies, at, "the question has no answer (skipped)")
            skipped.append({"qa": j, "reason": "no answer"})
            continue
        reference = answer_text(item["answer"], source, f"{at}.answer")
        evidence = need_list(field(item, "evidence", source, at, "list the dia_ids of the evidence turns"), source,
                             f"{at}.evidence", "list the dia_ids of the evidence turns", empty_ok=True)
        found: set[int] = set()
        for e, ref in enumerate(evidence):
            ref_at = f"{at}.evidence[{e}]"
            ref = need_text(ref, source, ref_at, "an evidence item is a dia_id such as 'D1:3'", empty_ok=True)
            for part in (p for p in re.split(r"[;,]", ref) if any(c.isdigit() for c in p)):
                step = step_of.get(_dia_key(part))
                if step is None:
                    if strict:
                        raise fail(source, ref_at, f"{shorten(part.strip())!r} is the id of no turn (ids run "
                                   f"{shorten(turns[0].dia_id, 20)} … {shorten(turns[-1].dia_id, 20)}); fix the id, "
                                   f"or load with strict=False to drop such ids")
                    anomaly(anomalies, ref_at, f"{shorten(part.strip(), 30)!r} is the id of no turn (dropped)")
                    continue
                found.add(step)
        if not found:
            because = "every evidence id names no turn" if evidence else "its evidence list is empty"
            if strict:  # strict=True refuses every anomaly it would otherwise skip with a warning
                raise fail(source, f"{at}.evidence", f"the question has no evidence turn: {because}; list the dia_ids "
                           f"of the turns that hold its answer, or load with strict=False to skip such questions")
            anomaly(anomalies, at, f"the question has no evidence turn: {because} (skipped)")
            skipped.append({"qa": j, "reason": "no evidence turn"})
            continue
        ordered = tuple(sorted(found))
        asked.append(_Question(j, question, reference, ordered, category))
    return asked, skipped
