"""Importers of chat logs: from_openai_messages, load_chat_log, from_dialogue."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep
from stmviz.errors import ScenarioFormatError
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
    first, second, tools, reply, system, last = s.steps
    assert (first.observation, first.thought, first.action) == ("Hi, my order is A-17.", "Hello! How can I help with A-17?", "")
    assert second.observation == "Where is it?\n[image: https://x.example/label.png]" and second.thought == ""
    assert tools.thought == "Let me check."
    assert tools.action == 'get_order({"id": "A-17"})\ntrack({"id": "A-17"})'
    # results are ordered like the calls, not like the messages
    assert tools.observation == "[get_order] shipped 3 May\n[track] in transit"
    assert tools.meta["role"] == "tool" and tools.meta["call"] == ("c1", "c2") and tools.meta["messages"] == (4, 5, 6)
    assert reply.thought == "It shipped on 3 May and is in transit." and not reply.observation
    assert system.observation == "The user is a premium member." and system.meta["role"] == "system"
    assert last.observation == "Thanks!" and last.meta["messages"] == (9,)


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
    assert s.steps[1].meta["unanswered"] == ("a",)


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
    with pytest.raises(ScenarioFormatError) as info:
        from_openai_messages(messages)
    assert str(info.value).startswith(f"{where}: "), str(info.value)
    assert what in str(info.value)


def test_not_a_list_and_empty():
    with pytest.raises(ScenarioFormatError, match="expected a list"):
        from_openai_messages({"role": "user", "content": "hi"})
    with pytest.raises(ScenarioFormatError, match="nothing to run"):
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
    with pytest.raises(ScenarioFormatError, match=r"^chat\.jsonl: not valid JSON at line 5, column \d+: .*truncated"):
        load_chat_log(path)
    bad = list(lines)
    bad[3] = json.dumps({"role": "narrator", "content": "x"})
    path.write_text("\n".join(bad), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.jsonl: line 4: role: 'narrator' is not one of"):
        load_chat_log(path)
    bad = list(lines)
    bad[6] = json.dumps({"role": "tool", "tool_call_id": "nope", "content": "x"})
    path.write_text("\n".join(bad), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.jsonl: line 7: tool_call_id: 'nope' matches no pending call of line 6"):
        load_chat_log(path)


def test_json_file_errors(tmp_path):
    path = tmp_path / "chat.json"
    text = json.dumps(conversation(), indent=1)
    path.write_text(text[:-40], encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.json: not valid JSON at line \d+, column \d+: .*truncated"):
        load_chat_log(path)
    path.write_text("\n".join(json.dumps(m) for m in conversation()), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match="name it .jsonl"):
        load_chat_log(path)
    path.write_text(json.dumps({"chat": []}), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.json: top level: expected a list of messages"):
        load_chat_log(path)
    path.write_text(json.dumps({"messages": "hi"}), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.json: messages: expected a list"):
        load_chat_log(path)
    path.write_text(json.dumps([{"role": "user", "content": "a"}, {"role": "user", "content": 1}]), encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match=r"^chat\.json: messages\[1\]\.content: expected text"):
        load_chat_log(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(ScenarioFormatError, match="empty"):
        load_chat_log(path)
    path.write_bytes(b"\xff\xfe[]")
    with pytest.raises(ScenarioFormatError, match="not UTF-8"):
        load_chat_log(path)
    with pytest.raises(ScenarioFormatError, match="no such chat log"):
        load_chat_log(tmp_path / "missing.json")


# ---------------------------------------------------------------- dialogue


def test_from_dialogue():
    s = from_dialogue(["I am Ada.", "Hi Ada!", "Bye."], name="d", v_max=50, title="T")
    assert s.name == "d" and s.title == "T" and s.mechanism == "SCM"
    assert [(x.observation, x.thought) for x in s.steps] == [("I am Ada.", "Hi Ada!"), ("Bye.", "")]


@pytest.mark.parametrize(
    "turns, message",
    [("hello", "expected a list"), ([], "empty"), (["a", 3], r"turns\[1\]: expected text"), (["a", " "], r"turns\[1\]: the assistant turn is empty")],
)
def test_from_dialogue_errors(turns, message):
    with pytest.raises(ScenarioFormatError, match=message):
        from_dialogue(turns)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=12))
def test_dialogue_and_messages_agree(turns):
    """from_dialogue and from_openai_messages give the same steps for a plain alternating chat."""
    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": t} for k, t in enumerate(turns)]
    a = from_dialogue(turns)
    b = from_openai_messages(messages)
    assert [(x.observation, x.thought) for x in a.steps] == [(x.observation, x.thought) for x in b.steps]
    assert len(a.steps) == (len(turns) + 1) // 2
