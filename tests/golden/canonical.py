"""A canonical, layout-independent fingerprint of a trace: what a mechanism *did*, not how a file stores it.

The fingerprint covers every result of a run: each step's operations, the elements it added
and removed (content, metadata and μ), the reasons, Σμ before and after, |π(ω_t)|, and the
model input π(ω_t) itself at every step and at the end. It reads only public attributes of
:class:`stmviz.Trace`, so a refactoring of the core or of the JSON format leaves it unchanged,
while any change of behaviour changes it.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from stmviz import AgentStep, Element, Trace

MECHANISMS = ("FIFOWindow", "SCM", "HiAgent", "AgentFold")

_WORDS = (
    "the agent opens a page on memory and notes that the user asked for prices dates and "
    "names of three sources while the tool returned a long table with links and totals"
).split()


def agent_stream(n: int, seed: int) -> list[AgentStep]:
    """A seeded agent stream: thoughts, tool calls, observations of varied length, directives."""
    rng = random.Random(seed)
    steps = []
    subgoal_at = 0
    for t in range(n):
        record: dict[str, Any] = {
            "thought": f"Step {t}: check source {rng.randrange(7)} for fact {rng.randrange(50)}.",
            "action": f"search(q='item {t}')" if rng.random() < 0.7 else "",
            "observation": f"[{t}] " + " ".join(rng.choice(_WORDS) for _ in range(rng.choice((4, 12, 40, 90, 160)))),
            "meta": {"source": rng.choice(("user", "api", "model"))},
        }
        if t == subgoal_at:
            record["subgoal"] = f"subgoal {t}: gather item {t}"
            subgoal_at = t + rng.randint(4, 11)
        if t == subgoal_at - 1:
            record["subgoal_done"] = True
        record["fold"] = {"op": "consolidate", "from": max(0, t - rng.randint(2, 6))} if t % 5 == 4 else {"op": "condense"}
        steps.append(AgentStep.coerce(record))
    return steps


def _element(element: Element, trace: Trace) -> list[Any]:
    return [element.to_json(), trace.sizes[element]]


def _input(trace: Trace, t: int) -> list[Any]:
    return [[m.role, m.text] for m in trace.project(t)]


def canonical(trace: Trace) -> dict[str, Any]:
    """The results of a run as plain JSON-ready data."""
    steps = []
    for t, step in enumerate(trace):
        steps.append(
            {
                "t": step.t,
                "operations": [[o.type, o.to_json().get("params", {}), o.reason] for o in step.operations],
                "added": [_element(e, trace) for e in step.added],
                "removed": [_element(e, trace) for e in step.removed],
                "reasons": list(step.reasons),
                "sizes": [step.size_before, step.size_after],
                "input_size": step.input_size,
                "input": _input(trace, t),
            }
        )
    return {
        "v_max": trace.v_max,
        "size": trace.size_name,
        "initial": [_element(e, trace) for e in trace.initial],
        "steps": steps,
        "final_input_size": trace.final_input_size,
        "final_input": _input(trace, len(trace)),
    }


def _digest(value: Any, width: int = 16) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:width]


def fingerprint(trace: Trace) -> str:
    """SHA-256 (16 hex digits) of :func:`canonical`."""
    return _digest(canonical(trace))


def step_digests(trace: Trace) -> list[str]:
    """One short digest per part of :func:`canonical`: the start (V_max, μ, ω_0), each step t, the end.

    Stored beside the fingerprints, they let a failing golden test name the first
    step that differs rather than show two hashes.
    """
    data = canonical(trace)
    start = {k: data[k] for k in ("v_max", "size", "initial")}
    end = {k: data[k] for k in ("final_input_size", "final_input")}
    return [_digest(start, 8), *(_digest(step, 8) for step in data["steps"]), _digest(end, 8)]


def first_difference(expected: list[str], current: list[str]) -> str:
    """Where two runs' :func:`step_digests` part first: ``"step 17"``, ``"the start"``, ``"the end"``."""
    for k, (a, b) in enumerate(zip(expected, current)):
        if a != b:
            return "the start (V_max, μ or ω_0)" if k == 0 else ("the end (the final π)" if k == len(current) - 1 else f"step {k - 1}")
    return f"the number of steps ({len(expected) - 2} expected, {len(current) - 2} now)"


def all_traces() -> dict[str, Trace]:
    """Every mechanism on every bundled scenario (at its V_max) and on two seeded agent streams."""
    import stmviz
    from stmviz import StateSpace, list_scenarios, load_scenario, run, sizes

    out: dict[str, Trace] = {}
    for info in list_scenarios():
        scenario = load_scenario(info.name)
        for name in MECHANISMS:
            mechanism = getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=scenario.v_max))
            out[f"{info.name}/{name}"] = run(mechanism, scenario)
    for seed, n, v_max in ((0, 240, 2048), (1, 120, 600)):
        steps = agent_stream(n, seed)
        for name in MECHANISMS:
            mechanism = getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=v_max))
            trace = run(mechanism, steps, query="Collect the prices of three sources.", tools=("search", "open"))
            out[f"agent_stream_{seed}/{name}"] = trace
    return out


def all_fingerprints() -> dict[str, str]:
    """The fingerprint of every trace of :func:`all_traces`."""
    return {name: fingerprint(trace) for name, trace in all_traces().items()}
