"""Golden traces: every mechanism on every bundled scenario and on seeded agent streams.

A refactoring must leave every fingerprint as it is. A change that alters results on purpose
regenerates them, and says why in its commit:

    STMVIZ_REGENERATE_GOLDEN=1 python -m pytest tests/golden -p no:randomly
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .canonical import all_traces, first_difference, fingerprint, step_digests

GOLDEN = Path(__file__).with_name("fingerprints.json")
#: per run, a digest of its start, of each step and of its end: where a changed run first differs
STEPS = Path(__file__).with_name("steps.json")


@pytest.fixture(scope="module")
def traces() -> dict:
    return all_traces()


@pytest.fixture(scope="module")
def current(traces) -> dict[str, str]:
    return {name: fingerprint(trace) for name, trace in traces.items()}


def test_golden_traces_are_unchanged(traces, current):
    digests = {name: step_digests(trace) for name, trace in traces.items()}
    if os.environ.get("STMVIZ_REGENERATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        STEPS.write_text(json.dumps(digests, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    expected_steps = json.loads(STEPS.read_text(encoding="utf-8"))
    changed = [
        f"{name}: first differs at {first_difference(expected_steps.get(name, []), digests[name])}"
        f" (fingerprint {expected.get(name)} → {value})"
        for name, value in current.items()
        if expected.get(name) != value
    ]
    missing = sorted(set(expected) - set(current))
    assert not changed and not missing, "traces changed:\n" + "\n".join(changed) + (f"\nmissing: {missing}" if missing else "")


def test_a_changed_run_is_named_by_its_first_differing_step(traces):
    """The failure names a step, not two hashes: one fewer token of V_max first shows where FIFO evicts."""
    from stmviz import FIFOWindow, StateSpace, load_scenario, run, sizes

    scenario = load_scenario("long_dialogue")
    smaller = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max - 1)), scenario)
    where = first_difference(step_digests(traces["long_dialogue/FIFOWindow"]), step_digests(smaller))
    assert where == "the start (V_max, μ or ω_0)"  # V_max is part of the start
    digests = step_digests(traces["long_dialogue/FIFOWindow"])
    assert first_difference(digests, digests[:5] + ["00000000"] + digests[6:]) == "step 4"


def test_the_fingerprint_sees_a_change_of_result(current):
    """The fingerprint is not blind: one fewer token of V_max changes a FIFO trace that evicts."""
    from stmviz import FIFOWindow, StateSpace, load_scenario, run, sizes

    from .canonical import fingerprint

    scenario = load_scenario("long_dialogue")
    smaller = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max - 1)), scenario)
    assert fingerprint(smaller) != current["long_dialogue/FIFOWindow"]
