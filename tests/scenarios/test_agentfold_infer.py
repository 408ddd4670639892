"""AgentFold's released transcripts replay exactly (issue 25): infer.py's JSONL and full_traj, re-enacted with a script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stmviz import AgentFold, StateSpace, run, sizes
from stmviz.errors import FormatError
from stmviz.scenarios import load_agentfold_log
from stmviz.scenarios.agentfold_log import from_infer_trajectory, load_agentfold_runs

from infer_reenactment import LAST_TURN, reenact, reply

FIXTURE = Path(__file__).with_name("fixtures") / "agentfold_infer_small.jsonl"
QUESTION = "Which river town hosted the first e-bike library, and in which year did it open?"

RESULTS = {
    "e-bike library first": "1. [Velo Lend, Moorfield](https://example.org/a)\n\n2. Library of Things - bikes **2016**",
    "Moorfield": "Evidence in page:\nMoorfield (river Aln) opened its e-bike library in 2014.\n\nSummary:\nopened 2014",
    "Velo Lend opening": "No page states an opening date.",
    "Aln towns": "Moorfield, Kettering-on-Aln, Brisby",
    "Kettering-on-Aln bikes": "Kettering-on-Aln lends cargo bikes since 2019.",
    "Brisby bikes": "Brisby: no bike library.",
    "2014 press": "Press note (March 2014): 'first in the country'.",
    "Moorfield council": "Council minutes 2013: library approved.",
    "confirm 2014": "Two sources agree: 2014.",
    "final check": "No earlier e-bike library found.",
}


def tool(call: str) -> str:
    args = json.loads(call)["arguments"]
    key = args["query"][0] if "query" in args else args["goal"]
    return RESULTS[key]


def search(q: str) -> dict:
    return {"name": "search", "arguments": {"query": [q]}}


def visit(goal: str) -> dict:
    return {"name": "visit", "arguments": {"url": ["https://example.org/a"], "goal": goal}}


# every rule of the released loop, turn by turn
SCRIPT = [
    reply("Start broad.", ([0], "ignored: nothing to fold yet"), "Find candidates.", search("e-bike library first")),
    reply("Moorfield looks right.", ([0], "Step 0: candidates Moorfield (Velo Lend), a 2016 library."), None, visit("Moorfield"),
          opening_think=False),  # no motivation; no opening <think>
    reply("Check Velo Lend.", ([1, 1], "Step 1: Moorfield opened 2014."), "Date of Velo Lend.", search("Velo Lend opening")),
    reply("Fold the start.", ([0, 1, 2], "Steps 0-2: Moorfield's library opened 2014; Velo Lend undated."),  # a list of three
          "Other towns on the Aln.", search("Aln towns")),
    reply("Next town.", ([3, 3], "Step 3: Aln towns Moorfield, Kettering-on-Aln, Brisby."), "Kettering.",
          search("Kettering-on-Aln bikes")),
    reply("Next.", ([4, 4], "Step 4: Kettering-on-Aln since 2019."), "Brisby.", search("Brisby bikes")),
    reply("Fold 4-5.", ([4, 5], "Steps 4-5: other Aln towns are later or have none."), "Press.", search("2014 press")),
    reply("Overlap.", ([5, 6], "Steps 5-6: Brisby none; 2014 press says first."), "Council.", search("Moorfield council")),
    reply("Old step.", ([3, 3], "Step 3 (again): three Aln towns."), "Confirm.", search("confirm 2014")),  # ends before t-1
    reply("Almost.", ([8, 8], "Step 8: two sources agree on 2014."), "Last check.", search("final check")),
    reply("Done.", ([9, 9], "never applied"), None, answer="Moorfield, 2014"),  # the answer turn's <compress>
]


@pytest.fixture(scope="module")
def original():
    return reenact(QUESTION, SCRIPT, tool)


def entries_of(state) -> list[tuple[int, int, str]]:
    out = [(b.meta["range"][0], b.meta["range"][1], b.text) for b in AgentFold.blocks(state)]
    out += [(e.meta["step"], e.meta["step"], e.text) for e in state.where(type="latest")]
    return sorted(out, key=lambda e: e[0])


def test_the_reenactment_exercises_every_rule(original):
    assert len(original.prompts) == 11 and original.final_response == "Moorfield, 2014"
    assert (4, 5, "Steps 4-5: other Aln towns are later or have none.") in original.entries[7]
    assert [e[:2] for e in original.entries[8]] == [(0, 2), (3, 3), (4, 5), (5, 6), (7, 7)]  # overlap
    assert [e[:2] for e in original.entries[9]] == [(0, 2), (3, 3), (4, 5), (5, 6), (7, 7), (8, 8)]  # 7 kept in full


def test_the_importer_reads_every_step_of_full_traj(original):
    s = from_infer_trajectory(original.full_traj)
    assert s.query == QUESTION and s.tools == ("search", "visit") and len(s.steps) == 11
    assert s.steps[0].observation == RESULTS["e-bike library first"]  # read from the next prompt's [Step 0]
    assert s.steps[1].thought == "" and s.steps[1].meta["thinking"] == "Moorfield looks right."  # no <think>: no leak
    assert "</think>" not in "".join(st.thought + st.action for st in s.steps)
    assert s.steps[2].thought == "Date of Velo Lend."  # <motivation> without its tags
    assert "fold" not in s.steps[0].directives and "ignored: nothing" in s.steps[0].meta["ignored_compress"]
    assert dict(s.steps[3].directives["fold"]) == {"range": (0, 2), "summary": "Steps 0-2: Moorfield's library opened 2014; Velo Lend undated."}
    last = s.steps[-1]
    assert last.meta["answer"] == "Moorfield, 2014" and "fold" not in last.directives and "never applied" in last.meta["ignored_compress"]


@pytest.mark.parametrize("layout", ["original", "stmviz"])
def test_replay_equals_the_originals_step_list_and_prompt_at_every_turn(original, layout):
    s = from_infer_trajectory(original.full_traj)
    trace = run(AgentFold(StateSpace(sizes.tokens(), 10**6), layout=layout), s)
    for n, expected in enumerate(original.entries):
        omega = trace.state_at(n)
        blocks = [(b.meta["range"][0], b.meta["range"][1], b.text) for b in AgentFold.blocks(omega)]
        folded = [e for e in expected if e[2].startswith("Step") or e[2].startswith("Steps")]  # the agent's summaries
        assert [b for b in blocks if b[2].startswith(("Step", "Steps"))] == folded, n
        assert [(x, y) for x, y, _ in entries_of(omega)] == [(x, y) for x, y, _ in expected], n
        if layout == "original":
            assert entries_of(omega) == expected, n  # the texts too, the latest interaction and kept steps included
            assert trace.project(n)[-1].text == original.prompts[n], n  # π's user message is the original's prompt
        else:
            for x, y, text in expected:
                if x == y and not text.startswith("Step"):  # a step in full: its tool response is in π
                    assert text.split("**Tool response:** ")[1] in trace.project(n).text()


def test_the_last_turns_prompt_differs_only_by_the_originals_closing_instruction():
    script = SCRIPT[:2] + [reply("Out of turns.", None, None, answer="Moorfield, 2014")]
    original = reenact(QUESTION, script, tool, max_turn=3)
    assert original.prompts[2].endswith(LAST_TURN)
    s = from_infer_trajectory(original.full_traj)
    trace = run(AgentFold(StateSpace(sizes.tokens(), 10**6), layout="original"), s)
    assert trace.project(2)[-1].text + LAST_TURN == original.prompts[2]
    assert s.steps[1].observation == RESULTS["Moorfield"]


def test_jsonl_file_bare_full_traj_and_fixture_load(original, tmp_path):
    record = {"question": QUESTION, "answer": "Moorfield (2014)", "final_response": original.final_response,
              "full_traj": original.full_traj}
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text(json.dumps(record) + "\n" + json.dumps({**record, "question": "Second?"}) + "\n", encoding="utf-8")
    one = load_agentfold_log(jsonl)
    assert one.steps == from_infer_trajectory(original.full_traj).steps and "Moorfield (2014)" in one.description
    assert load_agentfold_log(jsonl, run=1).query == "Second?" and len(load_agentfold_runs(jsonl)) == 2
    bare = tmp_path / "traj.txt"
    bare.write_text(original.full_traj, encoding="utf-8")
    assert load_agentfold_log(bare).steps == one.steps
    fixture = load_agentfold_runs(FIXTURE)
    assert [len(r.steps) for r in fixture] == [4, 3]
    trace = run(AgentFold(StateSpace(sizes.tokens(), 4000)), fixture[0])
    assert [b.meta["summary_by"] for b in AgentFold.blocks(trace.state_at(3))] == ["agent", "agent"]  # the answer's prompt
    assert "December 2-7, 2025" in fixture[0].description and fixture[1].steps[-1].meta["answer"].startswith("Moorfield")


@pytest.mark.parametrize(
    "text, match",
    [
        ("hello", "start with '\\[START OF A TURN\\] 0'"),
        ("[START OF A TURN] 0\n\n[START OF USER PROMPT]\n### Question\nq\n\n### Previous Steps\nEMPTY", "START OF ASSISTANT"),
        ("[START OF A TURN] 0\n\n[START OF USER PROMPT]\n### Question\nq\n\n### Previous Steps\nEMPTY\n\n"
         "[START OF ASSISTANT]\n<think>x</think>nothing\n\n", "tool_call"),
    ],
)
def test_malformed_full_traj_is_a_clear_error(text, match):
    with pytest.raises(FormatError, match=match):
        from_infer_trajectory(text)


def test_a_compress_that_is_not_json_names_the_turn(original):
    broken = original.full_traj.replace('<compress>{"compress_range": [1, 1]', "<compress>{oops [1, 1]")
    with pytest.raises(FormatError, match="turn 2: the <compress> block is not JSON"):
        from_infer_trajectory(broken)
