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

from .canonical import all_fingerprints

GOLDEN = Path(__file__).with_name("fingerprints.json")


@pytest.fixture(scope="module")
def current() -> dict[str, str]:
    return all_fingerprints()


def test_golden_traces_are_unchanged(current):
    if os.environ.get("STMVIZ_REGENERATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = {k: (expected.get(k), v) for k, v in current.items() if expected.get(k) != v}
    missing = sorted(set(expected) - set(current))
    assert not changed and not missing, f"traces changed: {changed}; missing: {missing}"


def test_the_fingerprint_sees_a_change_of_result(current):
    """The fingerprint is not blind: one fewer token of V_max changes a FIFO trace that evicts."""
    from stmviz import FIFOWindow, StateSpace, load_scenario, run, sizes

    from .canonical import fingerprint

    scenario = load_scenario("long_dialogue")
    smaller = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max - 1)), scenario)
    assert fingerprint(smaller) != current["long_dialogue/FIFOWindow"]
