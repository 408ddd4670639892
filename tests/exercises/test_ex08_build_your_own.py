"""Notebook 08's exercises: each wrong answer a student writes fails exactly its faults, each hint names its fault."""

from __future__ import annotations

import pytest
from wrong_answers import assert_fails, solved

from stmviz import Element, Mechanism, Transition
from stmviz.exercises import (
    PRIORITY_STEPS,
    check_fifo_match,
    check_priority_memory,
    check_priority_prediction,
)

RANK = {"low": 0, "medium": 1, "high": 2}


class _Priority(Mechanism):
    operations = {"append": "add the observation; on overflow drop by priority"}
    victim_key = staticmethod(lambda e: (RANK[e.meta["priority"]], e.meta["t"]))

    def new(self, context):
        return Element(context.observation, {"t": context.t, **context.step.meta})

    def update(self, state, operation, context):
        state = state | {self.new(context)}
        reasons = {}
        for victim in sorted(state, key=self.victim_key):
            if state in self.space:
                break
            state = state - {victim}
            reasons[victim] = "priority"
        return Transition(state, reasons)

    def project(self, state):
        ranked = sorted(state, key=lambda e: (-RANK[e.meta["priority"]], e.meta["t"]))
        return "\n".join(e.text for e in ranked)


class LowFirstInPi(_Priority):  # π lists low priority first
    def project(self, state):
        return "\n".join(e.text for e in sorted(state, key=lambda e: (RANK[e.meta["priority"]], e.meta["t"])))


class NewestOfPriority(_Priority):  # evicts the newest element of the lowest priority
    victim_key = staticmethod(lambda e: (RANK[e.meta["priority"]], -e.meta["t"]))


class EvictsAllOfLowest(_Priority):  # on overflow evicts every element of the lowest priority present
    def update(self, state, operation, context):
        state = state | {self.new(context)}
        if state not in self.space:
            lowest = min(RANK[e.meta["priority"]] for e in state)
            state = state - {e for e in state if RANK[e.meta["priority"]] == lowest}
            while state not in self.space:
                state = state - {min(state, key=self.victim_key)}
        return state


class Fifo(_Priority):  # notebook 08's first attempt: ignores the priority
    victim_key = staticmethod(lambda e: e.meta["t"])


class NoMetadata(_Priority):  # keeps only t: the priority is read from a guess
    def new(self, context):
        return Element(context.observation, {"t": context.t, "priority": "low", "source": "api"})


class HidesLowInPi(_Priority):  # π shows only the high and medium elements
    def project(self, state):
        return "\n".join(e.text for e in state if e.meta["priority"] != "low")


class RemembersOnSelf(_Priority):  # keeps a list of what it saw on the mechanism: a memory outside ω
    def update(self, state, operation, context):
        self.seen = getattr(self, "seen", []) + [context.observation]
        return super().update(state, operation, context)


PRIORITY_CATALOGUE = [
    (LowFirstInPi, {"projection": "sort by -RANK[priority]"}, ()),
    (NewestOfPriority, {"age": "not the newest"}, ()),
    (EvictsAllOfLowest, {"only as needed": "stop when it holds"}, ()),
    (Fifo, {"priority": "sort the candidates by RANK[priority]"}, ("high-priority facts",)),
    (HidesLowInPi, {"projection": "render every element"}, ()),
    (RemembersOnSelf, {"U pure": "keep nothing on self"}, ()),
    (NoMetadata, {"metadata": "**context.step.meta"}, ("priority", "age", "projection", "high-priority facts")),
]


@pytest.mark.parametrize("wrong, faults, not_judged", PRIORITY_CATALOGUE, ids=[w.__name__ for w, _, _ in PRIORITY_CATALOGUE])
def test_priority_memory_catalogue(wrong, faults, not_judged):
    assert_fails(check_priority_memory(wrong), faults, not_judged)


def test_the_reference_meets_every_criterion():
    assert check_priority_memory(solved("08-priority", "PriorityMemory")).ok


PREDICTION_CATALOGUE = [
    ((4, 0), {"who leaves": "FIFO's choice"}),
    ((4, 3), {"who leaves": "within a priority the oldest"}),
    ((4, 4), {"who leaves": "the one arriving"}),
    ((3, 1), {"the step": "add up μ"}),
    ((5, 2), {"the step": "add up μ", "who leaves": "the lowest priority leaves first"}),
    (("4", "1"), {"a pair": "both whole numbers"}),
]


@pytest.mark.parametrize("wrong, faults", PREDICTION_CATALOGUE, ids=[str(w) for w, _ in PREDICTION_CATALOGUE])
def test_eviction_prediction_catalogue(wrong, faults):
    assert_fails(check_priority_prediction(wrong), faults, ("the step", "who leaves") if "a pair" in faults else ())


def test_the_prediction_agrees_with_the_reference_mechanism():
    from stmviz import StateSpace, run, sizes

    step, leaves = solved("08-predict-eviction", "prediction")
    trace = run(solved("08-priority", "PriorityMemory")(StateSpace(sizes.words, 26)), PRIORITY_STEPS)
    first = next(s for s in trace if s.removed)
    assert first.t == step and [e.text for e in first.removed] == [PRIORITY_STEPS[leaves].observation]
    assert check_priority_prediction((step, leaves)).ok and not check_priority_prediction(None).done


def test_checkers_are_deterministic():
    wrong = check_priority_memory(NewestOfPriority)
    assert str(wrong) == str(check_priority_memory(NewestOfPriority))
    assert str(check_fifo_match(1000)) == str(check_fifo_match(1000))
