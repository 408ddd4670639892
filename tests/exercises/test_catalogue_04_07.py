"""Notebooks 04–07: for each exercise, a catalogue of wrong answers as students write them, each with its faults.

Each entry asserts that EXACTLY its faults fail (``report.failures``), that each failed
criterion's hint names that fault, that the criteria waiting for a failed one are not
judged, and that no wrong answer passes (issue 34: checkers by fault).
"""

from __future__ import annotations

import copy

import pytest

from stmviz import Element, State
from stmviz.exercises import check_joke_prediction, check_judge
from stmviz.text.scm_judges import content_words


def assert_catalogue(report, faults):
    """``faults`` maps each criterion that must fail to a phrase its hint must contain; nothing else fails."""
    assert report.done, str(report)
    assert not report.ok, f"a wrong answer passed:\n{report}"
    assert {c.name for c in report.failures} == set(faults), str(report)
    for c in report.failures:
        assert faults[c.name] in c.hint, f"the hint of ✗ {c.name} should name its fault ({faults[c.name]!r}):\n{report}"
    for c in report.not_judged:
        assert "not judged until" in c.detail and any(f"'{f}'" in c.detail for f in faults), str(report)


# -- 04 · predict: memory for a joke --------------------------------------------------------------------

RELEASED = "never asks whether memory is needed"
PAPER = "a joke needs nothing"
PAIR = "answer two counts in a tuple"


@pytest.mark.parametrize("answer, faults", [
    ((0, 0), {"released": RELEASED}),                  # believes SCM as released skips jokes too
    ((3, 3), {"paper": PAPER}),                        # believes the paper's controller always retrieves
    ((0, 3), {"released": RELEASED, "paper": PAPER}),  # the two swapped
    ((1, 0), {"released": RELEASED}),                  # one memory, the best match
    ("3, 0", {"a pair": PAIR}),                        # the right numbers as a string
    ((3.0, 0.0), {"a pair": PAIR}),                    # floats
    ((3,), {"a pair": PAIR}),                          # only the released count
    ((True, False), {"a pair": PAIR}),                 # yes/no instead of counts
])
def test_joke_prediction_catalogue(answer, faults):
    report = check_joke_prediction(answer)
    assert_catalogue(report, faults)
    if "a pair" in faults:
        assert {c.name for c in report.not_judged} == {"released", "paper"}


def test_joke_prediction_explains_the_difference():
    report = check_joke_prediction((0, 3))
    text = str(report)
    assert "you predicted 0 for the released SCM; the run activates 3" in text
    assert "you predicted 3 for the paper's controller; the run activates 0" in text


# -- 04 · SCM's judgement -------------------------------------------------------------------------------

def judge_always_full(memory, summary, message):
    return "full"


def judge_any_word(memory, summary, message):  # a summary keeping ONE shared word is taken as enough
    shared = content_words(message) & content_words(memory)
    if not shared:
        return "drop"
    return "summary" if shared & content_words(summary) else "full"


def judge_drop_by_summary(memory, summary, message):  # asks the summary, not the memory, whether to drop
    if not content_words(message) & content_words(summary):
        return "drop"
    shared = content_words(message) & content_words(memory)
    return "summary" if shared <= content_words(summary) else "full"


def judge_all_memory_words(memory, summary, message):  # the summary must keep every word of the memory
    shared = content_words(message) & content_words(memory)
    if not shared:
        return ("drop", "no shared word")
    return ("summary", "ok") if content_words(memory) <= content_words(summary) else ("full", "lost words")


def judge_yes_no(memory, summary, message):  # answers "is it relevant?" instead of a form
    return bool(content_words(message) & content_words(memory))


def judge_summary_first(memory, summary, message):  # tests the summary before the drop: ∅ ⊆ anything
    shared = content_words(message) & content_words(memory)
    if shared <= content_words(summary):
        return "summary"
    return "drop" if not shared else "full"


def judge_text_against_set(memory, summary, message):  # intersects a set with the message's raw text
    shared = content_words(memory) & message
    return "drop" if not shared else "full"


def judge_capitalised(memory, summary, message):  # the right rule, the wrong spelling
    shared = content_words(message) & content_words(memory)
    if not shared:
        return "Drop"
    return "Summary" if shared <= content_words(summary) else "Full"


VERDICT = "one of the three strings"


@pytest.mark.parametrize("answer, faults", [
    (judge_always_full, {"drop": "none → 'drop'", "summary": "all in the summary → 'summary'",
                         "only shared words": "compare only the words the memory shares"}),
    (judge_any_word, {"full": "a shared word missing from the summary"}),
    (judge_drop_by_summary, {"drop": "the *full* memory shares"}),
    (judge_all_memory_words, {"only shared words": "compare only the words the memory shares"}),
    (judge_yes_no, {"a verdict": VERDICT}),
    (judge_summary_first, {"drop": "none → 'drop'"}),
    (judge_text_against_set, {"a verdict": VERDICT}),
    (judge_capitalised, {"a verdict": VERDICT}),
])
def test_judge_catalogue(answer, faults):
    report = check_judge(answer)
    assert_catalogue(report, faults)
    if "a verdict" in faults:
        assert {c.name for c in report.not_judged} == {"drop", "summary", "full", "only shared words"}
