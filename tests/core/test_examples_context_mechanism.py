"""The examples that the docstrings of ``core/context.py`` and ``core/mechanism.py`` showed before issue 24's slimming.

Each was a doctest; it is kept here as a plain assert so that no example's check is lost.
"""

import re
import sys

import pytest

from stmviz import AgentStep, Context, Element, Mechanism, StateSpace, make_mechanism, run, sizes
from stmviz.core.context import History
from stmviz.core.mechanism import ExampleMechanism
from stmviz.errors import ContractError, InvalidArgumentError


def test_a_step_record_with_a_shorthand_key_becomes_a_directive():
    step = AgentStep.coerce({"observation": "Found it.", "subgoal": "find the file"})
    assert step.directives["subgoal"] == "find the file"


def test_a_first_step_brings_only_an_input():
    first = AgentStep(observation="Hi, my locker code is 7391.", meta={"role": "user"})
    assert (first.has_output, first.has_input, first.input_role) == (False, True, "user")


def test_a_reply_is_the_output_and_the_next_message_the_input():
    reply = AgentStep(thought="Noted.", observation="What is my code?", meta={"role": "user"})
    assert (reply.output, reply.observation) == ("Noted.", "What is my code?")
    assert reply.to_json() == {"thought": "Noted.", "observation": "What is my code?", "meta": {"role": "user"}}


@pytest.mark.parametrize(
    "read, old, kept",
    [
        (lambda s: s.model_output, "AgentStep.model_output", "step.output"),
        (lambda s: s.input, "AgentStep.input", "step.observation"),
        (lambda s: Context(step=s).model_output, "Context.model_output", "context.step.output"),
    ],
)
def test_a_second_name_for_one_idea_warns_and_names_the_kept_one(read, old, kept):
    """AgentStep has one name per idea: ``output`` (thought, then action) and ``observation`` (the input)."""
    reply = AgentStep(thought="Noted.", action="save()", observation="Saved.")
    with pytest.warns(DeprecationWarning, match=rf"^{re.escape(old)} is deprecated .*; use {re.escape(kept)}$") as caught:
        value = read(reply)
    assert value == (reply.observation if kept == "step.observation" else reply.output)
    assert caught[0].filename == __file__  # the warning names the line that used the old name


def test_a_history_is_a_view_of_the_runs_record_of_steps():
    steps = [AgentStep(observation="a"), AgentStep(observation="b")]
    h = History(steps, 1)
    assert (len(h), h[0].observation, h.steps() is steps) == (1, "a", True)
    assert repr(h) == "History(1 steps)" and list(h) == steps[:1] and h[-1:] == steps[:1]


def test_a_context_coerces_its_history_and_step_and_compares_without_the_history_contents():
    c = Context(t=2, step={"thought": "hm", "observation": "ok"}, history=["a", {"thought": "b"}])
    assert isinstance(c.history, History) and c.history[1].thought == "b"
    assert (c.thought, c.observation, c.step.output) == ("hm", "ok", "hm")
    assert c == c.replace(history=["x", "y"]) and c != c.replace(t=3)
    with pytest.raises(InvalidArgumentError, match="history must be a sequence of AgentStep"):
        Context(history="a b")  # type: ignore[arg-type]


def test_make_mechanism_builds_a_mechanism_from_plain_functions():
    def add(m, state, op, c):
        new = state | {Element(c.observation, {"t": c.t})}
        return new if new in m.space else state

    m = make_mechanism(StateSpace(sizes.chars, 10), operations={"add": "add if it fits"}, update=add, name="greedy")
    assert [e.text for e in run(m, ["hello", "hi", "world"]).final] == ["hello", "hi"]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"space": 10}, "space must be a StateSpace"),
        ({"operations": "add"}, "operations must be a dict"),
        ({"operations": []}, "declares no operation type"),
        ({"update": "U"}, "update must be a callable"),
        ({"project": 1}, "project"),
        ({"controller": 1}, "controller"),
        ({"initial": 1}, "initial"),
        ({"name": ""}, "name"),
    ],
)
def test_make_mechanism_names_the_wrong_argument(arguments, message):
    given = {"space": StateSpace(sizes.words, 5), "operations": ["add"], "update": lambda m, s, o, c: s, **arguments}
    with pytest.raises(InvalidArgumentError, match=message):
        make_mechanism(**given)


def test_a_mechanism_needs_a_space_and_a_controller_when_it_has_two_operation_types():
    with pytest.raises(InvalidArgumentError, match=r"space: a mechanism needs a StateSpace .* ExampleMechanism\(StateSpace"):
        ExampleMechanism(4096)  # type: ignore[arg-type]
    two = make_mechanism(StateSpace(sizes.words, 3), operations=["a", "b"], update=lambda m, s, o, c: s)
    with pytest.raises(ContractError, match=r"declares 2 operation types \(a, b\), so it must define controller"):
        two.choose(two.initial_state(Context()), Context())


def test_a_mechanism_of_stmviz_is_rebuilt_from_its_spec_and_a_foreign_one_is_not():
    m = ExampleMechanism(StateSpace(sizes.words, 5))
    assert m.spec() == {"class": "stmviz.core.mechanism:ExampleMechanism", "name": "example", "params": {}}
    again = Mechanism.from_spec(m.space, m.spec())
    assert isinstance(again, ExampleMechanism) and again.space is m.space
    assert Mechanism.from_spec(m.space, {"class": "os:system"}) is None
    assert Mechanism.from_spec(m.space, "not a spec") is None  # type: ignore[arg-type]


def test_from_spec_imports_nothing_and_io_loads_the_module_a_trace_file_names():
    """The core looks a spec's class up among the loaded modules (issue 32: calling it loaded 30 modules by name);
    reading a trace file, stmviz.io loads the stmviz module the spec names first."""
    import subprocess

    code = (
        "import sys\n"
        "from stmviz.core import Mechanism, StateSpace, sizes\n"
        "space = StateSpace(sizes.words, 50)\n"
        "spec = {'class': 'stmviz.mechanisms.fifo:FIFOWindow', 'params': {}}\n"
        "before = set(sys.modules)\n"
        "assert Mechanism.from_spec(space, spec) is None\n"
        "assert set(sys.modules) == before, sorted(set(sys.modules) - before)\n"
        "from stmviz.io import mechanism_from_spec\n"
        "assert type(mechanism_from_spec(space, spec)).__name__ == 'FIFOWindow'\n"
        "assert mechanism_from_spec(space, {'class': 'stmviz.no_such_module:X'}) is None\n"
        "assert mechanism_from_spec(space, {'class': 'json:JSONDecoder'}) is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_spec_naming_a_moved_module_is_rebuilt_through_its_stub(monkeypatch):
    """A trace file names its mechanism by the module of its day; a module that moved leaves a stub that forwards."""
    import types

    from stmviz._moved import moved_to
    from stmviz.io import mechanism_from_spec

    stub = types.ModuleType("stmviz.old_home_of_the_example")
    stub.__getattr__ = moved_to("stmviz.core.mechanism", stub.__name__)  # type: ignore[method-assign]
    monkeypatch.setitem(sys.modules, stub.__name__, stub)
    space = StateSpace(sizes.words, 5)
    with pytest.warns(DeprecationWarning, match="import ExampleMechanism from stmviz.core.mechanism"):
        again = mechanism_from_spec(space, {"class": f"{stub.__name__}:ExampleMechanism", "params": {}})
    assert isinstance(again, ExampleMechanism) and again.space is space
