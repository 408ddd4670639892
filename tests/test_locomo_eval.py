"""LoCoMo's protocol on a run: categories, whole-turn evidence recall, LoCoMo's F1, and a reader and judge (fake clients)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from stmviz import FIFOWindow, StateSpace, run
from stmviz import locomo_eval
from stmviz.core.errors import InvalidArgumentError
from stmviz.locomo_eval import CATEGORIES, by_category, locomo_f1, locomo_records
from stmviz.scenarios import load_locomo

SMALL = Path(__file__).parent / "scenarios" / "fixtures" / "locomo_small.json"


def client(answer):
    """An OpenAI-compatible client whose reply is ``answer(prompt)``; it records every prompt it was sent."""
    sent = []

    def create(model, messages, **options):
        prompt = messages[-1]["content"]
        sent.append((model, prompt, options))
        message = SimpleNamespace(content=answer(prompt))
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    return SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)), sent=sent)


def scenario_and_trace(v_max):
    scenario = load_locomo(SMALL, sample="conv-a")[0]
    return scenario, run(FIFOWindow(StateSpace("tokens", v_max)), scenario)


def test_categories_are_locomos_numbering():
    assert dict(CATEGORIES) == {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
    scenario, trace = scenario_and_trace(10_000)
    records = locomo_records(trace, scenario)
    assert [r["category_id"] for r in records] == list(scenario.meta["categories"])
    assert [r["category"] for r in records] == [CATEGORIES[c] for c in scenario.meta["categories"]]
    assert all(r["whole_turns"] == 1.0 and r["evidence_recall"] == 1.0 for r in records)  # everything fits


def test_whole_turns_is_locomos_recall_of_evidence_turns():
    scenario, trace = scenario_and_trace(200)  # a small window: the early turns are gone at question time
    records = locomo_records(trace, scenario)
    for probe, record in zip(scenario.probes, records):
        text = trace.project(probe.t).text()
        present = [all(part in " ".join(text.split()) for part in [" ".join(scenario.steps[s].observation.split())])
                   for s in probe.evidence_steps]
        assert record["whole_turns"] == sum(present) / len(present)  # the share of evidence turns in the input
    assert any(r["whole_turns"] < 1 for r in records)


def test_locomo_f1_follows_locomos_evaluation():
    assert locomo_f1("She was running", "ran", 4) == 0.0  # Porter stems: running → run, ran stays ran
    assert locomo_f1("runs", "running", 2) == 1.0
    assert locomo_f1("The Grand Canyon, and the lake", "grand canyon lake", 4) == 1.0  # commas, articles, "and"
    assert locomo_f1("Paris, Rome", "Rome, Paris, Oslo", 1) == pytest.approx(2 / 3)  # mean over reference items
    assert locomo_f1("Paris, Rome", "Rome, Paris, Oslo", 4) == pytest.approx(2 * (2 / 2) * (2 / 3) / (1 + 2 / 3))
    assert locomo_f1("likely yes", "Likely yes; she loves books", 3) == 1.0  # the part before ";"
    assert locomo_f1("No information available.", "anything", 5) == 1.0
    assert locomo_f1("Lisbon", "anything", 5) == 0.0
    assert locomo_f1("", "Lisbon") == 0.0
    with pytest.raises(InvalidArgumentError, match="category"):
        locomo_f1("a", "b", "temporal")
    with pytest.raises(InvalidArgumentError, match="prediction must be text"):
        locomo_f1(None, "b")


def test_reader_and_judge_give_f1_and_a_judge_score():
    scenario, trace = scenario_and_trace(200)  # three of the six references are still in the window

    def read(prompt):  # answers with the reference when the model input holds it, as a faithful reader would
        probe = next(p for p in scenario.probes if f"Question: {p.question}" in prompt)
        return probe.reference if probe.reference.lower() in prompt.lower() else "No information available."

    reader = client(read)
    judge = client(lambda prompt: "CORRECT\nsame" if "Answer: No information" not in prompt else "INCORRECT\nmissing")
    records = locomo_records(trace, scenario, reader=reader, model="reader-m", judge=judge, judge_model="judge-m",
                             temperature=0)
    assert len(reader.sent) == len(judge.sent) == len(scenario.probes)
    assert {m for m, _, _ in reader.sent} == {"reader-m"} and {m for m, _, _ in judge.sent} == {"judge-m"}
    assert all(options == {"temperature": 0} for _, _, options in reader.sent)
    for probe, record in zip(scenario.probes, records):
        kept = probe.reference.lower() in trace.project(probe.t).text().lower()
        assert record["answer"] == (probe.reference if kept else "No information available.")
        assert record["f1"] == locomo_f1(record["answer"], probe.reference, record["category_id"])
        assert record["judge"] == (1.0 if kept else 0.0)
    assert {r["judge"] for r in records} == {0.0, 1.0}
    table = by_category(records)
    assert [row["category"] for row in table] == ["multi-hop", "temporal", "open-domain", "single-hop", "all"]
    assert table[-1]["questions"] == len(records)
    assert table[-1]["judge"] == pytest.approx(sum(r["judge"] for r in records) / len(records))
    multi = [r for r in records if r["category_id"] == 1]
    assert table[0]["f1"] == pytest.approx(sum(r["f1"] for r in multi) / len(multi))


def test_without_a_client_nothing_is_sent_and_the_table_has_no_f1():
    scenario, trace = scenario_and_trace(60)
    table = by_category(locomo_records(trace, scenario))
    assert set(table[-1]) == {"category", "questions", "whole_turns", "evidence_recall"}


def test_bad_arguments_are_refused():
    scenario, trace = scenario_and_trace(60)
    with pytest.raises(InvalidArgumentError, match="pass reader= and model="):
        locomo_records(trace, scenario, judge=client(str), judge_model="j")
    with pytest.raises(InvalidArgumentError, match="needs model="):
        locomo_records(trace, scenario, reader=client(str))
    with pytest.raises(InvalidArgumentError, match="needs judge_model="):
        locomo_records(trace, scenario, reader=client(lambda p: "x"), model="m", judge=client(str))
    other = SimpleNamespace(probes=scenario.probes, meta={})
    with pytest.raises(InvalidArgumentError, match="meta\\['categories'\\]"):
        locomo_records(trace, other)
    with pytest.raises(InvalidArgumentError, match="records\\[0\\] must be a dict"):
        by_category(["row"])


def test_a_missing_nltk_is_named_with_the_extra_that_installs_it(monkeypatch):
    monkeypatch.setattr(locomo_eval, "_STEMS", {})
    monkeypatch.setitem(sys.modules, "nltk.stem", None)
    with pytest.raises(ImportError, match=r"needs nltk.*stmviz\[locomo\]"):
        locomo_f1("Lisbon", "Lisbon")


def test_records_and_categories_of_the_wrong_kind_are_named():
    # list(3) raised a raw TypeError
    with pytest.raises(InvalidArgumentError, match=r"by_category: records must be a list \(or another iterable\)"):
        by_category(3)
    with pytest.raises(InvalidArgumentError, match="locomo_f1: category must be a whole number or None, got float 1.0"):
        locomo_f1("a", "a", 1.0)
