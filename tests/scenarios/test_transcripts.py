"""load_transcript: the transcripts people have, detected and read into scenarios by the chat-log rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stmviz import run
from stmviz.errors import STMError
from stmviz.errors import InvalidArgumentError, FormatError
from stmviz.scenarios import (
    FORMATS,
    detect_format,
    example_transcript,
    from_transcript,
    load_chat_log,
    load_transcript,
    recorded_compactions,
)
from stmviz.scenarios import transcripts as transcripts_module

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"


def rows(scenario):
    return [(s.thought, s.action, s.observation) for s in scenario.steps]


@pytest.mark.parametrize("name, kind", [
    ("claude_code_small.jsonl", "claude_code"),
    ("anthropic_request.json", "anthropic"),
    ("anthropic_response.json", "anthropic"),
    ("openai_chat.json", "openai_chat"),
    ("openai_responses.json", "openai_responses"),
    ("otel_otlp.json", "otel"),
    ("otel_spans.jsonl", "otel"),
    ("langchain_messages.json", "langchain"),
    ("langchain_dumpd.json", "langchain"),
    ("agentfold_infer.jsonl", "agentfold"),
])
def test_detects_each_format(name, kind):
    assert detect_format(FIXTURES / name) == kind


def test_detects_scenarios_and_bundled_session(tmp_path):
    assert detect_format(example_transcript("claude_code_session")) == "claude_code"
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"steps": [{"observation": "hi"}]}))
    assert detect_format(path) == "scenario"
    assert load_transcript(path, v_max=50).v_max == 50


# ---------------------------------------------------------------------------------------------- Claude Code


def test_claude_code_session_rules():
    s = load_transcript(example_transcript("claude_code_session"))
    text = "\n".join(step.text for step in s.steps)
    # the sub-agent's sidechain and the rewound message are not in the conversation
    assert "Two callers: totals.invoice_total" not in text and "Grep(" not in text and "Commit it.\n" not in text and 'message "Fix rounding"' not in text
    assert s.report.count("sidechain (sub-agent) record") == 4
    assert s.report.count("record of an abandoned branch (a fork: rewind or edit)") == 2
    assert "4 × sidechain" in s.description and "2 × record of an abandoned branch" in s.description
    # a reply written as three records (text + two parallel tool_use) is one step, results in the calls' order
    parallel = next(step for step in s.steps if step.thought == "Now the money helper and the settings, together.")
    assert parallel.action.count("Read(") == 2 and parallel.observation.startswith("[Read] from decimal")
    assert "TAX_RATE = 0.0725" in parallel.observation
    # thinking is metadata, never visible text
    assert "2.67499999" not in text and any("2.67499999" in step.meta.get("thinking", "") for step in s.steps)
    # the compact summary is not replayed as a user message; it is kept with the recorded compaction
    assert "This session is being continued" not in text
    (compaction,) = recorded_compactions(s)
    assert (compaction.system, compaction.trigger, compaction.pre_tokens) == ("Claude Code", "auto", 1611)
    assert "FIN-2291" in compaction.summary
    # it happened before the output of the step that runs the whole test suite
    assert s.steps[compaction.t].action.startswith('Bash({"command": "python -m pytest -q"')
    assert s.steps[compaction.t - 1].action.startswith("Edit(")


def test_claude_code_small_fixture():
    s = load_transcript(FIXTURES / "claude_code_small.jsonl")
    assert rows(s) == [
        ("", "", "Rename the key `timeout` to `timeout_s` in config.yaml. The ticket is OPS-77."),
        ("", 'Read({"file_path": "config.yaml"})', "timeout: 30\nretries: 4"),
        ("", 'Edit({"file_path": "config.yaml", "old_string": "timeout:", "new_string": "timeout_s:"})',
         "[error] File has been modified since read"),
        ("I'll read the file again and redo the edit.", "", ""),
    ]
    # a thinking-only record joins the reply that follows it (same message.id)
    assert s.steps[1].meta["thinking"] == "Read the file first."
    (c,) = recorded_compactions(s)
    assert (c.t, c.trigger, c.pre_tokens, c.where) == (3, "manual", 1234, "line 8")  # snake_case metadata, as the SDK streams it
    assert c.label == "Claude Code compacted (manual, 1,234 tokens)"


def test_claude_code_chain_loop_is_an_error():
    records = [
        {"type": "user", "uuid": "a", "parentUuid": "b", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "message": {"id": "m", "role": "assistant", "content": "yo"}},
    ]
    with pytest.raises(FormatError, match=r"s.jsonl: records\[1\]: the parentUuid chain loops"):
        from_transcript(records, "claude_code", source="s.jsonl")


def test_claude_code_without_uuids_reads_file_order():
    records = [
        {"type": "user", "sessionId": "x", "message": {"role": "user", "content": "one"}},
        {"type": "assistant", "sessionId": "x", "message": {"role": "assistant", "content": [{"type": "text", "text": "two"}]}},
    ]
    assert rows(from_transcript(records)) == [("", "", "one"), ("two", "", "")]


# ---------------------------------------------------------------------------------------------- Anthropic


def test_anthropic_request_with_compaction_block():
    s = load_transcript(FIXTURES / "anthropic_request.json")
    assert s.query == "You are a careful research assistant."
    assert rows(s) == [
        ("", "", "What is the boiling point of water at 2,000 m?"),
        ("Let me compute it.", 'boiling_point({"altitude_m": 2000})', "93.4 °C"),
        ("", "", "And at sea level?"),  # text after tool results: an input of its own
        ("At sea level it is 100 °C.", "", ""),
    ]
    assert s.steps[1].meta["thinking"] == "Use the altitude tool."
    (c,) = recorded_compactions(s)
    assert (c.t, c.system, c.trigger) == (3, "Anthropic API", "server") and "93.4" in c.summary


def test_anthropic_response():
    s = load_transcript(FIXTURES / "anthropic_response.json")
    assert rows(s) == [("Paris is the capital of France.", "", "")]
    assert s.steps[0].meta["thinking"] == "[redacted thinking]"


def test_anthropic_pair():
    request = {"system": "Be brief.", "messages": [{"role": "user", "content": "2+2?"}]}
    response = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "4"}]}
    s = from_transcript({"request": request, "response": response})
    assert s.query == "Be brief." and rows(s) == [("", "", "2+2?"), ("4", "", "")]


# ---------------------------------------------------------------------------------------------- OpenAI


def test_openai_chat_is_read_by_the_chat_log_rules():
    path = FIXTURES / "openai_chat.json"
    s, chat = load_transcript(path), load_chat_log(path)
    assert rows(s) == rows(chat) and s.query == chat.query == "Answer in one sentence." and s.tools == chat.tools
    assert s.steps[1].meta["thinking"] == "Multiply by 1.609." and "thinking" not in chat.steps[1].meta


def test_openai_responses_items():
    s = load_transcript(FIXTURES / "openai_responses.json")
    assert rows(s) == [
        ("", "", "Find the opening hours of the Louvre, then book a slot."),
        ("", 'web_search({"type": "search", "query": "Louvre opening hours"})', '{"status": "completed"}'),
        ("The Louvre opens 9:00–18:00, closed Tuesdays.",
         'book_slot({"day": "Wed", "time": "10:00"})\nsend_email({"to": "me"})',
         "[book_slot] booked W-1000\n[send_email] sent"),  # matched by call_id, in the calls' order
        ("Booked for Wednesday 10:00 (W-1000).", "", ""),
    ]
    assert s.steps[1].meta["thinking"] == "Search first, then book."
    (c,) = recorded_compactions(s)
    assert (c.t, c.system, c.summary) == (3, "OpenAI Responses", None)


def test_openai_response_object_and_request():
    response = {"object": "response", "instructions": "Be kind.", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi!"}]}]}
    s = from_transcript(response)
    assert s.query == "Be kind." and rows(s) == [("Hi!", "", "")]
    assert rows(from_transcript({"input": "Hello"}, "openai_responses")) == [("", "", "Hello")]


# ---------------------------------------------------------------------------------------------- OpenTelemetry, LangChain


@pytest.mark.parametrize("name", ["otel_otlp.json", "otel_spans.jsonl"])
def test_otel_spans_merge_into_one_conversation(name):
    s = load_transcript(FIXTURES / name)
    assert rows(s) == [
        ("", "", "Weather in Paris?"),
        ("", 'get_weather({"location": "Paris"})', "rainy, 57°F"),  # `result` read like `response`
        ("It is rainy, 57°F.", "", ""),
    ]
    assert s.steps[1].meta["thinking"] == "Call get_weather."
    if name == "otel_otlp.json":  # spans sorted by start time; the tool span holds no messages
        assert s.query == "You are a weather bot."


def test_otel_bare_message_list_and_response_part():
    messages = [{"role": "user", "parts": [{"type": "text", "content": "hi"}, {"type": "blob", "modality": "image", "content": "AAA"}]}]
    assert rows(from_transcript(messages)) == [("", "", "hi\n[image]")]


def test_langchain_shapes():
    s = load_transcript(FIXTURES / "langchain_messages.json")
    assert s.query == "You help with travel."
    assert rows(s) == [
        ("", "", "Flights from Oslo to Rome on 3 May?"),
        ("Searching.", 'search_flights({"from": "OSL", "to": "FCO", "date": "2026-05-03"})', "SK4711 08:05, 1,240 NOK"),
        ("SK4711 leaves at 08:05 for 1,240 NOK.", "", ""),
    ]
    assert s.steps[1].meta["thinking"] == "Search flights."
    assert rows(load_transcript(FIXTURES / "langchain_dumpd.json")) == [("", "", "Hi, I'm Ada."), ("Hello Ada!", "", "")]
    flat = [{"type": "human", "content": "x"}, {"type": "AIMessageChunk", "content": "y"}]
    assert rows(from_transcript(flat)) == [("", "", "x"), ("y", "", "")]


# ---------------------------------------------------------------------------------------------- AgentFold, routing


def test_agentfold_infer_log_goes_to_load_agentfold_log(monkeypatch):
    seen = []

    def fake(path, name=None, **kwargs):
        seen.append((Path(path).name, name, kwargs))
        return load_chat_log(FIXTURES / "openai_chat.json")

    monkeypatch.setattr(transcripts_module, "load_agentfold_log", fake)
    load_transcript(FIXTURES / "agentfold_infer.jsonl", v_max=900)
    assert seen == [("agentfold_infer.jsonl", "agentfold_infer", {"v_max": 900})]


def test_agentfold_infer_log_loads_once_the_reader_is_merged():
    """Runs where load_agentfold_log reads infer.py's records (H2a's branch, merged separately)."""
    from stmviz.scenarios import agentfold_log

    if not hasattr(agentfold_log, "is_infer_record"):
        pytest.skip("this load_agentfold_log does not read infer.py's records yet")
    s = load_transcript(FIXTURES / "agentfold_infer.jsonl", v_max=900)
    assert s.query == "Which year was the Eiffel Tower finished?" and s.v_max == 900
    assert s.steps[0].observation.startswith("1. Eiffel Tower - built 1887-1889")


def test_thinking_never_visible_and_a_run_works():
    for name in ("anthropic_request.json", "openai_responses.json", "otel_otlp.json", "langchain_messages.json"):
        s = load_transcript(FIXTURES / name)
        thoughts = [step.meta["thinking"] for step in s.steps if "thinking" in step.meta]
        assert thoughts and not any(t in step.text for t in thoughts for step in s.steps)
        from stmviz import FIFOWindow, StateSpace, sizes

        trace = run(FIFOWindow(StateSpace(sizes.tokens(), 400)), s)
        assert len(trace) == len(s.steps)


# ---------------------------------------------------------------------------------------------- errors


def _write(tmp_path, name, data, lines=False):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in data) if lines else json.dumps(data), encoding="utf-8")
    return path


CC = {"type": "assistant", "uuid": "a", "parentUuid": None, "sessionId": "s"}


@pytest.mark.parametrize("name, data, lines, fmt, message", [
    ("s.jsonl", [{**CC, "message": "oops"}], True, None, r"s.jsonl: line 1: message: expected the assistant record's Messages API message \(a JSON object\), got str"),
    ("r.json", {"system": "x", "messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]}, False, None,
     r"r.json: messages\[0\].content\[0\].tool_use_id: a tool_result block names the tool_use it answers"),
    ("r.json", {"system": "x", "messages": [{"role": "robot", "content": "x"}]}, False, None,
     r"r.json: messages\[0\].role: 'robot' is not user or assistant"),
    ("r.json", {"system": "x", "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}]}, False, None,
     r"r.json: messages\[0\].tool_call_id: a tool result must follow the assistant message whose tool_calls it answers \(no pending call 't9'\)"),
    ("i.json", [{"type": "function_call_output", "call_id": "zz", "output": "x"}], False, None,
     r"i.json: items\[0\].tool_call_id: a tool result must follow .*'zz'"),
    ("o.json", {"attributes": {"gen_ai.input.messages": "[{not json"}}, False, None,
     r"o.json: spans\[0\]: gen_ai.input.messages: the attribute is not valid JSON text"),
    ("o.json", {"attributes": {"gen_ai.input.messages": [{"role": "tool", "parts": [{"type": "tool_call_response", "response": "x"}]}]}}, False, None,
     r"o.json: spans\[0\]: gen_ai.input.messages\[0\].parts\[0\].id: a tool_call_response names the call it answers"),
    ("o.json", {"spans": [{"name": "tool"}]}, False, "otel", r"o.json: top level: no span holds gen_ai.input.messages"),
    ("l.json", [{"type": "human", "data": {"content": "x"}}, {"type": "ai", "data": {"content": 5}}], False, None,
     r"l.json: messages\[1\].content: expected text or a list of content blocks \(a JSON array\), got int 5"),
    ("l.json", [{"type": "human", "data": {"content": "x"}}, {"what": 1}], False, "langchain", r"l.json: messages\[1\]: not a LangChain message dict"),
    ("x.json", {"hello": "world"}, False, None, r"x.json: top level: cannot tell which transcript format this is .*; pass format= one of claude_code"),
    ("x.json", [], False, None, r"x.json: top level: cannot tell which transcript format"),
    ("c.json", {"messages": []}, False, "openai_chat", r"c.json: top level: no user, assistant or tool message in OpenAI chat messages: nothing to run"),
])
def test_malformed_files_get_one_line_errors(tmp_path, name, data, lines, fmt, message):
    path = _write(tmp_path, name, data, lines)
    with pytest.raises(FormatError, match=message) as info:
        load_transcript(path, fmt)
    assert "\n" not in str(info.value)


def test_bad_arguments(tmp_path):
    with pytest.raises(InvalidArgumentError, match=r"load_transcript: format must be one of 'claude_code'.*got str 'word': or None to detect it"):
        load_transcript(FIXTURES / "openai_chat.json", "word")
    with pytest.raises(STMError, match="example_transcript: name must be one of 'claude_code_session'.*got str 'nope'"):
        example_transcript("nope")
    with pytest.raises(FormatError, match="missing.jsonl"):
        load_transcript(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidArgumentError, match=r"recorded_compactions: steps must be a list \(or another iterable\) of AgentSteps.*got 5"):
        recorded_compactions(5)
    assert FORMATS[0] == "claude_code"


def test_truncated_and_binary_files(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"type": "user", "uuid": "a", "message": {"role": "user", "content": "hi"}}\n{"type": "assis', encoding="utf-8")
    with pytest.raises(FormatError, match=r"cut.jsonl: not valid JSON at line 2.*truncated"):
        load_transcript(path)
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\xff\xfe\x00garbage\x00\x81")
    with pytest.raises(FormatError):
        load_transcript(junk)


def test_in_memory_documents_must_be_plain_json():
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert rows(from_transcript(tuple(chat))) == [("", "", "hi"), ("hello", "", "")]  # tuples read as lists
    looped = {"role": "user", "content": "x"}
    looped["again"] = looped
    with pytest.raises(FormatError, match=r"m: messages\[0\].again: contains itself"):
        from_transcript({"messages": [looped]}, source="m")

    class Loud(str):
        pass

    with pytest.raises(FormatError, match=r"messages\[0\].content: 'hi' is not a JSON value"):
        from_transcript({"messages": [{"role": "user", "content": Loud("hi")}]})
    deep: list = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(FormatError, match="nested more than 200 levels"):
        from_transcript(deep)
