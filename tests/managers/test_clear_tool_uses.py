"""ClearToolUses: Anthropic's clear_tool_uses_20250919 / clear_thinking_20251015 and LangChain's ClearToolUsesEdit, as π."""

from __future__ import annotations

import importlib.util
from copy import deepcopy

import pytest
from hypothesis import given, settings

from stmviz import AgentStep, ClearToolUses, StateSpace, check_mechanism, run, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.managers.clear_tool_uses import LANGCHAIN_PLACEHOLDER, PLACEHOLDER

from _managers import SPACE, agent_streams, counter, langchain_messages, pairs, stmviz_pairs, tool_step

HAS_LANGCHAIN = importlib.util.find_spec("langchain") is not None
needs_langchain = pytest.mark.skipif(not HAS_LANGCHAIN, reason="peer library langchain not installed (pip install stmviz[peers])")


def five_tool_uses() -> list[AgentStep]:
    steps = [AgentStep(observation="find the key please")]
    for k, tool in enumerate(["search", "read", "memory", "search", "read"]):
        steps.append(tool_step(tool, f"q{k}", f"result {k} " + "word " * 8, thought=f"step {k}"))
    steps.append(AgentStep(thought="done"))
    return steps


def texts(x) -> list[str]:
    return [m.text for m in x]


def test_below_the_trigger_pi_is_the_identity():
    m = ClearToolUses(SPACE, trigger=9_999)
    trace = run(m, five_tool_uses())
    assert texts(trace.project(6)) == [e.text for e in trace.state_at(6).ordered()]
    assert m.hidden(trace.state_at(6)) == {}


def test_over_the_trigger_all_but_keep_most_recent_results_show_the_placeholder():
    m = ClearToolUses(SPACE, trigger=20, keep=3)
    trace = run(m, five_tool_uses())
    x = trace.project(6)
    tools = [msg.text for msg in x if msg.role == "tool"]
    assert tools[:2] == [PLACEHOLDER, PLACEHOLDER]
    assert all(t.startswith("result") for t in tools[2:])
    # the history keeps every result: clearing is π's work
    assert sum(1 for e in trace.state_at(6) if e.type == "tool" and e.text.startswith("result")) == 5


def test_the_trigger_is_strict_and_counts_the_system_prompt():
    steps = five_tool_uses()
    full = run(ClearToolUses(SPACE, system="be brief", trigger=9_999), steps)
    size = SPACE.size(full.state_at(6))  # input tokens of the request before step 6's output, system included
    at = run(ClearToolUses(SPACE, system="be brief", trigger=int(size), keep=0), steps).project(6)
    below = run(ClearToolUses(SPACE, system="be brief", trigger=int(size) - 1, keep=0), steps).project(6)
    assert PLACEHOLDER not in texts(at)
    assert texts(below).count(PLACEHOLDER) == 5


def test_exclude_tools_are_never_cleared():
    trace = run(ClearToolUses(SPACE, trigger=0, keep=0, exclude_tools=["memory"]), five_tool_uses())
    x = trace.project(6)
    results = [m.text for m in x if m.role == "tool"]
    assert results[2].startswith("result 2")  # the memory tool's result
    assert results.count(PLACEHOLDER) == 4


def test_clear_tool_inputs_all_or_by_name():
    x = run(ClearToolUses(SPACE, trigger=0, keep=3, clear_tool_inputs=True), five_tool_uses()).project(6)
    calls = [m.text for m in x if m.role == "assistant"][:5]
    assert calls[0] == 'step 0\nsearch({})' and calls[1] == 'step 1\nread({})'
    assert calls[2] == 'step 2\nmemory({"q": "q2"})'
    named = run(ClearToolUses(SPACE, trigger=0, keep=3, clear_tool_inputs=["read"]), five_tool_uses()).project(6)
    calls = [m.text for m in named if m.role == "assistant"]
    assert calls[0] == 'step 0\nsearch({"q": "q0"})' and calls[1] == 'step 1\nread({})'


def test_anthropic_clear_at_least_is_all_or_nothing():
    steps = five_tool_uses()
    per_result = len(steps[1].observation.split()) - len(PLACEHOLDER.split())
    enough = run(ClearToolUses(SPACE, trigger=0, keep=3, clear_at_least=2 * per_result), steps).project(6)
    assert texts(enough).count(PLACEHOLDER) == 2
    short = run(ClearToolUses(SPACE, trigger=0, keep=3, clear_at_least=2 * per_result + 1), steps).project(6)
    assert texts(short).count(PLACEHOLDER) == 0


def test_langchain_clear_at_least_is_a_stopping_rule():
    steps = five_tool_uses()
    m = ClearToolUses.langchain(SPACE, trigger=0, keep=0, clear_at_least=1)
    x = run(m, steps).project(6)
    assert texts(x).count(LANGCHAIN_PLACEHOLDER) == 1  # the oldest one freed enough
    assert texts(run(ClearToolUses.langchain(SPACE, trigger=0, keep=0), steps).project(6)).count("[cleared]") == 5


