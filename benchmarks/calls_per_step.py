"""Python function calls per step (cProfile) at several N: a count, not a time, so noise-free.

If the work per step is constant in N, so is this count; `scaling.py` then shows what the
wall time adds on top (the garbage collector, the caches). The stream is `scaling.py`'s.

    python benchmarks/calls_per_step.py --mechanism FIFOWindow --n 1000 10000 20000
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()
common.warm_up()

from stmviz import AgentStep, StateSpace, run, sizes  # noqa: E402

SHORT = {"thought_tokens": (5, 20), "observation_tokens": (10, 60)}  # as in scaling.py
MODULES = {"FIFOWindow": "fifo", "SCM": "scm", "HiAgent": "hiagent", "AgentFold": "agentfold"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mechanism", choices=sorted(MODULES), default="FIFOWindow")
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10_000, 20_000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cls = common.mechanism_class(args.mechanism, MODULES[args.mechanism])
    records = common.agent_stream(max(args.n), seed=args.seed, **SHORT)
    steps = [AgentStep.coerce(r.as_dict()) for r in records]

    def once(n: int) -> None:
        run(cls(StateSpace(sizes.tokens(), v_max=8192)), steps[:n], query=common.AGENT_QUERY, tools=common.AGENT_TOOLS)

    once(min(50, max(args.n)))  # imports and first-call caches out of the way
    for n in args.n:
        common.reset_stmviz_caches()
        profile = cProfile.Profile()
        profile.enable()
        once(n)
        profile.disable()
        print(f"{args.mechanism} N = {n:>7,}: {pstats.Stats(profile).total_calls / n:8.1f} Python calls per step")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
