"""AgentFold (Definitions 1, 2 examples; Section 4): context (Q, T, S, I), condensation and consolidation."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentFold, AgentStep, Operation, StateSpace, Trace, check_mechanism, run, sizes
from stmviz.errors import CapacityError, FormatError, UpdateFailedError
from stmviz.contract import sample_steps
from stmviz.mechanisms.agentfold import block_label, interaction_text

QUERY = "Which paper introduced folding of an agent's context?"
TOOLS = ("search", "open_page")


def web(n: int = 8) -> list[dict]:
    return [
        {"thought": f"Look at result {i}.", "action": f"open_page({i})", "observation": f"Page {i} says fact {i}."}
        for i in range(n)
    ]


def make(v_max: int = 2000, mu=None, **kw) -> AgentFold:
    return AgentFold(StateSpace(mu or sizes.tokens(), v_max), **kw)


def ranges(state) -> list[tuple[int, int]]:
    return [b.meta["range"] for b in AgentFold.blocks(state)]


# --------------------------------------------------------------------------- Definition 1 example: (Q, T, S_{t−2}, I_{t−1})


def test_initial_state_holds_query_and_tools():
    trace = run(make(), web(1), query=QUERY, tools=TOOLS)
    assert [(e.type, e.text) for e in trace.initial] == [("query", QUERY), ("tools", "search; open_page")]
    assert [e.type for e in run(make(), web(1)).initial] == []


def test_context_at_step_t_is_Q_T_S_t_minus_2_I_t_minus_1():
    trace = run(make(controller_rule="condense"), web(6), query=QUERY, tools=TOOLS)
    for t in range(2, len(trace) + 1):
        omega = trace.state_at(t)
        assert [e.type for e in omega][:2] == ["query", "tools"]
        assert ranges(omega) == [(s, s) for s in range(t - 1)]  # S_{t−2}: steps 0 … t−2, one block each
        latest = AgentFold.latest(omega)
        assert latest.meta["step"] == t - 1 and latest.text == interaction_text(AgentStep.coerce(web(6)[t - 1]))
        assert len(omega.where(type="latest")) == 1
    assert AgentFold.latest(trace.state_at(0)) is None


def test_latest_is_the_full_record_explanation_action_observation():
    text = interaction_text(AgentStep(thought="Why.", action="do()", observation="Seen."))
    assert text == "Explanation: Why.\nAction: do()\nObservation: Seen."
    assert interaction_text(AgentStep()) == "(empty step)"


def test_E_and_D_block_metadata():
    trace = run(make(controller_rule="condense"), web(3), query=QUERY, tools=TOOLS)
    block = AgentFold.blocks(trace.final)[0]
    assert block.type == "block" and block.meta["range"] == (0, 0) and block.t == 0
    assert block_label(block) == "s_{0,0}"


# --------------------------------------------------------------------------- Definition 2 example: O, C, U, π


def test_O_declared():
    assert set(AgentFold.operations.types) == {"condense", "consolidate"}


def test_granular_condensation_adds_block_s_t_minus_1():
    steps = web(3)
    steps[2]["fold"] = {"op": "condense"}
    trace = run(make(controller_rule="condense"), steps)
    step = trace[2]
    assert step.operations == (Operation("condense", reason="folding directive of step 2 (no summary text)"),)
    assert [e.type for e in step.removed] == ["latest"]
    assert step.reasons == (
        "I_1 condensed into s_{1,1} by granular condensation, text by stmviz's fallback summarizer "
        "(folding directive of step 2 (no summary text))",
    )
    assert ranges(trace.final) == [(0, 0), (1, 1)]


def test_deep_consolidation_replaces_chain_by_one_block():
    steps = web(5)
    steps[4]["fold"] = {"op": "consolidate", "from": 1}
    trace = run(make(controller_rule="condense"), steps, query=QUERY)
    assert ranges(trace.state_at(4)) == [(0, 0), (1, 1), (2, 2)]
    assert ranges(trace.final) == [(0, 0), (1, 3)]
    # each removed element's own reason (the one sentence was repeated for every element of the chain)
    tail = "by deep consolidation, text by stmviz's fallback summarizer (folding directive of step 4 (no summary text))"
    assert list(trace[4].reasons) == [
        f"s_{{1,1}} merged into s_{{1,3}} together with s_{{2,2}}, I_3 {tail}",
        f"s_{{2,2}} merged into s_{{1,3}} together with s_{{1,1}}, I_3 {tail}",
        f"I_3 merged into s_{{1,3}} together with s_{{1,1}}, s_{{2,2}} {tail}",
    ]
    assert len(set(trace[4].reasons)) == len(trace[4].reasons)
    assert len(trace[4].removed) == 3


def test_a_range_starting_inside_a_block_adds_an_overlapping_block_as_the_original_does():
    """infer.py replaces the entries that *start* in [x, y]: a block that starts before x stays (issue 25)."""
    steps = web(6)
    steps[4]["fold"] = {"op": "consolidate", "from": 1}
    steps[5]["fold"] = {"op": "consolidate", "from": 2}  # step 2 lies inside s_{1,3}
    trace = run(make(controller_rule="condense"), steps)
    assert ranges(trace.final) == [(0, 0), (1, 3), (2, 4)]
    assert "starts inside s_{1,3}, which stays" in trace[5].operations[0].reason
    assert [e.meta.get("step") for e in trace[5].removed] == [4]  # only I_4 starts in [2, 4]


def test_U_uses_C_query_and_tools_and_the_summarizer():
    seen = []

    def spy(texts, budget):
        seen.append((tuple(texts), budget))
        return "S"

    steps = web(3)
    steps[2]["fold"] = {"op": "consolidate", "from": 0}
    run(make(summarize=spy, block_budget=7, controller_rule="condense"), steps)
    assert seen[0][1] == 7  # granular condensation of one step: block_budget
    # deep consolidation of s_{0,0} and I_1 into s_{0,1}: a coarser block with budget 7 · (1 + log2 2) = 14
    assert seen[-1] == (("S", interaction_text(AgentStep.coerce(web(3)[1]))), 14)


def test_pi_is_the_tuple_Q_T_S_I_with_range_labels():
    steps = web(5)
    steps[4]["fold"] = {"op": "consolidate", "from": 1}
    m = make(controller_rule="condense")
    trace = run(m, steps, query=QUERY, tools=TOOLS)
    lines = m.project(trace.final).splitlines()
    assert lines[:3] == [f"Question: {QUERY}", "Tools: search; open_page", "Summaries:"]
    assert lines[3].startswith("[step 0; stmviz fallback summary] ")
    assert lines[4].startswith("[steps 1–3; stmviz fallback summary] ")
    assert lines[5] == "Latest interaction (step 4):"
    assert "\n".join(lines[6:]) == interaction_text(AgentStep.coerce(web(5)[4]))


def test_projection_size_close_to_exact_count():
    m = make(v_max=300)
    trace = run(m, sample_steps(20), query=QUERY, tools=TOOLS)
    for t in range(len(trace) + 1):
        x = m.project(trace.state_at(t))
        assert abs(m.projection_size(trace.state_at(t)) - m.count_tokens(x)) <= 2 * (x.count("\n") + 1)



def test_projection_size_and_grouping_do_not_depend_on_the_states_seen_before():
    """|π(ω)| is carried from the previous ω and ω's grouping derived from the previous one: both equal fresh values."""
    m = make(v_max=300)
    trace = run(m, sample_steps(40), query=QUERY, tools=TOOLS)
    order = list(range(len(trace) + 1))
    random.Random(7).shuffle(order)
    for t in order:
        omega = trace.state_at(t)
        assert m.projection_size(omega) == make(v_max=300).projection_size(omega)
        assert AgentFold.blocks(omega) == [e for e in omega if e.type == "block"]
        assert AgentFold.latest(omega) == next((e for e in omega if e.type == "latest"), None)


