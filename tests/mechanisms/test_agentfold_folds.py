"""AgentFold as its authors built it (issue 16): agent-written folds, the log-structured default, overflow named."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentFold, StateSpace, check_mechanism, run, sizes
from stmviz.errors import ScenarioFormatError
from stmviz.mechanisms.agentfold import FALLBACK_MARK

QUERY = "Which paper introduced folding of an agent's context?"


def web(n: int) -> list[dict]:
    return [
        {"thought": f"Look at result {i}.", "action": f"open_page({i})", "observation": f"Page {i} says fact {i}."}
        for i in range(n)
    ]


def make(v_max: int = 4000, mu=None, **kw) -> AgentFold:
    return AgentFold(StateSpace(mu or sizes.tokens(), v_max), **kw)


def ranges(state) -> list[tuple[int, int]]:
    return [b.meta["range"] for b in AgentFold.blocks(state)]


# --------------------------------------------------------------------------- the agent's summary σ


def test_agent_summary_is_the_block_text_and_marked_agent():
    steps = web(3)
    steps[1]["fold"] = {"range": [0, 0], "summary": "Result 0: page 0 states fact 0 (source open_page(0))."}
    m = make(controller_rule="condense")
    trace = run(m, steps, query=QUERY)
    block = AgentFold.blocks(trace.state_at(2))[0]
    assert block.text == "Result 0: page 0 states fact 0 (source open_page(0))."
    assert block.meta["summary_by"] == "agent" and block.meta["range"] == (0, 0)
    assert "[step 0] Result 0: page 0 states fact 0" in trace.project(2).text()
    assert FALLBACK_MARK not in trace.project(2).text().split("\n")[1]  # the agent's block carries no fallback mark
    assert "summary written by the agent" in trace[1].operations[0].reason


def test_directive_without_text_uses_the_fallback_marked_in_meta_and_pi():
    steps = web(3)
    steps[1]["fold"] = {"range": [0, 0]}
    m = make(controller_rule="condense")
    trace = run(m, steps)
    block = AgentFold.blocks(trace.state_at(2))[0]
    assert block.meta["summary_by"] == "fallback"
    assert f"[step 0; {FALLBACK_MARK}] " in trace.project(2).text()
    assert "stmviz's fallback summarizer" in trace[1].reasons[0]


def test_granular_when_x_is_t_minus_1_deep_when_x_is_earlier():
    steps = web(5)
    steps[1]["fold"] = {"range": [0, 0], "summary": "fact 0"}
    steps[2]["fold"] = {"range": [1, 1], "summary": "fact 1"}
    steps[3]["fold"] = {"range": [2, 2], "summary": "fact 2"}
    steps[4]["fold"] = {"range": [1, 3], "summary": "facts 1, 2 and 3: sub-task done"}
    trace = run(make(controller_rule="condense"), steps)
    assert [op.type for s in list(trace)[1:4] for op in s.operations] == ["condense"] * 3
    deep = trace[4].operations[0]
    assert deep.type == "consolidate" and deep["from"] == 1 and deep["summary"].startswith("facts 1, 2 and 3")
    assert ranges(trace.final) == [(0, 0), (1, 3)]
    assert [b.text for b in AgentFold.blocks(trace.final)] == ["fact 0", "facts 1, 2 and 3: sub-task done"]
    assert all(b.meta["summary_by"] == "agent" for b in AgentFold.blocks(trace.final))
    parent = AgentFold.blocks(trace.final)[1]
    tree = make().folds(trace[4].added, trace[4].removed)
    assert [c.meta.get("range", c.meta.get("step")) for c in tree[parent]] == [(1, 1), (2, 2), 3]  # the fold tree draws


@pytest.mark.parametrize(
    "old, new",
    [
        ({"op": "condense"}, {"range": [2, 2]}),
        ({"op": "consolidate", "from": 1}, {"range": [1, 2]}),
        ({"op": "consolidate", "from": 0, "summary": "all of it"}, {"range": [0, 2], "summary": "all of it"}),
    ],
)
def test_older_op_forms_map_onto_ranges(old, new):
    a, b = web(4), web(4)
    a[3]["fold"], b[3]["fold"] = old, new
    ta = run(make(controller_rule="condense"), a)
    tb = run(make(controller_rule="condense"), b)
    assert ranges(ta.final) == ranges(tb.final)
    assert [e.text for e in ta.final] == [e.text for e in tb.final]
    assert ta[3].operations[0].type == tb[3].operations[0].type


@pytest.mark.parametrize(
    "fold, match",
    [
        ({"range": [0, 1]}, r"range must be \[x, 2\]"),
        ({"range": [3, 2]}, r"range must be \[x, 2\]"),
        ({"range": [0]}, r"range must be \[x, 2\]"),
        ({"range": ["0", 2]}, r"range must be \[x, 2\]"),
        ({"range": [0, 2], "summary": "  "}, "summary must be non-empty text"),
        ({"range": [0, 2], "summary": 7}, "summary must be non-empty text"),
        ({"summary": "no range, no op"}, "unknown folding directive"),
    ],
)
def test_malformed_range_directives_are_clear_errors(fold, match):
    steps = web(4)
    steps[3]["fold"] = fold
    with pytest.raises(ScenarioFormatError, match=match) as info:
        run(make(), steps)
    assert "step 3" in str(info.value)


def test_range_directive_at_step_0_is_an_error():
    with pytest.raises(ScenarioFormatError, match="no previous interaction"):
        run(make(), [{"observation": "hi", "fold": {"range": [0, 0], "summary": "x"}}])


# --------------------------------------------------------------------------- the log-structured default


def resummarized(trace) -> dict[int, int]:
    """For each step s, how many blocks covering s were ever written (each one a (re-)summarization of s)."""
    count: dict[int, int] = {}
    for step in trace:
        for e in step.added:
            if e.type == "block":
                x, y = e.meta["range"]
                for s in range(x, y + 1):
                    count[s] = count.get(s, 0) + 1
    return count


def test_lsm_default_resummarizes_each_step_O_log_t_times_over_2000_steps():
    n = 2000
    m = make(v_max=20000)  # default controller: the log-structured merge
    assert m.controller_rule == "lsm"
    trace = run(m, web(n))
    counts = resummarized(trace)
    assert set(counts) == set(range(n - 1))
    bound = math.ceil(math.log2(n)) + 1
    assert max(counts.values()) <= bound, max(counts.values())
    consolidations = sum(op.type == "consolidate" for s in trace for op in s.operations)
    assert consolidations > 900  # about every other step consolidates, yet no step is re-summarized at each one
    assert not any(op.get("overflow") for s in trace for op in s.operations)
    assert max(b.meta["passes"] for b in AgentFold.blocks(trace.final)) == max(counts.values())


@pytest.mark.parametrize("n", [2, 3, 7, 64, 100, 333])
def test_lsm_blocks_grow_coarser_with_age_like_a_binary_counter(n):
    trace = run(make(v_max=20000), web(n + 1))
    lengths = [y - x + 1 for x, y in ranges(trace.final)]
    assert lengths == sorted(lengths, reverse=True)  # older blocks are coarser
    assert all(k & (k - 1) == 0 for k in lengths)  # powers of two
    assert sorted(lengths) == sorted(1 << i for i in range(n.bit_length()) if n >> i & 1)  # the binary digits of n


def test_lsm_merges_recent_fine_blocks_and_leaves_old_coarse_ones_untouched():
    trace = run(make(v_max=20000), web(14))
    # 12 folded steps: 8 + 4; at step 13, I_12 joins no block of length 1 → condense
    assert ranges(trace.state_at(13)) == [(0, 7), (8, 11)]
    assert trace[13].operations[0].type == "condense"
    assert ranges(trace.final) == [(0, 7), (8, 11), (12, 12)]
    old = AgentFold.blocks(trace.state_at(13))[0]
    assert old in trace.final  # the old coarse block was not re-summarized


def test_lsm_leaves_agent_blocks_of_other_lengths_alone():
    steps = web(8)
    steps[4]["fold"] = {"range": [0, 3], "summary": "steps 0-3"}  # a block of 4 steps
    steps[5]["fold"] = {"range": [4, 4], "summary": "step 4"}
    trace = run(make(v_max=20000), steps)
    assert ranges(trace.final)[0] == (0, 3)
    assert ranges(trace.final)[1:] == [(4, 5), (6, 6)]


# --------------------------------------------------------------------------- overflow, named


def test_overflow_forces_a_consolidation_recorded_as_such():
    m = make(v_max=60, mu=sizes.words, block_budget=20)
    steps = [{"thought": "Read.", "action": f"read({i})", "observation": " ".join(["fact"] * 12) + f" {i}."} for i in range(30)]
    trace = run(m, steps, query=QUERY)
    forced = [(t, op) for t, s in enumerate(trace) for op in s.operations if op.get("overflow")]
    assert forced
    for t, op in forced:
        assert op.type == "consolidate" and op.reason.startswith("overflow: ")
        new = [e for e in trace[t].added if e.type == "block"]
        assert new and all(e.meta.get("overflow") and e.meta["summary_by"] == "fallback" for e in new)
        assert any("forced by overflow" in r for r in trace[t].reasons)
    for t in range(len(trace) + 1):
        assert trace.size_at(t) <= 60


def test_operation_names_what_happened():
    """No "condense" on a step whose fold merged blocks; every merge is a consolidate (overflow ones say so)."""
    m = make(v_max=140, mu=sizes.words, block_budget=20, controller_rule="condense")
    steps = [{"thought": "Read.", "action": f"read({i})", "observation": " ".join(["fact"] * 12) + f" {i}."} for i in range(30)]
    trace = run(m, steps, query=QUERY)
    for step in trace:
        merged_blocks = any(e.type == "block" for e in step.removed)
        (op,) = step.operations
        if merged_blocks:
            assert op.type == "consolidate", (step.t, str(op))
            assert op.get("overflow"), str(op)  # the rule asked to condense: only overflow merges here
        else:
            assert op.type == "condense"


def test_overflow_over_an_agent_directive_keeps_its_text_as_input_and_marks_fallback():
    seen = []

    def spy(texts, budget):
        seen.append(tuple(texts))
        return " ".join(["m"] * budget)

    m = make(v_max=40, mu=sizes.words, summarize=spy, block_budget=5, controller_rule="condense")
    steps = [{"action": f"read({i})", "observation": " ".join(["w"] * 12)} for i in range(6)]
    steps[5]["fold"] = {"range": [4, 4], "summary": "AGENT-SIGMA " * 10}
    trace = run(m, steps)
    op = trace[5].operations[0]
    if op.get("overflow"):
        assert any("AGENT-SIGMA AGENT-SIGMA AGENT-SIGMA" in t for texts in seen for t in texts)
        assert op.reason.startswith("overflow: condense(summary=AGENT-SIGMA")  # what the agent asked for
        assert AgentFold.blocks(trace.final)[-1].meta["summary_by"] == "fallback"
    else:  # pragma: no cover - the sizes above are chosen so that it overflows
        pytest.fail("expected the agent's fold to overflow")


@pytest.mark.parametrize("v_max", [4096, 300, 60, 12])
def test_check_mechanism_with_agent_directives(v_max):
    assert check_mechanism(make(v_max=v_max)), "lsm"


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 700), budget=st.integers(4, 60))
def test_lsm_bound_holds_for_any_run_length_without_overflow(n, budget):
    trace = run(make(v_max=10**6, block_budget=budget), web(n))
    counts = resummarized(trace)
    assert max(counts.values()) <= math.ceil(math.log2(n)) + 1
    assert len(AgentFold.blocks(trace.final)) == bin(n - 1).count("1")  # one block per binary digit of t − 1
