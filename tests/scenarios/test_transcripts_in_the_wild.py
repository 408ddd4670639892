"""Issue 33: transcripts as they are in the wild — Claude Code 2.x chains, unknown types, reports, hostile input."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from stmviz.core.context import AgentStep
from stmviz.errors import FormatError
from stmviz.scenarios import (
    Scenario,
    TranscriptReport,
    TranscriptWarning,
    from_transcript,
    load_agentfold_log,
    load_transcript,
    recorded_compactions,
)

from infer_reenactment import reenact, reply

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SESSION_2X = FIXTURES / "claude_code_2x.jsonl"


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return function(*args, **kwargs)


def text_of(scenario):
    return "\n".join([scenario.query, *(step.text for step in scenario.steps)])


# ------------------------------------------------------------------------------------ Claude Code 2.x


def test_a_2x_session_is_read_whole():
    """Its 8 texts and its tool call reach the steps (the chain runs through system and attachment records)."""
    records = [json.loads(line) for line in SESSION_2X.read_text().splitlines()]
    assert {r.get("version") for r in records if "version" in r} == {"2.0.76"}
    abandoned = {"u3", "a5"}  # the rewound prompt and its reply
    texts = [b["text"] if isinstance(b, dict) else b
             for r in records if r["type"] in ("user", "assistant") and r["uuid"] not in abandoned and not r.get("isCompactSummary")
             for b in ([r["message"]["content"]] if isinstance(r["message"]["content"], str) else r["message"]["content"])
             if isinstance(b, str) or b["type"] == "text"]
    assert len(set(texts)) == 8
    s = quiet(load_transcript, SESSION_2X)
    assert [t for t in texts if t not in text_of(s)] == []
    assert [c for st in s.steps for c in st.meta.get("call", ())] == ["toolu_01"]
    assert "def total(items, code=None)" in s.steps[1].observation
    assert "Fix it and add a test." not in text_of(s) and "Editing cart.py now." not in text_of(s)


def test_a_2x_session_report_tells_fork_gap_attachments_and_bookkeeping_apart():
    with pytest.warns(TranscriptWarning, match="record of an abandoned branch"):
        s = load_transcript(SESSION_2X)
    r = s.report
    assert r.count("record of an abandoned branch (a fork: rewind or edit)") == 2
    assert r.count("parent missing from the file (the chain goes on with the record before it)") == 1
    gap = next(i for i in r.guessed if i.kind.startswith("parent missing"))
    assert (gap.where, gap.example) == ("line 17", "p-missing-0001")
    assert r.count("attachment (todo_reminder) record on the chain (context Claude Code added, not read)") == 1
    assert r.count("system (turn_duration) record (not model input)") == 2
    assert r.count("system (stop_hook_summary) record (not model input)") == 1
    assert r.count("repeated record (same uuid and content as an earlier line)") == 1
    assert r.count("record not connected to the conversation's chain") == 0
    assert "left out: 2 × record of an abandoned branch" in s.description
    assert "Fix it, and keep the old signature." in text_of(s) and text_of(s).count("Fix it, and keep the old signature.") == 1


def test_the_compaction_boundary_is_found_through_logical_parent_on_an_attachment():
    s = quiet(load_transcript, SESSION_2X)
    (c,) = recorded_compactions(s)
    assert (c.t, c.trigger, c.pre_tokens, c.where) == (4, "manual", 21480, "line 19")
    assert c.summary.startswith("This session is being continued")
    assert "This session is being continued" not in text_of(s)  # the summary is not replayed as a user message
    assert "Now run the tests." in text_of(s) and "Compact and summarise" in text_of(s)


def _cc(uuid, parent, kind="user", text="x", **extra):
    message = {"role": kind, "content": text} if kind == "user" else {"id": f"m-{uuid}", "role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "message": message, **extra}


def test_a_true_fork_is_told_apart_from_a_parent_missing_from_the_file():
    fork = [_cc("u1", None, text="first"), _cc("a1", "u1", "assistant", "reply one"), _cc("u2", "a1", text="old edit"),
            _cc("u2b", "a1", text="new edit"), _cc("a2", "u2b", "assistant", "reply two")]
    s = quiet(from_transcript, fork, "claude_code")
    assert "old edit" not in text_of(s) and "new edit" in text_of(s) and "first" in text_of(s)
    assert s.report.count("record of an abandoned branch (a fork: rewind or edit)") == 1 and not s.report.guessed
    gap = [_cc("u1", None, text="first"), _cc("a1", "u1", "assistant", "reply one"),
           _cc("u2", "not-in-this-file", text="second"), _cc("a2", "u2", "assistant", "reply two")]
    s = quiet(from_transcript, gap, "claude_code")
    assert all(t in text_of(s) for t in ("first", "reply one", "second", "reply two"))
    assert s.report.complete and s.report.count("parent missing from the file (the chain goes on with the record before it)") == 1


def test_records_written_twice_are_read_once():
    records = [_cc("u1", None, text="question"), _cc("a1", "u1", "assistant", "answer")]
    s = quiet(from_transcript, json.loads(json.dumps(records + records)), "claude_code")
    assert text_of(s).count("answer") == 1 and s.report.count("repeated record (same uuid and content as an earlier line)") == 2
    changed = json.loads(json.dumps(records)) + [_cc("a1", "u1", "assistant", "another answer")]
    s = quiet(from_transcript, changed, "claude_code")
    assert "another answer" not in text_of(s)
    assert s.report.count("record reusing an earlier record's uuid (the earlier one is read)") == 1 and not s.report.complete


def test_an_unknown_block_in_a_session_is_kept_with_a_note():
    records = [_cc("u1", None, text="go"), {**_cc("a1", "u1", "assistant"), "message": {
        "id": "m", "role": "assistant", "content": [{"type": "hologram", "shape": "cube"}, {"type": "text", "text": "done"}]}}]
    s = quiet(from_transcript, records, "claude_code", source="s.jsonl")
    assert '[hologram] {"type": "hologram", "shape": "cube"}' in s.steps[1].thought
    item = next(i for i in s.report.kept if i.kind.startswith("unknown block"))
    assert (item.kind, item.count, item.where) == ("unknown block 'hologram' (kept as its JSON text)", 1, "records[1]: message.content[0]")


# ------------------------------------------------------------------------------------ the report and its warning


def test_no_warning_when_nothing_was_left_out():
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        s = from_transcript([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert isinstance(s.report, TranscriptReport) and s.report.complete and s.report.summary() == ""
    assert s.report.count("user text") == 1 and s.report.count("assistant text") == 1
    assert issubclass(TranscriptWarning, UserWarning)


def test_the_report_does_not_change_what_a_scenario_is():
    s = quiet(load_transcript, SESSION_2X)
    again = Scenario.from_dict(s.to_dict())
    assert again == s and again.report is None and "report" not in s.to_dict()


# ------------------------------------------------------------------------------------ hostile input

DEEP = "[" * 5000 + "]" * 5000


def test_deep_json_inside_an_otel_attribute_is_a_format_error():
    span = {"attributes": {"gen_ai.input.messages": DEEP}}
    with pytest.raises(FormatError, match=r"o.json: spans\[0\]: gen_ai.input.messages: the attribute's JSON text is nested more than 200"):
        from_transcript(span, "otel", source="o.json")
    medium = "[" * 300 + "]" * 300  # decodes, but deeper than a transcript may be
    with pytest.raises(FormatError, match="nested more than 200 levels"):
        from_transcript({"attributes": {"gen_ai.input.messages": medium}}, "otel", source="o.json")


MARK_CALL = {"name": "search", "arguments": {"query": ["MARK"]}}


def _infer_log(tmp_path, tag):
    """An infer.py log whose turn-1 <tool_call> or <compress> holds JSON nested 5,000 deep."""
    script = [reply("go", None, "search", {"name": "search", "arguments": {"query": ["x"]}}),
              reply("fold", ([0], "MARK"), "again", MARK_CALL),
              reply("done", None, None, answer="a")]
    run = reenact("Q?", script, lambda call: "found", max_turn=3)
    marked = json.dumps(MARK_CALL) if tag in ("tool_call", "nothing") else json.dumps({"compress_range": [0], "compress_text": "MARK"})
    assert run.full_traj.count(marked) >= 1
    path = tmp_path / "run.jsonl"
    full_traj = run.full_traj.replace(marked, DEEP) if tag != "nothing" else run.full_traj
    path.write_text(json.dumps({"question": "Q?", "final_response": "a", "full_traj": full_traj}) + "\n")
    return path


@pytest.mark.parametrize("tag", ["tool_call", "compress"])
def test_deep_json_inside_an_infer_block_is_a_format_error(tmp_path, tag):
    with pytest.raises(FormatError, match=r"run.jsonl: .*nested more than 200 levels deep"):
        load_agentfold_log(_infer_log(tmp_path, tag))


def _with_compaction(event):
    step = AgentStep(thought="", action="", observation="hi", meta={"recorded_compaction": [event]})
    return [step, AgentStep(thought="ok")]


@pytest.mark.parametrize("event, message", [
    ({"system": "Claude Code"}, r"\.t: .* got nothing \(no t\)"),
    ({"t": "1", "system": "Claude Code"}, r"\.t: expected the step .* 0 ≤ t ≤ 2, got str '1'"),
    ({"t": True}, r"\.t: .*got bool True"),
    ({"t": 7}, r"\.t: .*0 ≤ t ≤ 2, got int 7"),
    ({"t": 1, "pre_tokens": "1200"}, r"\.pre_tokens: expected a number of tokens ≥ 0 \(or null\), got str '1200'"),
    ({"t": 1, "pre_tokens": math.nan}, r"\.pre_tokens: expected a number of tokens ≥ 0 \(or null\), got float nan"),
    ({"t": 1, "pre_tokens": -3}, r"\.pre_tokens: expected a number of tokens ≥ 0 \(or null\), got int -3"),
    ({"t": 1, "summary": 5}, r"\.summary: expected text \(or null\), got int 5"),
    ("compacted", r": expected an object with 't'.* got str 'compacted'"),
])
def test_hand_edited_recorded_compactions_are_format_errors(event, message):
    with pytest.raises(FormatError, match=r"recorded_compactions: steps\[0\]\.meta\['recorded_compaction'\]\[0\]" + message):
        recorded_compactions(_with_compaction(event))


def test_a_well_formed_recorded_compaction_reads():
    (c,) = recorded_compactions(_with_compaction({"t": 1, "system": "X", "pre_tokens": 10}))
    assert (c.t, c.pre_tokens, c.label) == (1, 10, "X compacted (10 tokens)")
    assert type(c.pre_tokens) is int  # a count as recorded: printed "1,611", not "1,611.0"


def test_a_recorded_compaction_with_a_huge_token_count_reads_without_overflow():
    """An int beyond float's range is a number of tokens like any other (math.isfinite would overflow on it)."""
    (c,) = recorded_compactions(_with_compaction({"t": 1, "system": "X", "pre_tokens": 10**400}))
    assert c.pre_tokens == 10**400 and c.label == f"X compacted ({10**400:,} tokens)"


