"""Notebook 03's exercises: the reference passes; each wrong answer, written as a student would, fails exactly its faults."""

from __future__ import annotations

from pathlib import Path

import pytest
from wrong_answers import assert_exactly

from stmviz import FIFOWindow, StateSpace, run, sizes
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import check_eviction_prediction, check_fifo_push
from stmviz.exercises.fifo import (
    EVICTION_CRITERIA,
    EVICTION_STEPS,
    EVICTION_SYSTEM,
    EVICTION_V_MAX,
    PUSH_CRITERIA,
)

PARCEL, CHECK, SENT = "My parcel 1234 has not arrived yet.", "Let me check the tracking.", "It was sent on Monday."


def solved(key, name):
    namespace: dict = {}
    exec(SOLUTIONS[key], namespace)
    return namespace[name]


# -- 03-which-leave ---------------------------------------------------------------------------------------------

def test_the_prediction_is_what_the_window_evicts():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=EVICTION_V_MAX), system=EVICTION_SYSTEM), EVICTION_STEPS)
    assert {e.text for e in trace[2].removed} == {PARCEL, CHECK}
    assert check_eviction_prediction({PARCEL, CHECK}).ok and check_eviction_prediction(solved("03-which-leave", "leaves")).ok


def test_the_notebook_runs_the_window_the_prediction_is_checked_on():
    source = (Path(__file__).resolve().parents[2] / "notebooks" / "03_fifo_context_window.md").read_text(encoding="utf-8")
    assert all(f'"{text}"' in source for text in (PARCEL, CHECK, SENT, EVICTION_SYSTEM))
    assert f"StateSpace(sizes.words, v_max={EVICTION_V_MAX})" in source


PREDICTIONS = [
    ("only the oldest, one is enough", {PARCEL}, {"as many as needed": "stop as soon as"}),
    ("the system prompt is the oldest", {EVICTION_SYSTEM, PARCEL}, {"the pinned stays": "never leaves"}),
    ("the user's messages matter more than the replies", {CHECK}, {"oldest first": "oldest unpinned",
                                                                  "as many as needed": "stop as soon as"}),
    ("the newest old message goes", {SENT, CHECK}, {"oldest first": "oldest unpinned"}),
    ("everything but the system prompt", {PARCEL, CHECK, SENT}, {"as many as needed": "stop as soon as"}),
    ("the long reply itself does not get in", {"Your parcel is in Riga and will arrive on Friday."},
     {"messages of the window": "message texts"}),
    ("a list of numbers", [1, 2], {"messages of the window": "message texts"}),
]


@pytest.mark.parametrize("thought, answer, faults", PREDICTIONS, ids=[p[0] for p in PREDICTIONS])
def test_a_wrong_prediction_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_eviction_prediction(answer), faults, EVICTION_CRITERIA)


def test_the_untouched_prediction_is_not_done():
    report = check_eviction_prediction(None)
    assert not report.done and "hint:" not in str(report)


# -- 03-fifo-push -------------------------------------------------------------------------------------------------

def push_appends_in_place(window, new, mu, v_max):  # the example: changes the caller's list
    window.append(new)
    while sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_in_place_no_return(window, new, mu, v_max):
    window.append(new)
    while sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))


def push_newest_out(window, new, mu, v_max):
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.pop(-2)  # drops the newest old message
    return window


def push_clear(window, new, mu, v_max):
    if sum(mu(m) for m in window + [new]) > v_max:
        return [m for m in window if m.meta.get("pinned")] + [new]
    return window + [new]


def push_ignores_pins(window, new, mu, v_max):
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.pop(0)
    return window


def push_always_evicts(window, new, mu, v_max):
    window = [m for m in window if m.meta.get("pinned")] + [m for m in window if not m.meta.get("pinned")][1:]
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_once(window, new, mu, v_max):
    window = window + [new]
    if sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_prepends(window, new, mu, v_max):
    window = [new] + window
    while sum(mu(m) for m in window) > v_max:
        window.pop()
    return window


def push_at_capacity(window, new, mu, v_max):  # >= instead of >
    window = window + [new]
    while sum(mu(m) for m in window) >= v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_never_evicts(window, new, mu, v_max):
    return window + [new]


PUSH = [
    ("appends to the caller's list", push_appends_in_place, {"leaves its input unchanged": "U leaves its inputs unchanged"}),
    ("changes the list in place, returns nothing", push_in_place_no_return,
     {"leaves its input unchanged": "window + [new]", "returns the window": "return the new list"}),
    ("evicts the newest old message", push_newest_out, {"oldest first": "remove from the front"}),
    ("clears the window on overflow", push_clear, {"only as needed": "after each removal"}),
    ("pops the front, pinned or not", push_ignores_pins, {"pinned stay": "meta['pinned'] is True"}),
    ("always evicts one", push_always_evicts, {"no eviction while it fits": "only while Σμ > V_max"}),
    ("evicts once", push_once, {"fits V_max": "keep evicting until"}),
    ("prepends and pops the end", push_prepends, {"appends at the end": "window + [new]",
                                                  "oldest first": "remove from the front"}),
    (">= instead of >", push_at_capacity, {"no eviction while it fits": "Σμ = V_max fits"}),
    ("never evicts", push_never_evicts, {"fits V_max": "keep evicting until"}),
]


@pytest.mark.parametrize("thought, answer, faults", PUSH, ids=[p[0] for p in PUSH])
def test_a_wrong_push_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_fifo_push(answer), faults, PUSH_CRITERIA)


def test_the_reference_passes():
    assert check_fifo_push(solved("03-fifo-push", "push")).ok
