"""Benchmark of the figures and widgets (issue: see the memory) on 10,000-step traces.

For each mechanism, measured in one run:
- the time to build each figure (occupancy, state bar, hierarchy, loop, tokens HTML);
- TracePlayer: the Python-side time from a slider change to updated figures (goal: median ≤ 10 ms),
  for a random t with everything (figures, step info, coloured tokens) and with figures only
  (what happens while Play runs: the token view is caught up when it stops);
- the size of the exported standalone HTML.

Usage: python benchmarks/widgets.py [--steps N] [--moves M] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, export_html, run, sizes  # noqa: E402
from stmviz.contract import sample_steps  # noqa: E402
from stmviz.viz import hierarchy_figure, loop_figure, occupancy_figure, state_figure, tokens_html  # noqa: E402
from stmviz.widgets import TracePlayer  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def ms(values):
    xs = sorted(v * 1e3 for v in values)
    return {"median": statistics.median(xs), "p90": xs[int(0.9 * (len(xs) - 1))], "max": xs[-1]}


def bench(name, trace, moves, rng):
    n = len(trace)
    t_mid = n // 2
    figures = {
        "occupancy_figure": lambda: occupancy_figure(trace),
        "state_figure": lambda: state_figure(trace, t_mid),
        "hierarchy_figure": lambda: hierarchy_figure(trace, t_mid),
        "loop_figure": lambda: loop_figure(trace, t_mid),
        "tokens_html": lambda: tokens_html(trace.project(t_mid)),
    }
    build = {key: timed(fn)[0] for key, fn in figures.items()}
    player_build, player = timed(lambda: TracePlayer(trace))
    full, figures_only = [], []
    for _ in range(moves):
        t = rng.randrange(n + 1)
        start = time.perf_counter()
        player.slider.value = t
        full.append(time.perf_counter() - start)
    for _ in range(moves):  # the figures alone, as while playing when the token view is slow and waits
        t = rng.randrange(n + 1)
        start = time.perf_counter()
        player.view.show(t, tokens=False)
        figures_only.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        export_s, path = timed(lambda: export_html(trace, Path(tmp) / "trace.html"))
        size = path.stat().st_size
    return {
        "mechanism": name,
        "steps": n,
        "figure_build_s": build,
        "player_build_s": player_build,
        "slider_full_ms": ms(full),
        "slider_figures_only_ms": ms(figures_only),
        "export_s": export_s,
        "export_bytes": size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    steps = sample_steps(args.steps, seed=3)
    rng = random.Random(0)
    results = []
    for cls in (FIFOWindow, SCM, HiAgent, AgentFold):
        build_s, trace = timed(lambda: run(cls(StateSpace(sizes.tokens(), 8192)), steps, query="q", tools=("search",)))
        result = bench(cls.__name__, trace, args.moves, rng)
        result["run_s"] = build_s
        results.append(result)
    print(f"stmviz widgets benchmark — {args.steps} steps per trace, V_max = 8192, {args.moves} slider moves each")
    print(f"{'mechanism':11} {'slider→figures (median / p90 ms)':>34} {'figures only':>16} {'player':>8} {'export':>16}")
    for r in results:
        full, fig = r["slider_full_ms"], r["slider_figures_only_ms"]
        print(f"{r['mechanism']:11} {full['median']:15.1f} / {full['p90']:6.1f}          {fig['median']:7.1f} / {fig['p90']:5.1f}"
              f" {r['player_build_s']:7.2f}s {r['export_bytes'] / 1e6:6.1f} MB {r['export_s']:5.1f}s")
    print("\nfigure build times (s):")
    keys = list(results[0]["figure_build_s"])
    print(f"{'mechanism':11} " + " ".join(f"{k:>17}" for k in keys))
    for r in results:
        print(f"{r['mechanism']:11} " + " ".join(f"{r['figure_build_s'][k]:17.3f}" for k in keys))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
