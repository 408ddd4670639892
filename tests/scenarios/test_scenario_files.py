"""Bundled scenarios, the scenario schema, and errors on malformed scenario files."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stmviz
from stmviz import AgentStep, run
from stmviz.errors import FormatError
from stmviz.scenarios import (
    Probe,
    Scenario,
    UnknownScenarioError,
    bundled_names,
    list_scenarios,
    load_scenario,
    problems,
    json_schema,
    validate,
)
from stmviz.sizes import count_tokens

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "stmviz" / "scenarios" / "data"
BUNDLED = ["household", "long_dialogue", "tool_chat", "web_research"]


def raw(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- bundled scenarios


def test_list_scenarios_names_and_titles():
    infos = list_scenarios()
    assert [i.name for i in infos] == BUNDLED == bundled_names()
    for info in infos:
        name, title = info
        assert title == raw(name)["title"] and title


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenario_loads_and_is_runnable_shape(name):
    s = load_scenario(name)
    assert isinstance(s, Scenario) and s.name == name
    assert all(isinstance(step, AgentStep) for step in s.steps)
    assert all(isinstance(p, Probe) for p in s.probes) and s.probes
    assert s.query and s.v_max > 0 and s.mechanism
    assert s.meta["license"] == "MIT"
    # stmviz.run reads .steps, .query, .tools
    assert isinstance(s.tools, tuple) and all(isinstance(t, str) for t in s.tools)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenario_validates_against_schema_json_with_jsonschema(name):
    jsonschema.Draft202012Validator.check_schema(json_schema())
    jsonschema.validate(raw(name), json_schema(), cls=jsonschema.Draft202012Validator)
    assert problems(raw(name)) == []


@pytest.mark.parametrize("name", BUNDLED)
def test_capacity_matters(name):
    s = load_scenario(name)
    total = sum(count_tokens(step.text) for step in s.steps)
    assert total == s.token_count()
    assert total >= 3 * s.v_max, f"{name}: {total} tokens is not several times V_max = {s.v_max}"
    # and V_max is not absurdly small: the largest single step fits with room to spare
    assert max(count_tokens(step.text) for step in s.steps) < s.v_max / 2


@pytest.mark.parametrize("name", BUNDLED)
def test_probes_are_meaningful(name):
    s = load_scenario(name)
    for p in s.probes:
        assert 0 <= p.evidence_step < p.t <= len(s.steps)
        assert p.answer.casefold() in s.steps[p.evidence_step].text.casefold()
        assert p.answer.casefold() not in s.query.casefold()
        # the evidence step is the last place before t where the answer occurs
        for t in range(p.evidence_step + 1, p.t):
            assert p.answer.casefold() not in s.steps[t].text.casefold(), (name, p, t)


def test_web_research_shape():
    s = load_scenario("web_research")
    assert s.mechanism == "AgentFold" and len(s.steps) >= 30
    assert all(step.thought and step.action and step.observation for step in s.steps)
    folds = [step.directives.get("fold") for step in s.steps]
    assert folds[0] is None and all(fold is not None for fold in folds[1:])  # the first response folds nothing
    for t, fold in enumerate(folds[1:], start=1):
        x, y = fold["range"]
        assert y == t - 1 and 0 <= x <= y  # the agent folds [x, t-1]
        assert fold["summary"]  # and writes the summary of that range
    deep = [fold for fold in folds[1:] if fold["range"][0] < fold["range"][1]]
    assert len(folds) - 1 - len(deep) > len(s.steps) / 2 and len(deep) >= 3
    for probe in s.probes:  # the agent's summaries keep the facts a later question asks about
        assert any(probe.answer in fold["summary"] for fold in folds[1:] if fold["range"][0] <= probe.evidence_step)


def test_household_shape():
    s = load_scenario("household")
    assert s.mechanism == "HiAgent" and len(s.steps) >= 25 and len(s.subgoals) >= 4
    assert sum(bool(step.directives.get("subgoal_done")) for step in s.steps) >= 4
    retrieves = [step.directives["retrieve"] for step in s.steps if "retrieve" in step.directives]
    assert retrieves and all(0 <= r < len(s.subgoals) for ids in retrieves for r in ids)
    assert any(len(ids) >= 2 for ids in retrieves)  # one retrieval of several subgoals (issue 16)


def test_long_dialogue_shape():
    s = load_scenario("long_dialogue")
    assert s.mechanism == "SCM" and len(s.steps) >= 40
    assert not any(step.action for step in s.steps)
    # the conversation's order: the user's first message (input only), then (reply k-1, user message k), then the last reply
    first, middle, last = s.steps[0], s.steps[1:-1], s.steps[-1]
    assert first.observation and not first.thought
    assert all(step.thought and step.observation and step.meta["role"] == "user" for step in middle)
    assert last.thought and not last.observation and last.meta["role"] == "assistant"
    assert min(p.evidence_step for p in s.probes) <= 5 and min(p.t for p in s.probes) >= 30


def test_long_dialogue_probes_ask_in_the_message_just_before_t_and_need_no_cue_turns():
    """A question asked in the user's message of step k is probed at t = k + 1 and answered in step k + 1's reply."""
    s = load_scenario("long_dialogue")
    for p in s.probes:
        asked = s.steps[p.t - 1].observation
        assert "?" in asked and p.answer.casefold() not in asked.casefold()
        assert p.answer.casefold() in s.steps[p.t].thought.casefold(), p  # the reply produced from π(ω_t) answers it
        # the evidence is a fact the user stated: the input of the evidence step
        assert p.answer.casefold() in s.steps[p.evidence_step].observation.casefold()
    # each question step follows the previous question step directly (no turn in between to cue the topic)
    asked_at = sorted({p.t - 1 for p in s.probes})
    assert asked_at == list(range(asked_at[0], asked_at[-1] + 1))


def test_agent_trajectories_hold_an_output_then_its_observation():
    """household and web_research: every step is thought and action (output), then the action's result (input)."""
    for name in ("household", "web_research"):
        s = load_scenario(name)
        assert all(step.thought and step.action and step.observation for step in s.steps), name


