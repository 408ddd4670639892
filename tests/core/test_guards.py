"""The one vocabulary of argument checks (stmviz.core.guards), and the probe cases of issue 24 it answers.

Each probe case failed before the guards were merged: a raw OverflowError,
TypeError or KeyError, an error of the wrong class, a message that repeats
itself, or an input accepted that empties the window.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from stmviz import Context, Element, FIFOWindow, HiAgent, Mechanism, Operation, State, StateSpace, run, sizes
from stmviz.core import guards
from stmviz.errors import InvalidIndexError, InvalidArgumentError, ContractError, FormatError, STMError
from stmviz.scenarios import load_scenario
from stmviz.scenarios.chatlog import from_openai_messages

HUGE = 10**400  # a 401-digit whole number: too large for a float


# -- the vocabulary -----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [3, np.int64(3), np.int8(3)])
def test_a_whole_number_is_an_int_or_a_numpy_integer(value):
    assert guards.whole_number(value, "k", 0) == 3 and type(guards.whole_number(value, "k", 0)) is int


@pytest.mark.parametrize("value", [True, np.bool_(True), 3.0, np.float64(3.0), "3", None, [3], HUGE, -1])
def test_anything_else_is_refused_with_its_name_value_and_fix(value):
    with pytest.raises(InvalidArgumentError) as caught:
        guards.whole_number(value, "k", 0, where="SCM")
    message = str(caught.value)
    assert message.startswith("SCM: k must be a whole number") and "got " in message and "pass an int" in message


def test_a_bound_is_said_the_way_it_was_broken():
    with pytest.raises(InvalidArgumentError, match=r"with 0 ≤ digits ≤ 17"):
        guards.whole_number(99, "digits", 0, maximum=17)
    with pytest.raises(InvalidArgumentError, match=r"≤ 9223372036854775807"):
        guards.whole_number(2**70, "k", 0)


def test_one_time_index_rule_for_the_trace_and_for_the_figures():
    """trace.state_at refused np.int64(1) while state_figure took it: one rule now, and it takes it."""
    trace = run(FIFOWindow(StateSpace(sizes.words, 10)), ["a b", "c d", "e"])
    assert trace.state_at(np.int64(1)) == trace.state_at(1)
    assert guards.time_index(trace, np.int64(1)) == 1
    for bad in (True, 1.0, np.float64(1.0), "1"):
        with pytest.raises(InvalidIndexError):
            trace.state_at(bad)
        with pytest.raises(InvalidIndexError):
            guards.time_index(trace, bad)


@pytest.mark.parametrize("value", [math.nan, math.inf, HUGE, "1", True, None, 1j])
def test_a_real_number_is_finite(value):
    with pytest.raises(InvalidArgumentError, match="share must be a number in"):
        guards.real_number(value, "share", 0, 1)


def test_text_flag_function_choice_items():
    assert guards.text("x", "name") == "x" and guards.text(None, "name", none_ok=True) is None
    assert guards.flag(None, "labels", none_ok=True) is None and guards.function(None, "f", "()") is None
    assert guards.items((1, 2), "xs") == [1, 2]
    for call in (
        lambda: guards.text("  ", "name"),
        lambda: guards.flag(1, "stacked"),
        lambda: guards.function(3, "summarize", "(texts, budget) -> str"),
        lambda: guards.choice("x", "ranking", ["relevance"]),
        lambda: guards.items("ab", "xs"),
    ):
        with pytest.raises(InvalidArgumentError):
            call()


# -- the probe cases of issue 24 ----------------------------------------------------------------


def test_a_v_max_too_large_for_a_float_is_a_capacity_error():
    with pytest.raises(InvalidArgumentError, match="V_max must be finite"):
        StateSpace("tokens", v_max=HUGE)


def test_a_size_too_large_for_a_float_is_a_size_error():
    space = StateSpace(lambda e: HUGE, 10)
    state = State([Element("a")])
    assert (state in space) is False
    with pytest.raises(ContractError, match="is not in ℝ⁺"):
        space.check(state)


def test_an_image_too_large_for_a_float_is_an_element_error():
    with pytest.raises(InvalidArgumentError, match="image width"):
        sizes.image_tokens(HUGE, 10)


class TwoArgumentError(STMError):
    """A user's error whose __init__ takes two arguments: run cannot re-create it with one message."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")


class Failing(Mechanism):
    operations = {"append": "fail"}

    def update(self, state, operation, context):
        raise TwoArgumentError("update", "refused on purpose")

    def project(self, state):
        return ""


def test_a_user_error_with_another_init_reaches_the_caller_located():
    with pytest.raises(TwoArgumentError) as caught:
        run(Failing(StateSpace(sizes.words, 10)), ["a", "b"])
    assert caught.value.step == 0 and caught.value.trace is not None
    assert str(caught.value) == "update: refused on purpose"


def test_a_summarizer_that_returns_none_is_named():
    m = HiAgent(StateSpace(sizes.tokens(), 800), summarize=lambda texts, budget: None)
    with pytest.raises(InvalidArgumentError, match=r"HiAgent: summarize returned NoneType None.*must return a string"):
        run(m, load_scenario("household"))


def test_tool_call_arguments_holding_a_set_are_a_format_error():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": {"ids": {1, 2}}}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    with pytest.raises(FormatError, match=r"tool_calls\[0\]\.function\.arguments.*JSON cannot write"):
        from_openai_messages(messages)


@pytest.mark.parametrize("room", [math.nan, math.inf, -1, "3"])
def test_evict_oldest_with_a_room_that_is_no_finite_number_is_refused(room):
    m = FIFOWindow(StateSpace(sizes.words, 100))
    state = run(m, ["a b", "c d", "e f"]).final
    with pytest.raises(InvalidArgumentError, match="evict_oldest: room must be a finite number"):
        m.apply(state, Operation("evict_oldest", {"room": room}), Context(t=3))


def test_cyclic_metadata_is_named_once_not_thirty_times():
    cycle: dict = {}
    cycle["self"] = cycle
    with pytest.raises(InvalidArgumentError, match="nested more than 64 levels") as caught:
        Element("x", {"a": cycle})
    assert str(caught.value).count("'self'") <= 12 and "holds itself" in str(caught.value)


def test_a_hiagent_run_from_a_foreign_initial_state_is_refused_at_the_start():
    m = HiAgent(StateSpace(sizes.tokens(), 800))
    foreign = State([Element("foreign", {"type": "summary"})])
    with pytest.raises(InvalidArgumentError, match=r"initial state ω_0 holds .* of type 'summary' without the metadata"):
        run(m, load_scenario("household"), initial=foreign)
    trace = run(m, load_scenario("household"))
    assert len(run(m, load_scenario("household"), initial=trace.state_at(5))) == len(trace)
