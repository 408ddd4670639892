"""Notebook 10's exercises: each wrong answer a student writes fails exactly its faults, each hint names its fault."""

from __future__ import annotations

import pytest
from wrong_answers import assert_fails, solved

from stmviz import metrics
from stmviz.exercises import (
    check_capacity_prediction,
    check_evidence_recall,
    check_word_overlap,
)


def _evidence(trace, probe):
    return "\n".join(trace[s].context.step.text for s in probe.evidence_steps)


def _share(found, wanted):
    return len(found & wanted) / len(wanted) if wanted else None


C = metrics.content_tokens


def raw_words(trace, probe):  # split() instead of content words
    return _share(set(trace.project(probe.t).text().split()), set(_evidence(trace, probe).split()))


def from_state(trace, probe):  # the state's elements instead of the model input π(ω_t)
    return _share(C(" ".join(e.text for e in trace.state_at(probe.t))), C(_evidence(trace, probe)))


def last_input(trace, probe):  # the last model input instead of the one at the probe's step
    return _share(C(trace.project(len(trace)).text()), C(_evidence(trace, probe)))


def a_count(trace, probe):  # a count, not a share
    wanted = C(_evidence(trace, probe))
    return len(wanted & C(trace.project(probe.t).text())) if wanted else None


def over_the_input(trace, probe):  # divided by the input's words instead of the evidence's
    return _share(C(_evidence(trace, probe)), C(trace.project(probe.t).text()))


def zero_without_evidence(trace, probe):  # 0 where the share is undefined
    wanted = C(_evidence(trace, probe))
    return len(wanted & C(trace.project(probe.t).text())) / len(wanted) if wanted else 0.0


OVERLAP_CATALOGUE = [
    (raw_words, {"content words": "not raw words"}),
    (from_state, {"the model input": "not from the state's elements"}),
    (last_input, {"at the probe's step": "not the last one"}),
    (a_count, {"a share": "not a count"}),
    (over_the_input, {"over the evidence": "not by the input's words"}),
    (zero_without_evidence, {"None without evidence": "return None, not 0"}),
    (metrics.evidence_recall, {"a bag of words": "4-gram measure"}),  # the case: "27 of 28 differ"
]


@pytest.mark.parametrize("wrong, faults", OVERLAP_CATALOGUE, ids=[w.__name__ for w, _ in OVERLAP_CATALOGUE])
def test_word_overlap_catalogue(wrong, faults):
    waiting = () if "None without evidence" in faults else ("every probe", "None without evidence")
    assert_fails(check_word_overlap(wrong), faults, waiting)


def test_two_slips_at_once_fail_the_definition_with_its_hint():
    def raw_and_last(trace, probe):
        return _share(set(trace.project(len(trace)).text().split()), set(_evidence(trace, probe).split()))

    assert_fails(check_word_overlap(raw_and_last), {"every probe": "|C(T(S_p)) ∩ C(X_t)|"}, ("None without evidence",))


def test_the_reference_and_the_library_meet_every_criterion():
    assert check_word_overlap(solved("10-word-overlap", "my_word_overlap")).ok
    assert check_word_overlap(metrics.evidence_word_overlap).ok


def test_the_old_checker_name_warns_and_checks_the_same():
    with pytest.warns(DeprecationWarning, match="check_word_overlap"):
        report = check_evidence_recall(metrics.evidence_word_overlap)
    assert report.ok


PREDICTION_CATALOGUE = [
    ({"FIFOWindow": "rises", "SCM": "rises"}, {"SCM": "whatever the room"}),
    ({"FIFOWindow": "stays", "SCM": "stays"}, {"FIFO": "reaches further back"}),
    ({"FIFOWindow": "falls", "SCM": "rises"}, {"FIFO": "reaches further back", "SCM": "whatever the room"}),
    ({"FIFOWindow": "up", "SCM": "same"}, {"a dict": "each one of"}),
    ("rises", {"a dict": "each one of"}),
]


@pytest.mark.parametrize("wrong, faults", PREDICTION_CATALOGUE, ids=[str(w) for w, _ in PREDICTION_CATALOGUE])
def test_capacity_prediction_catalogue(wrong, faults):
    assert_fails(check_capacity_prediction(wrong), faults, ("FIFO", "SCM") if "a dict" in faults else ())


def test_the_prediction_reference_passes():
    assert check_capacity_prediction(solved("10-predict-capacity", "prediction")).ok
    assert not check_capacity_prediction(None).done
