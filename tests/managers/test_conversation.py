"""The one conversation model (stmviz.managers.conversation): a step's messages, the time scheme, eviction, π's messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, FIFOWindow, StateSpace, run, sizes
from stmviz._fast.memo import Memo
from stmviz.errors import CapacityError, InvalidArgumentError
from stmviz.managers import conversation
from stmviz.managers.conversation import GAP, as_model_input, evict_oldest, step_messages, system_element

_text = st.sampled_from(["", "a", "b c", "d e f"])
steps = st.builds(
    AgentStep,
    thought=_text,
    action=st.sampled_from(["", "search(x)", "read(y)"]),
    observation=_text,
    meta=st.sampled_from([{}, {"role": "system"}, {"thinking": "hmm"}, {"thinking": ["a", " "], "call": "toolu_9"},
                          {"tool": "search", "call": ["c1", "c2"]}]),
)


def test_the_messages_the_fifo_window_stores_keep_their_text_and_metadata():
    """The plain messages are what FIFOWindow has always stored: output at t, the input at t + ½ (t without output)."""
    got = [(e.text, dict(e.meta)) for e in step_messages(AgentStep(thought="Look.", action="ls()", observation="a b"), 4)]
    assert got == [
        ("Look.\nls()", {"t": 4, "type": "assistant", "role": "assistant", "step": 4, "call": "call_4"}),
        ("a b", {"t": 4.5, "type": "tool", "role": "tool", "step": 4, "call": "call_4"}),
    ]
    assert type(got[0][1]["t"]) is int  # saved traces show 4, not 4.0
    reply = step_messages(AgentStep(thought="Hi.", observation="Bye.", meta={"role": "system", "thinking": "x"}), 2)
    assert [(e.type, e.t) for e in reply] == [("assistant", 2), ("system", 2.5)]  # no thinking without api=True
    assert [(e.type, e.t) for e in step_messages(AgentStep(observation="First."), 0)] == [("user", 0)]
    assert step_messages(AgentStep(), 3) == []


def test_the_api_messages_add_thinking_and_the_recorded_tool_use():
    step = AgentStep(thought="Look.", action="search(x)\nread(y)", observation="r",
                     meta={"thinking": ["first", "  ", "second"], "call": ["toolu_1", "toolu_2"]})
    got = step_messages(step, 7, api=True)
    assert [(e.type, e.t, e.text) for e in got] == [
        ("thinking", 6.75, "first\n\nsecond"), ("assistant", 7, "Look.\nsearch(x)\nread(y)"), ("tool", 7.5, "r")]
    assert got[1].meta["call"] == got[2].meta["call"] == "toolu_1"
    assert got[1].meta["tool"] == got[2].meta["tool"] == "search" and got[1].meta["action"] == step.action
    assert "action" not in got[2].meta and "call" not in got[0].meta
    assert step_messages(AgentStep(observation="q", meta={"thinking": "x"}), 0, api=True)[0].type == "user"  # no output


@settings(max_examples=60, deadline=None)
@given(st.lists(steps, max_size=8), st.booleans())
def test_the_canonical_order_is_the_conversations_and_every_gap_is_free(stream, api):
    """ω's order by t is the messages in the order they happened; ± GAP from a message never reaches the next one."""
    messages = [e for t, step in enumerate(stream) for e in step_messages(step, t, api=api)]
    ts = [e.t for e in messages]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)
    assert all(a + GAP < b and b - GAP > a for a, b in zip(ts, ts[1:]))
    assert all(t - 0.25 <= e.t <= t + 0.5 for t, step in enumerate(stream) for e in step_messages(step, t, api=api))


@settings(max_examples=40, deadline=None)
@given(st.lists(steps, max_size=6), st.booleans())
def test_a_memoized_message_is_the_message_built_afresh(stream, api):
    memo = Memo(4)
    for _ in range(2):
        for t, step in enumerate(stream):
            kept = step_messages(step, t, api=api, memo=memo)
            fresh = step_messages(step, t, api=api)
            assert kept == fresh and [dict(e.meta) for e in kept] == [dict(e.meta) for e in fresh]


def test_eviction_takes_a_call_with_its_result_keeps_what_it_is_told_and_says_why():
    space = StateSpace(sizes.words, 100)
    msgs = [m for t, s in enumerate([AgentStep(observation="one two"), AgentStep(thought="x", action="go()", observation="r r"),
                                     AgentStep(thought="y", observation="u")]) for m in step_messages(s, t)]
    total = space.size(msgs)
    removed = evict_oldest(msgs, total, total - 3, space.measure, note="a bound")
    assert [e.text for e in removed] == ["one two", "x\ngo()", "r r"]
    assert list(removed.values())[0] == f"oldest message; Σμ = {total} > V_max = {total - 3} (a bound)"
    assert list(removed.values())[2] == "tool result of the evicted call call_1 (keep_tool_pairs)"
    kept = evict_oldest(msgs, total, total - 3, space.measure, keep=msgs[:1], pairs_note="never alone")
    assert msgs[0] not in kept and kept[msgs[2]] == "tool result of the evicted call call_1 (never alone)"
    assert list(evict_oldest(msgs, total, 0, space.measure, count=1)) == msgs[:1]
    orphan_first = msgs[2:]  # a result whose call is not in ω leaves with any eviction, even one of count = 0
    assert list(evict_oldest(orphan_first, 10, 0, space.measure, count=0)) == [msgs[2]]


def test_the_system_prompt_and_model_input():
    element = system_element("Be brief.")
    assert dict(element.meta) == {"t": -1, "type": "system", "role": "system", "pinned": True}
    assert system_element(None) is None
    with pytest.raises(InvalidArgumentError, match=r"^Compaction: system must be a non-empty text or None, got int 3"):
        system_element(3, where="Compaction")  # type: ignore[arg-type]
    with pytest.raises(CapacityError, match=r"the system prompt alone has μ = 3 > V_max = 2"):
        conversation.pinned_system(StateSpace(sizes.words, 2), "one two three")
    x = as_model_input([element, *step_messages(AgentStep(thought="a", meta={"thinking": "t"}), 0, api=True)])
    assert [(m.role, m.content, m.name) for m in x] == [("system", "Be brief.", None), ("assistant", "t", "thinking"),
                                                        ("assistant", "a", None)]


def test_the_fifo_window_stores_exactly_the_plain_messages():
    """FIFOWindow is a case of the one model: what it adds at a step is step_messages of that step."""
    stream = [AgentStep(observation="hi"), AgentStep(thought="look", action="s()", observation="r"),
              AgentStep(thought="done", observation="thanks", meta={"thinking": "ignored by the window"})]
    trace = run(FIFOWindow(StateSpace(sizes.words, 100)), stream)
    for t, step in enumerate(stream):
        assert list(trace[t].added) == step_messages(step, t)
        assert [dict(e.meta) for e in trace[t].added] == [dict(e.meta) for e in step_messages(step, t)]


def test_the_element_types_of_a_chat():
    assert list(conversation.CHAT_TYPES) == ["system", "user", "assistant", "tool"]
    assert list(FIFOWindow.element_types) == list(conversation.CHAT_TYPES)
