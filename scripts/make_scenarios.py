#!/usr/bin/env python
"""Write the bundled scenarios of stmviz (``stmviz/scenarios/data/*.json``) from their content modules.

Run from the repository root::

    python scripts/make_scenarios.py          # write the files
    python scripts/make_scenarios.py --check  # fail if a file differs from what would be written

The content lives in ``scripts/_web_research.py``, ``_household.py``,
``_long_dialogue.py`` and ``_tool_chat.py``; this script adds the metadata, checks
every scenario (schema, token totals several times V_max, probes whose answer
last occurs at their evidence step) and writes deterministic JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # leave no __pycache__ in scripts/
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _household  # noqa: E402
import _long_dialogue  # noqa: E402
import _tool_chat  # noqa: E402
import _web_research  # noqa: E402

from stmviz.scenarios import Scenario, from_dialogue, from_openai_messages  # noqa: E402

DATA = ROOT / "stmviz" / "scenarios" / "data"
META = {"author": "stmviz developers", "license": "MIT", "generator": "scripts/make_scenarios.py",
        "note": "People, places and companies are fictional."}


def web_research() -> Scenario:
    m = _web_research
    return Scenario.from_dict(
        {
            "name": "web_research",
            "title": "Web research: compare three e-bike share programs (AgentFold)",
            "description": (
                "A web agent researches three fictional cities' e-bike share programs for a briefing: searches, "
                "page excerpts full of numbers and names, calculations. From step 1 on, each response carries "
                "AgentFold's folding directive, written by the agent: the range [x, t-1] to fold and its summary "
                "of that range - granular (x = t-1) for one step, deep at the end of each sub-task (a city, the "
                "local context), when the sub-task's blocks become one. The summaries keep the figures and names. "
                "Probes ask for figures read early on."
            ),
            "query": m.QUERY,
            "tools": m.TOOLS,
            "v_max": 1000,
            "mechanism": "AgentFold",
            "meta": META,
            "steps": [
                {"thought": th, "action": ac, "observation": ob, **({"fold": fold} if fold else {})}
                for th, ac, ob, fold in m.STEPS
            ],
            "probes": [dict(zip(("t", "question", "answer", "evidence_step"), p)) for p in m.PROBES],
        },
        source="web_research.json",
    )


def household() -> Scenario:
    m = _household
    steps = []
    for th, ac, ob, extra in m.STEPS:
        step = {"thought": th, "action": ac, "observation": ob}
        step.update(extra)
        steps.append(step)
    return Scenario.from_dict(
        {
            "name": "household",
            "title": "Household task in eight subgoals (HiAgent)",
            "description": (
                "An ALFWorld-style kitchen task: clean a mug and put it in the coffee machine, then chill an "
                "apple slice and serve it on a plate. Steps carry subgoal markers and subgoal_done; each finished "
                "subgoal becomes a summarized observation with a verdict (two end unconfirmed). The agent asks "
                "(the retrieve directive) for the full trajectories of two finished subgoals at once, the two "
                "parts of the mug search where it saw the butterknife, and later for the fridge check where it "
                "saw the plate; each retrieval lasts until the next subgoal. Probes ask about observations of "
                "finished subgoals."
            ),
            "query": m.QUERY,
            "tools": m.TOOLS,
            "v_max": 600,
            "mechanism": "HiAgent",
            "meta": META,
            "steps": steps,
            "probes": [dict(zip(("t", "question", "answer", "evidence_step"), p)) for p in m.PROBES],
        },
        source="household.json",
    )


def long_dialogue() -> Scenario:
    m = _long_dialogue
    turns = [text for pair in m.TURNS for text in pair]
    # step k = (reply k-1, user message k): a question asked in user message k is answered from π(ω_{k+1})
    probes = [{"t": k + 1, "question": q, "answer": a, "evidence_step": ev} for k, q, a, ev in m.QUESTIONS]
    imported = from_dialogue(turns, "long_dialogue", query=m.QUERY, probes=probes, source="long_dialogue messages")
    data = imported.to_dict()
    data.update(
        {
            "title": "A long chat that states personal facts early (SCM)",
            "description": (
                f"A {len(m.TURNS)}-turn conversation with a personal assistant about a family trip and a busy "
                "month. The first turns state the user's name, a serious allergy, travel dates, a seating "
                "preference, a daughter's name and a budget; the last turns ask about them, and one asks for a joke, "
                "which needs no memory at all. Imported with "
                "from_dialogue, in the conversation's order: step 0 is the user's first message, each later "
                "step the assistant's reply (thought) and then the user's next message (observation). A "
                "question asked in the user's message of step k is answered from π(ω_{k+1}), where the "
                "probe looks."
            ),
            "v_max": 800,
            "mechanism": "SCM",
            "meta": META,
        }
    )
    return Scenario.from_dict(data, source="long_dialogue.json")


def tool_chat() -> Scenario:
    m = _tool_chat
    imported = from_openai_messages(m.messages(), "tool_chat", source="tool_chat messages")
    steps = imported.steps
    # the user's "double-check" question is the input of step `ask`; its answer is produced from π(ω_{ask+1})
    ask = next(t for t, s in enumerate(steps) if "double-check" in s.observation)
    probes = []
    for question, answer, tool in m.PROBES:
        last = max(t for t in range(ask + 1) if answer.casefold() in steps[t].text.casefold())
        first_tool = next(t for t, s in enumerate(steps) if tool in s.meta.get("tool", ()))
        assert last >= first_tool, (answer, last, first_tool)
        probes.append({"t": ask + 1, "question": question, "answer": answer, "evidence_step": last})
    data = imported.to_dict()
    data.update(
        {
            "title": "Customer-support chat with tool calls (FIFO window)",
            "description": (
                "A shop assistant chat imported from an OpenAI-style message list: plain user/assistant "
                "turns and tool calls (orders, tracking, stock, store hours) with JSON results. With a FIFO "
                "window the order data read early falls out of the window; probes at the end ask for it."
            ),
            "v_max": 500,
            "mechanism": "FIFOWindow",
            "meta": META,
            "probes": probes,
        }
    )
    return Scenario.from_dict(data, source="tool_chat.json")


BUILDERS = {"web_research": web_research, "household": household, "long_dialogue": long_dialogue, "tool_chat": tool_chat}


def check(scenario: Scenario) -> list[str]:
    """Problems that would make a bundled scenario a poor teaching example."""
    found = []
    total = scenario.token_count()
    if total < 3 * scenario.v_max:
        found.append(f"{scenario.name}: {total} tokens is not several times V_max = {scenario.v_max}")
    for k, probe in enumerate(scenario.probes):
        if probe.answer.casefold() in scenario.query.casefold():
            found.append(f"{scenario.name}: probes[{k}]: the answer {probe.answer!r} is in the query")
        later = [t for t in range(probe.evidence_step + 1, probe.t)
                 if probe.answer.casefold() in scenario.steps[t].text.casefold()]
        if later:
            found.append(f"{scenario.name}: probes[{k}]: {probe.answer!r} occurs again at steps {later} < t")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the files on disk")
    args = parser.parse_args(argv)
    status = 0
    for name, build in BUILDERS.items():
        scenario = build()
        problems = check(scenario)
        for line in problems:
            print("problem:", line, file=sys.stderr)
        status |= bool(problems)
        text = scenario.to_json()
        path = DATA / f"{name}.json"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path} is out of date; run scripts/make_scenarios.py", file=sys.stderr)
                status = 1
            continue
        path.write_text(text, encoding="utf-8")
        print(f"{name}: {len(scenario.steps)} steps, {scenario.token_count()} tokens, V_max = {scenario.v_max}, "
              f"{len(scenario.probes)} probes -> {path.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
