"""Real transcripts, from public MIT-licensed repositories (tests/data/real_transcripts/SOURCES.md), read whole.

Each file loads with format detection, and what reaches the steps — texts, tool
calls, tool results, compactions — is compared with a count made here by a
few lines of plain JSON walking per format, independent of the importer.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from stmviz.scenarios import TranscriptReport, TranscriptWarning, detect_format, load_transcript, recorded_compactions

DATA = Path(__file__).resolve().parent.parent / "data" / "real_transcripts"


# ----------------------------------------------------------------------------------- independent counts


def _blank(text):
    return not isinstance(text, str) or not text.strip()


def _count_claude_code(path):
    """Non-sidechain user/assistant records (these sessions have no fork): texts, call ids, results, compactions."""
    texts, calls, results, compactions = [], [], 0, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("isSidechain"):
            continue
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            compactions += 1
        if record.get("type") not in ("user", "assistant") or record.get("isCompactSummary"):
            continue
        content = record["message"]["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        for block in content:
            if block["type"] == "text":
                texts.append(block["text"])
            elif block["type"] == "tool_use":
                calls.append(block["id"])
            elif block["type"] == "tool_result":
                results += 1
    return texts, calls, results, compactions


def _count_anthropic(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    messages = data["request"]["messages"] + [data["response"]]
    texts, calls, results, compactions, unknown = [], [], 0, 0, []
    for message in messages:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            kind = block["type"]
            if kind == "text":
                texts.append(block["text"])
            elif kind in ("tool_use", "server_tool_use"):
                calls.append(block["id"])
            elif kind == "tool_result" or kind.endswith("_tool_result"):
                results += 1
                if kind == "tool_result" and isinstance(block.get("content"), list):
                    unknown += [b for b in block["content"] if b["type"] not in ("text", "image")]
                if kind == "web_search_tool_result":  # the results' titles and URLs are kept
                    texts += [r["title"] for r in block["content"]] + [r["url"] for r in block["content"]]
            elif kind == "compaction":
                compactions += 1
    return texts, calls, results, compactions, unknown


def _count_chat(messages):
    texts, calls, results = [], [], 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            texts += [p["text"] for p in content if p.get("type") == "text"]
        elif message["role"] != "tool":
            texts.append(content)
        for call in message.get("tool_calls") or ():
            calls.append(call["id"])
        if message["role"] == "tool":
            results += 1
    return texts, calls, results


def _count_responses(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data.get("input", []) + data.get("output", [])
    texts, calls, results, compactions, unknown = [], [], 0, 0, []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            content = item["content"]
            texts += [content] if isinstance(content, str) else [p["text"] for p in content]
        elif kind in ("function_call", "custom_tool_call"):
            calls.append(item["call_id"])
        elif kind.endswith("_call_output"):
            results += 1
        elif kind.endswith("_call"):  # a hosted tool: its call holds its result
            calls.append(item["id"])
            results += 1
        elif kind == "compaction":
            compactions += 1
        elif kind != "reasoning":
            unknown.append(item)
    return texts, calls, results, compactions, unknown


# ----------------------------------------------------------------------------------- what reached the steps


def _reached(scenario):
    text = "\n".join([scenario.query, *(step.text for step in scenario.steps)])
    calls = sorted(c for step in scenario.steps for c in step.meta.get("call", ()))
    results = sum(list(step.meta.get("roles", ())).count("tool") for step in scenario.steps)
    return text, calls, results, len(recorded_compactions(scenario))


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return load_transcript(path)


def _check(scenario, texts, calls, results, compactions):
    text, got_calls, got_results, got_compactions = _reached(scenario)
    missing = [t for t in texts if not _blank(t) and t.strip() not in text]
    assert missing == [], f"{len(missing)} of {len(texts)} texts did not reach the steps, e.g. {missing[0][:80]!r}"
    assert got_calls == sorted(calls)  # ids, with repeats (a replayed SWE-agent demonstration reuses its call ids)
    assert got_results == results
    assert got_compactions == compactions
    assert isinstance(scenario.report, TranscriptReport)
    assert scenario.report.count("tool call") == len(calls) and scenario.report.count("tool result") == results


CLAUDE_CODE = sorted((DATA / "claude_code").glob("*.jsonl"))
ANTHROPIC = sorted((DATA / "anthropic").glob("*.json"))
RESPONSES = sorted((DATA / "openai_responses").glob("*.json"))


def test_the_files_are_here():
    assert len(CLAUDE_CODE) == 3 and len(ANTHROPIC) == 4 and len(RESPONSES) == 5
    assert (DATA / "SOURCES.md").is_file() and (DATA / "LICENSES.md").is_file()


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=lambda p: p.name[:8])
def test_claude_code_sessions_read_whole(path):
    assert detect_format(path) == "claude_code"
    scenario = _load(path)
    texts, calls, results, compactions = _count_claude_code(path)
    _check(scenario, texts, calls, results, compactions)
    sidechain = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if json.loads(line).get("isSidechain"))
    assert scenario.report.count("sidechain (sub-agent) record") == sidechain
    assert scenario.report.complete == (sidechain == 0)
    assert "abandoned" not in str(scenario.report)  # these sessions have no fork


def test_sidechains_are_reported_with_a_warning():
    path = DATA / "claude_code" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    with pytest.warns(TranscriptWarning, match=r"405 × sidechain \(sub-agent\) record"):
        scenario = load_transcript(path)
    assert "left out: 405 × sidechain (sub-agent) record" in scenario.description
    item = next(i for i in scenario.report.left_out if i.kind == "sidechain (sub-agent) record")
    assert item.where == "line 16" and item.example.startswith("Create React components")


@pytest.mark.parametrize("path", ANTHROPIC, ids=lambda p: p.name[11:40])
def test_anthropic_bodies_read_whole(path):
    assert detect_format(path) == "anthropic"
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)  # nothing is left out of these
        scenario = load_transcript(path)
    texts, calls, results, compactions, unknown = _count_anthropic(path)
    _check(scenario, texts, calls, results, compactions)
    text = _reached(scenario)[0]
    for block in unknown:  # tool_reference: kept as its JSON text, and noted
        assert json.dumps(block["tool_name"]) in text
        assert scenario.report.count(f"unknown block {block['type']!r} (kept as its JSON text)") == 1


def test_server_web_search_results_keep_titles_and_urls():
    scenario = _load(DATA / "anthropic" / "pydantic-ai_test_anthropic_web_search_tool.json")
    search = [step for step in scenario.steps if tuple(step.meta.get("tool", ())) == ("web_search",)]
    assert len(search) == 2
    assert "https://" in search[0].observation and "[encrypted page content]" in search[0].observation
    assert search[0].action == 'web_search({"query": "San Francisco weather today"})'
    assert "Based on the search results" in scenario.steps[scenario.steps.index(search[0]) + 1].thought


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name[34:70])
def test_openai_responses_bodies_read_whole(path):
    assert detect_format(path) == "openai_responses"
    scenario = _load(path)
    texts, calls, results, compactions, unknown = _count_responses(path)
    _check(scenario, texts, calls, results, compactions)
    text = _reached(scenario)[0]
    for item in unknown:  # mcp_list_tools: kept as its JSON text, and noted
        assert item["id"] in text
        assert scenario.report.count(f"unknown item {item['type']!r} (kept as its JSON text)") == 1


def test_responses_compact_body_is_detected():
    path = DATA / "openai_responses" / "pydantic-ai_test_openai_responses_compact_messages.response.json"
    assert json.loads(path.read_text())["object"] == "response.compaction"
    scenario = _load(path)
    [compaction] = recorded_compactions(scenario)
    assert compaction.system == "OpenAI Responses" and compaction.where == "output[2]"


def test_openai_chat_request_reads_whole():
    path = DATA / "openai_chat" / "pydantic-ai_test_multiple_agent_tool_calls.request.json"
    assert detect_format(path) == "openai_chat"
    scenario = _load(path)
    texts, calls, results = _count_chat(json.loads(path.read_text())["messages"])
    _check(scenario, texts, calls, results, 0)


@pytest.mark.parametrize("name", ["swe-agent_gpt4_pydicom-1458.traj", "swe-agent_function-calling-replay_marshmallow-1867.traj"])
def test_swe_agent_trajectories_read_whole(name):
    path = DATA / "openai_chat" / name
    assert detect_format(path) == "swe_agent"
    scenario = _load(path)
    history = json.loads(path.read_text())["history"]
    texts, calls, results = _count_chat(history)
    _check(scenario, texts, calls, results, 0)
    assistant = sum(1 for m in history if m["role"] == "assistant")
    assert sum(list(step.meta["roles"]).count("assistant") for step in scenario.steps) == assistant
    assert scenario.report.complete


def test_swe_agent_trajectory_without_history(tmp_path):
    data = json.loads((DATA / "openai_chat" / "swe-agent_gpt4_pydicom-1458.traj").read_text())
    del data["history"]
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(data))
    scenario = _load(path)
    steps = data["trajectory"]
    assert len(scenario.steps) == len(steps)
    assert [s.thought for s in scenario.steps] == [e["response"] for e in steps]
    assert [s.observation for s in scenario.steps] == [e["observation"] for e in steps]
    assert "read from 'trajectory'" in scenario.description
