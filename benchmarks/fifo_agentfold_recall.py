"""compare() retention and mean evidence recall of FIFOWindow and AgentFold on every bundled scenario and the
LoCoMo- and LongMemEval-format test fixtures (issue 25's before/after table).

Run from a checkout: ``PYTHONPATH=. python benchmarks/fifo_agentfold_recall.py``.
"""

from __future__ import annotations

from pathlib import Path

from stmviz import AgentFold, FIFOWindow, StateSpace, load_scenario, run, sizes
from stmviz.metrics import compare, run_metrics
from stmviz.scenarios import load_locomo, load_longmemeval

ROOT = Path(__file__).resolve().parent.parent
V_MAX = (1000, 150)  # for the benchmark fixtures, which name no capacity: all fits at 1000, not at 150
FIXTURES = ROOT / "tests" / "scenarios" / "fixtures"


def scenarios() -> list:
    out = [load_scenario(n) for n in ("household", "long_dialogue", "tool_chat", "web_research")]
    out += load_locomo(FIXTURES / "locomo_small.json")
    out += load_longmemeval(FIXTURES / "longmemeval_small.json")
    return out


def main() -> None:
    print(f"{'scenario':32} {'mechanism':11} {'V_max':>6} {'retention':>9} {'evidence recall':>15}")
    for scenario in scenarios():
        for v_max, cls in [(v, c) for v in ([scenario.v_max] if scenario.v_max else V_MAX) for c in (FIFOWindow, AgentFold)]:
            record = compare([cls(StateSpace(sizes.tokens(), v_max))], scenario)[0]
            trace = run(cls(StateSpace(sizes.tokens(), v_max)), scenario)
            ev = run_metrics(trace, scenario.probes).get("evidence_recall")
            ret = record["retention"]
            print(
                f"{scenario.name[:32]:32} {cls.__name__:11} {v_max:>6g} "
                f"{'-' if ret is None else f'{ret:.3f}':>9} {'-' if ev is None else f'{ev:.3f}':>15}"
            )


if __name__ == "__main__":
    main()
