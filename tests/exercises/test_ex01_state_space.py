"""Notebook 01's exercises: the reference passes; each wrong answer, written as a student would, fails exactly its faults."""

from __future__ import annotations

import pytest
from wrong_answers import assert_exactly

from stmviz import State, StateSpace, sizes
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import check_membership, check_which_fit
from stmviz.exercises.state_space import (
    MEMBERSHIP_CRITERIA,
    PREDICTION_CRITERIA,
    WHICH_FIT_V_MAX,
    fit_candidates,
)


def solved(key, name):
    namespace: dict = {}
    exec(SOLUTIONS[key], namespace)
    return namespace[name]


# -- 01-which-fit: the prediction ---------------------------------------------------------------------------

def test_the_prediction_checker_agrees_with_a_state_space():
    space = StateSpace(sizes.tokens(), v_max=WHICH_FIT_V_MAX)
    truth = {name for name, elements in fit_candidates().items() if State(elements) in space}
    assert truth == {"B", "C", "E"}
    assert check_which_fit(truth).ok and check_which_fit(solved("01-which-fit", "fits")).ok


PREDICTIONS = [  # (what the student thought, the answer, the faults: criterion → a phrase of its hint)
    ("every element fits alone, so every set of them does", {"A", "B", "C", "E", "F"},
     {"sizes add up": "each may fit alone"}),
    ("a list with weather twice is twice its size", {"B", "E"}, {"a set counts each element once": "ω is a set"}),
    ("an empty state is no state", {"B", "C"}, {"the empty state": "Σμ over no elements is 0"}),
    ("an image is one short reference", {"B", "C", "D", "E"}, {"an image's size": "170 per 512-pixel tile"}),
    ("only single elements fit, and no image", {"C", "E"}, {"sizes add up": "add up μ(e)"}),
    ("two faults at once: duplicates and the image", {"B", "D", "E"},
     {"a set counts each element once": "ω is a set", "an image's size": "tile"}),
    ("one name, not a set", "B", {"names from the list": "a set of names"}),
    ("the sizes instead of names", {15, 14, 0}, {"names from the list": "a set of names"}),
    ("lower-case names", {"b", "c", "e"}, {"names from the list": "a set of names"}),
]


@pytest.mark.parametrize("thought, answer, faults", PREDICTIONS, ids=[p[0] for p in PREDICTIONS])
def test_a_wrong_prediction_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_which_fit(answer), faults, PREDICTION_CRITERIA)


def test_the_untouched_prediction_is_not_done():
    report = check_which_fit(None)
    assert not report.done and "hint:" not in str(report)


# -- 01-membership: in_omega by hand ------------------------------------------------------------------------

def strict(elements, mu, v_max):  # the example: < instead of ≤
    return sum(mu(e) for e in set(elements)) < v_max


def no_set(elements, mu, v_max):
    return sum(mu(e) for e in elements) <= v_max


def counts(elements, mu, v_max):
    return len(set(elements)) <= v_max


def always_yes(elements, mu, v_max):
    return True


def nonempty(elements, mu, v_max):
    return bool(elements) and sum(mu(e) for e in set(elements)) <= v_max


def largest_fits(elements, mu, v_max):  # each element fits alone
    return max(mu(e) for e in elements) <= v_max


def strict_no_set(elements, mu, v_max):  # two faults
    total = 0
    for e in elements:
        total += mu(e)
    return total < v_max


def counts_listed(elements, mu, v_max):
    return len(elements) <= v_max


MEMBERSHIP = [
    ("< instead of ≤", strict, {"boundary": "equality is allowed"}),
    ("duplicates counted twice", no_set, {"a set": "set(elements)"}),
    ("the number of elements as the size", counts, {"sizes, not counts": "the number of elements is not its size"}),
    ("always yes", always_yes, {"over capacity": "compare the total size"}),
    ("the empty set refused", nonempty, {"empty state": "a sum over no elements is 0"}),
    ("each element alone", largest_fits, {"empty state": "a sum over no elements is 0",
                                          "over capacity": "compare the total size"}),
    ("< and duplicates", strict_no_set, {"boundary": "equality is allowed", "a set": "set(elements)"}),
    ("counting the listed elements", counts_listed, {"sizes, not counts": "the number of elements is not its size"}),
]


@pytest.mark.parametrize("thought, answer, faults", MEMBERSHIP, ids=[m[0] for m in MEMBERSHIP])
def test_a_wrong_in_omega_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_membership(answer), faults, MEMBERSHIP_CRITERIA)


def test_the_strict_answer_gets_one_cross_and_no_hint_of_other_faults():
    """The issue's case: only the boundary is wrong, so only the boundary is named."""
    text = str(check_membership(strict))
    assert text.count("✗") == 1 and "add up μ(e)" not in text and "set(elements)" not in text


def test_the_reference_passes():
    assert check_membership(solved("01-membership", "in_omega")).ok
