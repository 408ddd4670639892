"""How FIFOWindow and AgentFold scale with the number of steps N = 1k, 10k, 100k.

The same seeded agent stream as ``mechanisms.py`` but with shorter texts
(thought 5–20, observation 10–60 tokens, instead of 10–60 / 20–300), so that
100,000 steps finish in well under a minute per run; V_max = 8192. The
per-step cost must not grow with N (a flat line), and the trace's memory must
grow linearly with the number of changes (elements added + removed).

Printed and written to ``benchmarks/results/scaling.json``:

- time per step (best and median of 3; at the largest N: ``--runs-largest``, default 2), and the slope of a
  least-squares line of per-step time vs N, in µs per step per 10k steps and as
  a relative change of the per-step time from N = 1k to 100k;
- the same relative to a fixed calibration job measured right after each point
  (tokenizing thought, action and observation of the first 1,000 steps, per
  step), which cancels most of a busy machine's drift (``ratio_best``);
- tracemalloc's bytes still held with the trace after the run (separate run),
  per change and per step, and the R² of a linear fit of bytes vs changes.

Usage: python benchmarks/scaling.py [--n 1000 10000 100000] [--quick]
"""

from __future__ import annotations

import argparse
import gc
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
SHORT = {"thought_tokens": (5, 20), "observation_tokens": (10, 60)}


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least-squares y = a + b·x: (a, b, R²)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx if sxx else 0.0
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, 1 - ss_res / ss_tot if ss_tot else 1.0


def run_once(cls: Any, steps: Sequence[AgentStep], collect: bool = True) -> Any:
    """One run; with ``collect=False`` the garbage collector is off during it (to see what the heap's size costs)."""
    if collect:
        return run(cls(StateSpace(sizes.tokens(), v_max=V_MAX)), steps, query=QUERY, tools=TOOLS)
    gc.disable()
    try:
        return run(cls(StateSpace(sizes.tokens(), v_max=V_MAX)), steps, query=QUERY, tools=TOOLS)
    finally:
        gc.enable()


