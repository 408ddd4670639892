"""All four mechanisms of the paper on one 10,000-step agent stream, as ratios.

The stream (seeded, :func:`_common.agent_stream`): every step has a thought
(10–60 tokens), a tool call and its observation (20–300 tokens); a subgoal
marker starts a subgoal every 6–14 steps and the step before finishes the
previous one (HiAgent); every step carries an AgentFold folding directive,
``condense`` or, every 4–9 steps, ``consolidate`` from the last consolidation.
V_max = 8192 tokens (cl100k_base).

For each of ``FIFOWindow``, ``SCM``, ``HiAgent`` and ``AgentFold`` (a
mechanism that does not import yet is skipped with a message):

- time of ``run(mechanism, steps)``, best and median of 3, relative to the
  lower bound: tokenizing once the text of every element the run ever held
  (the elements of ``trace.sizes``);
- memory: tracemalloc during a separate run — the peak, and what the trace
  keeps afterwards — relative to the UTF-8 bytes of the elements' texts;
- ``trace.state_at(t)`` latency: median and 95th percentile over 2,000 random t.

Usage: python benchmarks/mechanisms.py [--steps 10000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()
common.warm_up()

from stmviz import AgentStep, StateSpace, run, sizes  # noqa: E402

V_MAX = 8192
QUERY = common.AGENT_QUERY
TOOLS = common.AGENT_TOOLS
MECHANISMS = (("FIFOWindow", "fifo"), ("SCM", "scm"), ("HiAgent", "hiagent"), ("AgentFold", "agentfold"))


def steps_of(records: Sequence[common.AgentRecord]) -> list[AgentStep]:
    return [AgentStep.coerce(r.as_dict()) for r in records]


def run_once(cls: Any, steps: Sequence[AgentStep]) -> Any:
    mechanism = cls(StateSpace(sizes.tokens(), v_max=V_MAX))
    return run(mechanism, steps, query=QUERY, tools=TOOLS)


def element_lower_bound(trace: Any, repeat: int) -> tuple[common.Timing, int, int]:
    """Time to tokenize once the text of every element the run ever held; their count and UTF-8 bytes."""
    encode = common.cl100k().encode_ordinary
    texts = [e.text for e in trace.sizes]
    timing = common.timed(lambda: [len(encode(text)) for text in texts], repeat)
    return timing, len(texts), sum(len(text.encode("utf-8")) for text in texts)


def traced_memory(cls: Any, steps: Sequence[AgentStep]) -> tuple[int, int, Any]:
    """(peak bytes during run, bytes still held with the trace after it, the trace), by tracemalloc."""
    common.reset_stmviz_caches()
    gc.collect()
    tracemalloc.start()
    try:
        trace = run_once(cls, steps)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, current, trace


def state_at_latency(trace: Any, samples: int, seed: int) -> tuple[float, float]:
    """Median and 95th percentile (µs) of ``trace.state_at(t)`` over random t."""
    rng = random.Random(seed)
    n = len(trace)
    times = []
    for t in (rng.randint(0, n) for _ in range(samples)):
        start = time.perf_counter_ns()
        trace.state_at(t)
        times.append((time.perf_counter_ns() - start) / 1e3)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def bench(n: int, repeat: int, seed: int, samples: int, only: Sequence[str] = ()) -> dict[str, Any]:
    records = common.agent_stream(n, seed=seed)
    steps = steps_of(records)
    markers = sum(1 for r in records if r.subgoal)
    consolidations = sum(1 for r in records if r.fold and r.fold.get("op") == "consolidate")
    print(f"\n{n:,} agent steps, {markers} subgoal markers, {consolidations} consolidate directives; V_max = {V_MAX}")
    rows: list[dict[str, Any]] = []
    for name, module in MECHANISMS:
        if only and name not in only:
            continue
        cls = common.mechanism_class(name, module)
        if cls is None:
            print(f"  {name}: skipped (not importable yet)")
            rows.append({"mechanism": name, "note": "skipped: not importable yet"})
            continue
        try:
            timing = common.timed(lambda: run_once(cls, steps), repeat, setup=common.reset_stmviz_caches)
        except Exception as exc:  # noqa: BLE001 - a mechanism being written may fail; report it
            print(f"  {name}: FAILED ({type(exc).__name__}: {exc})")
            rows.append({"mechanism": name, "note": f"failed: {type(exc).__name__}: {str(exc)[:200]}"})
            continue
        trace = timing.result
        lb, n_elements, text_bytes = element_lower_bound(trace, repeat)
        del trace, timing.result
        peak, held, trace = traced_memory(cls, steps)
        median_us, p95_us = state_at_latency(trace, samples, seed)
        changes = sum(len(s.added) + len(s.removed) for s in trace)
        row = {
            "mechanism": name,
            "run_s_best": timing.best,
            "run_s_median": timing.median,
            "per_step_us": timing.best / n * 1e6,
            "lower_bound_s": lb.best,
            "ratio_best": timing.best / lb.best,
            "ratio_median": timing.median / lb.median,
            "elements_ever": n_elements,
            "changes": changes,
            "final_elements": len(trace.final),
            "final_size": trace.size_at(len(trace)),
            "text_mb": text_bytes / 1e6,
            "peak_mb": peak / 1e6,
            "held_mb": held / 1e6,
            "held_over_text": held / text_bytes,
            "peak_over_text": peak / text_bytes,
            "state_at_median_us": median_us,
            "state_at_p95_us": p95_us,
        }
        rows.append(row)
        print(
            f"  {name:<11} run {timing.best:.2f} s ({row['ratio_best']:.2f}× lower bound), "
            f"held {row['held_mb']:.1f} MB = {row['held_over_text']:.2f}× text, state_at {median_us:.0f} µs",
            flush=True,
        )
        del trace
        gc.collect()
    return {"steps": n, "v_max": V_MAX, "seed": seed, "repeat": repeat, "rows": rows}


COLUMNS = [
    "mechanism", "per_step_us", "ratio_best", "ratio_median", "elements_ever", "final_elements",
    "held_mb", "held_over_text", "peak_over_text", "state_at_median_us", "state_at_p95_us",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=2000, help="random t for state_at")
    parser.add_argument("--quick", action="store_true", help="300 steps, 1 run (a smoke test)")
    parser.add_argument(
        "--only", nargs="+", default=(), choices=[name for name, _ in MECHANISMS], metavar="NAME",
        help="measure only these mechanisms (FIFOWindow, SCM, HiAgent, AgentFold)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.repeat, args.samples = 300, 1, 200
    started = time.perf_counter()
    result = bench(args.steps, args.repeat, args.seed, args.samples, args.only)
    print(f"\n{common.machine_line()}\n")
    print(common.table(result["rows"], COLUMNS, title=f"{args.steps:,} agent steps, V_max = {V_MAX}"))
    for row in result["rows"]:
        if "note" in row:
            print(f"  - {row['mechanism']}: {row['note']}")
    path = common.write_json("mechanisms", {**result, "elapsed_s": time.perf_counter() - started})
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
