"""The AgentFold transcript importer: tagged and structured responses, files, and clear errors for malformed input."""

from __future__ import annotations

import json

import pytest

from stmviz import AgentFold, StateSpace, run, sizes
from stmviz.errors import FormatError
from stmviz.scenarios import Scenario, from_agentfold_records, load_agentfold_log, validate
from stmviz.scenarios.agentfold_log import parse_response

Q = "Which city runs the largest e-bike fleet?"


def call(name: str, **args) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>"


def fold(x: int, y: int, text: str, tag: str = "fold") -> str:
    return f"<{tag}>" + json.dumps({"range": [x, y], "summary": text}) + f"</{tag}>"


TAGGED = [
    {"role": "system", "content": "You are a web agent. Tools: search, open_page."},
    {"role": "user", "content": Q},
    {"role": "assistant", "content": "<think>Start broad.</think>Search the fleets." + call("search", query="e-bike fleets")},
    {"role": "tool", "content": "1. Castellan: 3,200 bikes. 2. Norby: 640 bikes."},
    {"role": "assistant", "content": "<think>Confirm.</think>" + fold(0, 0, "Search: Castellan 3,200 bikes; Norby 640.")
     + "Open Castellan's page." + call("open_page", url="castellan.example")},
    {"role": "user", "content": "<tool_response>Castellan fleet: 3,200 bikes (2,600 e-bikes).</tool_response>"},
    {"role": "assistant", "content": fold(0, 1, "Castellan: 3,200 bikes incl. 2,600 e-bikes; Norby 640.", tag="compress")
     + "Castellan has the largest fleet.<answer>Castellan (3,200 bikes)</answer>"},
]


def test_tagged_transcript_becomes_steps_with_fold_directives():
    s = from_agentfold_records(TAGGED, "fleets")
    assert s.mechanism == "AgentFold" and s.query == Q and s.tools == ("search", "open_page")
    assert [st.action for st in s.steps] == [
        'search({"query": "e-bike fleets"})', 'open_page({"url": "castellan.example"})', ""
    ]
    assert s.steps[0].thought == "Search the fleets." and s.steps[0].meta["thinking"] == "Start broad."
    assert s.steps[0].observation.startswith("1. Castellan") and s.steps[0].meta["role"] == "tool"
    assert dict(s.steps[1].directives["fold"]) == {"range": (0, 0), "summary": "Search: Castellan 3,200 bikes; Norby 640."}
    assert s.steps[1].observation == "Castellan fleet: 3,200 bikes (2,600 e-bikes)."  # <tool_response> in a user turn
    assert "fold" not in s.steps[2].directives  # the answer turn's <compress> is never applied by the original
    assert s.steps[2].meta["ignored_fold"]["range"] == (0, 1)
    assert s.steps[2].thought == "Castellan has the largest fleet. Answer: Castellan (3,200 bikes)"
    assert "fold" not in s.steps[0].directives  # the first response folds nothing
    validate(s.to_dict())  # a valid scenario file (raises otherwise)


def test_imported_scenario_runs_and_blocks_hold_the_agents_text():
    s = from_agentfold_records(TAGGED, "fleets")
    m = AgentFold(StateSpace(sizes.tokens(), 2000))
    trace = run(m, s.steps, query=s.query, tools=s.tools)
    (block,) = AgentFold.blocks(trace.state_at(2))  # what the model saw when it answered
    assert block.text == "Search: Castellan 3,200 bikes; Norby 640." and block.meta["summary_by"] == "agent"
    assert Scenario.from_dict(s.to_dict()).steps == s.steps  # round trip through the scenario file format


def test_structured_records_and_step_base_1():
    records = [
        {"role": "user", "content": Q},
        {"role": "assistant", "explanation": "Search.", "tool_call": {"name": "search", "arguments": {"q": "fleet"}}},
        {"role": "tool", "content": "Norby: 640 bikes."},
        {"role": "assistant", "thinking": "ok", "fold": {"range": [1, 1], "summary": "Norby 640 bikes."},
         "tool_call": "open_page(norby)"},
        {"role": "tool", "content": "NorbyCykel page."},
    ]
    s = from_agentfold_records(records, step_base=1, tools=["search", "open_page"])
    assert s.steps[1].directives["fold"]["range"] == (0, 0) and s.steps[1].action == "open_page(norby)"
    assert s.steps[1].thought == "" and s.steps[1].meta["thinking"] == "ok"  # reasoning never enters I_t
    assert s.tools == ("search", "open_page")


def test_parse_response_bare_fold_json():
    r = parse_response('Done with A. {"range": [0, 3], "summary": "A: 42"} <tool_call>search(B)</tool_call>')
    assert r["fold"] == {"range": [0, 3], "summary": "A: 42"} and r["explanation"] == "Done with A."
    assert r["tool_call"] == "search(B)"


