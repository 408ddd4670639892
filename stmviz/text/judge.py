"""An optional LLM reader and judge: answer each probe from the recorded model input, then grade the answer.

Key-string retention (:func:`stmviz.metrics.retention`) asks whether a short
answer *occurs* in π(ω_t). A reader asks whether a model could *answer* from
it — the evidence may survive only as a summary — and a judge compares that
answer with the probe's reference answer, as benchmarks such as LongMemEval
and LoCoMo grade with an LLM:

- :func:`read_answers` — for each :class:`~stmviz.scenarios.Probe`, sends the
  text of x_t = π(ω_t) (``trace.project(probe.t)``, the model input the answer
  is produced from) and the question to a chat model, and records its answer;
- :func:`judge_answers` — sends each question, reference answer and answer to
  a chat model and records its verdict (correct or not) and its reason.

Both need an OpenAI-compatible client object that you pass explicitly
(``client.chat.completions.create(model=..., messages=...)``, e.g.
``openai.OpenAI()`` or a local server's client): stmviz never imports
``openai`` and sends nothing without one. Nothing else in stmviz uses this
module.

>>> from types import SimpleNamespace
>>> def reply(text):
...     message = SimpleNamespace(content=text)
...     return SimpleNamespace(choices=[SimpleNamespace(message=message)])
>>> client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(
...     create=lambda model, messages, **options: reply("CORRECT\\nIt names the same city."))))
>>> [verdict] = judge_answers([{"question": "Where?", "answer": "In Lisbon.", "reference": "Lisbon"}], client, model="m")
>>> verdict.correct, verdict.reason
(True, 'It names the same city.')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..core import guards
from ..core.errors import InvalidArgumentError, STMError
from ..core.trace import Trace
from ..core.formatting import shorten
from .openai import _ask, _check_chat

__all__ = ["ReadAnswer", "Judgement", "read_answers", "judge_answers", "READ_PROMPT", "JUDGE_PROMPT"]

READ_PROMPT = (
    "Below is everything an assistant had in its context at one moment (its model input). Using only this text, "
    "answer the question. If the text does not hold the answer, say that you do not know. Answer in one short "
    "sentence.\n\nContext:\n{memory}\n\nQuestion: {question}\nAnswer:"
)

JUDGE_PROMPT = (
    "You grade an answer to a question against a reference answer. The answer is correct if it states what the "
    "reference states (other words, or more detail that does not contradict it, are fine); it is incorrect if it "
    "misses or contradicts the reference, or says it does not know when the reference gives an answer. If the "
    "reference says the question cannot be answered, an answer that says so is correct.\n\n"
    "Question: {question}\nReference answer: {reference}\nAnswer: {answer}\n\n"
    "Reply with CORRECT or INCORRECT on the first line, then one short sentence saying why."
)

_VERDICT = re.compile(r"^\W*(incorrect|correct|wrong|right|yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ReadAnswer:
    """A model's answer to one probe's question, read from π(ω_t).

    Attributes
    ----------
    t : int
        The state whose model input x_t = π(ω_t) was read.
    question, reference : str
        The probe's question and reference answer (``probe.reference_answer``).
    answer : str
        The model's answer.
    retained : bool
        Whether the probe's key string occurs in x_t (key-string retention),
        for comparison with the model's reading.
    model : str
        The model that read.
    """

    t: int
    question: str
    reference: str
    answer: str
    retained: bool
    model: str

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain dict (a row of a table)."""
        return asdict(self)