def test_tool_chat_shape():
    s = load_scenario("tool_chat")
    assert s.mechanism == "FIFOWindow"
    tool_steps = [step for step in s.steps if step.action]
    plain = [step for step in s.steps if not step.action]
    assert len(tool_steps) >= 8 and len(plain) >= 8
    assert all(step.observation for step in tool_steps)
    assert all(step.meta["role"] == "tool" and step.meta["call"] for step in tool_steps)
    # the conversation's order: the customer speaks first; every later step opens with an assistant message
    assert s.steps[0].meta["role"] == "user" and not s.steps[0].thought
    assert all(step.meta["roles"][0] == "assistant" for step in s.steps[1:])
    # the probes look at the input the "double-check" answer is produced from
    ask = next(t for t, step in enumerate(s.steps) if "double-check" in step.observation)
    assert {p.t for p in s.probes} == {ask + 1}
    assert "BH-58213-K" in s.steps[ask + 1].thought


@pytest.mark.parametrize("name", BUNDLED)
def test_round_trip(name, tmp_path):
    s = load_scenario(name)
    assert Scenario.from_dict(s.to_dict()) == s
    path = tmp_path / "copy.json"
    s.to_json(path)
    again = load_scenario(path)
    assert again == s and again.source == "copy.json"


def test_bundled_files_are_what_the_generator_writes():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_scenarios.py"), "--check"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr


def test_run_accepts_a_scenario():
    from stmviz.core.mechanism import ExampleMechanism
    from stmviz import StateSpace, sizes

    s = load_scenario("tool_chat")
    trace = run(ExampleMechanism(StateSpace(sizes.words, 200)), s)
    assert len(trace) == len(s.steps) and trace.query == s.query and trace.tools == s.tools


def test_top_level_exports():
    assert stmviz.load_scenario is load_scenario and stmviz.Scenario is Scenario
    assert stmviz.list_scenarios is list_scenarios
    assert {"load_scenario", "list_scenarios", "Scenario"} <= set(stmviz.__all__)


# ---------------------------------------------------------------- malformed files


def write(tmp_path, name, data) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def minimal() -> dict:
    return {
        "name": "mini",
        "v_max": 100,
        "steps": [
            {"thought": "Look.", "action": "search('x')", "observation": "The key is under the blue mat."},
            {"thought": "Open it.", "action": "open(1)", "observation": "Nothing here.", "fold": {"op": "condense"}},
            {"observation": "Done.", "fold": {"op": "consolidate", "from": 0}},
        ],
        "probes": [{"t": 3, "question": "Where is the key?", "answer": "blue mat", "evidence_step": 0}],
    }


def error_of(tmp_path, data, name="bad.json") -> str:
    with pytest.raises(FormatError) as info:
        load_scenario(write(tmp_path, name, data))
    return str(info.value)


def test_minimal_is_valid(tmp_path):
    s = load_scenario(write(tmp_path, "mini.json", minimal()))
    assert len(s) == 3 and s.probes[0].answer == "blue mat"