def test_load_json_and_jsonl_files(tmp_path):
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in TAGGED), encoding="utf-8")
    doc = tmp_path / "run.json"
    doc.write_text(json.dumps({"tools": ["search", "open_page", "finish"], "messages": TAGGED}), encoding="utf-8")
    a, b = load_agentfold_log(jsonl), load_agentfold_log(doc)
    assert a.name == "run" and b.tools == ("search", "open_page", "finish")
    assert [(st.thought, st.action, st.observation, st.directives) for st in a.steps] == [
        (st.thought, st.action, st.observation, st.directives) for st in b.steps
    ]
    assert a.steps[0].meta["records"] == ("line 3", "line 4") and b.steps[0].meta["records"] == ("messages[2]", "messages[3]")


@pytest.mark.parametrize(
    "records, match",
    [
        ("not a list", "expected a list of records"),
        ([{"role": "user", "content": Q}], "no assistant record"),
        ([["user", Q]], r"messages\[0\]: expected a record object"),
        ([{"role": "robot", "content": "x"}], r"messages\[0\]\.role: expected one of"),
        ([{"role": "user", "content": Q}, {"role": "tool", "content": "r"}], r"messages\[1\]: a tool message before any model response"),
        (TAGGED[:4] + [{"role": "assistant", "content": fold(0, 1, "x")}], r"messages\[4\]: response 1 \(step 1\) folds steps \[x, y\] with 0 ≤ x ≤ y ≤ 0"),
        (TAGGED[:4] + [{"role": "assistant", "content": '<fold>{"range": [0, 0], summary}</fold>'}], "not a JSON object with 'compress_range'"),
        (TAGGED[:4] + [{"role": "assistant", "content": fold(0, 0, "a") + fold(0, 0, "b")}], "one folding block, found 2"),
        (TAGGED[:4] + [{"role": "assistant", "fold": {"range": [], "summary": "x"}}], r"range must be step numbers \[x, …, y\]"),
        (TAGGED[:4] + [{"role": "assistant", "fold": {"range": [0, 0], "summary": ""}}], "summary must be non-empty text"),
        (TAGGED[:4] + [{"role": "assistant", "tool_call": {"arguments": {}}}], "a tool call needs a 'name'"),
        (TAGGED[:4] + [{"role": "assistant", "content": 5}], r"messages\[4\]\.content: expected text"),
    ],
)
def test_malformed_transcripts_are_clear_errors(records, match):
    with pytest.raises(FormatError, match=match):
        from_agentfold_records(records, source="run.json")


def test_malformed_files_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(TAGGED[1]) + "\n" + json.dumps({"role": "tool", "content": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad\.jsonl: line 2: a tool message before any model response"):
        load_agentfold_log(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(FormatError, match="broken.json"):
        load_agentfold_log(broken)
    with pytest.raises(FormatError, match="no such transcript file"):
        load_agentfold_log(tmp_path / "missing.json")
    obj = tmp_path / "obj.json"
    obj.write_text(json.dumps({"records": []}), encoding="utf-8")
    with pytest.raises(FormatError, match="'messages' list"):
        load_agentfold_log(obj)


def test_scenario_schema_reads_range_directives_and_names_bad_ones():
    from stmviz.scenarios import problems

    ok = {"steps": [{"observation": "a"}, {"observation": "b", "fold": {"range": [0, 0], "summary": "a"}},
                    {"observation": "c", "fold": {"op": "consolidate", "from": 0, "summary": "a, b"}}]}
    assert problems(ok) == []
    bad = {"steps": [{"observation": "a", "fold": {"range": [0, 0]}}, {"observation": "b", "fold": {"range": [0, 3]}}]}
    assert problems(bad) == [
        ("steps[0].fold.range", "step 0 has no earlier interaction to fold"),
        ("steps[1].fold.range", "the directive at step 1 folds a range [x, y] with x ≤ y ≤ 0, got [0, 3]"),
    ]
    assert problems({"steps": [{"observation": "a", "fold": {"summary": "x"}}]}) == [
        ("steps[0].fold", "missing required field 'op'")
    ]
    assert problems({"steps": [{"observation": "a", "fold": {"range": [0, 0], "summary": ""}}]})[0][0] == "steps[0].fold.summary"


def test_a_first_response_fold_is_ignored_as_the_original_ignores_it():
    s = from_agentfold_records([{"role": "user", "content": Q}, {"role": "assistant", "content": fold(0, 0, "x") + "go"}])
    assert "fold" not in s.steps[0].directives and s.steps[0].meta["ignored_fold"]["summary"] == "x"


def test_released_keys_motivation_and_a_reply_without_opening_think():
    text = ("reasoning only</think><compress>" + json.dumps({"compress_range": [0, 1, 2], "compress_text": "s"})
            + "</compress><motivation>Open it.</motivation><tool_call>open(1)</tool_call>")
    r = parse_response(text)
    assert r["thinking"] == "reasoning only" and r["explanation"] == "Open it."
    assert r["fold"] == {"range": [0, 2], "summary": "s"} and r["tool_call"] == "open(1)"