@dataclass(frozen=True)
class Judgement:
    """A judge model's verdict on one answer: correct or not, and why.

    Attributes
    ----------
    t : int or None
        The probe's state t, when the answer came from :func:`read_answers`.
    question, reference, answer : str
        What was judged.
    correct : bool
        The verdict.
    reason : str
        The judge's reason (the rest of its reply).
    model : str
        The judge model.
    """

    t: int | None
    question: str
    reference: str
    answer: str
    correct: bool
    reason: str
    model: str

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain dict (a row of a table)."""
        return asdict(self)


def _client(client: Any, what: str) -> None:
    if client is None:  # the rule of an optional model call: nothing is sent without a client
        raise InvalidArgumentError(
            f"{what} needs a client: pass an OpenAI-compatible client object, e.g. openai.OpenAI(); "
            f"nothing is sent without one"
        )
    _check_chat(client)


def _model(model: Any, where: str) -> str:
    return guards.text(model, "model (the name of a chat model)", where=where, example="gpt-4o-mini")


def read_answers(
    trace: Any,
    probes: Iterable[Any],
    client: Any,
    *,
    model: str,
    prompt: str = READ_PROMPT,
    **options: Any,
) -> list[ReadAnswer]:
    """Ask a chat model each probe's question about the recorded model input x_t = π(ω_t); one record per probe.

    Parameters
    ----------
    trace : Trace
        A recorded run (:func:`stmviz.run`) of the scenario the probes belong to.
    probes : iterable of Probe
        The probes (``scenario.probes``); each is read from ``trace.project(probe.t)``.
    client : object
        An OpenAI-compatible client. Required: nothing is sent without one.
    model : str
        The chat model that reads.
    prompt : str
        The reader's prompt, with ``{memory}`` (the text of x_t) and ``{question}``.
    **options
        Passed to ``client.chat.completions.create`` (e.g. ``temperature=0``).

    Returns
    -------
    list of ReadAnswer

    Raises
    ------
    InvalidArgumentError
        for a missing or non-chat client, a missing model, an object that is not
        a probe, or a probe whose t lies beyond the trace.
    STMError
        when the client's reply has no text.
    """
    _client(client, "read_answers")
    model = _model(model, "read_answers")
    prompt = guards.prompt(prompt, "read_answers: prompt", {"memory": "", "question": ""})
    guards.instance(trace, "trace", Trace, where="read_answers", what="a Trace, a recorded run (stmviz.run(...))")
    given = guards.items(probes, "probes", where="read_answers", what="probes (scenario.probes)")
    for k, probe in enumerate(given):
        guards.probe(probe, f"probes[{k}]", trace, where="read_answers", texts=("question",),
                     needs=("reference_answer", "retained_in"))
    records = []
    for probe in given:
        memory = trace.project(probe.t).text()
        answer = _ask(client, model, prompt.format(memory=memory, question=probe.question), options)
        records.append(ReadAnswer(probe.t, probe.question, probe.reference_answer, answer, probe.retained_in(memory), model))
    return records


def judge_answers(
    answers: Iterable[Any],
    client: Any,
    *,
    model: str,
    prompt: str = JUDGE_PROMPT,
    **options: Any,
) -> list[Judgement]:
    """Ask a chat model whether each answer states its reference answer; one verdict with its reason per answer.

    Parameters
    ----------
    answers : iterable
        :class:`ReadAnswer` records (from :func:`read_answers`), or mappings with
        ``question``, ``reference`` and ``answer`` (and optionally ``t``).
    client : object
        An OpenAI-compatible client. Required: nothing is sent without one.
    model : str
        The judge model.
    prompt : str
        The judge's prompt, with ``{question}``, ``{reference}`` and ``{answer}``;
        the reply's first word must be CORRECT or INCORRECT (yes/no, right/wrong
        are read too).
    **options
        Passed to ``client.chat.completions.create``.

    Returns
    -------
    list of Judgement

    Raises
    ------
    InvalidArgumentError
        for a missing or non-chat client, a missing model, or an answer record
        without its question, reference or answer.
    STMError
        when the judge's reply has no text or does not start with a verdict.
    """
    _client(client, "judge_answers")
    model = _model(model, "judge_answers")
    prompt = guards.prompt(prompt, "judge_answers: prompt", {"question": "", "reference": "", "answer": ""})
    verdicts = []
    for k, item in enumerate(guards.items(answers, "answers", where="judge_answers", what="ReadAnswer records or dicts")):
        question, reference, answer, t = _fields(item, k)
        reply = _ask(client, model, prompt.format(question=question, reference=reference, answer=answer), options)
        match = _VERDICT.match(reply)
        if match is None:
            raise STMError(
                f"the judge {model!r} replied {shorten(repr(reply), 80)} to answers[{k}]; its reply must start with "
                f"CORRECT or INCORRECT (check the prompt, or use a model that follows it)"
            )
        correct = match.group(1).lower() in ("correct", "right", "yes")
        reason = reply[match.end():].lstrip(" \t\n.,:;-—*").strip() or reply
        verdicts.append(Judgement(t, question, reference, answer, correct, reason, model))
    return verdicts


def _fields(item: Any, k: int) -> tuple[str, str, str, int | None]:
    """question, reference, answer and t of one answer record."""
    if isinstance(item, Mapping):
        values = {name: item.get(name) for name in ("question", "reference", "answer", "t")}
    else:
        values = {name: getattr(item, name, None) for name in ("question", "reference", "answer", "t")}
    texts = [
        guards.instance(values[name], f"answers[{k}].{name}", str, where="judge_answers",
                        what="text (a ReadAnswer, or a dict with question, reference and answer)")
        for name in ("question", "reference", "answer")
    ]
    t = guards.whole_number(values["t"], f"answers[{k}].t", where="judge_answers", none_ok=True, fix="; or leave it out")
    return texts[0], texts[1], texts[2], t