# --------------------------------------------------------------------------- the rule-based controller


def test_rule_count_consolidates_the_newer_half():
    trace = run(make(controller_rule="count", max_blocks=4), web(8))
    for t in range(len(trace) + 1):
        assert len(AgentFold.blocks(trace.state_at(t))) <= 4
    consolidations = [s for s in trace if s.operations[0].type == "consolidate"]
    assert consolidations and "more than 4 blocks" in consolidations[0].operations[0].reason
    assert ranges(trace.state_at(6)) == [(0, 0), (1, 1), (2, 4)]  # older blocks untouched, newer half merged


def test_rule_share_consolidates_when_blocks_take_too_much():
    m = make(v_max=400, controller_rule="share", share=0.3)
    trace = run(m, sample_steps(30), query=QUERY)
    consolidations = [s for s in trace if s.operations[0].type == "consolidate" and "rule" in s.operations[0].reason]
    assert consolidations
    assert re.search(r"take \d+ > 0\.3·V_max = 120", consolidations[0].operations[0].reason)


def test_rule_condense_only_folds_single_steps_when_room():
    trace = run(make(controller_rule="condense"), web(10))
    assert ranges(trace.final) == [(s, s) for s in range(9)]


# --------------------------------------------------------------------------- overflow


def test_overflow_consolidates_more_and_records_why():
    m = make(v_max=50, mu=sizes.words, controller_rule="condense", block_budget=20)
    steps = [{"thought": "Read.", "action": f"read({i})", "observation": " ".join(["fact"] * 12) + f" {i}."} for i in range(30)]
    trace = run(m, steps, query=QUERY)
    for t in range(len(trace) + 1):
        assert trace.size_at(t) <= 50
    reasons = [r for s in trace for r in s.reasons]
    assert any(re.search(r"s_\{\d+,\d+\} and s_\{\d+,\d+\} merged into s_\{\d+,\d+\} by deep consolidation: ", r) for r in reasons)
    forced = [op for s in trace for op in s.operations if op.get("overflow")]
    assert forced and all(op.type == "condense" and "; overflow once I_" in op.reason for op in forced)


