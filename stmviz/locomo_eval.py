"""LoCoMo's question-answering protocol on a run: per-category results, evidence recall, and an optional reader and judge.

LoCoMo (Maharana et al., 2024; snap-research/locomo) asks questions about a
long conversation and scores them in ``task_eval/evaluation.py``. This module
applies that protocol to what a memory mechanism kept: each question is
answered from the model input x_t = π(ω_t) the mechanism built (the probe's
``trace.project(t)``).

Categories
----------
The file's ``category`` numbers are not in the order the paper lists the
kinds of question. Read from the evaluation code (category 1's answers are
lists scored one item at a time, category 3's reference is cut at its first
";", category 5 is scored by an abstention phrase) and the questions
themselves, they are :data:`CATEGORIES`: 1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial (no answer; the loader skips
those without one).

Measures, per question p of category c
--------------------------------------
- ``whole_turns`` — LoCoMo's own evidence recall (``recall_acc``: the share
  of the question's evidence dia_ids in the retrieved context), with "the
  context" the model input: the share of the evidence turns present whole in
  x_t (:func:`stmviz.metrics.whole_turns`; with the loader's default each
  turn is a step of its own);
- ``evidence_recall`` — stmviz's evidence n-gram recall (raw or summarized);
- with a **reader** (any OpenAI-compatible client), the model's answer from
  x_t (:func:`stmviz.text.judge.read_answers`) and its ``f1``, LoCoMo's own
  answer F1 (:func:`locomo_f1`);
- with a **judge** as well, ``judge`` = 1.0 when the judge model finds the
  answer states the reference (:func:`stmviz.text.judge.judge_answers`), the
  LLM-as-judge score later work reports on LoCoMo.

:func:`locomo_records` gives one record per question; :func:`by_category`
the means per category and over all, as LoCoMo's ``evaluation_stats.py``
reports them. Nothing is sent to a model unless you pass a client.

>>> from stmviz.scenarios import from_locomo
>>> from stmviz import FIFOWindow, StateSpace, run
>>> sample = {"sample_id": "tiny", "conversation": {"speaker_a": "Ana", "speaker_b": "Ben",
...     "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat called Miso last week."},
...                   {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! Send me a photo."}]},
...     "qa": [{"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4}]}
>>> [scenario] = from_locomo([sample])
>>> records = locomo_records(run(FIFOWindow(StateSpace("tokens", 100)), scenario), scenario)
>>> [(r["category"], r["whole_turns"], r["evidence_recall"]) for r in records]
[('single-hop', 1.0, 1.0)]
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ._optional import require
from .core import guards
from .core.errors import InvalidArgumentError
from .core.trace import Trace, require_trace
from .metrics import probe_metrics

__all__ = ["CATEGORIES", "locomo_normalize", "locomo_f1", "locomo_records", "by_category"]

#: LoCoMo's ``category`` numbers, as its evaluation code and data use them.
CATEGORIES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

_PUNCTUATION = frozenset(string.punctuation)
_ABSTAIN = ("no information available", "not mentioned")
_STEMS: dict[str, str] = {}  # word → Porter stem, for every word seen


def locomo_normalize(text: str) -> str:
    """LoCoMo's answer normalization: no commas, lower case, no ASCII punctuation, no *a, an, the, and*, single spaces.

    >>> locomo_normalize("The Grand Canyon, and a lake!")
    'grand canyon lake'
    """
    text = guards.text(text, "text", where="locomo_normalize", blank_ok=True)
    text = "".join(ch for ch in text.replace(",", "").lower() if ch not in _PUNCTUATION)
    return " ".join(w for w in text.split() if w not in ("a", "an", "the", "and"))


def _stems(text: str) -> list[str]:
    """The Porter stems of the normalized words (NLTK's stemmer, imported on first use)."""
    words = locomo_normalize(text).split()
    unknown = [w for w in words if w not in _STEMS]
    if unknown:
        stem = require("nltk.stem", package="nltk", extra="locomo", why="LoCoMo's F1 (Porter stems, as its evaluation)")
        stemmer = stem.PorterStemmer()
        _STEMS.update((w, stemmer.stem(w)) for w in unknown)
    return [_STEMS[w] for w in words]


def _f1(prediction: str, reference: str) -> float:
    predicted, wanted = _stems(prediction), _stems(reference)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def locomo_f1(prediction: str, reference: str, category: int | None = None) -> float:
    """LoCoMo's answer F1 of a prediction against the reference, by the question's category.

    Token F1 over Porter stems of :func:`locomo_normalize`'s words (NLTK's
    stemmer, as LoCoMo's ``f1_score``). Category 1 (multi-hop): prediction
    and reference are split at commas, and the score is the mean over the
    reference's items of the best F1 of any predicted item. Category 3
    (open-domain): the reference is cut at its first ";". Category 5
    (adversarial): 1.0 when the prediction says "no information available"
    or "not mentioned", else 0.0. Other categories, and ``None``: plain F1.

    >>> round(locomo_f1("They went to the Grand Canyon", "Grand Canyon", 4), 3)  # P = 2/5, R = 1
    0.571
    >>> locomo_f1("Paris, Rome", "Rome, Paris, Oslo", 1)
    0.6666666666666666
    """
    prediction = guards.instance(prediction, "prediction", str, where="locomo_f1", what="text (a str)")
    reference = guards.instance(reference, "reference", str, where="locomo_f1", what="text (a str)")
    category = guards.whole_number(category, "category", where="locomo_f1", none_ok=True,
                                   fix="; LoCoMo's categories are 1 … 5 (see CATEGORIES), or None")
    if category == 5:
        return float(any(phrase in prediction.lower() for phrase in _ABSTAIN))
    if category == 3:
        reference = reference.split(";")[0].strip()
    if category == 1:
        predictions = [p.strip() for p in prediction.split(",")]
        references = [r.strip() for r in reference.split(",")]
        return sum(max(_f1(p, r) for p in predictions) for r in references) / len(references)
    return _f1(prediction, reference)


def _categories(scenario: Any, probes: tuple[Any, ...]) -> list[int | None]:
    meta = guards.instance(getattr(scenario, "meta", None) or {}, "scenario.meta", Mapping, where="locomo_records")
    found = guards.items(meta.get("categories", ()) or (), "scenario.meta['categories']", where="locomo_records",
                         what="LoCoMo categories, one per probe")
    if len(found) != len(probes):  # load_locomo's rule: one category per probe
        raise InvalidArgumentError(
            f"locomo_records: the scenario's meta['categories'] holds {len(found)} value(s) for {len(probes)} probe(s); "
            f"pass a scenario loaded by stmviz.scenarios.load_locomo"
        )
    return [guards.whole_number(c, f"scenario.meta['categories'][{k}]", 1, where="locomo_records", none_ok=True,
                                fix="; LoCoMo's categories are 1 … 5 (pass a scenario of load_locomo)")
            for k, c in enumerate(found)]


def locomo_records(
    trace: Trace,
    scenario: Any,
    *,
    reader: Any = None,
    model: str | None = None,
    judge: Any = None,
    judge_model: str | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """One record per question of a LoCoMo scenario, measured on the run ``trace`` of a mechanism on it.

    Parameters
    ----------
    trace : Trace
        ``run(mechanism, scenario)``.
    scenario : Scenario
        A scenario of :func:`stmviz.scenarios.load_locomo` (its ``meta["categories"]``
        gives each probe's category).
    reader, model : optional
        An OpenAI-compatible client and its chat model: each question is then
        answered from x_t and scored with :func:`locomo_f1`.
    judge, judge_model : optional
        A client (may be the reader's) and model that grade each answer
        against the reference; needs a reader.
    **options
        Passed to both models' ``chat.completions.create`` (e.g. ``temperature=0``).

    Returns
    -------
    list of dict
        Keys: ``t``, ``question``, ``reference``, ``category`` (its name),
        ``category_id``, ``whole_turns``, ``evidence_recall``, ``cost``; with a
        reader, ``answer`` and ``f1``; with a judge, ``judge`` (1.0 or 0.0)
        and ``judge_reason``.
    """
    trace = require_trace(trace, "locomo_records")
    probes = tuple(getattr(scenario, "probes", ()) or ())
    categories = _categories(scenario, probes)
    if judge is not None and reader is None:  # the judge grades the reader's answers: no reader, nothing to grade
        raise InvalidArgumentError("locomo_records: a judge grades the reader's answers; pass reader= and model= too")
    rows = probe_metrics(trace, probes)
    records = []
    for probe, category, row in zip(probes, categories, rows):
        records.append({
            "t": probe.t, "question": probe.question, "reference": probe.reference_answer,
            "category": CATEGORIES.get(category, str(category)) if category is not None else None,
            "category_id": category, "whole_turns": row["whole_turns"], "evidence_recall": row["evidence_recall"],
            "cost": row["cost"],
        })
    if reader is None:
        return records
    from .text.judge import judge_answers, read_answers

    if model is None:  # a reader answers with a model (its name is checked by read_answers)
        raise InvalidArgumentError("locomo_records: reader= needs model=, the chat model that answers (e.g. 'gpt-4o-mini')")
    answers = read_answers(trace, probes, reader, model=model, **options)
    for record, answer in zip(records, answers):
        record["answer"] = answer.answer
        record["f1"] = locomo_f1(answer.answer, record["reference"], record["category_id"])
    if judge is not None:
        if judge_model is None:  # the same rule for the judge
            raise InvalidArgumentError("locomo_records: judge= needs judge_model=, the chat model that grades")
        for record, verdict in zip(records, judge_answers(answers, judge, model=judge_model, **options)):
            record["judge"] = float(verdict.correct)
            record["judge_reason"] = verdict.reason
    return records


#: The measures :func:`by_category` averages (those a record holds).
MEASURES = ("whole_turns", "evidence_recall", "f1", "judge")


def by_category(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The mean of each measure per category (in LoCoMo's order 1 … 5), then over all questions.

    One row per category present: ``category``, ``questions`` and the mean of
    every measure of :data:`MEASURES` the records hold (``None`` where no
    record has a value); the last row is ``category = "all"``.

    >>> by_category([{"category": "temporal", "category_id": 2, "whole_turns": 1.0},
    ...              {"category": "temporal", "category_id": 2, "whole_turns": 0.0}])
    [{'category': 'temporal', 'questions': 2, 'whole_turns': 0.5}, {'category': 'all', 'questions': 2, 'whole_turns': 0.5}]
    """
    given = guards.items(records, "records", where="by_category", what="records of locomo_records (dicts)")
    rows: list[Mapping[str, Any]] = []
    for k, row in enumerate(given):
        guards.instance(row, f"records[{k}]", Mapping, where="by_category", what="a dict (a record of locomo_records)")
        try:  # read once, as plain pairs: a Mapping whose methods raise is no record
            row = dict(row.items())
        except Exception as exc:  # noqa: BLE001 - any failure to read it: the record cannot be averaged
            raise InvalidArgumentError(
                f"by_category: records[{k}] cannot be read ({type(exc).__name__}); pass the dicts of locomo_records"
            ) from None
        rows.append(row)
        # one kind of category id (mixed 1 and "1" would be two categories, or not sort at all), numbers to average
        guards.whole_number(row.get("category_id"), f"records[{k}]['category_id']", 1, where="by_category",
                            none_ok=True, fix="; LoCoMo's categories are 1 … 5 (records of locomo_records)")
        guards.text(row.get("category"), f"records[{k}]['category']", where="by_category", none_ok=True,
                    example="temporal")
        for measure in MEASURES:
            if row.get(measure) is not None:
                guards.real_number(row[measure], f"records[{k}][{measure!r}]", where="by_category")
    present = [m for m in MEASURES if any(m in row for row in rows)]
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r.get("category_id") is None, r.get("category_id") or 0)):
        groups.setdefault(row.get("category"), []).append(row)

    def summary(name: Any, group: list[Mapping[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"category": name, "questions": len(group)}
        for measure in present:
            values = [r[measure] for r in group if r.get(measure) is not None]
            out[measure] = sum(values) / len(values) if values else None
        return out

    return [summary(name, group) for name, group in groups.items()] + [summary("all", rows)]