def test_truncated_json(tmp_path):
    text = json.dumps(minimal(), indent=1)
    message = error_of(tmp_path, text[: len(text) // 2], "cut.json")
    assert message.startswith("cut.json: not valid JSON at line") and "truncated" in message


def test_empty_file(tmp_path):
    assert "empty" in error_of(tmp_path, "  \n", "empty.json")


def test_unknown_fold_op_names_file_step_field(tmp_path):
    data = minimal()
    data["steps"][1]["fold"]["op"] = "squash"
    message = error_of(tmp_path, data, "fifo_chat.json")
    assert message == "fifo_chat.json: steps[1].fold.op: 'squash' is not one of condense, consolidate"


@pytest.mark.parametrize(
    "mutate, where, what",
    [
        (lambda d: d["steps"][0].update(thought=3), "steps[0].thought", "expected text"),
        (lambda d: d.update(steps={"a": 1}), "steps", "expected a JSON array"),
        (lambda d: d.update(steps=[]), "steps", "at least 1"),
        (lambda d: d.pop("steps"), "top level", "missing required field 'steps'"),
        (lambda d: d.update(v_max=-5), "v_max", "must be > 0"),
        (lambda d: d.update(v_max="big"), "v_max", "expected a number"),
        (lambda d: d.update(tools="search"), "tools", "expected a JSON array"),
        (lambda d: d["steps"][1].update(subgoal_done="yes"), "steps[1].subgoal_done", "expected true or false"),
        (lambda d: d["steps"][1].update(colour="red"), "steps[1].colour", "unknown field 'colour'"),
        (lambda d: d["steps"][2]["fold"].pop("from"), "steps[2].fold", "missing required field 'from'"),
        (lambda d: d["steps"][1]["fold"].update({"from": 0}), "steps[1].fold", "'from' is not allowed"),
        (lambda d: d["steps"][2]["fold"].update({"from": 1.5}), "steps[2].fold.from", "expected a whole number"),
        (lambda d: d["probes"][0].pop("answer"), "probes[0]", "missing required field 'answer'"),
        (lambda d: d["probes"][0].update(t="3"), "probes[0].t", "expected a whole number"),
        (lambda d: d.update(version=2), "version", "expected 1"),
        (lambda d: d["steps"][0].update(meta={"priority": "urgent"}), "steps[0].meta.priority", "not one of low"),
    ],
)
def test_wrong_types_and_fields(tmp_path, mutate, where, what):
    data = minimal()
    mutate(data)
    message = error_of(tmp_path, data)
    assert message.startswith(f"bad.json: {where}: "), message
    assert what in message
    # the schema file agrees that the document is invalid
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize(
    "mutate, where, what",
    [
        (lambda d: d["probes"][0].update(evidence_step=3), "probes[0].evidence_step", "before t = 3"),
        (lambda d: d["probes"][0].update(t=1, evidence_step=1), "probes[0].evidence_step", "before t = 1"),
        (lambda d: d["probes"][0].update(t=9), "probes[0].t", "after the last state ω_3"),
        (lambda d: d["probes"][0].update(answer="red door"), "probes[0].answer", "does not occur in the text of steps[0]"),
        (lambda d: d["steps"][2]["fold"].update({"from": 2}), "steps[2].fold.from", "must be ≤ 1"),
        (lambda d: d["steps"][0].update(fold={"op": "consolidate", "from": 0}), "steps[0].fold.from", "step 0 has no"),
        (lambda d: d["steps"][1].update(subgoal_done=True), "steps[1].subgoal_done", "no subgoal is open"),
        (lambda d: d["steps"][2].update(meta={"retrieve": 0}), "steps[2].meta.retrieve", "finished: none yet"),
        (lambda d: d["steps"][1].update(thought="", action="", observation=""), "steps[1]", "has no text"),
    ],
)
def test_rules_beyond_the_schema(tmp_path, mutate, where, what):
    data = minimal()
    mutate(data)
    message = error_of(tmp_path, data)
    assert message.startswith(f"bad.json: {where}: "), message
    assert what in message


def test_retrieve_by_id_and_text():
    data = minimal()
    data["probes"] = []
    data["steps"][0]["subgoal"] = "Find the Key"
    data["steps"][1]["subgoal_done"] = True
    data["steps"][2]["meta"] = {"retrieve": 0}
    assert problems(data) == []
    data["steps"][2]["meta"] = {"retrieve": "find the key"}
    assert problems(data) == []
    data["steps"][2]["meta"] = {"retrieve": 1}
    assert problems(data)[0][0] == "steps[2].meta.retrieve"
    # a new marker finishes the previous subgoal, which becomes retrievable
    data["steps"][1] = {"observation": "next", "subgoal": "Open the door"}
    data["steps"][2]["meta"] = {"retrieve": 0}
    assert problems(data) == []


def test_several_problems_are_listed(tmp_path):
    data = minimal()
    data["steps"][0]["thought"] = 1
    data["steps"][1]["action"] = 2
    message = error_of(tmp_path, data)
    assert "steps[0].thought" in message and "steps[1].action" in message


def test_chat_log_given_to_load_scenario(tmp_path):
    message = error_of(tmp_path, [{"role": "user", "content": "hi"}], "chat.json")
    assert "chat log" in message and "load_chat_log" in message


def test_unknown_name():
    with pytest.raises(UnknownScenarioError) as info:
        load_scenario("no_such_scenario")
    assert "web_research" in str(info.value)
    assert isinstance(info.value, LookupError) and isinstance(info.value, FormatError)


def test_name_defaults_to_file_stem(tmp_path):
    data = minimal()
    del data["name"]
    assert load_scenario(write(tmp_path, "my_trip.json", data)).name == "my_trip"


def test_direct_construction_is_validated():
    with pytest.raises(FormatError, match=r"steps\[0\].fold.op"):
        Scenario("x", steps=({"observation": "a", "fold": {"op": "squash"}},))
    with pytest.raises(FormatError, match="evidence"):
        Probe(2, "q?", "a", 2)
    with pytest.raises(FormatError, match="unknown field"):
        Scenario("x", steps=({"observation": "a", "colour": "red"},))
    with pytest.raises(FormatError, match="tools"):
        Scenario("x", tools="search", steps=("a",))


def test_validate_defaults():
    with pytest.raises(FormatError, match="^scenario: top level: expected a JSON object"):
        validate([1, 2])


# ---------------------------------------------------------------- properties

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30).filter(str.strip)


@st.composite
def documents(draw):
    n = draw(st.integers(1, 8))
    steps = []
    for t in range(n):
        step = {"observation": draw(_text)}
        if draw(st.booleans()):
            step["thought"] = draw(_text)
        if draw(st.booleans()):
            step["action"] = draw(_text)
        if t > 0 and draw(st.booleans()):
            step["fold"] = draw(st.sampled_from([{"op": "condense"}, {"op": "consolidate", "from": draw(st.integers(0, t - 1))}]))
        steps.append(step)
    data = {"name": "gen", "steps": steps, "v_max": draw(st.integers(1, 10_000))}
    if n > 1:
        ev = draw(st.integers(0, n - 2))
        t = draw(st.integers(ev + 1, n))
        data["probes"] = [{"t": t, "question": "q?", "answer": steps[ev]["observation"], "evidence_step": ev}]
    return data


@settings(max_examples=60, deadline=None)
@given(documents())
def test_generated_documents_validate_and_round_trip(data):
    assert problems(data) == []
    jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)
    s = Scenario.from_dict(copy.deepcopy(data))
    assert Scenario.from_dict(s.to_dict()) == s
    assert [step.observation for step in s.steps] == [step["observation"] for step in data["steps"]]


@settings(max_examples=60, deadline=None)
@given(documents(), st.sampled_from(["fold_op", "from_late", "probe_late"]))
def test_generated_breakages_are_found(data, how):
    data = copy.deepcopy(data)
    last = len(data["steps"]) - 1
    if how == "fold_op":
        data["steps"][last]["fold"] = {"op": "squash"}
        where = f"steps[{last}].fold.op"
    elif how == "from_late":
        data["steps"][last]["fold"] = {"op": "consolidate", "from": last}
        where = f"steps[{last}].fold.from"
    else:
        data["probes"] = [{"t": 1, "question": "q?", "answer": "x", "evidence_step": 1}]
        where = "probes[0].evidence_step"
    found = problems(data)
    assert found and found[0][0] == where


def test_documented_example_is_valid():
    import types

    import stmviz.scenarios.schema as module

    assert isinstance(module, types.ModuleType)
    example = json.loads(module.__doc__.split("::", 1)[1].split("A step with")[0])
    assert problems(example) == []
    jsonschema.validate(example, json_schema(), cls=jsonschema.Draft202012Validator)
    s = Scenario.from_dict(example)
    assert s.name == "key_hunt" and s.subgoals == ("find the key",) and s.steps[2].meta["retrieve"] == 0
