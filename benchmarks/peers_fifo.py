"""The FIFO context window, side by side with the tools practitioners use.

The job, the same for every method: a seeded stream of N chat messages
(alternating user / assistant, 20–400 cl100k_base tokens each) arrives one by
one; after every message, keep the newest messages whose tokens sum to at most
V_max = 8192 and read that window.

Methods (all count tokens with the same offline cl100k_base ``encode_ordinary``):

- lower bound — tokenize each message once, nothing else;
- naive window — a plain-Python list, recomputing Σ tokens every step;
- stmviz ``FIFOWindow`` through ``run`` (records the whole trace as well);
- LangChain ``trim_messages(strategy="last")`` on the full history after each
  message (as the docs show it), and on the previous window plus the new
  message ("pre-trimmed"), with a ``token_counter`` re-tokenizing each message
  (and a variant with an ``lru_cache``-d counter, as a careful user writes it);
- LlamaIndex ``ChatMemoryBuffer`` and ``Memory``, ``put`` then ``get`` per step.

Methods whose per-step cost grows with the history (trim on the full history,
``ChatMemoryBuffer``) are too slow to run to N: they are timed at 9 sampled
steps t = 1, N/8, …, N (each on the real history up to t) and the mean per
step is the trapezoid average of those — the table marks them "sampled".

Before any time is reported, each method's final window is compared with the
reference window (the newest messages that fit); differences are explained.

Usage: python benchmarks/peers_fifo.py [--n 1000 10000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402

common.offline_tiktoken()  # before any peer imports tiktoken
common.forbid_network()
common.warm_up()

V_MAX = 8192
FAST_ONLY = False  # --fast-only: skip LlamaIndex and the uncached pre-trimmed trim_messages
OVERHEAD = 3  # OpenAI cookbook: 3 tokens per message (+3 priming the reply)

Messages = list[tuple[str, str]]
Window = list[str]
#: t → the window after t messages; a method fills the keys it is given (the sampled steps).
Snapshots = dict[int, Window]


def snapshots(points: Sequence[int]) -> Snapshots:
    return {t: [] for t in points}


# ----------------------------------------------------------------- methods that run to N


def lower_bound(messages: Messages, encode: Callable[[str], list[int]]) -> list[int]:
    """Tokenize each message once: the work no method can avoid."""
    return [len(encode(text)) for _, text in messages]


def naive_window(messages: Messages, encode: Callable[[str], list[int]], at: Snapshots) -> Window:
    """A plain-Python FIFO: append, recompute Σ tokens, drop the oldest while over V_max."""
    window: list[tuple[str, int]] = []
    current: Window = []
    for i, (_, text) in enumerate(messages, 1):
        window.append((text, len(encode(text))))
        while sum(n for _, n in window) > V_MAX:
            window.pop(0)
        current = [text for text, _ in window]
        if i in at:
            at[i] = current
    return current


def reference_windows(messages: Messages, counts: Sequence[int], at: Sequence[int], overhead: int = 0) -> Snapshots:
    """The newest messages that fit, after message t−1 (so with t messages seen), for each t in ``at``."""
    wanted = set(at)
    out: dict[int, Window] = {}
    start, total = 0, 0
    limit = V_MAX - (overhead if overhead else 0)
    for i, n in enumerate(counts):
        total += n + overhead
        while total > limit:
            total -= counts[start] + overhead
            start += 1
        if i + 1 in wanted:
            out[i + 1] = [text for _, text in messages[start : i + 1]]
    return out


def stmviz_fifo(messages: Messages, overhead: int = 0) -> tuple[Window, Any]:
    """stmviz: one AgentStep per message, ``run(FIFOWindow(space), steps)``; the window is π(ω_N)."""
    from stmviz import AgentStep, StateSpace, run, sizes

    FIFOWindow = common.mechanism_class("FIFOWindow", "fifo")

    space = StateSpace(sizes.tokens(overhead=overhead), v_max=V_MAX - (overhead if overhead else 0))
    steps = [AgentStep(observation=text) if role == "user" else AgentStep(thought=text) for role, text in messages]
    trace = run(FIFOWindow(space), steps)
    return [e.text for e in trace.final.ordered()], trace


def _lc_classes() -> tuple[Any, Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    return HumanMessage, AIMessage


def lc_counter(encode: Callable[[str], list[int]], overhead: int = 0, cached: bool = False) -> Callable[[list[Any]], int]:
    """A LangChain ``token_counter``: tiktoken tokens of each message's content (+ overhead)."""
    count: Callable[[str], int] = lambda text: len(encode(text))  # noqa: E731
    if cached:
        count = lru_cache(maxsize=None)(count)
    if overhead:
        return lambda msgs: sum(count(m.content) + overhead for m in msgs) + overhead
    return lambda msgs: sum(count(m.content) for m in msgs)