def test_thinking_of_earlier_turns_is_hidden_keep_n_or_all():
    steps = [AgentStep(observation="hi")]
    for k in range(4):
        steps.append(AgentStep(thought=f"reply {k}", observation=f"next {k}", meta={"thinking": f"I think {k}"}))
    thinking = lambda x: [m.text for m in x if m.name == "thinking"]  # noqa: E731
    old_model = ClearToolUses(SPACE, trigger=9_999, model="claude-sonnet-4-5-20250929")
    assert thinking(run(old_model, steps).project(4)) == ["I think 2"]  # the API's default on Sonnet 4.5: 1 turn
    assert thinking(run(ClearToolUses(SPACE, trigger=9_999, keep_thinking=2), steps).project(4)) == ["I think 1", "I think 2"]
    assert len(thinking(run(ClearToolUses(SPACE, trigger=9_999, keep_thinking="all"), steps).project(4))) == 3
    assert thinking(run(ClearToolUses(SPACE, trigger=9_999, keep_thinking=0), steps).project(4)) == []


def test_over_v_max_the_oldest_messages_leave_with_their_results():
    m = ClearToolUses(StateSpace(sizes.words, v_max=40), trigger=10)
    trace = run(m, five_tool_uses())
    for state in trace.states():
        calls = {e.meta["call"] for e in state if e.type == "assistant" and "call" in e.meta}
        assert all(e.meta["call"] in calls for e in state if e.type == "tool")


def test_bad_parameters_get_clear_errors():
    with pytest.raises(InvalidArgumentError, match="keep"):
        ClearToolUses(SPACE, trigger=100, keep=-1)
    with pytest.raises(InvalidArgumentError, match="exclude_tools"):
        ClearToolUses(SPACE, trigger=100, exclude_tools="memory")
    with pytest.raises(InvalidArgumentError, match="trigger_type"):
        ClearToolUses(SPACE, trigger=100, trigger_type="messages")
    with pytest.warns(UserWarning, match="never exceeds"):  # a real setting: warned, not refused
        ClearToolUses(StateSpace(sizes.words, v_max=4096))  # the default 100,000 is never exceeded
    with pytest.raises(InvalidArgumentError, match="'type' and 'value'"):
        ClearToolUses(SPACE, trigger={"value": 100})
    with pytest.raises(InvalidArgumentError, match="keep\\['type'\\]"):
        ClearToolUses(SPACE, trigger=100, keep={"type": "input_tokens", "value": 3})


def test_check_mechanism_passes():
    assert check_mechanism(ClearToolUses(StateSpace(sizes.words, v_max=400), trigger=50, keep=1)).ok
    assert check_mechanism(ClearToolUses.langchain(StateSpace(sizes.words, v_max=400), trigger=50)).ok


@given(agent_streams())
@settings(max_examples=60, deadline=None)
def test_property_pi_keeps_the_keep_newest_results_and_every_call(steps):
    m = ClearToolUses(SPACE, trigger=0, keep=2)
    trace = run(m, steps)
    for t in range(len(trace)):
        x = trace.project(t)
        results = [msg.text for msg in x if msg.role == "tool"]
        stored = [e for e in trace.state_at(t).ordered() if e.type == "tool"]
        assert results[len(results) - min(2, len(results)):] == [e.text for e in stored][len(stored) - min(2, len(stored)):]
        assert len(x) == len(trace.state_at(t))  # a placeholder per result, no message dropped: pairs stay whole
        assert all(r == PLACEHOLDER for r in results[: max(0, len(results) - 2)])


# ---------------------------------------------------------------- equivalence with LangChain


def langchain_inputs(steps, edit, system="be brief"):
    """The messages LangChain's ContextEditingMiddleware hands the model before each step's output."""
    from langchain.agents.middleware import ContextEditingMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import SystemMessage

    middleware = ContextEditingMiddleware(edits=[edit], token_counter=counter())
    history, seen = [], {}
    for t, step in enumerate(steps):
        if step.has_output:
            request = ModelRequest(model=FakeListChatModel(responses=["-"]), messages=deepcopy(history),
                                   system_message=SystemMessage(system))
            middleware.wrap_model_call(request, lambda r: seen.__setitem__(t, pairs(r.messages)))
        history.extend(langchain_messages(step, t))
    return seen


@needs_langchain
@given(agent_streams())
@settings(max_examples=40, deadline=None)
def test_langchain_clear_tool_uses_edit_gives_the_same_model_input_at_every_step(steps):
    from langchain.agents.middleware import ClearToolUsesEdit

    for trigger, keep, at_least, inputs in [(0, 2, 0, False), (30, 1, 5, True), (60, 0, 12, False)]:
        edit = ClearToolUsesEdit(trigger=trigger, keep=keep, clear_at_least=at_least, clear_tool_inputs=inputs,
                                 exclude_tools=["memory"])
        theirs = langchain_inputs(steps, edit)
        mine = run(ClearToolUses.langchain(SPACE, system="be brief", trigger=trigger, keep=keep, clear_at_least=at_least,
                                           clear_tool_inputs=inputs, exclude_tools=["memory"]), steps)
        for t, expected in theirs.items():
            assert stmviz_pairs(mine.project(t)) == expected, f"step {t}"


def test_keep_thinking_larger_than_the_turns_keeps_them_all():
    steps = [AgentStep(observation="hi")]
    steps += [AgentStep(thought=f"reply {k}", observation=f"next {k}", meta={"thinking": f"I think {k}"}) for k in range(2)]
    x = run(ClearToolUses(SPACE, trigger=9_999, keep_thinking=3), steps + [AgentStep(thought="end")]).project(3)
    assert [m.text for m in x if m.name == "thinking"] == ["I think 0", "I think 1"]