def test_last_resort_cuts_oldest_block_then_latest():
    m = make(v_max=40, mu=sizes.words, controller_rule="condense", block_budget=200)
    steps = [{"action": f"read({i})", "observation": " ".join(["x"] * 30)} for i in range(4)]
    trace = run(m, steps, query=QUERY, tools=TOOLS)
    assert trace.size_at(len(trace)) <= 40
    assert ranges(trace.final) == [(0, 2)]
    assert any(e.meta.get("truncated") for e in trace.final)


# --------------------------------------------------------------------------- contract, invariants, JSON


@pytest.mark.parametrize("v_max", [4096, 300, 60, 12])
@pytest.mark.parametrize("rule", ["lsm", "share", "count", "condense"])
def test_check_mechanism(v_max, rule):
    report = check_mechanism(make(v_max=v_max, controller_rule=rule))
    assert report, str(report)


@st.composite
def fold_streams(draw):
    n = draw(st.integers(1, 14))
    steps = []
    for t in range(n):
        size = draw(st.integers(0, 60))
        step = {
            "thought": draw(st.sampled_from(["", "Think.", "Explain " * 5])),
            "action": draw(st.sampled_from(["", "search('x')"])),
            "observation": " ".join(f"w{i}" for i in range(size)),
        }
        kind = draw(st.sampled_from(["none", "condense", "consolidate", "range"]))
        if kind == "condense":
            step["fold"] = {"op": "condense"}
        elif kind == "consolidate" and t >= 1:
            step["fold"] = {"op": "consolidate", "from": draw(st.integers(0, t - 1))}
        elif kind == "range" and t >= 1:
            x = draw(st.integers(0, t - 1))
            step["fold"] = {"range": [x, draw(st.sampled_from([t - 1, draw(st.integers(x, t - 1))]))]}
            if draw(st.booleans()):
                step["fold"]["summary"] = " ".join(f"s{i}" for i in range(draw(st.integers(1, 30))))
        steps.append(step)
    return steps


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=fold_streams(),
    v_max=st.integers(10, 400),
    mu=st.sampled_from([sizes.words, sizes.chars, sizes.tokens()]),
    rule=st.sampled_from(["lsm", "share", "count", "condense"]),
    budget=st.integers(1, 40),
)
def test_blocks_cover_every_folded_step_in_order(steps, v_max, mu, rule, budget):
    m = AgentFold(StateSpace(mu, v_max), block_budget=budget, controller_rule=rule, max_blocks=3)
    trace = run(m, steps, query=QUERY, tools=TOOLS)
    # blocks overlap only where a directive's range started inside a block (the original keeps that block)
    may_overlap = any((s.get("fold") or {}).get("range") or (s.get("fold") or {}).get("op") == "consolidate" for s in steps)
    # and a range that ends inside a block replaces that whole block: its later steps are gone, as in the original
    may_gap = any((s.get("fold") or {}).get("range", [t - 1])[-1] < t - 1 for t, s in enumerate(steps))
    for t in range(len(trace) + 1):
        omega = trace.state_at(t)
        assert omega in m.space
        if t == 0:
            assert not omega.where(type="latest") and not omega.where(type="block")
            continue
        latest = omega.where(type="latest")
        assert len(latest) == 1 and latest[0].meta["step"] == t - 1
        covered = [s for x, y in ranges(omega) for s in range(x, y + 1)]
        assert set(covered) <= set(range(t - 1))  # nothing beyond I_{t−1}
        if not may_gap:
            assert sorted(set(covered)) == list(range(t - 1))  # no gap
        if not may_overlap:
            assert covered == list(range(t - 1))  # the rules never overlap
        starts = [x for x, _ in ranges(omega)]
        assert starts == sorted(set(starts))  # S is ordered by the step each block starts at
        assert [e.type for e in omega] == [e.type for e in omega if e.type in ("query", "tools")] + [
            "block"
        ] * len(ranges(omega)) + ["latest"]
    for step in trace:
        assert len(step.reasons) == len(step.removed) and all(step.reasons)


