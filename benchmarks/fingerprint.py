"""Fingerprints of traces: a speed change must not change what a mechanism does.

Runs each of the four mechanisms on every bundled scenario (at its documented V_max)
and on the first ``--steps`` steps of the benchmark agent stream (V_max = 8192), and
prints the SHA-256 of each ``trace.to_json()``. Save the output before a change and
compare after it:

    python benchmarks/fingerprint.py > before.txt   # … change the code …
    python benchmarks/fingerprint.py | diff before.txt -
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()

from stmviz import AgentFold, AgentStep, FIFOWindow, HiAgent, SCM, StateSpace, list_scenarios, load_scenario, run, sizes  # noqa: E402

MECHANISMS = (FIFOWindow, SCM, HiAgent, AgentFold)


def digest(trace) -> str:
    return hashlib.sha256(trace.to_json().encode("utf-8")).hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps of the benchmark agent stream")
    args = parser.parse_args()
    for info in list_scenarios():
        name = info.name
        scenario = load_scenario(name)
        for cls in MECHANISMS:
            space = StateSpace(sizes.tokens(), v_max=scenario.v_max)
            try:
                line = digest(run(cls(space), scenario))
            except Exception as exc:  # noqa: BLE001 - an error is a fingerprint too
                line = f"error {type(exc).__name__}: {exc}"
            print(f"{name:<14} {cls.__name__:<10} {line}", flush=True)
    steps = [AgentStep.coerce(r.as_dict()) for r in common.agent_stream(args.steps, seed=0)]
    for cls in MECHANISMS:
        trace = run(cls(StateSpace(sizes.tokens(), v_max=8192)), steps, query=common.AGENT_QUERY, tools=common.AGENT_TOOLS)
        print(f"{'agent_stream':<14} {cls.__name__:<10} {digest(trace)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
