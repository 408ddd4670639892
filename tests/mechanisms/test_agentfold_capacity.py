"""AgentFold under a capacity stays multi-scale (issue 25): forced consolidations merge as the log-structured rule would."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentFold, StateSpace, run, sizes
from stmviz.errors import CapacityError

WORDS = "the agent opens a page on memory and notes that the user asked for prices dates and names".split()


def stream(n: int, seed: int, lengths: tuple[int, ...] = (5, 20, 60)) -> list[dict]:
    """A research run: a tool call per step, observations of varied length, no folding directives."""
    rng = random.Random(seed)
    return [
        {"thought": f"Look at result {i}.", "action": f"open_page({i})",
         "observation": f"Page {i} says " + " ".join(rng.choice(WORDS) for _ in range(rng.choice(lengths)))}
        for i in range(n)
    ]


def resummarized(trace) -> dict[int, int]:
    """For each step s, how many summaries of it were written: blocks added that cover s (not cut copies, not verbatim)."""
    count: dict[int, int] = {}
    for step in trace:
        for e in step.added:
            if e.type == "block" and not e.meta.get("truncated") and e.meta.get("summary_by") != "verbatim":
                x, y = e.meta["range"]
                for s in range(x, y + 1):
                    count[s] = count.get(s, 0) + 1
    return count


def bound(n: int) -> float:
    return 2 * math.log2(n) + 4


def test_at_v_max_1500_over_300_steps_no_step_is_resummarized_more_than_2_log2_t_plus_4_times():
    """Before issue 25 forced consolidations merged the newest block into older ones: 22 summaries of one step here."""
    trace = run(AgentFold(StateSpace(sizes.tokens(), 1500)), stream(300, 0))
    assert max(resummarized(trace).values()) <= bound(300)


MERGE = re.compile(r"s_\{(\d+),(\d+)\} and s_\{(\d+),(\d+)\} merged into s_\{\d+,\d+\} by deep consolidation")


def forced_merges_are_log_structured(trace) -> int:
    """Every forced consolidation (named in the operation's reason) merged neighbours at most a factor 2 apart in length."""
    merges = 0
    for step in trace:
        for op in step.operations:
            if not op.get("overflow"):
                continue
            for x1, y1, x2, y2 in (map(int, m) for m in MERGE.findall(op.reason)):
                a, b = y1 - x1 + 1, y2 - x2 + 1
                assert 2 * min(a, b) >= max(a, b), (step.t, op.reason)
                merges += 1
    return merges


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 300),
    v_max=st.integers(20, 3000),
    seed=st.integers(0, 10**6),
    lengths=st.sampled_from([(5, 20, 60), (5, 60, 160, 400), (2,)]),
    rule=st.sampled_from(["lsm", "condense"]),
)
def test_each_step_is_resummarized_O_log_t_times_at_any_v_max_where_the_run_is_possible(n, v_max, seed, lengths, rule):
    try:
        mechanism = AgentFold(StateSpace(sizes.tokens(), v_max), controller_rule=rule)
    except CapacityError:  # below the smallest V_max AgentFold can run at
        return
    trace = run(mechanism, stream(n, seed, lengths))
    counts = resummarized(trace)
    assert max(counts.values(), default=0) <= bound(n)
    assert max((b.meta["passes"] for s in trace for b in s.added if b.type == "block"), default=0) <= bound(n)
    forced_merges_are_log_structured(trace)
    for t in range(len(trace) + 1):
        assert trace.size_at(t) <= v_max


@pytest.mark.parametrize("v_max", [150, 600, 1500])
def test_forced_merges_keep_blocks_coarser_with_age(v_max):
    trace = run(AgentFold(StateSpace(sizes.tokens(), v_max), controller_rule="condense"), stream(120, 3, (5, 60, 160)))
    assert forced_merges_are_log_structured(trace) > 0  # the capacity did force merges
    lengths = [y - x + 1 for x, y in (b.meta["range"] for b in AgentFold.blocks(trace.final))]
    assert lengths[0] == max(lengths) and lengths[-1] == min(lengths), lengths  # coarse oldest, fine newest


@pytest.mark.parametrize("v_max", [400, 1000])
def test_the_originals_layout_fits_v_max_and_keeps_the_contract(v_max):
    from stmviz import check_mechanism, load_scenario

    mechanism = AgentFold(StateSpace(sizes.tokens(), v_max), layout="original")
    assert check_mechanism(mechanism)
    trace = run(mechanism, load_scenario("web_research"))
    assert all(step.input_size <= v_max for step in trace) and trace.final_input_size <= v_max