def test_deterministic_and_json_round_trip():
    steps = sample_steps(30)
    a = run(make(v_max=300), steps, query=QUERY, tools=TOOLS)
    b = run(make(v_max=300), steps, query=QUERY, tools=TOOLS)
    assert a == b
    assert [a.project(t) for t in range(len(a) + 1)] == [b.project(t) for t in range(len(b) + 1)]
    loaded = Trace.from_json(a.to_json())
    assert loaded == a
    assert isinstance(loaded.mechanism, AgentFold) and loaded.mechanism.params() == a.mechanism.params()
    assert loaded.project(len(loaded)) == a.project(len(a))


# --------------------------------------------------------------------------- bad inputs and failures


@pytest.mark.parametrize(
    "fold, match",
    [
        ({"op": "squash"}, "unknown folding directive {'op': 'squash'}"),
        ({"op": "consolidate"}, "'from' must be a step index"),
        ({"op": "consolidate", "from": -1}, "'from' must be a step index"),
        ({"op": "consolidate", "from": 3}, r"0 ≤ x ≤ 2"),
        ({"op": "consolidate", "from": "1"}, "'from' must be a step index"),
        ({"op": "consolidate", "from": True}, "'from' must be a step index"),
    ],
)
def test_bad_directives_are_clear_errors(fold, match):
    steps = web(4)
    steps[3]["fold"] = fold
    with pytest.raises(FormatError, match=match) as info:
        run(make(), steps)
    assert "step 3" in str(info.value)


def test_consolidate_at_step_0_is_an_error_condense_is_a_no_op():
    with pytest.raises(FormatError, match="no"):
        run(make(), [{"observation": "hi", "fold": {"op": "consolidate", "from": 0}}])
    trace = run(make(), [{"observation": "hi", "fold": {"op": "condense"}}])
    assert [e.type for e in trace.final] == ["latest"]


def test_direct_consolidate_operation_is_checked():
    m = make()
    trace = run(m, web(3))
    with pytest.raises(Exception, match="consolidate"):
        m.apply(trace.final, Operation("consolidate", {"from": 9}), trace[2].context.replace(t=3))


@pytest.mark.parametrize(
    "kw, error",
    [
        ({"block_budget": 0}, ValueError),
        ({"controller_rule": "fold"}, ValueError),
        ({"share": 0}, ValueError),
        ({"max_blocks": 1}, ValueError),
        ({"summarize": 3}, TypeError),
    ],
)
def test_bad_parameters(kw, error):
    with pytest.raises(error):
        make(**kw)


def test_capacity_too_small_for_a_block_and_the_latest():
    with pytest.raises(CapacityError, match="V_max = 1"):
        AgentFold(StateSpace(sizes.words, 1))


