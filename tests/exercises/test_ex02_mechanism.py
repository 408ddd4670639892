"""Notebook 02's exercises: the reference passes; each wrong answer, written as a student would, fails exactly its faults."""

from __future__ import annotations

import pytest
from wrong_answers import assert_exactly

from stmviz import Element, Mechanism, State, StateSpace, Transition, run, sizes
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import check_keep_first, check_window_prediction
from stmviz.exercises.mechanism import (
    KEEP_FIRST_CRITERIA,
    PREDICTION_CRITERIA,
    WINDOW_STEPS,
    WINDOW_V_MAX,
)


def solved(key, name):
    namespace: dict = {}
    exec(SOLUTIONS[key], namespace)
    return namespace[name]


class SlidingWindow(Mechanism):  # notebook 02's window, as the notebook defines it
    operations = {"append": "add the output and the input; on overflow drop the oldest"}

    def update(self, state, operation, context):
        halves = (context.step.output, context.step.observation)
        state = state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}
        reasons = {}
        for oldest in list(state):
            if state in self.space:
                break
            state = state - {oldest}
            reasons[oldest] = f"oldest (step {int(oldest.meta['t'])}); Σμ > V_max"
        return Transition(state, reasons)

    def project(self, state):
        return "\n".join(f"{k}. {e.text}" for k, e in enumerate(state, 1))


def add(state, context):
    halves = (context.step.output, context.step.observation)
    return state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}


# -- 02-predict-window ----------------------------------------------------------------------------------------

def test_the_prediction_checker_agrees_with_the_notebooks_run():
    trace = run(SlidingWindow(StateSpace(sizes.tokens(), v_max=WINDOW_V_MAX)), WINDOW_STEPS)
    truth = {WINDOW_STEPS.index(e.text) for e in trace.final}
    assert truth == {2, 3, 4}
    assert check_window_prediction(truth).ok and check_window_prediction(solved("02-predict-window", "kept")).ok


PREDICTIONS = [
    ("everything fits", {0, 1, 2, 3, 4}, {"as many as fit": "add up μ from the newest"}),
    ("the window keeps the first and refuses the new", {0, 1, 2},
     {"the newest is kept": "the newest sentence always stays", "oldest leave first": "evicts from the front"}),
    ("ω_5 is the state before step 4's update", {1, 2, 3}, {"the newest is kept": "the newest sentence always stays"}),
    ("the task is precious", {0, 3, 4}, {"oldest leave first": "without a gap"}),
    ("only two fit", {3, 4}, {"as many as fit": "add up μ from the newest"}),
    ("a gap and one too many", {0, 2, 3, 4}, {"oldest leave first": "without a gap", "as many as fit": "≤ V_max"}),
    ("the sentences, not their numbers", {"2", "3", "4"}, {"step numbers": "a set of step numbers"}),
    ("one number", 3, {"step numbers": "a set of step numbers"}),
]


@pytest.mark.parametrize("thought, answer, faults", PREDICTIONS, ids=[p[0] for p in PREDICTIONS])
def test_a_wrong_prediction_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_window_prediction(answer), faults, PREDICTION_CRITERIA)


def test_the_untouched_prediction_is_not_done():
    report = check_window_prediction(None)
    assert not report.done and "hint:" not in str(report)


# -- 02-keep-first ----------------------------------------------------------------------------------------------

class NewestOut(SlidingWindow):  # keeps the task but evicts the newest elements (the example)
    def update(self, state, operation, context):
        state = add(state, context)
        for newest in reversed(list(state)):
            if state in self.space:
                break
            if int(newest.meta["t"]) != 0:
                state = state - {newest}
        return state


class ClearAll(SlidingWindow):  # on overflow keeps only the task and the new elements
    def update(self, state, operation, context):
        new = add(state, context) - state
        state = state | new
        if state not in self.space:
            state = State(e for e in state if int(e.meta["t"]) in (0, context.t))
        return state


class YoungestAfterTask(SlidingWindow):  # evicts the newest of the old elements first
    def update(self, state, operation, context):
        state = add(state, context)
        while state not in self.space:
            older = [e for e in state if int(e.meta["t"]) not in (0, context.t)]
            state = state - {older[-1]}
        return state


class OutputOnly(SlidingWindow):  # adds the model's output and forgets the input after it
    def update(self, state, operation, context):
        if context.step.output:
            state = state | {Element(context.step.output, {"t": context.t})}
        for oldest in list(state):
            if state in self.space:
                break
            if int(oldest.meta["t"]) != 0:
                state = state - {oldest}
        return state


class NoEviction(SlidingWindow):  # adds and never evicts: leaves Ω_STM
    def update(self, state, operation, context):
        return add(state, context)


class SkipsStepZero(SlidingWindow):  # protects the step, not the element: the task still leaves later
    def update(self, state, operation, context):
        state = add(state, context)
        if context.t == 0:
            return state
        for oldest in list(state):
            if state in self.space:
                break
            state = state - {oldest}
        return state


KEEP_FIRST = [
    ("the notebook's window unchanged", SlidingWindow, {"task kept": "skip the element of step 0"}),
    ("protects step 0, not its element", SkipsStepZero, {"task kept": "skip the element of step 0"}),
    ("evicts the newest", NewestOut, {"oldest first": "never the newest"}),
    ("evicts the newest of the old", YoungestAfterTask, {"oldest first": "evict from the front"}),
    ("clears all on overflow", ClearAll, {"only as needed": "stop evicting as soon as"}),
    ("forgets the input", OutputOnly, {"new input kept": "context.step.observation"}),
    ("never evicts", NoEviction, {"contract": "check_mechanism"}),
]


@pytest.mark.parametrize("thought, answer, faults", KEEP_FIRST, ids=[k[0] for k in KEEP_FIRST])
def test_a_wrong_keep_first_fails_exactly_its_faults(thought, answer, faults):
    assert_exactly(check_keep_first(answer), faults, KEEP_FIRST_CRITERIA)


def test_the_reference_passes():
    assert check_keep_first(solved("02-keep-first", "KeepFirst")).ok


def test_the_notebook_runs_the_steps_the_prediction_is_checked_on():
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "notebooks" / "02_definition2_mechanism.md").read_text(encoding="utf-8")
    assert all(f'"{sentence}"' in source for sentence in WINDOW_STEPS)
    assert f"StateSpace(sizes.tokens(), v_max={WINDOW_V_MAX})" in source
