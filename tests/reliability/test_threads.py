"""One mechanism object shared by threads gives the traces a sequential run gives.

Each thread runs the same object on its own stream at once, under a switch
interval of 1 µs so that the threads interleave inside U and π at every few
bytecodes; each trace's fingerprint (tests/golden/canonical.py) must equal
that of a sequential run of a fresh object. Caches a mechanism keeps across
runs must hold only values that are pure functions of their keys, and state
of one run must not leak into another (issue 17: SCM's caches did).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest

import stmviz
from stmviz import StateSpace, load_scenario, run, sizes


def _canonical():
    """tests/golden/canonical.py, loaded by its path (tests/ is no package)."""
    path = Path(__file__).resolve().parents[1] / "golden" / "canonical.py"
    spec = importlib.util.spec_from_file_location("_golden_canonical", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_golden = _canonical()
MECHANISMS, agent_stream, fingerprint = _golden.MECHANISMS, _golden.agent_stream, _golden.fingerprint

THREADS = 4
V_MAX = 2048  # as the golden agent streams: every mechanism evicts, summarizes or folds on them


def _streams() -> list[tuple[str, list, dict]]:
    tools = {"query": "Collect the prices of three sources.", "tools": ("search", "open")}
    return [
        ("long_dialogue", list(load_scenario("long_dialogue").steps), {}),
        ("web_research", list(load_scenario("web_research").steps), {}),
        # longer than 64 interactions: SCM ranks its memory stream with a cached matrix from then on
        ("agent_stream_0", agent_stream(240, 0), tools),
        ("agent_stream_1", agent_stream(240, 1), tools),
    ]


def _build(name: str):
    return getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=V_MAX))


@pytest.fixture
def tiny_switch_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.parametrize("name", MECHANISMS)
def test_threads_sharing_one_mechanism_get_the_sequential_traces(name, tiny_switch_interval):
    streams = _streams()
    expected = {label: fingerprint(run(_build(name), steps, **kw)) for label, steps, kw in streams}
    shared = _build(name)
    got: dict[tuple[str, int], str] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS * 2)

    def work(label: str, steps: list, kw: dict, rounds: int) -> None:
        try:
            start.wait()
            for r in range(rounds):
                got[(label, r)] = fingerprint(run(shared, steps, **kw))
        except BaseException as exc:  # reported below, with the thread's stream
            errors.append(exc)

    # two threads per stream, each running it twice: runs of one stream overlap runs of the others
    threads = [
        threading.Thread(target=work, args=(label, steps, kw, 2), name=f"{label}#{copy}")
        for label, steps, kw in streams
        for copy in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    wrong = {key: value for key, value in got.items() if value != expected[key[0]]}
    assert not wrong, f"{name}: {len(wrong)} of {len(got)} concurrent runs differ from the sequential run: {sorted(wrong)}"
    # and the object still gives the sequential traces afterwards
    for label, steps, kw in streams:
        assert fingerprint(run(shared, steps, **kw)) == expected[label]