def lc_pretrimmed(
    messages: Messages, encode: Callable[[str], list[int]], at: Snapshots, overhead: int = 0, cached: bool = False
) -> Window:
    """LangChain: ``window = trim_messages(window + [message], strategy="last")`` per message."""
    from langchain_core.messages import trim_messages

    human, ai = _lc_classes()
    counter = lc_counter(encode, overhead, cached)
    window: list[Any] = []
    for i, (role, text) in enumerate(messages, 1):
        message = human(content=text) if role == "user" else ai(content=text)
        window = trim_messages(window + [message], max_tokens=V_MAX, strategy="last", token_counter=counter)
        if i in at:
            at[i] = [m.content for m in window]
    return [m.content for m in window]


def llama_memory(messages: Messages, encode: Callable[[str], list[int]], at: Snapshots, fifo_config: bool = True) -> Window:
    """LlamaIndex ``Memory``: ``put`` then ``get`` per message (SQLite in memory, its default store)."""
    from llama_index.core.llms import ChatMessage
    from llama_index.core.memory import Memory

    options: dict[str, Any] = {"chat_history_token_ratio": 1.0, "token_flush_size": 1} if fifo_config else {}
    memory = Memory.from_defaults(session_id="bench", token_limit=V_MAX, tokenizer_fn=encode, **options)
    window: list[Any] = []
    for i, (role, text) in enumerate(messages, 1):
        memory.put(ChatMessage(role=role, content=text))
        window = memory.get()
        if i in at:
            at[i] = [m.content for m in window]
    return [m.content for m in window]


# ----------------------------------------------------------------- sampled methods


def sample_points(n: int, k: int = 8) -> list[int]:
    return sorted({max(1, round(i * n / k)) for i in range(k + 1)})


def trapezoid_mean(points: Sequence[int], seconds: Sequence[float]) -> float:
    """Mean per-step time over steps 1…N from times at sampled steps (trapezoid rule)."""
    area = 0.0
    for (t0, s0), (t1, s1) in zip(zip(points, seconds), zip(points[1:], seconds[1:])):
        area += (t1 - t0) * (s0 + s1) / 2
    return (area + seconds[0]) / points[-1]


def lc_full_step(messages: Messages, encode: Callable[[str], list[int]]) -> Callable[[int], Callable[[], Window]]:
    """LangChain on the full history: at step t, ``trim_messages(history[:t])``."""
    from langchain_core.messages import trim_messages

    human, ai = _lc_classes()
    history = [human(content=text) if role == "user" else ai(content=text) for role, text in messages]
    counter = lc_counter(encode)

    def at(t: int) -> Callable[[], Window]:
        prefix = history[: t - 1]

        def step() -> Window:
            role, text = messages[t - 1]
            full = prefix + [human(content=text) if role == "user" else ai(content=text)]
            return [m.content for m in trim_messages(full, max_tokens=V_MAX, strategy="last", token_counter=counter)]

        return step

    return at


def llama_buffer_step(messages: Messages, encode: Callable[[str], list[int]]) -> Callable[[int], Callable[[], Window]]:
    """LlamaIndex ``ChatMemoryBuffer`` holding t−1 messages: ``put`` message t, then ``get``."""
    from llama_index.core.llms import ChatMessage
    from llama_index.core.memory import ChatMemoryBuffer

    chat = [ChatMessage(role=role, content=text) for role, text in messages]

    def at(t: int) -> Callable[[], Window]:
        buffer = ChatMemoryBuffer.from_defaults(token_limit=V_MAX, tokenizer_fn=encode)
        buffer.set(chat[: t - 1])
        role, text = messages[t - 1]

        def step() -> Window:
            buffer.put(ChatMessage(role=role, content=text))
            return [m.content for m in buffer.get()]

        return step

    return at