def test_failing_summarizer_leaves_state_untouched():
    def broken(texts, budget):
        raise RuntimeError("model offline")

    with pytest.raises(UpdateFailedError, match=r"step 1.*model offline") as info:
        run(make(summarize=broken), web(4), query=QUERY)
    assert info.value.step == 1
    assert info.value.trace.final == run(make(), web(1), query=QUERY).final


def test_summaries_are_cached_per_text():
    calls = []

    def counting(texts, budget):
        calls.append(tuple(texts))
        return "s"

    m = make(summarize=counting, controller_rule="condense")
    trace = run(m, web(3))
    state, ctx = trace.state_at(2), trace[2].context
    m.apply(state, Operation("condense"), ctx)
    m.apply(state, Operation("condense"), ctx)
    assert len(calls) == 2  # steps 1 and 2 of the run; the repeated folds hit the cache


def test_consolidated_blocks_get_a_budget_that_grows_with_the_steps_they_cover():
    m = make(block_budget=40)
    assert m.budget_for(5, 5) == 40
    assert m.budget_for(0, 1) == 80 and m.budget_for(0, 3) == 120 and m.budget_for(0, 7) == 160
    assert m.budget_for(0, 10**6) <= m.space.v_max // 4  # never more than a quarter of V_max


def test_folding_keeps_facts_of_the_bundled_research_task():
    """Regression: deep consolidations used to squeeze seven steps into one step's budget and kept no probe answer."""
    from stmviz import load_scenario, metrics

    scenario = load_scenario("web_research")
    trace = run(AgentFold(scenario.space()), scenario)
    assert metrics.summary(trace, scenario.probes)["retained"] >= 2


# -- the model sees what it answers (issue 15) -----------------------------------------------------


def test_the_latest_interaction_is_complete_when_the_model_folds_it():
    steps = [
        AgentStep(thought="Search first.", action="search('fold')", observation="Result: a paper."),
        AgentStep(thought="Open it.", action="open(1)", observation="It folds context.", directives={"fold": {"op": "condense"}}),
        AgentStep(thought="Answer.", action="answer()", observation="Accepted.", directives={"fold": {"op": "consolidate", "from": 0}}),
    ]
    trace = run(AgentFold(StateSpace(sizes.tokens(), 2000)), steps, query="What is AgentFold?")
    for t in (1, 2):  # the directive of step t folds I_{t−1}, which the model saw in full, observation included
        latest = AgentFold.latest(trace.state_at(t))
        assert latest.meta["step"] == t - 1 and latest.text == interaction_text(steps[t - 1])
        assert trace.project(t).text().endswith(f"Observation: {steps[t - 1].observation}")


def test_a_dialogue_step_is_one_interaction_reply_then_next_message():
    steps = [
        AgentStep(observation="Hi, what is AgentFold?"),
        AgentStep(thought="A folding agent.", observation="Who wrote it?"),
        AgentStep(thought="A 2025 paper."),
    ]
    trace = run(AgentFold(StateSpace(sizes.tokens(), 2000)), steps)
    assert AgentFold.latest(trace.state_at(1)).text == "Observation: Hi, what is AgentFold?"
    assert AgentFold.latest(trace.state_at(2)).text == "Explanation: A folding agent.\nObservation: Who wrote it?"
    assert trace.project(2).text().endswith("Observation: Who wrote it?")  # the reply "A 2025 paper." answers it


def test_agentfold_is_whole_in_its_module():
    """AgentFold takes no method from a helper base in another module: its one base is Mechanism, and every
    function in its class body was written in stmviz/mechanisms/agentfold.py (none assigned from elsewhere)."""
    from stmviz import Mechanism

    assert AgentFold.__bases__ == (Mechanism,)
    assert [c for c in AgentFold.__mro__ if c.__module__.startswith("stmviz.mechanisms")] == [AgentFold]
    for name, value in vars(AgentFold).items():
        function = getattr(value, "fget", None) or getattr(value, "__func__", value)
        if callable(function) and hasattr(function, "__code__"):
            assert function.__module__ == "stmviz.mechanisms.agentfold", (name, function.__module__)
