"""A sweep of 16 V_max × 4 mechanisms against 64 independent run() calls, on one 2,000-step scenario.

Issue 19's goal: ``stmviz.sweep.sweep`` within 0.35× the time of 64
independent runs, with identical traces, speed coming from what the runs
share (tokenization, summaries, the mechanisms' per-text memos), not from
doing less.

The scenario (``--scenario``):

- ``stream`` (default): the bundled-style agent stream of :func:`_common.agent_stream`
  — 2,000 steps of thought (10–60 tokens), tool call and observation (20–300
  tokens), a subgoal every 6–14 steps (HiAgent), a folding directive on
  every step (AgentFold) — with 16 probes planted on it: the step's
  observation holds a number that occurs nowhere else in the stream, asked
  about 10 to 1,500 steps later;
- ``generated``: :func:`stmviz.scenarios.generate.generate_agent` (2,000 steps,
  seed 0): short, templated texts that recur, so every run already finds its
  texts tokenized in the process caches; the sweep has little left to share.

What is timed, in one process, each phase once per repeat (best of the repeats):

- ``independent, fresh caches``: for each mechanism and V_max, stmviz's
  process-wide caches are emptied (tiktoken counts, the summarizer's text
  analyses, the embedder's stems and buckets, the controller's word sets —
  untimed), then ``run(cls(StateSpace(tokens(), v_max)), scenario)`` and
  ``run_metrics(trace, probes)`` are timed: what 64 separate scripts would
  do, without their imports and encoding loading;
- ``independent, warm process caches``: the same 64 calls one after the
  other in one process, the caches left as the previous runs filled them:
  what a loop in a notebook does (each run still builds its mechanism, with
  its own memos, as a user would);
- ``sweep``: one ``sweep(mechanisms, scenario, v_max=V_MAX)`` call (it computes
  the same records).

Traces: every independent trace's fingerprint (tests/golden/canonical.py)
is compared with the trace of the same run in a sweep (untimed: the check
runs ``sweep(..., keep_traces=True)`` one mechanism at a time, whose records
must equal the timed sweep's). CPU time of the process is the headline (the
machine is shared: wall times are given too).

With ``--by-mechanism`` the three phases run per mechanism, one after the other (16 fresh runs,
``sweep([cls], …)``, 16 warm runs), so that a change of the shared machine's load hits them alike.

Usage: python benchmarks/sweep.py [--scenario stream|generated] [--repeat 1] [--no-check] [--steps 2000] [--by-mechanism]
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()
common.warm_up()

from stmviz import SCM, AgentFold, AgentStep, FIFOWindow, HiAgent, StateSpace, run, sizes  # noqa: E402
from stmviz.metrics import run_metrics  # noqa: E402
from stmviz.scenarios import Probe, Scenario  # noqa: E402
from stmviz.sweep import sweep  # noqa: E402

V_MAX = [512 * k for k in range(1, 17)]  # 512 … 8,192 tokens
MECHANISMS = [FIFOWindow, SCM, HiAgent, AgentFold]
STEPS = 2000


def stream_scenario() -> Scenario:
    """The bundled-style agent stream with 16 planted probes (a number unique to its step, asked later)."""
    records = common.agent_stream(STEPS, seed=0)
    steps = [AgentStep.coerce(r.as_dict()) for r in records]
    numbers: dict[str, set[int]] = {}
    for s, step in enumerate(steps):
        for number in re.findall(r"\b\d{3,5}\b", step.text):
            numbers.setdefault(number, set()).add(s)
    rng = random.Random(19)
    probes = []
    for i in range(16):
        distance = min([10, 30, 100, 300, 1000, 1500][i % 6], STEPS // 2)
        start = rng.randrange(0, STEPS - distance - 1)
        for s in range(start, STEPS - distance - 1):
            unique = [n for n in re.findall(r"\b\d{3,5}\b", steps[s].observation) if numbers[n] == {s}]
            if unique:
                probes.append(Probe(s + distance + 1, f"Which number did the result of step {s} give?", unique[0], s))
                break
    return Scenario(
        name=f"agent_stream_{STEPS}",
        query=common.AGENT_QUERY,
        tools=tuple(common.AGENT_TOOLS),
        steps=tuple(steps),
        probes=tuple(sorted(probes, key=lambda p: p.t)),
    )


def generated_scenario() -> Scenario:
    from stmviz.scenarios.generate import generate_agent

    return generate_agent(STEPS, seed=0)


def empty_process_caches() -> None:
    """Forget every cache stmviz keeps per process (not the loaded tiktoken ranks)."""
    import importlib

    from stmviz.core.tokenizer import token_counter
    from stmviz.text import scm_judges

    # the modules (stmviz.text exports functions of the same names)
    embed_module = importlib.import_module("stmviz.text.embed")
    summarize_module = importlib.import_module("stmviz.text.summarize")

    token_counter("cl100k_base").count.cache_clear()
    summarize_module._analyze.cache_clear()
    embed_module._stem.cache_clear()
    default = embed_module._default
    for table in (default._buckets, default._stems, default._ascii_stems):
        table.clear()
    scm_judges.content_words.cache_clear()


def independent(scenario: Scenario, fresh: bool, check: bool) -> tuple[float, float, list[dict[str, Any]], list[str]]:
    """CPU and wall seconds of the 64 runs (each with its metrics), their records and fingerprints."""
    from golden.canonical import fingerprint

    cpu = wall = 0.0
    records, prints = [], []
    for cls in MECHANISMS:
        for v_max in V_MAX:
            if fresh:
                empty_process_caches()
            gc.collect()
            c, w = time.process_time(), time.perf_counter()
            trace = run(cls(StateSpace(sizes.tokens(), v_max=v_max)), scenario)
            record = run_metrics(trace, [p for p in scenario.probes if p.t <= len(trace)])
            cpu += time.process_time() - c
            wall += time.perf_counter() - w
            records.append(record)
            if check:
                prints.append(fingerprint(trace))
            del trace
    return cpu, wall, records, prints


def swept(scenario: Scenario) -> tuple[float, float, list[dict[str, Any]]]:
    gc.collect()
    c, w = time.process_time(), time.perf_counter()
    records = sweep(MECHANISMS, scenario, v_max=V_MAX)
    return time.process_time() - c, time.perf_counter() - w, records


def sweep_fingerprints(scenario: Scenario) -> tuple[list[str], list[dict[str, Any]]]:
    from golden.canonical import fingerprint

    prints, records = [], []
    for cls in MECHANISMS:
        for record in sweep([cls], scenario, v_max=V_MAX, keep_traces=True):
            prints.append(fingerprint(record.pop("trace")))
            records.append(record)
    return prints, records


def by_mechanism(scenario: Scenario) -> None:
    """Per mechanism, interleaved (so that a change of the machine's load hits all three alike): 16 fresh
    runs, one ``sweep([cls], …)`` with its own caches, 16 warm runs; CPU seconds and ratios."""
    rows = []
    for cls in MECHANISMS:
        times = {}
        for phase in ("fresh", "sweep", "warm"):
            gc.collect()
            c = time.process_time()
            if phase == "sweep":
                sweep([cls], scenario, v_max=V_MAX)
            else:
                for v_max in V_MAX:
                    if phase == "fresh":
                        empty_process_caches()
                    trace = run(cls(StateSpace(sizes.tokens(), v_max=v_max)), scenario)
                    run_metrics(trace, [p for p in scenario.probes if p.t <= len(trace)])
                    del trace
            times[phase] = time.process_time() - c
        rows.append({"mechanism": cls.name, **times, "sweep / fresh": times["sweep"] / times["fresh"],
                     "sweep / warm": times["sweep"] / times["warm"]})
        print(rows[-1], flush=True)
    total = {k: sum(r[k] for r in rows) for k in ("fresh", "sweep", "warm")}
    rows.append({"mechanism": "all four", **total, "sweep / fresh": total["sweep"] / total["fresh"],
                 "sweep / warm": total["sweep"] / total["warm"]})
    print()
    print(common.table(rows, ["mechanism", "fresh", "sweep", "warm", "sweep / fresh", "sweep / warm"],
                       title=common.machine_line() + " · CPU seconds, 16 V_max each"))
    common.write_json("sweep_by_mechanism", {"scenario": scenario.name, "v_max": V_MAX, "rows": rows})


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("stream", "generated"), default="stream")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-check", action="store_true", help="skip the fingerprint comparison")
    parser.add_argument("--steps", type=int, default=None, help="steps of the scenario (2,000 for the goal)")
    parser.add_argument("--by-mechanism", action="store_true",
                        help="per mechanism, interleaved phases, CPU time (no fingerprint check)")
    args = parser.parse_args(argv)
    global STEPS
    STEPS = args.steps or STEPS
    make: Callable[[], Scenario] = stream_scenario if args.scenario == "stream" else generated_scenario
    scenario = make()
    check = not args.no_check
    if args.by_mechanism:
        by_mechanism(scenario)
        return
    print(f"{scenario.name}: {len(scenario.steps)} steps, {len(scenario.probes)} probes; "
          f"V_max {V_MAX[0]}…{V_MAX[-1]} ({len(V_MAX)}) × {', '.join(c.name for c in MECHANISMS)}", flush=True)
    fresh_runs, warm_runs, sweep_runs = [], [], []
    prints: list[str] = []
    reference: list[dict[str, Any]] = []
    sweep_records: list[dict[str, Any]] = []
    for i in range(args.repeat):
        cpu, wall, records, fresh_prints = independent(scenario, fresh=True, check=check and i == 0)
        fresh_runs.append((cpu, wall))
        print(f"independent, fresh caches: cpu {cpu:.1f} s, wall {wall:.1f} s", flush=True)
        if i == 0:
            prints, reference = fresh_prints, records
        cpu, wall, sweep_records = swept(scenario)
        sweep_runs.append((cpu, wall))
        print(f"sweep: cpu {cpu:.1f} s, wall {wall:.1f} s", flush=True)
        cpu, wall, _, _ = independent(scenario, fresh=False, check=False)
        warm_runs.append((cpu, wall))
        print(f"independent, warm process caches: cpu {cpu:.1f} s, wall {wall:.1f} s", flush=True)
    fresh, warm, shared = best(fresh_runs), best(warm_runs), best(sweep_runs)
    measured = [{k: v for k, v in r.items() if k not in ("scenario", "mechanism", "v_max")} for r in sweep_records]
    expected = [{k: v for k, v in r.items() if k != "mechanism" and k != "v_max"} for r in reference]
    same_records = measured == expected
    identical = None
    if check:
        sweep_prints, checked_records = sweep_fingerprints(scenario)
        identical = sweep_prints == prints
        same_records = same_records and checked_records == sweep_records
    rows = [
        {"phase": "64 independent runs, fresh caches", "cpu_s": fresh[0], "wall_s": fresh[1], "sweep / this (cpu)": shared[0] / fresh[0], "(wall)": shared[1] / fresh[1]},
        {"phase": "64 independent runs, warm process caches", "cpu_s": warm[0], "wall_s": warm[1], "sweep / this (cpu)": shared[0] / warm[0], "(wall)": shared[1] / warm[1]},
        {"phase": "sweep()", "cpu_s": shared[0], "wall_s": shared[1]},
    ]
    print()
    print(common.table(rows, ["phase", "cpu_s", "wall_s", "sweep / this (cpu)", "(wall)"], title=common.machine_line()))
    print(f"\nrecords equal to the independent runs' metrics: {same_records}; "
          f"traces identical (64 fingerprints): {'not checked' if identical is None else identical}")
    path = common.write_json(
        f"sweep_{args.scenario}",
        {
            "scenario": scenario.name,
            "steps": len(scenario.steps),
            "probes": len(scenario.probes),
            "v_max": V_MAX,
            "mechanisms": [c.name for c in MECHANISMS],
            "fresh": fresh_runs,
            "warm": warm_runs,
            "sweep": sweep_runs,
            "ratio_cpu_fresh": shared[0] / fresh[0],
            "ratio_cpu_warm": shared[0] / warm[0],
            "records_equal": same_records,
            "traces_identical": identical,
        },
    )
    print(f"written {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
