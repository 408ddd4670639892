"""run() and Context check their arguments; errors of π name the step as errors of U do (issue 17)."""

from __future__ import annotations

from typing import Any

import pytest

from stmviz import AgentStep, Context, Element, Mechanism, StateSpace, Trace, run, sizes
from stmviz.core.errors import InvalidArgumentError, FormatError, STMError, UpdateFailedError
from stmviz.mechanisms import FIFOWindow


def _fifo() -> FIFOWindow:
    return FIFOWindow(StateSpace(sizes.words, 100))


STEPS = [{"thought": "a", "observation": "b"}, "c"]


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"tools": "search"}, "tools T must be a list of tool names, got str 'search'; e.g. tools=['search']"),
        ({"tools": b"search"}, "tools T must be a list"),
        ({"tools": {"search": 1}}, "tools T must be a list"),
        ({"tools": 5}, "tools T must be a list"),
        ({"tools": ["search", 3]}, "tools[1] = 3 is a int"),
        ({"query": 123}, "query Q must be text, got int 123"),
        ({"query": ["q"]}, "query Q must be text"),
        ({"meta": [("a", 1)]}, "meta must be a mapping"),
        ({"meta": {"x": object()}}, "run: meta:"),
        ({"checkpoint_every": 1.5}, "checkpoint_every must be a whole number ≥ 1"),
        ({"checkpoint_every": 0}, "checkpoint_every must be a whole number ≥ 1"),
        ({"checkpoint_every": -1}, "checkpoint_every must be a whole number ≥ 1"),
        ({"checkpoint_every": True}, "checkpoint_every must be a whole number ≥ 1"),
        ({"checkpoint_every": "3"}, "checkpoint_every must be a whole number ≥ 1"),
    ],
)
def test_a_bad_argument_of_run_is_refused_with_what_and_how(kwargs, says):
    with pytest.raises(InvalidArgumentError) as info:
        run(_fifo(), STEPS, **kwargs)
    assert says in str(info.value)


def test_tools_as_a_string_is_not_split_into_letters():
    """issue 17: tools="search" became the tools ('s','e','a','r','c','h')."""
    with pytest.raises(InvalidArgumentError):
        run(_fifo(), STEPS, tools="search")
    assert run(_fifo(), STEPS, tools=["search"]).tools == ("search",)


def test_run_output_always_loads_back():
    """issue 17: query=123 was saved, then Trace.from_json refused its own output."""
    trace = run(_fifo(), STEPS, query="q", tools=("search", "open"), meta={"user": "u", "n": 1})
    assert Trace.from_json(trace.to_json()) == trace


@pytest.mark.parametrize("steps", [5, None, 1.5, object(), {"thought": "a"}])
def test_steps_that_are_not_iterable_are_refused(steps):
    with pytest.raises(InvalidArgumentError, match="steps must be an iterable of step records"):
        run(_fifo(), steps)


@pytest.mark.parametrize("junk", [5, None, 1.5, ["a"], {"thought": 5}, {"mood": "x"}, object()])
def test_a_junk_step_names_its_index(junk):
    with pytest.raises(FormatError, match=r"^step 2: "):
        run(_fifo(), ["a", "b", junk, "d"])


class BrokenProjection(Mechanism):
    """π fails at the third state: a projection that reads metadata the state does not have."""

    operations = {"append": "add the step"}

    def update(self, state, operation, context):
        return state | {Element(context.observation or "x", {"t": context.t})}

    def project(self, state):
        if len(state) >= 3:
            raise KeyError("role")
        return [e.text for e in state.ordered()]


class STMBrokenProjection(BrokenProjection):
    def project(self, state):
        if len(state) >= 3:
            raise InvalidArgumentError("π needs a role")
        return [e.text for e in state.ordered()]


def test_an_error_of_pi_names_the_step_and_carries_the_trace():
    with pytest.raises(UpdateFailedError) as info:
        run(BrokenProjection(StateSpace(sizes.words, 100)), ["a", "b", "c", "d"])
    error = info.value
    assert str(error).startswith("step 3: ") and "π(ω_3)" in str(error) and "KeyError" in str(error)
    assert error.step == 3 and isinstance(error.trace, Trace) and len(error.trace) == 3


def test_an_stm_error_of_pi_keeps_its_kind_and_names_the_step():
    with pytest.raises(InvalidArgumentError, match=r"^step 3: π needs a role") as info:
        run(STMBrokenProjection(StateSpace(sizes.words, 100)), ["a", "b", "c", "d"])
    assert info.value.step == 3


def test_an_error_of_pi_at_the_final_state_names_it():
    with pytest.raises(UpdateFailedError, match=r"^step 3: .*π\(ω_3\)") as info:
        run(BrokenProjection(StateSpace(sizes.words, 100)), ["a", "b", "c"])
    assert len(info.value.trace) == 3


@pytest.mark.parametrize(
    "kwargs",
    [
        {"t": -1},
        {"t": 1.5},
        {"t": True},
        {"query": 5},
        {"tools": "search"},
        {"tools": [1]},
        {"meta": [1]},
        {"extra": "x"},
        {"history": "abc"},
        {"history": 5},
        {"step": 5},
    ],
)
def test_a_bad_context_is_refused(kwargs: dict[str, Any]):
    with pytest.raises(STMError):
        Context(**kwargs)


def test_a_good_context_is_built_as_before():
    c = Context(t=2, step={"thought": "x"}, query="q", tools=["a"], history=[AgentStep(observation="o"), "p"], meta={"m": 1})
    assert c.tools == ("a",) and c.step.thought == "x" and len(c.history) == 2 and c.history[1].observation == "p"
    assert c.replace(t=3).t == 3
