"""What the four mechanisms keep at question time on LoCoMo: evidence recall, whole turns and cost, per V_max.

For every conversation of a LoCoMo file (questions appended, the loader's
default) and every mechanism (FIFO, HiAgent, SCM, AgentFold) at V_max =
2,048, 8,192 tokens and unbounded (10⁹), it runs the mechanism and measures
each question with :func:`stmviz.locomo_eval.locomo_records`. Printed:

1. the table of notebook 10 and docs/benchmarks.md — per mechanism and V_max,
   evidence recall / whole turns (the mean over questions of each
   conversation, then over conversations) and the cost Σ_t |π(ω_t)| summed
   over the conversations, with the bag-of-words evidence word overlap for
   comparison;
2. evidence recall per LoCoMo category (multi-hop, temporal, open-domain,
   single-hop), over all questions;
3. with ``--scm-k``, SCM at each V_max for each k (how many memories it
   activates): what would make it use more room.

LoCoMo (snap-research/locomo, CC BY-NC) is not bundled: download it and pass
its path (``locomo10.json``, ``locomo10.zip`` or the folder it unpacks to).
Only numbers are printed, never the data's text::

    python benchmarks/locomo_table.py /path/to/locomo10.json --scm-k 3 10 30 --processes 2
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, run  # noqa: E402
from stmviz.locomo_eval import by_category, locomo_records  # noqa: E402
from stmviz.metrics import evidence_word_overlap, prompt_tokens  # noqa: E402
from stmviz.scenarios import BenchmarkFileWarning, load_locomo  # noqa: E402

MECHANISMS = {"FIFO": FIFOWindow, "HiAgent": HiAgent, "SCM": SCM, "AgentFold": AgentFold}
UNBOUNDED = 10**9
V_MAX = (2048, 8192, UNBOUNDED)


@functools.lru_cache(maxsize=2)
def _load(path: str) -> list[Any]:
    """The file's scenarios, read once per process."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BenchmarkFileWarning)  # its anomalies are counted in the header instead
        return load_locomo(path)


def measure(path: str, index: int, label: str, v_max: int, k: int | None) -> dict[str, Any]:
    """One run: the mechanism on conversation ``index`` at ``v_max``; its questions' measures (numbers only)."""
    scenario = _load(path)[index]
    factory = MECHANISMS[label] if k is None else functools.partial(SCM, k=k)
    trace = run(factory(StateSpace("tokens", v_max)), scenario)
    records = locomo_records(trace, scenario)
    overlap = [evidence_word_overlap(trace, p) for p in scenario.probes]
    for record, value in zip(records, overlap):
        record["evidence_word_overlap"] = value
        del record["question"], record["reference"]  # no LoCoMo text leaves this function
    return {"conversation": index, "mechanism": label, "v_max": v_max, "k": k, "records": records,
            "cost": prompt_tokens(trace).total}


def _mean(values: list[float | None]) -> float:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else float("nan")


def _cell(runs: list[dict[str, Any]]) -> dict[str, float]:
    """Means per conversation, then over conversations; cost summed."""
    out = {}
    for key in ("evidence_recall", "whole_turns", "evidence_word_overlap"):
        out[key] = _mean([_mean([r[key] for r in run["records"]]) for run in runs])
    out["cost"] = sum(run["cost"] for run in runs)
    return out


def _v(v_max: int) -> str:
    return "unbounded" if v_max == UNBOUNDED else f"{v_max:,}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", help="locomo10.json, locomo10.zip, or the folder it unpacks to")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--scm-k", type=int, nargs="*", default=[], help="also SCM with these k")
    parser.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    scenarios = _load(args.path)[: args.conversations]
    count = len(scenarios)
    tasks = [(args.path, i, label, v, None) for label in MECHANISMS for v in V_MAX for i in range(count)]
    tasks += [(args.path, i, "SCM", v, k) for k in args.scm_k for v in V_MAX[:2] for i in range(count)]
    with ProcessPoolExecutor(args.processes) as pool:
        runs = list(pool.map(measure, *zip(*tasks)))
    steps = sum(len(s.steps) for s in scenarios)
    probes = sum(len(s.probes) for s in scenarios)
    anomalies = sum(len(s.meta["anomalies"]) for s in scenarios)
    print(f"{count} conversations, {steps:,} steps, {probes:,} questions with evidence ({anomalies} anomalies of the "
          f"file skipped or dropped); questions appended")
    print("\nevidence recall / whole turns (mean per conversation), cost Σ|π| over the run (all conversations); "
          "[bag-of-words evidence word overlap]")
    print("| V_max | " + " | ".join(MECHANISMS) + " |")
    print("|---|" + "---|" * len(MECHANISMS))
    for v in V_MAX:
        cells = []
        for label in MECHANISMS:
            c = _cell([r for r in runs if r["mechanism"] == label and r["v_max"] == v and r["k"] is None])
            cells.append(f"{c['evidence_recall']:.3f} / {c['whole_turns']:.3f}, {c['cost'] / 1e6:.1f} M "
                         f"[{c['evidence_word_overlap']:.3f}]")
        print(f"| {_v(v)} | " + " | ".join(cells) + " |")
    print("\nevidence recall by LoCoMo category (all questions)")
    categories = [row["category"] for row in by_category([x for r in runs for x in r["records"]])]
    print("| mechanism | V_max | " + " | ".join(categories) + " |")
    print("|---|---|" + "---|" * len(categories))
    for label in MECHANISMS:
        for v in V_MAX:
            rows = by_category([x for r in runs if r["mechanism"] == label and r["v_max"] == v and r["k"] is None
                                for x in r["records"]])
            print(f"| {label} | {_v(v)} | " + " | ".join(f"{row['evidence_recall']:.3f}" for row in rows) + " |")
    if args.scm_k:
        print("\nSCM by k (memories activated per question): evidence recall / whole turns, cost")
        print("| k | " + " | ".join(_v(v) for v in V_MAX[:2]) + " |")
        print("|---|" + "---|" * 2)
        for k in args.scm_k:
            cells = []
            for v in V_MAX[:2]:
                c = _cell([r for r in runs if r["k"] == k and r["v_max"] == v])
                cells.append(f"{c['evidence_recall']:.3f} / {c['whole_turns']:.3f}, {c['cost'] / 1e6:.1f} M")
            print(f"| {k} | " + " | ".join(cells) + " |")
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