def test_compact_metadata_that_is_not_a_number_is_reported_not_read_as_nan():
    records = [_cc("u1", None, text="q"), _cc("a1", "u1", "assistant", "a"),
               {"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": None, "logicalParentUuid": "a1",
                "compactMetadata": {"trigger": "auto", "preTokens": "lots"}},
               _cc("u2", "c1", text="next"), _cc("a2", "u2", "assistant", "b")]
    s = quiet(from_transcript, records, "claude_code")
    (c,) = recorded_compactions(s)
    assert c.pre_tokens is None and "nan" not in c.label
    assert s.report.count("compaction whose preTokens is not a number of tokens (left unknown)") == 1


@pytest.mark.parametrize("value", ["true", 1, "false"])
def test_is_error_as_text_is_a_format_error(value):
    data = {"messages": [{"role": "user", "content": "x"},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": value}]}],
            "max_tokens": 5}
    with pytest.raises(FormatError, match=r"r.json: messages\[2\].content\[0\].is_error: expected true or false .*got "):
        from_transcript(data, "anthropic", source="r.json")
    data["messages"][2]["content"][0]["is_error"] = True
    assert from_transcript(data, "anthropic").steps[1].observation == "[error] boom"


def test_a_function_call_without_call_id_is_a_format_error_not_an_invented_result():
    items = [{"role": "user", "content": "x"}, {"type": "function_call", "name": "f", "arguments": "{}"}]
    with pytest.raises(FormatError, match=r"i.json: items\[1\].call_id: a function_call has the call_id"):
        from_transcript(items, "openai_responses", source="i.json")


def test_a_hosted_call_without_result_is_not_given_an_invented_one():
    items = [{"role": "user", "content": "x"}, {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "q"}}]
    s = quiet(from_transcript, items, "openai_responses")
    assert "(done by the provider)" not in text_of(s)
    assert s.steps[1].observation == '{"status": "completed"}'
    assert s.report.count("web_search_call with no result in the file (its status is the result)") == 1


