"""Compaction: Anthropic's compact_20260112 and Claude Code's auto-compact (U adds the block, π starts at the last one)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Compaction, StateSpace, check_mechanism, run, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.managers.compaction import CLAUDE_CODE_PREFIX, DEFAULT_INSTRUCTIONS

from _managers import SPACE, agent_streams, chat, tool_step


def counted(texts, budget):
    """A deterministic stand-in summary that says how many messages it covered."""
    return f"summary of {len(texts)} messages"



def visible_words(m, state):
    return sum(len(e.text.split()) for e in m.visible(state))


def test_below_the_trigger_nothing_happens():
    trace = run(Compaction(SPACE, trigger=9_000), chat(10))
    assert all(s.operation == "append" for s in trace)


def test_reaching_the_trigger_adds_a_block_and_pi_shows_only_system_and_the_block():
    m = Compaction(SPACE, system="be brief", trigger=30, summarizer=counted)
    trace = run(m, chat(10))
    first = next(t for t in range(len(trace)) if any(e.type == "compaction" for e in trace.state_at(t)))
    before = trace.state_at(first - 1)
    assert visible_words(m, before) < 30  # it fired at the first step that reached the trigger
    x = trace.project(first)
    assert [(msg.role, msg.text) for msg in x] == [("system", "be brief"), ("assistant", f"summary of {len(before) + 1} messages")]
    # U keeps the compacted messages in ω (the client's list); π drops them
    assert len(trace.state_at(first)) == len(before) + 3
    assert set(m.hidden(trace.state_at(first))) == {e for e in trace.state_at(first) if e.type not in ("system", "compaction")}


def test_the_trigger_is_inclusive_and_counts_the_system_prompt():
    steps = chat(3)
    at = run(Compaction(SPACE, system="be brief", trigger=9_000), steps)
    size = visible_words(Compaction(SPACE, trigger=9_000), at.state_at(2))
    assert any(e.type == "compaction" for e in run(Compaction(SPACE, system="be brief", trigger=size), steps).state_at(2))
    assert not any(e.type == "compaction" for e in run(Compaction(SPACE, system="be brief", trigger=size + 1), steps).state_at(2))


def test_a_later_compaction_summarizes_from_the_last_block_on():
    m = Compaction(SPACE, trigger=25, summarizer=counted)
    trace = run(m, chat(20))
    blocks = [e for e in trace.final.ordered() if e.type == "compaction"]
    assert len(blocks) >= 2
    x = trace.project(len(trace) - 1)
    assert x[0].text == blocks[-1].text
    assert sum(1 for msg in x if msg.text.startswith("summary of")) == 1


def test_pause_after_compaction_resends_the_last_messages_after_the_block():
    m = Compaction(SPACE, trigger=30, pause_after_compaction=True, preserve=3, summarizer=counted)
    steps = chat(10)
    trace = run(m, steps)
    first = next(t for t in range(len(trace)) if any(e.type == "compaction" for e in trace.state_at(t)))
    x = trace.project(first)
    before = [e.text for e in trace.state_at(first - 1).ordered()] + [steps[first - 1].thought, steps[first - 1].observation]
    assert x[0].text.startswith("summary of") and [msg.text for msg in x[1:]] == before[-3:]


def test_paused_compaction_never_resends_a_tool_result_without_its_call():
    steps = [AgentStep(observation="go")] + [tool_step("read", f"f{k}", f"content {k} " * 4, f"t{k}") for k in range(8)]
    m = Compaction(SPACE, trigger=30, pause_after_compaction=True, preserve=1, summarizer=counted)
    trace = run(m, steps)
    for t in range(len(trace)):
        x = trace.project(t)
        assert not x or x[0].role != "tool"
        if len(x) > 1 and x[0].text.startswith("summary of"):
            assert x[1].role == "assistant"


def test_claude_code_preset_threshold_and_block():
    big = StateSpace(sizes.words, v_max=200_000)
    assert Compaction.claude_code(big).trigger == 167_000
    assert Compaction.claude_code(big, percent=50).trigger == 90_000
    with pytest.raises(InvalidArgumentError, match="percent=95"):
        Compaction.claude_code(StateSpace(sizes.words, v_max=4000))
    m = Compaction.claude_code(StateSpace(sizes.words, v_max=40), percent=95, summarizer=counted)
    assert m.trigger == 38
    trace = run(m, chat(10))
    blocks = [e for e in trace.final if e.type == "compaction"]
    assert blocks and blocks[0].meta["role"] == "user" and blocks[0].text.startswith(CLAUDE_CODE_PREFIX)
    assert blocks[0].meta["pre_tokens"] >= 38 and blocks[0].meta["trigger"] == "auto"


def test_the_prompt_is_the_documented_one_or_the_instructions():
    assert Compaction(SPACE, trigger=100).prompt == DEFAULT_INSTRUCTIONS
    assert Compaction(SPACE, trigger=100, instructions="Keep file paths.").prompt == "Keep file paths."


def test_bad_parameters_get_clear_errors():
    with pytest.raises(InvalidArgumentError, match="never fire"):
        Compaction(StateSpace(sizes.words, v_max=4096))  # the default 150,000 cannot be reached
    with pytest.raises(InvalidArgumentError, match="preserve"):
        Compaction(SPACE, trigger=100, preserve=-1)


def test_check_mechanism_passes():
    assert check_mechanism(Compaction(StateSpace(sizes.words, v_max=300), trigger=120)).ok
    assert check_mechanism(Compaction.claude_code(StateSpace(sizes.words, v_max=300), percent=80)).ok


@given(agent_streams(max_steps=20), st.integers(15, 80), st.booleans())
@settings(max_examples=60, deadline=None)
def test_property_pi_starts_at_the_last_block_and_stays_below_trigger_plus_a_step(steps, trigger, pause):
    m = Compaction(StateSpace(sizes.words, v_max=400), trigger=trigger, pause_after_compaction=pause, summarizer=counted)
    trace = run(m, steps)
    for t in range(len(trace)):
        state = trace.state_at(t)
        x = trace.project(t)
        blocks = [e for e in state.ordered() if e.type == "compaction"]
        if blocks:
            assert x[0].text == blocks[-1].text
            assert all(e.t >= blocks[-1].t for e in m.visible(state))
        shown_calls = {e.meta.get("call") for e in m.visible(state) if e.type == "assistant"}
        assert all(e.meta.get("call") in shown_calls for e in m.visible(state) if e.type == "tool")


def test_a_paused_compaction_right_after_another_puts_the_new_block_last_of_the_blocks():
    m = Compaction(SPACE, trigger=15, pause_after_compaction=True, preserve=20, summarizer=counted)
    trace = run(m, chat(12))
    for t in range(len(trace)):
        state = trace.state_at(t)
        blocks = [e for e in state.ordered() if e.type == "compaction"]
        if blocks:  # the newest block (the one written last) is the one π starts from
            newest = max(blocks, key=lambda e: e.meta["step"])
            assert trace.project(t)[0].text == newest.text and blocks[-1] is newest
