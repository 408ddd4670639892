"""A re-enactment of the loop of AgentFold's released ``infer.py`` with a scripted model, written anew for the tests.

It keeps what infer.py keeps: the step list (entries ``start``, ``end``, ``content``), the user prompt it
builds from it each turn, and the ``full_traj`` text it records. The model and the tools are scripts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LAST_TURN = "\n\nNow, provide your final answer without any other tool call."


def first_tag(text: str, tag: str) -> str:
    m = re.search(f"<{tag}>(.*?)</{tag}>", text, re.S)
    return m.group(1).strip() if m else ""


def render(entries: Sequence[tuple[int, int, str]]) -> str:
    """The ``### Previous Steps`` text: entries by start; the newest single step is [Step n], older ones Compressed."""
    if not entries:
        return "EMPTY"
    newest = max(start for start, _, _ in entries)
    out = []
    for start, end, content in sorted(entries, key=lambda e: e[0]):
        if start != end:
            header = f"Compressed Step {start} to {end}"
        else:
            header = f"Step {start}" if start == newest else f"Compressed Step {start}"
        out.append(f"**[{header}]**\n{content}\n\n")
    return "".join(out)


@dataclass
class Run:
    question: str
    full_traj: str = ""
    prompts: list[str] = field(default_factory=list)  # the user prompt of each turn
    entries: list[list[tuple[int, int, str]]] = field(default_factory=list)  # the step list each prompt shows
    final_response: str = ""


def reenact(question: str, replies: Sequence[str], tool: Callable[[str], str], max_turn: int = 100) -> Run:
    """Run the loop: prompt → scripted reply → (answer: stop) | tool call, fold by <compress> (from turn 1), add the step."""
    run = Run(question)
    entries: list[tuple[int, int, str]] = []
    chunks = []
    for turn in range(max_turn):
        prompt = f"### Question\n{question}\n\n### Previous Steps\n{render(entries)}"
        if turn == max_turn - 1:
            prompt += LAST_TURN
        run.prompts.append(prompt)
        run.entries.append(sorted(entries, key=lambda e: e[0]))
        chunks.append(f"[START OF A TURN] {turn}\n\n[START OF USER PROMPT]\n{prompt}\n\n")
        reply = replies[turn]
        action = reply.split("</think>")[-1]  # the reply must hold a </think>; the reasoning is before it
        assert len(reply.split("</think>")) >= 2
        if "<answer>" in action and "</answer>" in action:
            chunks.append(f"[START OF ASSISTANT]\n{reply}\n\n")
            break
        call = first_tag(action, "tool_call")
        assert call, f"turn {turn}: the script must call a tool or answer"
        result = tool(call)
        if turn > 0:  # the first reply's <compress> is never read
            info = json.loads(first_tag(action, "compress"))
            start, end = info["compress_range"][0], info["compress_range"][-1]
            entries = [e for e in entries if not start <= e[0] <= end] + [(start, end, info["compress_text"])]
            entries.sort(key=lambda e: e[0])
        motivation = first_tag(action, "motivation")
        content = (f"**Motivation:** {motivation}\n" if motivation else "") + f"**Tool call:** {call}\n**Tool response:** {result}"
        entries.append((turn, turn, content))
        chunks.append(f"[START OF ASSISTANT]\n{reply}\n\n")
    run.full_traj = "".join(chunks)
    last = run.full_traj.split("</think>")[-1]
    run.final_response = last.split("<answer>")[-1].split("</answer>")[0].strip() if "<answer>" in last else last
    return run


def reply(think: str | None, compress: tuple[list[int], str] | None, motivation: str | None, call: dict | None = None,
          answer: str | None = None, opening_think: bool = True) -> str:
    """A scripted model reply in the released block layout."""
    parts = [("<think>" if opening_think else "") + (think or "") + "</think>\n"]
    if compress is not None:
        parts.append("<compress>" + json.dumps({"compress_range": compress[0], "compress_text": compress[1]}) + "</compress>\n")
    if motivation is not None:
        parts.append(f"<motivation>{motivation}</motivation>\n")
    if call is not None:
        parts.append("<tool_call>" + json.dumps(call) + "</tool_call>")
    if answer is not None:
        parts.append(f"<answer>{answer}</answer>")
    return "".join(parts)
