"""Seconds per mechanism for one huge observation without spaces (1, 5 and 10 MB by default).

A careless or hostile tool result — a base64 blob, a minified file, a line of
one repeated character — can be megabytes long without a single space. Every
mechanism must then cut it to fit V_max, and μ must count it; both must stay
near-linear in the text's length (issue 17: cut-to-fit re-encoded the whole
text at each step of a binary search, and one giant "word" made tiktoken's
BPE superlinear).

The stream: two ordinary steps, then one step whose observation is ``MB``
megabytes of seeded random lower-case letters (one pre-token for tiktoken:
the worst case), then two ordinary steps; V_max = 4096 tokens (cl100k_base).
Each mechanism runs it once with its defaults (FIFOWindow with oversize='truncate'; HiAgent with a subgoal open, a
task query); the time is of ``run(mechanism, steps)`` alone.

Usage: python benchmarks/huge_text.py [--sizes 1 5 10] [--mechanisms FIFOWindow SCM HiAgent AgentFold]
       [--kind letters|base64|spaces]

To measure another checkout, put it first on PYTHONPATH (e.g. a worktree of an older commit: the
script itself imports nothing newer than ``run`` and the mechanisms). Times are absolute seconds,
not ratios: what matters is the growth with the size, and before/after runs at one load.
"""

from __future__ import annotations

import argparse
import os
import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: another checkout put there wins

import _common as common  # noqa: E402
import stmviz  # noqa: E402
from stmviz import AgentStep, StateSpace, run, sizes  # noqa: E402

MECHANISMS = ("FIFOWindow", "SCM", "HiAgent", "AgentFold")
_ALPHABETS = {
    "letters": string.ascii_lowercase,
    "base64": string.ascii_letters + string.digits + "+/",
    "spaces": " ",
}


def huge_text(megabytes: float, kind: str = "letters", seed: int = 0) -> str:
    """``megabytes`` × 10⁶ seeded random characters of one alphabet, without a space (but for kind "spaces")."""
    rng = random.Random(seed)
    return "".join(rng.choices(_ALPHABETS[kind], k=int(megabytes * 1_000_000)))


def stream(observation: str) -> list[AgentStep]:
    """Two ordinary steps, the huge observation, two ordinary steps."""
    return [
        AgentStep(thought="Open the attachment.", action="open('report')", observation="The file is large.",
                  directives={"subgoal": "read the attachment"}),
        AgentStep(thought="Read it.", action="read('report')", observation="Reading the file now."),
        AgentStep(thought="Dump the file.", action="cat('report')", observation=observation),
        AgentStep(thought="That was unreadable.", action="summarize()", observation="Nothing useful in it.",
                  directives={"subgoal_done": True}),
        AgentStep(thought="Done.", observation="The user thanks you."),
    ]


def measure(name: str, steps: list[AgentStep]) -> float:
    options = {"oversize": "truncate"} if name == "FIFOWindow" else {}  # FIFO's default refuses an oversized message
    mechanism = getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=4096), **options)
    start = time.perf_counter()
    run(mechanism, steps, query="Tell the user what the attachment holds.")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 10], help="megabytes of the observation")
    parser.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS), choices=MECHANISMS)
    parser.add_argument("--kind", default="letters", choices=sorted(_ALPHABETS))
    args = parser.parse_args(argv)
    common.forbid_network()
    print(f"stmviz from {Path(stmviz.__file__).parent}; observation: {args.kind}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'MB':>5} " + " ".join(f"{name:>11}" for name in args.mechanisms))
    for mb in args.sizes:
        steps = stream(huge_text(mb, args.kind))
        cells = [f"{measure(name, steps):10.2f}s" for name in args.mechanisms]
        print(f"{mb:5g} " + " ".join(cells), flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (absolute seconds: compare runs made at one load)")


if __name__ == "__main__":
    main()
