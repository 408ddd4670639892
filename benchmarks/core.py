"""Benchmark of the core (issue: Definitions 1 and 2): run(), state_at() and the Trace's memory.

A seeded 10,000-step stream of text elements (20–400 tokens each) goes through a
token-bounded mechanism with V_max = 8192. Printed, measured in one run:

(a) tokenizing each element once with tiktoken — the lower bound;
(b) run() — ratio to (a) (goal ≤ 1.3×);
(c) median time of trace.state_at(t) for random t (goal ≤ 1 ms);
(d) memory of the Trace relative to the elements it holds (goal ≤ 2×).

Usage: python benchmarks/core.py [--steps N] [--mechanism example|fifo] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stmviz import AgentStep, Element, StateSpace, run, sizes  # noqa: E402
from stmviz.core.mechanism import ExampleMechanism  # noqa: E402
from stmviz.core.tokenizer import token_counter  # noqa: E402

VOCAB = (
    "memory agent context window token summary block fold step query tool search result page table price "
    "date name city report answer question user model observation action thought plan subgoal retrieve "
    "relevant recent older newer capacity budget limit evict keep drop merge condense consolidate the a of "
    "to in and for with on is was are be by that this from at as it an or"
).split()


def make_texts(n: int, seed: int = 7) -> list[str]:
    """n texts of 20–400 cl100k tokens (exact), deterministic for a seed."""
    rng = random.Random(seed)
    encoding = sizes.get_encoding("cl100k_base")
    texts = []
    for i in range(n):
        target = rng.randint(20, 400)
        words = [f"#{i}"]
        while len(words) < target:
            words.append(rng.choice(VOCAB))
            if rng.random() < 0.08:
                words[-1] += rng.choice((".", ",", "!", " 42", " 2026"))
        ids = encoding.encode_ordinary(" ".join(words))[:target]
        texts.append(encoding.decode(ids))
    return texts


def best_of(k: int, fn):
    times = []
    result = None
    for _ in range(k):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def deep_size(objs) -> int:
    """Bytes of the distinct objects reachable from objs (strings, tuples, dicts, slotted objects)."""
    seen: set[int] = set()
    stack = list(objs)
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or callable(obj) and not hasattr(obj, "__slots__"):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            for name in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, name):
                    stack.append(getattr(obj, name))
            if hasattr(obj, "__dict__"):
                stack.append(vars(obj))
    return total


def make_mechanism(kind: str, v_max: int):
    space = StateSpace(sizes.tokens(), v_max)
    if kind == "fifo":
        from stmviz import FIFOWindow

        return FIFOWindow(space)
    return ExampleMechanism(space)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--v-max", type=int, default=8192)
    parser.add_argument("--mechanism", choices=("example", "fifo"), default="example")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    texts = make_texts(args.steps)
    steps = [AgentStep(observation=t) for t in texts]
    encoding = sizes.get_encoding("cl100k_base")

    def lower_bound():
        encode = encoding.encode_ordinary
        return sum(len(encode(t)) for t in texts)

    def one_run():
        token_counter("cl100k_base").count.cache_clear()  # fresh token caches: every run tokenizes from scratch
        return run(make_mechanism(args.mechanism, args.v_max), steps)

    lower_best, lower_median, total_tokens = best_of(3, lower_bound)
    run_best, run_median, trace = best_of(3, one_run)

    # (e) a floor under (b): only constructing the Element objects the run held (content and metadata
    # as U made them), with no U, no Ω check and no trace; any Python implementation of E pays this
    held = [(e.content, dict(e.meta)) for e in trace.sizes]
    build_best, build_median, _ = best_of(3, lambda: [Element(c, m) for c, m in held])

    rng = random.Random(1)
    latencies = []
    for _ in range(2000):
        t = rng.randint(0, len(trace))
        start = time.perf_counter()
        trace.state_at(t)
        latencies.append(time.perf_counter() - start)

    # (d) memory: the Trace's own bytes (steps, diffs, checkpoints, contexts) vs the elements it holds
    elements = list(trace.sizes)
    element_bytes = deep_size(elements)
    trace_bytes = deep_size([trace])

    gc.collect()
    tracemalloc.start()
    fresh = one_run()
    traced, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del fresh

    result = {
        "steps": args.steps,
        "v_max": args.v_max,
        "mechanism": args.mechanism,
        "tokens_total": total_tokens,
        "lower_bound_s": {"best": lower_best, "median": lower_median},
        "run_s": {"best": run_best, "median": run_median},
        "run_ratio": run_best / lower_best,
        "run_ratio_median": run_median / lower_median,
        "build_elements_s": {"best": build_best, "median": build_median},
        "build_elements_ratio": build_best / lower_best,
        "state_at_median_ms": statistics.median(latencies) * 1e3,
        "state_at_p99_ms": sorted(latencies)[int(0.99 * len(latencies))] * 1e3,
        "element_bytes": element_bytes,
        "trace_bytes": trace_bytes,
        "trace_memory_ratio": trace_bytes / element_bytes,
        "run_tracemalloc_bytes": traced,
    }
    print(f"stmviz core benchmark — {args.steps} steps, {total_tokens} tokens, V_max = {args.v_max}, mechanism = {args.mechanism}")
    print(f"(a) tokenize each element once (lower bound): best {lower_best:.3f} s, median {lower_median:.3f} s")
    print(f"(b) run():                                    best {run_best:.3f} s, median {run_median:.3f} s"
          f"  → {result['run_ratio']:.2f}× the lower bound (median {result['run_ratio_median']:.2f}×; goal ≤ 1.3×)")
    print(f"(e) constructing the elements alone:          best {build_best:.3f} s = {result['build_elements_ratio']:.2f}× the lower bound"
          f" (part of (b): E itself, before any U)")
    print(f"(c) trace.state_at(t), random t:              median {result['state_at_median_ms']:.3f} ms, "
          f"p99 {result['state_at_p99_ms']:.3f} ms (goal ≤ 1 ms)")
    print(f"(d) Trace memory / elements held:             {trace_bytes / 1e6:.1f} MB / {element_bytes / 1e6:.1f} MB"
          f" = {result['trace_memory_ratio']:.2f}× (goal ≤ 2×; tracemalloc during a run: {traced / 1e6:.1f} MB)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