def test_unknown_responses_items_and_parts_are_kept():
    items = [{"role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "input_hologram", "shape": "cube"}]},
             {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "wiki", "tools": []},
             {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}]
    s = quiet(from_transcript, items, "openai_responses", source="i.json")
    assert "mcpl_1" in text_of(s) and "input_hologram" in text_of(s)
    assert s.report.count("unknown item 'mcp_list_tools' (kept as its JSON text)") == 1
    assert s.report.count("unknown part 'input_hologram' (kept as its JSON text)") == 1


def test_server_tool_results_keep_their_content_as_tool_results():
    response = {"type": "message", "role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "code_execution", "input": {"code": "print(6*7)"}},
        {"type": "code_execution_tool_result", "tool_use_id": "s1",
         "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "", "return_code": 0}},
        {"type": "mcp_tool_use", "id": "s2", "name": "ask", "server_name": "wiki", "input": {"q": "x"}},
        {"type": "mcp_tool_result", "tool_use_id": "s2", "is_error": False, "content": [{"type": "text", "text": "wiki says y"}]},
        {"type": "server_tool_use", "id": "s3", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s3",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
        {"type": "text", "text": "The answer is 42."}]}
    s = from_transcript({"request": {"messages": [{"role": "user", "content": "go"}]}, "response": response}, "anthropic")
    results = [(step.action, step.observation) for step in s.steps if step.action]
    assert results == [('code_execution({"code": "print(6*7)"})', '{"stdout": "42\\n", "stderr": "", "return_code": 0}'),
                       ('ask({"q": "x"})', "wiki says y"),
                       ('web_search({"query": "q"})', "[error] max_uses_exceeded")]
    assert s.steps[-1].thought == "The answer is 42." and s.report.complete


def test_an_otel_server_tool_call_gets_its_response_and_no_invented_one():
    def span(parts):
        return {"attributes": {"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "weather?"}]}],
                               "gen_ai.output.messages": [{"role": "assistant", "parts": parts}]}}
    call = {"type": "server_tool_call", "id": "s1", "name": "web_search", "arguments": {"q": "oslo"}}
    answered = quiet(from_transcript, span([call, {"type": "server_tool_call_response", "id": "s1", "response": {"hits": ["4 °C"]}},
                                            {"type": "text", "content": "4 °C"}]), "otel")
    assert answered.steps[1].observation == '{"hits": ["4 °C"]}' and answered.report.summary() == ""
    alone = quiet(from_transcript, span([call]), "otel")
    assert "(done by the provider)" not in text_of(alone) and alone.steps[1].observation == ""
    assert alone.report.count("server_tool_call with no response in the file (left without a result)") == 1


def test_an_unknown_langchain_block_is_kept_with_a_note():
    messages = [{"type": "human", "content": [{"type": "text", "text": "look"}, {"type": "image", "url": "https://x/y.png"},
                                              {"type": "citation", "title": "Doc", "cited_text": "the fact"}]},
                {"type": "ai", "content": "seen"}]
    s = quiet(from_transcript, messages, "langchain", source="l.json")
    assert "[image]" in s.steps[0].observation and "the fact" in s.steps[0].observation
    assert s.report.count("unknown block 'citation' (kept as its JSON text)") == 1


def test_an_agentfold_log_has_a_report_too(tmp_path):
    s = load_transcript(_infer_log(tmp_path, "nothing"))  # the marked blocks left as they are
    assert s.report.complete and s.report.count("tool call") == sum(1 for st in s.steps if st.action)
    assert s.report.count("fold (a <compress> infer.py applied)") == sum(1 for st in s.steps if "fold" in st.directives) == 1
