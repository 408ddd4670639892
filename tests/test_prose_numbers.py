"""Numbers quoted in the notebooks' prose are the ones the cells print.

Where a markdown cell quotes a value a cell prints, the value is followed by a
marker, ``135<!-- printed: above -->`` (invisible when rendered): the nearest
code cell above (or ``below``) must print that value, as a whole token, in the
executed notebook. A change that moves the number (a new scenario, a fix in a
mechanism) then fails here instead of leaving the text to contradict the output.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb")) + sorted(
    (Path(__file__).resolve().parents[1] / "notebooks").glob("ru/*.ipynb"))  # a translation quotes the same numbers
MARKER = re.compile(r"([^\s(>]+?)<!-- printed: (above|below) -->")


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _printed(cell: dict) -> str:
    """Everything a code cell printed or displayed, as plain text (HTML tags dropped)."""
    parts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            parts.append(_text(output["text"]))
        data = output.get("data", {})
        if "text/plain" in data:
            parts.append(_text(data["text/plain"]))
        if "text/html" in data:
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", _text(data["text/html"]))))
    return "\n".join(parts)


def quotes(path: Path) -> list[tuple[str, str, str]]:
    """(value, where, what the cell printed) for every marked value in the notebook's prose."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for value, where in MARKER.findall(_text(cell["source"])):
            step = -1 if where == "above" else 1
            j = i + step
            while 0 <= j < len(cells) and cells[j]["cell_type"] != "code":
                j += step
            printed = _printed(cells[j]) if 0 <= j < len(cells) else ""
            found.append((value, f"{path.parent.name}/{path.name}, markdown cell {i}, the code cell {where} (cell {j})", printed))
    return found


ALL = [q for path in NOTEBOOKS for q in quotes(path)]


def test_the_prose_quotes_values_with_markers():
    assert len(ALL) >= 4, "the notebooks' prose should mark the numbers it quotes from outputs"


@pytest.mark.parametrize("value, where, printed", ALL, ids=[f"{w}: {v}" for v, w, _ in ALL])
def test_a_quoted_value_is_what_the_cell_prints(value, where, printed):
    token = re.compile(r"(?<![\w.,])" + re.escape(value) + r"(?![\w]|[.,]\d)")
    assert token.search(printed), f"{where} quotes {value!r}, but that cell prints:\n{printed[:1500]}"


# -- notebooks 00-03: numbers the prose derives from an output (not printed as such) --------------------------

def _source(name: str) -> str:
    return (NOTEBOOKS[0].parent / f"{name}.md").read_text(encoding="utf-8")


def test_03_says_how_much_larger_the_support_chat_is_than_its_window():
    from stmviz import load_scenario

    scenario = load_scenario("tool_chat")
    ratio = f"{scenario.token_count() / scenario.v_max:.1f}"
    assert f"about {ratio} times larger than the window" in _source("03_fifo_context_window")


def test_the_predictions_of_01_to_03_are_what_their_run_cells_print():
    """The reference predictions (the keys' answers) agree with the outputs shown right after each prediction."""
    import json

    from stmviz.exercise_solutions import SOLUTIONS

    cells = {p.stem: json.loads(p.read_text(encoding="utf-8"))["cells"] for p in NOTEBOOKS if p.parent.name != "ru"}

    def printed_after(notebook: str, key: str) -> str:
        nb = cells[notebook]
        at = next(i for i, c in enumerate(nb) if c["cell_type"] == "markdown" and f'solution("{key}")' in _text(c["source"]))
        return _printed(next(c for c in nb[at:] if c["cell_type"] == "code"))

    fits = printed_after("01_definition1_state_space", "01-which-fit")
    assert SOLUTIONS["01-which-fit"].startswith('\nfits = {"B", "C", "E"}')
    assert all(f"'{n}': ({size}, {truth})" in fits for n, size, truth in
               [("A", 21, False), ("B", 15, True), ("C", 14, True), ("D", 771, False), ("E", 0, True), ("F", 29, False)])
    window = printed_after("02_definition2_mechanism", "02-predict-window")
    assert "kept = {2, 3, 4}" in SOLUTIONS["02-predict-window"]
    rows = {line.split()[0]: line for line in window.splitlines() if line[:1].isdigit()}  # the table's rows by t
    assert "'The user is allergic to peanuts.'" in rows["3"] and "It is raining" in rows["4"]  # what leaves: ω_5
    leaves = printed_after("03_fifo_context_window", "03-which-leave")
    lines = leaves.rstrip("\n").splitlines()
    last_row = lines[next(i for i in range(len(lines) - 1, -1, -1) if lines[i][:1].isdigit()):]  # row 2, its lines
    assert lines[-2].startswith("2 ") and "19 → 17 / 20" in last_row[0], leaves
    removed = " ".join(last_row)
    assert "'My parcel 1234 has …'" in removed and "'Let me check the tr…'" in removed, leaves  # width=20: cut


# -- notebooks 04-07 (issue 34): statements whose numbers come from a run, checked against that run ------------

