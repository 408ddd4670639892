"""Notebook 11's exercises: each wrong answer a student writes fails exactly its faults, each hint names its fault."""

from __future__ import annotations

import pytest
from wrong_answers import assert_fails, solved

from stmviz.exercises import check_clear_prediction, check_clear_tool_results

# -- π of tool-result clearing ----------------------------------------------------------------------------

def _cleared(messages, keep):
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    return set(results[: max(len(results) - keep, 0)])


def in_place(messages, keep, placeholder):  # edits ω itself: U's work, not π's
    for k in _cleared(messages, keep):
        messages[k]["content"] = placeholder
    return messages


def off_by_one(messages, keep, placeholder):  # keeps one result too many
    cleared = _cleared(messages, keep + 1)
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]


def drops_cleared(messages, keep, placeholder):  # removes the old results instead of showing a placeholder
    cleared = _cleared(messages, keep)
    return [dict(m) for k, m in enumerate(messages) if k not in cleared]


def clears_the_newest(messages, keep, placeholder):  # counts from the start: clears the newest, keeps the oldest
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    cleared = set(results[keep:])
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]


def clears_the_calls_too(messages, keep, placeholder):  # also blanks the assistant's calls of cleared results
    cleared = _cleared(messages, keep)
    calls = {messages[k]["call"] for k in cleared}
    return [{**m, "content": placeholder} if k in cleared or (m["role"] == "assistant" and m["call"] in calls)
            else dict(m) for k, m in enumerate(messages)]


def keep_zero_keeps_all(messages, keep, placeholder):  # `keep or len(results)`: keep = 0 taken as "no limit"
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    cleared = set(results[: max(len(results) - (keep or len(results)), 0)])
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]


CLEAR_CATALOGUE = [
    (in_place, {"ω untouched": "U's work"}),
    (off_by_one, {"older cleared": "all but the `keep` newest"}),
    (drops_cleared, {"nothing else changes": "no message is dropped"}),
    (clears_the_calls_too, {"nothing else changes": "replace only the content of role 'tool'"}),
    (keep_zero_keeps_all, {"edge cases": "with keep = 0 nothing is kept"}),
]


@pytest.mark.parametrize("wrong, faults", CLEAR_CATALOGUE, ids=[w.__name__ for w, _ in CLEAR_CATALOGUE])
def test_clear_tool_results_catalogue(wrong, faults):
    waiting = ("edge cases",) if {"recent kept", "older cleared"} & set(faults) else ()
    assert_fails(check_clear_tool_results(wrong), faults, waiting)


def test_clearing_the_newest_fails_both_halves_of_the_rule():
    report = check_clear_tool_results(clears_the_newest)
    assert report.failed("recent kept") and report.failed("older cleared") and not report.failed("ω untouched")
    assert not report.ok


# -- the prediction ---------------------------------------------------------------------------------------

PREDICTION_CATALOGUE = [
    ((False, False), {"in ω": "π-manager"}),
    ((True, True), {"in π": "older than three"}),
    ((False, True), {"in ω": "π-manager", "in π": "older than three"}),
    (("yes", "no"), {"a pair": "True or False"}),
    ((True,), {"a pair": "True or False"}),
]


@pytest.mark.parametrize("wrong, faults", PREDICTION_CATALOGUE, ids=[str(w) for w, _ in PREDICTION_CATALOGUE])
def test_clear_prediction_catalogue(wrong, faults):
    assert_fails(check_clear_prediction(wrong), faults, ("in ω", "in π") if "a pair" in faults else ())


def test_the_references_pass():
    assert check_clear_prediction(solved("11-predict-clearing", "prediction")).ok
    assert check_clear_tool_results(solved("11-clear-results", "project")).ok
    assert not check_clear_prediction(None).done


def test_checking_a_prediction_shows_no_transcript_warning(recwarn):
    """The checker reads notebook 11's Claude Code session, whose sidechain is left out: the student's cell shows the
    checker's report, not a TranscriptWarning (the notebook prints the session's report where it loads it)."""
    import warnings

    from stmviz.scenarios import TranscriptWarning

    warnings.simplefilter("always", TranscriptWarning)
    check_clear_prediction((True, False))
    assert not [w for w in recwarn.list if issubclass(w.category, TranscriptWarning)]