def held_bytes(cls: Any, steps: Sequence[AgentStep]) -> tuple[int, Any]:
    common.reset_stmviz_caches()
    gc.collect()
    tracemalloc.start()
    try:
        trace = run_once(cls, steps)
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return current, trace


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agentfold-n", type=int, nargs="+", default=None,
                        help="stream lengths for AgentFold if different from --n (its per-step cost is ~10× FIFO's)")
    parser.add_argument("--runs-largest", type=int, default=2, help="runs at the largest N of each mechanism")
    parser.add_argument("--memory-max-n", type=int, nargs=2, metavar=("FIFO", "AGENTFOLD"), default=[10**9, 10**9],
                        help="largest N at which tracemalloc measures memory, per mechanism (a traced run is 2–3× slower)")
    parser.add_argument("--no-gc", action="store_true",
                        help="time the runs with the garbage collector off (memory is still traced with it on)")
    parser.add_argument("--quick", action="store_true", help="N = 500, 2000, 1 run (a smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat = [500, 2000], 1
    started = time.perf_counter()
    largest = max(args.n + (args.agentfold_n or []))
    print(f"generating {largest:,} agent steps (short texts: {SHORT}) …", flush=True)
    records = common.agent_stream(largest, seed=args.seed, **SHORT)
    all_steps = [AgentStep.coerce(r.as_dict()) for r in records]
    del records
    results: dict[str, Any] = {}
    rows = []
    encode = common.cl100k().encode_ordinary
    calibration_steps = all_steps[:1000]
    calibration = [part for s in calibration_steps for part in (s.thought, s.action, s.observation)]
    for (name, module), memory_max_n in zip((("FIFOWindow", "fifo"), ("AgentFold", "agentfold")), args.memory_max_n):
        cls = common.mechanism_class(name, module)
        if cls is None:
            print(f"{name}: skipped (not importable yet)")
            continue
        points = []
        ns = (args.agentfold_n or args.n) if name == "AgentFold" else args.n
        for n in ns:
            steps = all_steps[:n]
            repeat = args.repeat if n < max(ns) else max(1, min(args.repeat, args.runs_largest))
            timing = common.timed(lambda: run_once(cls, steps, not args.no_gc), repeat, setup=common.reset_stmviz_caches)
            changes = sum(len(s.added) + len(s.removed) for s in timing.result)
            timing.result = None
            gc.collect()
            # a fixed calibration job measured right after (normalizes the machine's load drift)
            lb = common.timed(lambda: [len(encode(text)) for text in calibration], 3)
            held = None
            if n <= memory_max_n:
                held, trace = held_bytes(cls, steps)
                del trace
            point = {
                "mechanism": name,
                "n": n,
                "runs": len(timing.runs),
                "per_step_us_best": timing.best / n * 1e6,
                "per_step_us_median": timing.median / n * 1e6,
                "run_s_best": timing.best,
                "calibration_us_per_step": lb.best / len(calibration_steps) * 1e6,
                "ratio_best": (timing.best / n) / (lb.best / len(calibration_steps)),
                "changes": changes,
                "held_mb": held / 1e6 if held is not None else None,
                "bytes_per_change": held / changes if held is not None else None,
                "bytes_per_step": held / n if held is not None else None,
            }
            gc.collect()
            points.append(point)
            rows.append(point)
            memory = (f"{point['held_mb']:8.1f} MB held, {point['bytes_per_change']:6.0f} B/change"
                      if held is not None else "memory not traced at this N")
            print(f"  {name:<10} N = {n:>7,}: {point['per_step_us_best']:8.1f} µs/step, {memory}", flush=True)
        xs = [p["n"] for p in points]
        a, b, r2 = linear_fit(xs, [p["per_step_us_best"] for p in points])
        ra, rb, _ = linear_fit(xs, [p["ratio_best"] for p in points])
        traced = [p for p in points if p["held_mb"] is not None]
        ma, mb, mr2 = (linear_fit([p["changes"] for p in traced], [p["held_mb"] * 1e6 for p in traced])
                       if len(traced) >= 2 else (None, None, None))
        first, last = points[0]["per_step_us_best"], points[-1]["per_step_us_best"]
        results[name] = {
            "points": points,
            "time_slope_us_per_step_per_10k": b * 10_000,
            "time_intercept_us": a,
            "per_step_change": (last - first) / first,
            "ratio_slope_per_10k": rb * 10_000,
            "ratio_change": (points[-1]["ratio_best"] - points[0]["ratio_best"]) / points[0]["ratio_best"],
            "memory_bytes_per_change_fit": mb,
            "memory_r2": mr2,
        }
    info = common.machine()
    print(f"\n{common.machine_line(info)}\n")
    print(common.table(
        rows,
        ["mechanism", "n", "runs", "per_step_us_best", "per_step_us_median", "calibration_us_per_step", "ratio_best",
         "changes", "held_mb", "bytes_per_change"],
        title=f"Scaling, V_max = {V_MAX} (short texts)" + (", garbage collector off during the timed runs" if args.no_gc else ""),
    ))
    print()
    summary = [
        {"mechanism": k, "slope µs/step per 10k steps": v["time_slope_us_per_step_per_10k"],
         "per-step change 1st→last N": f"{v['per_step_change']:+.1%}",
         "calibrated per-step change": f"{v['ratio_change']:+.1%}",
         "bytes/change (fit)": v["memory_bytes_per_change_fit"], "memory R²": v["memory_r2"]}
        for k, v in results.items()
    ]
    if summary:
        print(common.table(summary, list(summary[0])))
    path = common.write_json("scaling_no_gc" if args.no_gc else "scaling",
                             {"v_max": V_MAX, "texts": SHORT, "seed": args.seed, "gc": not args.no_gc, "results": results,
                              "elapsed_s": time.perf_counter() - started})
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
