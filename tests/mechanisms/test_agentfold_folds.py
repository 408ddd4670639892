"""AgentFold as its authors built it (issue 16): agent-written folds, the log-structured default, overflow named."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentFold, StateSpace, check_mechanism, run, sizes
from stmviz.errors import FormatError
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
        ({"range": [0, 3]}, r"range must be step numbers \[x, …, y\] with 0 ≤ x ≤ y ≤ 2"),
        ({"range": [2, 1]}, r"range must be step numbers \[x, …, y\] with 0 ≤ x ≤ y ≤ 2"),
        ({"range": []}, r"range must be step numbers"),
        ({"range": [-1, 2]}, r"range must be step numbers"),
        ({"range": ["0", 2]}, r"range must be step numbers"),
        ({"range": [0, 2], "summary": "  "}, "summary must be non-empty text"),
        ({"range": [0, 2], "summary": 7}, "summary must be non-empty text"),
        ({"summary": "no range, no op"}, "unknown folding directive"),
    ],
)
def test_malformed_range_directives_are_clear_errors(fold, match):
    steps = web(4)
    steps[3]["fold"] = fold
    with pytest.raises(FormatError, match=match) as info:
        run(make(), steps)
    assert "step 3" in str(info.value)


def test_a_directive_at_step_0_is_ignored_as_the_original_ignores_a_first_reply_compress():
    with_directive = run(make(), [{"observation": "hi", "fold": {"range": [0, 0], "summary": "x"}}, {"observation": "yo"}])
    without = run(make(), [{"observation": "hi"}, {"observation": "yo"}])
    assert with_directive.final == without.final
    assert "ignored: nothing to fold at the first step" in with_directive[0].operations[0].reason


def test_a_range_list_counts_by_its_first_and_last_entries_and_the_original_keys_are_read():
    a, b = web(5), web(5)
    a[4]["fold"] = {"compress_range": [1, 2, 3], "compress_text": "steps 1 to 3"}
    b[4]["fold"] = {"range": [1, 3], "summary": "steps 1 to 3"}
    ta, tb = (run(make(controller_rule="condense"), s) for s in (a, b))
    assert ranges(ta.final) == ranges(tb.final) == [(0, 0), (1, 3)]
    assert [e.text for e in ta.final] == [e.text for e in tb.final]


def test_a_range_ending_before_t_minus_1_keeps_the_steps_after_it_in_full():
    steps = web(5)
    steps[4]["fold"] = {"range": [0, 1], "summary": "steps 0 and 1"}
    trace = run(make(controller_rule="condense"), steps)
    blocks = AgentFold.blocks(trace.final)
    assert [b.meta["range"] for b in blocks] == [(0, 1), (2, 2), (3, 3)]
    kept = blocks[-1]
    assert kept.meta["summary_by"] == "verbatim" and kept.text == trace.state_at(4).where(type="latest")[0].text
    assert "kept in full as s_{3,3}" in " ".join(trace[4].reasons)
    assert trace[4].operations[0]["to"] == 1


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
    m = make(v_max=45, mu=sizes.words, block_budget=20, controller_rule="condense")
    steps = [{"thought": "Read.", "action": f"read({i})", "observation": " ".join(["fact"] * 12) + f" {i}."} for i in range(30)]
    trace = run(m, steps, query=QUERY)
    forced = [(t, op) for t, s in enumerate(trace) for op in s.operations if op.get("overflow")]
    assert forced
    for t, op in forced:
        assert "overflow once I_" in op.reason
        new = [e for e in trace[t].added if e.type == "block" and e.meta.get("overflow")]
        assert new and all(e.meta["summary_by"] == "fallback" for e in new)
        assert any("by deep consolidation: " in r for r in trace[t].reasons)
    for t in range(len(trace) + 1):
        assert trace.size_at(t) <= 45


def test_operation_names_what_happened():
    """A step whose fold merged blocks the rule did not ask to merge says overflow=True, and why."""
    m = make(v_max=140, mu=sizes.words, block_budget=20, controller_rule="condense")
    steps = [{"thought": "Read.", "action": f"read({i})", "observation": " ".join(["fact"] * 12) + f" {i}."} for i in range(30)]
    trace = run(m, steps, query=QUERY)
    for step in trace:
        merged_blocks = any(e.type == "block" for e in step.removed)
        (op,) = step.operations
        assert op.type == "condense"
        assert bool(op.get("overflow")) == merged_blocks, (step.t, str(op))


def test_overflow_over_an_agent_directive_keeps_its_fold_and_merges_as_the_log_structured_rule_would():
    seen = []

    def spy(texts, budget):
        seen.append(tuple(texts))
        return " ".join(["m"] * budget)

    m = make(v_max=40, mu=sizes.words, summarize=spy, block_budget=5, controller_rule="condense")
    steps = [{"action": f"read({i})", "observation": " ".join(["w"] * 12)} for i in range(6)]
    steps[5]["fold"] = {"range": [4, 4], "summary": "AGENT-SIGMA " * 10}
    trace = run(m, steps)
    op = trace[5].operations[0]
    assert op.get("overflow") and op.type == "condense" and op["summary"].startswith("AGENT-SIGMA")
    assert op.reason.startswith("folding directive of step 5 (summary written by the agent); overflow once I_5")
    # the oldest pair of the lowest level merges first: the agent's own block s_{4,4} keeps σ
    assert ranges(trace.final) == [(0, 3), (4, 4)]  # s_{0,0}+s_{1,1}, s_{2,2}+s_{3,3}, then s_{0,1}+s_{2,3}
    assert [b.meta["summary_by"] for b in AgentFold.blocks(trace.final)] == ["fallback", "agent"]
    assert AgentFold.blocks(trace.final)[-1].text == ("AGENT-SIGMA " * 10).strip()
    assert all("AGENT-SIGMA" not in t for texts in seen for t in texts)


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


def test_u_reads_nothing_the_controller_left_behind_and_names_only_merges_an_element_went_through():
    """U(ω, o, c) is a function of ω, o and c (Definition 2): a fresh AgentFold given a step's state, operation and
    context records what the run recorded. At agent stream 1, step 28, I_27 is condensed into s_{27,27}, which stays;
    its reason quotes the controller's overflow forecast (merges of older blocks) but must not say it went on
    through those merges ("; then …"). It did, when U read a forecast the controller had stored on the object."""
    from stmviz import AgentFold, StateSpace, run, sizes
    from tests.golden.canonical import agent_stream

    def fold():
        return AgentFold(StateSpace(sizes.tokens(), v_max=600))

    trace = run(fold(), agent_stream(120, 1), query="Collect the prices of three sources.", tools=("search", "open"))
    step = trace[28]
    fresh = fold().update(trace.state_at(28), step.operations[0], step.context)
    assert {e: why for e, why in fresh.reasons.items()} == dict(zip(step.removed, step.reasons))
    latest = next(why for e, why in zip(step.removed, step.reasons) if e.meta.get("type") == "latest")
    assert latest.startswith("I_27 condensed into s_{27,27}") and "; then" not in latest