def run_sampled(
    factory: Callable[[int], Callable[[], Window]], points: Sequence[int], repeat: int, budget_s: float
) -> tuple[list[float], list[float], Snapshots, list[int]]:
    """Time one step at each sampled t: best and median of up to ``repeat`` runs (fewer if slow)."""
    best, median, windows, runs = [], [], {}, []
    for t in points:
        times = []
        window: Window = []
        for _ in range(repeat):
            step = factory(t)  # fresh state each run, built untimed
            timing = common.timed(step, repeat=1)
            times.append(timing.runs[0])
            window = timing.result
            if sum(times) > budget_s:
                break
        best.append(min(times))
        median.append(sorted(times)[len(times) // 2])
        windows[t] = window
        runs.append(len(times))
    return best, median, windows, runs


# ----------------------------------------------------------------- comparing windows


def _article(word: str) -> str:
    """'a user', 'an assistant'."""
    return f"{'an' if word[:1] in 'aeio' else 'a'} {word}"  # roles: system, user, assistant, tool


def compare(window: Window, reference: Window, roles: dict[str, str]) -> tuple[bool, str]:
    """Whether a window equals the reference, and if not, how it differs."""
    if window == reference:
        return True, "same window"
    if not window:
        return False, "empty window"
    if reference[-len(window):] == window and len(window) < len(reference):
        dropped = reference[: len(reference) - len(window)]
        first = _article(roles.get(dropped[0], "?"))
        return False, (
            f"drops the {len(dropped)} oldest message(s) of the reference window "
            f"(the reference starts with {first} message; this window starts with {_article(roles.get(window[0], '?'))} one)"
        )
    if window[-len(reference):] == reference and len(window) > len(reference):
        return False, f"keeps {len(window) - len(reference)} older message(s) more than the reference"
    return False, f"differs: {len(window)} vs {len(reference)} messages"


# ----------------------------------------------------------------- the benchmark


def bench(n: int, repeat: int, seed: int, slow_budget_s: float, skip_cubic_over: int, slow_max_n: int) -> dict[str, Any]:
    encoding = common.cl100k()
    encode = encoding.encode_ordinary
    messages = common.chat_stream(n, seed=seed)
    roles = {text: role for role, text in messages}
    counts = [len(encode(text)) for _, text in messages]
    points = sample_points(n)
    refs = reference_windows(messages, counts, points)
    refs_overhead = reference_windows(messages, counts, points, overhead=OVERHEAD)
    reference = refs[n]
    print(
        f"\nN = {n:,} messages, {sum(counts):,} tokens ({min(counts)}–{max(counts)} each, mean {sum(counts) / n:.0f}); "
        f"V_max = {V_MAX}; final reference window: {len(reference)} messages; windows checked at t = {points}"
    )

    rows: list[dict[str, Any]] = []

    def add(name: str, timing: common.Timing | None, windows: Snapshots | None, ref: Snapshots, *,
            mode: str = "run to N", best: float | None = None, median: float | None = None, note: str = "",
            runs: int | str | None = None) -> None:
        if timing is not None:
            best, median = timing.best / n, timing.median / n
            runs = len(timing.runs)
        if windows is None:
            same, how = None, "no window"
        else:
            checks = {t: compare(windows[t], ref[t], roles) for t in points}
            bad = {t: how for t, (ok, how) in checks.items() if not ok}
            same = not bad
            how = f"same window at all {len(points)} sampled t" if same else "; ".join(
                f"t = {t}: {how}" for t, how in list(bad.items())[:3]) + (f" (and {len(bad) - 3} more t)" if len(bad) > 3 else "")
        rows.append({
            "method": name, "mode": mode, "runs": runs,
            "per_step_us_best": best * 1e6 if best is not None else None,
            "per_step_us_median": median * 1e6 if median is not None else None,
            "window": len(windows[n]) if windows is not None else None,
            "same_window": same, "window_note": how + (f" — {note}" if note else ""),
        })
        print(f"  {name:<60} {rows[-1]['per_step_us_best'] or 0:>12,.1f} µs/step  [{how}]", flush=True)

    def full(func: Callable[[Snapshots], Any], runs: int = repeat, setup: Callable[[], Any] | None = None):
        holder: list[Snapshots] = []

        def once() -> Any:
            snap = snapshots(points)
            holder.append(snap)
            return func(snap)

        timing = common.timed(once, runs, setup=setup)
        return timing, holder[-1]

    # lower bound (measured first and last; the best of both is the reference) and the plain-Python window
    lb = common.timed(lambda: lower_bound(messages, encode), repeat)
    naive, naive_w = full(lambda at: naive_window(messages, encode, at))

    # stmviz
    if common.mechanism_class("FIFOWindow", "fifo") is not None:
        for overhead in (0, OVERHEAD):
            stm = common.timed(lambda: stmviz_fifo(messages, overhead), repeat, setup=common.reset_stmviz_caches)
            trace = stm.result[1]
            windows = {t: [e.text for e in trace.state_at(t).ordered()] for t in points}
            if overhead:
                add(f"stmviz FIFOWindow via run(), μ = tokens + {overhead}/message", stm, windows, refs_overhead,
                    note=f"reference at {overhead} tokens/message, V_max − {overhead}")
            else:
                add("stmviz FIFOWindow via run() (+ full trace)", stm, windows, refs)
            del trace, stm
    else:
        print("  stmviz FIFOWindow: skipped (stmviz.mechanisms.FIFOWindow is not importable yet)")
    add("naive window (plain Python, Σ recomputed)", naive, naive_w, refs)

    # LangChain
    def not_run(name: str) -> None:
        rows.append({"method": name, "mode": f"not run at N > {slow_max_n:,}",
                     "window_note": "per-step cost does not depend on N (bounded window): see the smaller N"})
        print(f"  {name}: not run at N = {n:,} (its per-step cost does not grow with N; see N ≤ {slow_max_n:,})")

    slow = n > slow_max_n
    if not slow:
        timing, windows = full(lambda at: lc_pretrimmed(messages, encode, at))
        add("LangChain trim_messages, pre-trimmed window", timing, windows, refs)
    else:
        not_run("LangChain trim_messages, pre-trimmed window")
    timing, windows = full(lambda at: lc_pretrimmed(messages, encode, at, cached=True))
    add("LangChain trim_messages, pre-trimmed, lru_cache counter", timing, windows, refs)
    if not slow:
        timing, windows = full(lambda at: lc_pretrimmed(messages, encode, at, overhead=OVERHEAD))
        add(f"LangChain trim_messages, pre-trimmed, +{OVERHEAD}/message", timing, windows, refs_overhead,
            note=f"counter adds {OVERHEAD}/message + {OVERHEAD} priming (OpenAI cookbook); reference at the same overhead")
    else:
        not_run(f"LangChain trim_messages, pre-trimmed, +{OVERHEAD}/message")
    best, median, windows, runs = run_sampled(lc_full_step(messages, encode), points, repeat, slow_budget_s)
    add("LangChain trim_messages on the full history", None, windows, refs, mode=f"sampled at {len(points)} t",
        best=trapezoid_mean(points, best), median=trapezoid_mean(points, median), runs=f"{min(runs)}–{max(runs)}")
    lc_full_last = best[-1]

    # LlamaIndex
    if not FAST_ONLY:
        timing, windows = full(lambda at: llama_memory(messages, encode, at), runs=repeat if n <= 1000 else 1)
        add("LlamaIndex Memory (ratio 1.0, flush 1), put+get", timing, windows, refs,
            note="the queue is made to start on a user message")
    if not slow:
        timing, windows = full(lambda at: llama_memory(messages, encode, at, fifo_config=False), runs=1)
        add("LlamaIndex Memory (defaults: ratio 0.7, flush 10%), put+get", timing, windows, refs,
            note="defaults keep ≤ 0.7·token_limit in the queue and flush ≥ 10% of token_limit at once")
    else:
        not_run("LlamaIndex Memory (defaults: ratio 0.7, flush 10%), put+get")
    if n <= skip_cubic_over:
        best, median, windows, runs = run_sampled(llama_buffer_step(messages, encode), points, repeat, slow_budget_s)
        add("LlamaIndex ChatMemoryBuffer, put+get", None, windows, refs, mode=f"sampled at {len(points)} t",
            best=trapezoid_mean(points, best), median=trapezoid_mean(points, median), runs=f"{min(runs)}–{max(runs)}")
        buffer_fit = best[-1] / points[-1] ** 2
    else:
        buffer_fit = None
        print(f"  LlamaIndex ChatMemoryBuffer: not run at N = {n:,} (get() re-tokenizes O(t²) text)")
        rows.append({"method": "LlamaIndex ChatMemoryBuffer, put+get", "mode": "not run: get() is O(t²)",
                     "window_note": "not run"})

    lb_again = common.timed(lambda: lower_bound(messages, encode), repeat)
    lb = common.Timing(lb.runs + lb_again.runs)
    rows.insert(0, {"method": "lower bound: tokenize each message once", "mode": "run to N", "runs": len(lb.runs),
                    "per_step_us_best": lb.best / n * 1e6, "per_step_us_median": lb.median / n * 1e6,
                    "window_note": "no window"})

    # ratios against the lower bound
    lb_best, lb_median = lb.best / n * 1e6, lb.median / n * 1e6
    for row in rows:
        if row.get("per_step_us_best") is not None:
            row["ratio_best"] = row["per_step_us_best"] / lb_best
            row["ratio_median"] = row["per_step_us_median"] / lb_median
    goals: dict[str, Any] = {}
    stm_row = next((r for r in rows if r["method"].startswith("stmviz FIFOWindow via run() (")), None)
    lc_row = next(r for r in rows if r["method"] == "LangChain trim_messages on the full history")
    if stm_row is not None:
        goals = {
            "stmviz_vs_lower_bound_best": stm_row["ratio_best"],
            "stmviz_vs_lower_bound_median": stm_row["ratio_median"],
            "goal_lower_bound": "≤ 1.3×",
            "met_lower_bound": stm_row["ratio_best"] <= 1.3,
            "trim_full_over_stmviz_per_step": lc_row["per_step_us_best"] / stm_row["per_step_us_best"],
            "goal_trim": "≥ 100× (at N = 1,000)",
            "met_trim": lc_row["per_step_us_best"] / stm_row["per_step_us_best"] >= 100,
        }
    return {
        "n": n, "v_max": V_MAX, "seed": seed, "repeat": repeat, "tokens_total": sum(counts),
        "reference_window": len(reference), "sample_points": points, "rows": rows, "goals": goals,
        "trim_full_history_last_step_s": lc_full_last, "chat_memory_buffer_s_per_t2": buffer_fit,
    }


COLUMNS = ["method", "mode", "runs", "per_step_us_best", "per_step_us_median", "ratio_best", "window", "same_window"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10_000], help="stream lengths N")
    parser.add_argument("--repeat", type=int, default=3, help="runs per method (best and median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow-budget", type=float, default=3.0, help="seconds after which a sampled step is not repeated")
    parser.add_argument("--buffer-max-n", type=int, default=1000, help="largest N at which ChatMemoryBuffer is run")
    parser.add_argument("--slow-max-n", type=int, default=1000,
                        help="largest N at which the slow methods with an N-independent per-step cost are run")
    parser.add_argument("--fast-only", action="store_true",
                        help="only the lower bound, the naive window, stmviz, trim_messages with a cached counter and on "
                             "the full history (sampled); skips LlamaIndex and the uncached pre-trimmed trim_messages")
    parser.add_argument("--json-name", default="peers_fifo", help="results/<name>.json")
    parser.add_argument("--quick", action="store_true", help="N = 200, 1 run (a smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat = [200], 1
    started = time.perf_counter()
    global FAST_ONLY
    FAST_ONLY = args.fast_only
    if args.fast_only:
        args.slow_max_n, args.buffer_max_n = 0, 0
    results = [bench(n, args.repeat, args.seed, args.slow_budget, args.buffer_max_n, args.slow_max_n) for n in args.n]
    info = common.machine()
    print(f"\n{common.machine_line(info)}")
    for result in results:
        print()
        print(common.table(result["rows"], COLUMNS, title=f"N = {result['n']:,}, V_max = {V_MAX} (µs per step; ratio to the lower bound)"))
        for row in result["rows"]:
            if row.get("same_window") is False:
                print(f"  - {row['method']}: {row['window_note']}")
        if result["goals"]:
            g = result["goals"]
            print(f"  goal stmviz ≤ 1.3× lower bound: {g['stmviz_vs_lower_bound_best']:.2f}× best "
                  f"({g['stmviz_vs_lower_bound_median']:.2f}× median) → {'met' if g['met_lower_bound'] else 'NOT met'}")
            print(f"  goal ≥ 100× faster than trim_messages on the full history: "
                  f"{g['trim_full_over_stmviz_per_step']:,.0f}× → {'met' if g['met_trim'] else 'NOT met'}")
    path = common.write_json(args.json_name, {"results": results, "elapsed_s": time.perf_counter() - started})
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
