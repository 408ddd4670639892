"""run() — the loop of Figure 1 — and its Trace."""

import json

import pytest

from stmviz import AgentStep, Element, State, StateSpace, Trace, run, sizes
from stmviz.core.mechanism import ExampleMechanism
from stmviz.io.serialize import TRACE_VERSION
from stmviz.errors import CapacityError, FormatError


@pytest.fixture
def trace():
    steps = [f"observation number {i} " + "word " * (i % 7) for i in range(100)]
    return run(ExampleMechanism(StateSpace(sizes.words, 30)), steps, query="Q?", tools=["search"], checkpoint_every=8)


def test_trace_basics(trace):
    assert len(trace) == 100 and trace[0].t == 0 and trace[-1].t == 99
    assert trace.state_at(0) == State() and trace.state_at(100) == trace.final == trace.state_at(-1)
    assert trace.query == "Q?" and trace.tools == ("search",)
    for step in trace:
        assert step.size_after <= trace.v_max
        assert len(step.reasons) == len(step.removed)
    with pytest.raises(IndexError):
        trace.state_at(101)
    with pytest.raises(TypeError):
        trace.state_at(1.5)  # type: ignore[arg-type]


def test_state_at_matches_replay(trace):
    replay = list(trace.states())
    assert len(replay) == 101
    for t in range(101):
        assert trace.state_at(t) == replay[t]
        assert trace.size_at(t) == trace.size_of(replay[t])


def test_diffs_are_the_set_differences(trace):
    for t, step in enumerate(trace):
        before, after = trace.state_at(t), trace.state_at(t + 1)
        assert set(step.added) == set(after.elements - before.elements)
        assert set(step.removed) == set(before.elements - after.elements)


def test_records_and_table(trace):
    records = trace.to_records()
    assert len(records) == 100
    assert {"t", "operation", "size_before", "size_after", "occupancy", "input_tokens", "why"} <= set(records[0])
    assert records[-1]["n_elements"] == len(trace.final)
    table = trace.table()
    assert "Σμ / V_max:" in table and "ω_t → ω_t+1" in table and "oldest element" in table


def test_json_round_trip_is_exact(trace, tmp_path):
    again = Trace.from_json(trace.to_json())
    assert again == trace
    for t in (0, 17, 64, 100):
        assert again.state_at(t) == trace.state_at(t)
    path = tmp_path / "trace.json"
    trace.save(path)
    assert Trace.load(path) == trace
    # a mechanism of stmviz's own is rebuilt from the file
    assert again.mechanism is not None and again.project(50) == trace.project(50)


def test_loading_damaged_or_foreign_files(trace, tmp_path):
    text = trace.to_json()
    with pytest.raises(FormatError, match="truncated"):
        Trace.from_json(text[: len(text) // 2])
    with pytest.raises(FormatError, match="not a stmviz trace"):
        Trace.from_json(json.dumps({"format": "something-else"}))
    data = json.loads(text)
    data["version"] = TRACE_VERSION + 1
    with pytest.raises(FormatError, match="version"):
        Trace.from_json(json.dumps(data))
    data = json.loads(text)
    data["steps"][5]["added"] = [10**6]
    with pytest.raises(FormatError, match=r"steps\[5\]\.added\[0\].*out of range"):
        Trace.from_json(json.dumps(data))
    data = json.loads(text)
    data["steps"][7]["size_after"] += 3
    with pytest.raises(FormatError, match=r"steps\[7\].*damaged"):
        Trace.from_json(json.dumps(data))
    data = json.loads(text)
    del data["steps"][3]
    with pytest.raises(FormatError, match=r"steps\[3\]\.t"):
        Trace.from_json(json.dumps(data))
    data = json.loads(text)
    data["elements"][0]["size"] = -1
    with pytest.raises(FormatError, match=r"elements\[0\]\.size"):
        Trace.from_json(json.dumps(data))
    with pytest.raises(FormatError, match="JSON object"):
        Trace.from_json("[1, 2]")
    binary = tmp_path / "x.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError):
        Trace.load(binary)


def test_loading_never_imports_foreign_code(trace):
    data = json.loads(trace.to_json())
    data["mechanism"]["class"] = "os:system"
    loaded = Trace.from_json(json.dumps(data))
    assert loaded.mechanism is None and loaded == trace


def test_steps_may_be_dicts_strings_or_agent_steps():
    steps = [AgentStep(thought="t", action="a", observation="o"), {"observation": "x"}, "plain"]
    trace = run(ExampleMechanism(StateSpace(sizes.words, 100)), steps)
    assert len(trace) == 3 and trace[0].context.action == "a"
    with pytest.raises(FormatError, match="step 1.*unknown field"):
        run(ExampleMechanism(StateSpace(sizes.words, 100)), ["ok", {"obsrvation": "typo"}])
    with pytest.raises(FormatError, match="step 0"):
        run(ExampleMechanism(StateSpace(sizes.words, 100)), [42])
    with pytest.raises(TypeError):
        run(ExampleMechanism(StateSpace(sizes.words, 100)), "a single string")


def test_history_is_in_the_context():
    seen = []

    class Recorder(ExampleMechanism):
        def update(self, state, operation, context):
            seen.append([s.observation for s in context.history])
            return super().update(state, operation, context)

    run(Recorder(StateSpace(sizes.words, 100)), ["a", "b", "c"])
    assert seen == [[], ["a"], ["a", "b"]]


def test_a_scenario_like_object_is_accepted():
    class Scn:
        steps = ["a", "b"]
        query = "find x"
        tools = ("search",)

    trace = run(ExampleMechanism(StateSpace(sizes.words, 100)), Scn())
    assert trace.query == "find x" and len(trace) == 2


def test_initial_state_outside_the_space():
    with pytest.raises(CapacityError, match="initial state"):
        run(ExampleMechanism(StateSpace(sizes.words, 1)), ["a"], initial=State([Element("a b c")]))


def test_trace_order_does_not_depend_on_the_hash_seed(tmp_path):
    """Element order in trace.sizes (and so in JSON and figures) must be the same in every process."""
    import subprocess
    import sys

    script = (
        "from stmviz import StateSpace, run, sizes, AgentStep\n"
        "from stmviz.core.mechanism import ExampleMechanism\n"
        "from stmviz.mechanisms import FIFOWindow\n"
        "steps = [AgentStep(thought=f'reply {i}', action=f'tool({i})', observation=f'result {i}') for i in range(30)]\n"
        "trace = run(FIFOWindow(StateSpace(sizes.words, 20)), steps)\n"
        "print([e.id for e in trace.sizes])\n"
        "print(trace.to_json()[:2000])\n"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def test_an_error_that_already_names_its_step_is_not_prefixed_twice():
    from stmviz import make_mechanism

    def update(m, state, operation, context):
        if context.t == 2:
            raise FormatError(f"step {context.t}: the scenario asks for something impossible")
        return state

    def update_unnamed(m, state, operation, context):
        if context.t == 1:
            raise FormatError("nothing named here")
        return state

    for fn, expected in ((update, "step 2: the scenario"), (update_unnamed, "step 1: nothing named here")):
        mechanism = make_mechanism(StateSpace(sizes.words, 10), operations=["keep"], update=fn)
        with pytest.raises(FormatError) as info:
            run(mechanism, ["a", "b", "c"])
        assert str(info.value).startswith(expected)
        assert str(info.value).count(expected[:7]) == 1