def _markdown(name: str) -> str:
    path = Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.md"
    return re.sub(r"<!-- printed: (above|below) -->", "", path.read_text(encoding="utf-8"))


def test_05_says_what_happens_to_the_retrieved_subgoals_before_the_next_switch():
    """Issue 34 item 6: 05 said "at the next subgoal switch both fold back"; subgoal 1 is gone by then."""
    from stmviz import HiAgent, load_scenario, run

    scenario = load_scenario("household")
    trace = run(HiAgent(scenario.space()), scenario)
    ask = next(t for t, step in enumerate(trace) if any(op.type == "retrieve" for op in step.operations))
    switch = next(s for s in range(ask + 1, len(trace)) if any(op.type == "subgoal" for op in trace[s].operations))
    gone = {(s, e.type, e.meta["subgoal"], e.meta.get("step")) for s in range(ask + 1, switch + 1)
            for e, why in zip(trace[s].removed, trace[s].reasons)
            if e.meta.get("subgoal") in (1, 3) and "renewed" not in why}
    pair_1 = next(s for s, kind, k, _ in gone if kind == "retrieved" and k == 1)
    summary_1 = next(s for s, kind, k, _ in gone if kind == "summary" and k == 1)
    early_3 = sorted(step for s, kind, k, step in gone if kind == "retrieved" and k == 3 and s < switch)
    at_switch = sorted(step for s, kind, k, step in gone if kind == "retrieved" and k == 3 and s == switch)
    got_back = len([e for e in trace.state_at(ask + 1) if e.type == "retrieved" and e.meta["subgoal"] == 3])
    text = " ".join(_markdown("05_hiagent").split())
    assert (pair_1, summary_1, switch) == (17, 19, 23)
    assert "both fold back" not in text
    assert f"drops its one retrieved pair at step {pair_1} and then its summary at step {summary_1}" in text
    assert f"(steps {early_3[0]} and {early_3[1]}, at step 21)" in text and len(early_3) == 2
    assert f"at the switch, step {switch}, only subgoal 3 folds back" in text
    assert (f"giving up the {len(at_switch)} pairs it still held (steps {at_switch[0]}, {at_switch[1]} and "
            f"{at_switch[2]}) of the {got_back} it got back") in text


def test_04_to_07_predict_prompts_state_the_runs_facts():
    """The 'predict, then run' prompts of 04-07 state facts of the scenarios; each is held to the run."""
    from stmviz import SCM, AgentFold, HiAgent, load_scenario, run

    text = {name: " ".join(_markdown(name).split()) for name in ("04_scm", "05_hiagent", "06_agentfold", "07_compare")}
    dialogue = load_scenario("long_dialogue")
    assert "with $k = 3$" in text["04_scm"] and SCM(dialogue.space()).k == 3

    household = load_scenario("household")
    trace = run(HiAgent(household.space()), household)
    ranges = {e.meta["subgoal"]: tuple(e.meta["range"]) for e in trace.state_at(16).where(type="summary")}
    assert "Subgoal 1 holds the pairs of steps 0–2, subgoal 3 those of steps 6–10" in text["05_hiagent"]
    assert (ranges[1], ranges[3]) == ((0, 2), (6, 10))
    assert f"$V_{{max}}$ is {household.v_max} tokens" in text["05_hiagent"]

    research = load_scenario("web_research")
    folded = run(AgentFold(research.space()), research)
    blocks = [tuple(e.meta["range"]) for e in AgentFold.blocks(folded.state_at(7))]
    assert blocks == [(s, s) for s in range(6)]
    assert "$s_{0,0}, s_{1,1}, \\dots, s_{5,5}$ and the latest interaction $I_6$" in text["06_agentfold"]
    assert tuple(research.steps[7].directives["fold"]["range"]) == (0, 6) and "range $[0, 6]$" in text["06_agentfold"]

    assert f"whose {len(dialogue.probes)} probes ask" in text["07_compare"]
    assert f"at its $V_{{max}}$ of {dialogue.v_max} tokens" in text["07_compare"]


# ----------------------------------------------------------------- notebooks 08-11: numbers the prose states


def test_11_the_window_is_chosen_so_the_preset_compacts_where_claude_code_did():
    """Notebook 11: 95 % of the 1,700-token window (1,615) is just above the 1,611 tokens Claude Code recorded,
    and every window from 1,644 to 1,786 tokens compacts at step 11, the step before the recorded compaction's."""
    from stmviz import StateSpace, run, sizes
    from stmviz.managers import Compaction
    from stmviz.scenarios import example_transcript, load_transcript, recorded_compactions

    session = load_transcript(example_transcript("claude_code_session"))
    (real,) = recorded_compactions(session)
    assert (real.pre_tokens, real.t, round(0.95 * 1700)) == (1611, 12, 1615)

    def first_compaction(window):
        trace = run(Compaction.claude_code(StateSpace(sizes.tokens(), 2400), window=window, percent=95), session)
        return next(step.t for step in trace if "compact" in str(step.operation))

    assert [first_compaction(w) for w in (1643, 1644, 1700, 1786, 1787)] == [10, 11, 11, 11, 12]
