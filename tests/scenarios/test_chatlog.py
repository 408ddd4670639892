"""Importers of chat logs: from_openai_messages, load_chat_log, from_dialogue."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep
from stmviz.errors import FormatError
from stmviz.scenarios import Scenario, from_dialogue, from_openai_messages, load_chat_log


def call(id_, name, args):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def conversation():
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hi, my order is A-17."},
        {"role": "assistant", "content": "Hello! How can I help with A-17?"},
        {"role": "user", "content": [{"type": "text", "text": "Where is it?"},
                                     {"type": "image_url", "image_url": {"url": "https://x.example/label.png"}}]},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [call("c1", "get_order", {"id": "A-17"}),
                                                                          call("c2", "track", {"id": "A-17"})]},
        {"role": "tool", "tool_call_id": "c2", "content": "in transit"},
        {"role": "tool", "tool_call_id": "c1", "content": "shipped 3 May"},
        {"role": "assistant", "content": "It shipped on 3 May and is in transit."},
        {"role": "system", "content": "The user is a premium member."},
        {"role": "user", "content": "Thanks!"},
    ]


def test_openai_messages_rules():
    s = from_openai_messages(conversation(), name="support", v_max=300)
    assert isinstance(s, Scenario) and s.name == "support" and s.v_max == 300
    assert s.query == "You are a helpful assistant."
    assert s.tools == ("get_order", "track")
    first, reply, tools, answer, system, last = s.steps
    # step 0: the user speaks first, an input and no output
    assert (first.thought, first.action, first.observation) == ("", "", "Hi, my order is A-17.")
    assert first.meta["role"] == "user" and first.meta["messages"] == (1,)
    # step 1: the reply (output), then the user's next message (input)
    assert reply.thought == "Hello! How can I help with A-17?" and not reply.action
    assert reply.observation == "Where is it?\n[image: https://x.example/label.png]"
    assert reply.meta["role"] == "user" and reply.meta["messages"] == (2, 3) and reply.meta["roles"] == ("assistant", "user")
    assert tools.thought == "Let me check."
    assert tools.action == 'get_order({"id": "A-17"})\ntrack({"id": "A-17"})'
    # results are ordered like the calls, not like the messages
    assert tools.observation == "[get_order] shipped 3 May\n[track] in transit"
    assert tools.meta["role"] == "tool" and tools.meta["call"] == ("c1", "c2") and tools.meta["messages"] == (4, 5, 6)
    assert tools.meta["roles"] == ("assistant", "tool", "tool") and tools.meta["tool"] == ("get_order", "track")
    # a reply followed by a system message: an output-only step, then the system message as an input of its own
    assert answer.thought == "It shipped on 3 May and is in transit." and not answer.observation
    assert answer.meta["role"] == "assistant" and answer.meta["messages"] == (7,)
    assert system.observation == "The user is a premium member." and not system.thought and system.meta["role"] == "system"
    assert last.observation == "Thanks!" and not last.thought and last.meta["messages"] == (9,)


def test_single_tool_call_result_is_the_observation():
    s = from_openai_messages([
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call("a", "weather", {"city": "Oslo"})]},
        {"role": "tool", "tool_call_id": "a", "content": "4 °C"},
    ])
    assert s.steps[1] == AgentStep(thought="", action='weather({"city": "Oslo"})', observation="4 °C", meta=s.steps[1].meta)
    assert s.query == "" and s.mechanism == "FIFOWindow"


def test_unanswered_call_is_kept_and_marked():
    s = from_openai_messages([
        {"role": "user", "content": "Search it"},
        {"role": "assistant", "content": "", "tool_calls": [call("a", "search", {"q": "x"})]},
    ])
    assert s.steps[1].action.startswith("search(") and s.steps[1].observation == ""
    assert s.steps[1].meta["unanswered"] == ("a",) and s.steps[1].meta["role"] == "assistant"


def test_user_message_after_tool_results_is_an_input_only_step():
    s = from_openai_messages([
        {"role": "user", "content": "Book it."},
        {"role": "assistant", "content": "Booking.", "tool_calls": [call("b", "book", {})]},
        {"role": "tool", "tool_call_id": "b", "content": "booked: R-1"},
        {"role": "user", "content": "Also email me."},
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": "Done: R-1, emailed."},
    ])
    assert [(x.thought, x.action, x.observation, x.meta["role"]) for x in s.steps] == [
        ("", "", "Book it.", "user"),
        ("Booking.", "book({})", "booked: R-1", "tool"),
        ("", "", "Also email me.\n\nThanks.", "user"),  # consecutive user messages are one input
        ("Done: R-1, emailed.", "", "", "assistant"),
    ]
    assert s.steps[2].meta["messages"] == (3, 4)


def test_assistant_speaks_first_and_consecutive_replies():
    s = from_openai_messages([
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": "Welcome!"},
        {"role": "assistant", "content": "Ask me anything."},
        {"role": "user", "content": "Why is the sky blue?"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "Hello?"},
    ])
    assert s.query == "Be brief."
    assert [(x.thought, x.observation) for x in s.steps] == [
        ("Welcome!", ""), ("Ask me anything.", "Why is the sky blue?"), ("", "Hello?"),
    ]
    # the empty reply still separates the two user messages: "Hello?" comes after it
    assert s.steps[2].meta["messages"] == (4, 5)


def test_legacy_function_call_and_result():
    s = from_openai_messages([
        {"role": "user", "content": "Time?"},
        {"role": "assistant", "content": None, "function_call": {"name": "clock", "arguments": "{}"}},
        {"role": "function", "name": "clock", "content": "12:00"},
        {"role": "assistant", "content": "Noon."},
    ])
    assert [(x.thought, x.action, x.observation) for x in s.steps] == [("", "", "Time?"), ("", "clock({})", "12:00"), ("Noon.", "", "")]
    with pytest.raises(FormatError, match=r"^messages\[2\]\.name: 'watch' matches no pending function call of messages\[1\]"):
        from_openai_messages([
            {"role": "user", "content": "Time?"},
            {"role": "assistant", "content": None, "function_call": {"name": "clock", "arguments": "{}"}},
            {"role": "function", "name": "watch", "content": "12:00"},
        ])


def test_a_tool_result_after_a_user_message_is_an_error():
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call("a", "weather", {})]},
        {"role": "user", "content": "Hurry up."},
        {"role": "tool", "tool_call_id": "a", "content": "4 °C"},
    ]
    with pytest.raises(FormatError, match=r"^messages\[3\]\.tool_call_id: a tool result must follow the assistant"):
        from_openai_messages(messages)


# ---------------------------------------------------------------- the conversation's order, as properties

_words = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=8)


@st.composite
def tool_chats(draw):
    """A random chat log with user turns, plain replies and tool calls answered in any order."""
    messages = [{"role": "system", "content": "sys"}] if draw(st.booleans()) else []
    n_calls = 0
    for turn in range(draw(st.integers(1, 6))):
        if draw(st.booleans()) or turn == 0:
            messages.append({"role": "user", "content": f"u{turn} " + draw(_words)})
        for _ in range(draw(st.integers(0, 2))):  # rounds of tool calls
            ids = [f"c{n_calls + j}" for j in range(draw(st.integers(1, 3)))]
            n_calls += len(ids)
            messages.append({"role": "assistant", "content": draw(st.sampled_from(["", "calling"])),
                             "tool_calls": [call(i, f"tool_{i}", {"k": draw(_words)}) for i in ids]})
            for i in draw(st.permutations(ids)):
                messages.append({"role": "tool", "tool_call_id": i, "content": f"result of {i}"})
        messages.append({"role": "assistant", "content": f"reply {turn}"})
    return messages


@settings(max_examples=80, deadline=None)
@given(tool_chats())
def test_chat_log_keeps_each_tool_result_after_its_call_and_before_the_next_reply(messages):
    s = from_openai_messages(messages)
    where = {}  # message index -> step index
    for t, step in enumerate(s.steps):
        for i in step.meta["messages"]:
            where[i] = t
    calls = {}
    for i, m in enumerate(messages):
        for c in m.get("tool_calls", ()):
            calls[c["id"]] = i
    for i, m in enumerate(messages):
        if m["role"] != "tool":
            continue
        call_at = calls[m["tool_call_id"]]
        t = where[i]
        step = s.steps[t]
        # the result is the input of the step whose output made the call: after the call ...
        assert where[call_at] == t and f"tool_{m['tool_call_id']}(" in step.action
        assert m["content"] in step.observation and step.meta["role"] == "tool"
        # ... and before the next assistant message, whose output is in a later step
        later = [j for j in range(i + 1, len(messages)) if messages[j]["role"] == "assistant"]
        if later:
            assert where[later[0]] == t + 1 and s.steps[t + 1].thought == messages[later[0]]["content"]
    # every message is in exactly one step, and the steps keep the messages' order
    order = [i for step in s.steps for i in step.meta["messages"]]
    assert order == sorted(order) and len(order) == len(set(order))
    assert set(order) | {i for i, m in enumerate(messages) if m["role"] == "system" and i == 0} >= {
        i for i, m in enumerate(messages) if m["content"] or m.get("tool_calls")}


def test_query_and_tools_can_be_given():
    s = from_openai_messages(conversation(), query="Q", tools=["t1"])
    assert s.query == "Q" and s.tools == ("t1",)


@pytest.mark.parametrize(
    "mutate, where, what",
    [
        (lambda m: m[1].update(role="robot"), "messages[1].role", "'robot' is not one of"),
        (lambda m: m.__setitem__(2, "hello"), "messages[2]", "a message is an object"),
        (lambda m: m[1].update(content=42), "messages[1].content", "expected text or a list of parts"),
        (lambda m: m[3]["content"].__setitem__(0, {"type": "video"}), "messages[3].content[0].type", "unknown content part type"),
        (lambda m: m[3]["content"].__setitem__(0, {"type": "text", "text": 5}), "messages[3].content[0].text", "needs its text"),
        (lambda m: m[5].update(tool_call_id="zz"), "messages[5].tool_call_id", "'zz' matches no pending call of messages[4]"),
        (lambda m: m[5].pop("tool_call_id"), "messages[5].tool_call_id", "names the call it answers"),
        (lambda m: m[4]["tool_calls"][0]["function"].pop("name"), "messages[4].tool_calls[0].function.name", "tool's name"),
        (lambda m: m[4]["tool_calls"][1].pop("function"), "messages[4].tool_calls[1].function", "missing"),
        (lambda m: m[4].update(tool_calls="x"), "messages[4].tool_calls", "expected a list"),
        (lambda m: m.insert(1, {"role": "tool", "tool_call_id": "q", "content": "r"}), "messages[1].tool_call_id", "must follow"),
    ],
)
def test_malformed_messages(mutate, where, what):
    messages = conversation()
    mutate(messages)
    with pytest.raises(FormatError) as info:
        from_openai_messages(messages)
    assert str(info.value).startswith(f"{where}: "), str(info.value)
    assert what in str(info.value)


def test_not_a_list_and_empty():
    with pytest.raises(FormatError, match="expected a list"):
        from_openai_messages({"role": "user", "content": "hi"})
    with pytest.raises(FormatError, match="nothing to run"):
        from_openai_messages([{"role": "system", "content": "only a prompt"}])


# ---------------------------------------------------------------- files


def test_load_json_list_and_object(tmp_path):
    a = tmp_path / "log.json"
    a.write_text(json.dumps(conversation()), encoding="utf-8")
    b = tmp_path / "wrapped.json"
    b.write_text(json.dumps({"messages": conversation(), "model": "x"}), encoding="utf-8")
    sa, sb = load_chat_log(a), load_chat_log(b)
    assert sa.name == "log" and sb.name == "wrapped"
    assert sa.steps == sb.steps == from_openai_messages(conversation()).steps


def test_load_jsonl(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in conversation()) + "\n\n", encoding="utf-8")
    s = load_chat_log(path, name="x", v_max=100)
    assert s.name == "x" and s.v_max == 100 and s.steps == from_openai_messages(conversation()).steps


def test_jsonl_errors_name_the_line(tmp_path):
    lines = [json.dumps(m) for m in conversation()]
    lines.insert(2, "")  # blank lines are skipped but still counted
    bad = list(lines)
    bad[4] = bad[4][:-5]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(bad), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.jsonl: not valid JSON at line 5, column \d+: .*truncated"):
        load_chat_log(path)
    bad = list(lines)
    bad[3] = json.dumps({"role": "narrator", "content": "x"})
    path.write_text("\n".join(bad), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.jsonl: line 4: role: 'narrator' is not one of"):
        load_chat_log(path)
    bad = list(lines)
    bad[6] = json.dumps({"role": "tool", "tool_call_id": "nope", "content": "x"})
    path.write_text("\n".join(bad), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.jsonl: line 7: tool_call_id: 'nope' matches no pending call of line 6"):
        load_chat_log(path)


def test_json_file_errors(tmp_path):
    path = tmp_path / "chat.json"
    text = json.dumps(conversation(), indent=1)
    path.write_text(text[:-40], encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.json: not valid JSON at line \d+, column \d+: .*truncated"):
        load_chat_log(path)
    path.write_text("\n".join(json.dumps(m) for m in conversation()), encoding="utf-8")
    with pytest.raises(FormatError, match="name it .jsonl"):
        load_chat_log(path)
    path.write_text(json.dumps({"chat": []}), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.json: top level: expected a list of messages"):
        load_chat_log(path)
    path.write_text(json.dumps({"messages": "hi"}), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.json: messages: expected a list"):
        load_chat_log(path)
    path.write_text(json.dumps([{"role": "user", "content": "a"}, {"role": "user", "content": 1}]), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^chat\.json: messages\[1\]\.content: expected text"):
        load_chat_log(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="empty"):
        load_chat_log(path)
    path.write_bytes(b"\xff[]")  # (b"\xff\xfe" starts UTF-16, which is read as such since issue 17)
    with pytest.raises(FormatError, match="not UTF-8"):
        load_chat_log(path)
    with pytest.raises(FormatError, match="no such chat log"):
        load_chat_log(tmp_path / "missing.json")


# ---------------------------------------------------------------- dialogue


def test_from_dialogue():
    s = from_dialogue(["I am Ada.", "Hi Ada!", "Bye."], name="d", v_max=50, title="T")
    assert s.name == "d" and s.title == "T" and s.mechanism == "SCM"
    assert [(x.thought, x.observation) for x in s.steps] == [("", "I am Ada."), ("Hi Ada!", "Bye.")]
    s = from_dialogue(["I am Ada.", "Hi Ada!"])
    assert [(x.thought, x.observation, x.meta["role"]) for x in s.steps] == [("", "I am Ada.", "user"), ("Hi Ada!", "", "assistant")]


@pytest.mark.parametrize(
    "turns, message",
    [("hello", "expected a list"), ([], "empty"), (["a", 3], r"turns\[1\]: expected text"), (["a", " "], r"turns\[1\]: the assistant turn is empty")],
)
def test_from_dialogue_errors(turns, message):
    with pytest.raises(FormatError, match=message):
        from_dialogue(turns)


_turns = st.lists(st.text(min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=12)


@settings(max_examples=50, deadline=None)
@given(_turns)
def test_dialogue_and_messages_agree(turns):
    """from_dialogue and from_openai_messages give the same steps for a plain alternating chat."""
    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": t} for k, t in enumerate(turns)]
    a = from_dialogue(turns)
    b = from_openai_messages(messages)
    assert a.steps == b.steps
    assert len(a.steps) == len(turns) // 2 + 1


@settings(max_examples=50, deadline=None)
@given(_turns)
def test_dialogue_reply_k_is_the_output_of_step_k_plus_1_and_question_k_the_input_of_step_k(turns):
    s = from_dialogue(turns)
    users, replies = turns[0::2], turns[1::2]
    for k, question in enumerate(users):
        assert s.steps[k].observation == question and s.steps[k].meta["role"] == "user"
    for k, reply in enumerate(replies):
        assert s.steps[k + 1].thought == reply and not s.steps[k + 1].action
    assert not s.steps[0].thought
    if len(turns) % 2 == 0:
        assert not s.steps[-1].observation and s.steps[-1].meta["role"] == "assistant"


@settings(max_examples=25, deadline=None)
@given(_turns)
def test_each_reply_is_produced_from_an_input_that_holds_its_question(turns):
    """End to end with a window large enough for everything: π(ω_{k+1}) holds u_k, from which reply a_k is produced."""
    from stmviz import StateSpace, run
    from stmviz.mechanisms import FIFOWindow

    s = from_dialogue([f"<{k}>{turn}" for k, turn in enumerate(turns)])
    trace = run(FIFOWindow(StateSpace("chars", 10**6)), s)
    for k in range(0, len(turns) - 1, 2):
        step = k // 2 + 1  # the step whose output is the reply to turns[k]
        assert trace[step].context.step.thought.startswith(f"<{k + 1}>")
        assert f"<{k}>" in trace.project(step).text()
