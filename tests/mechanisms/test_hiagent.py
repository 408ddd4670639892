"""HiAgent (Section 4): subgoals as memory chunks, summaries, selection, trajectory retrieval."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import (
    AgentStep,
    Context,
    HiAgent,
    Operation,
    State,
    StateSpace,
    Trace,
    check_mechanism,
    run,
    sizes,
)
from stmviz.errors import FormatError, UpdateFailedError
from stmviz.contract import sample_steps
from stmviz.mechanisms.hiagent import pair_text

QUERY = "Put a clean mug on the desk"


def kitchen() -> list[dict]:
    """Three subgoals with markers (numbered 1, 2, 3, as the released agent numbers them); the last step asks to retrieve subgoal 1."""
    return [
        {"subgoal": "find a mug", "thought": "Look around.", "action": "look()", "observation": "A cupboard and a sink."},
        {"action": "open('cupboard')", "observation": "A dirty mug is inside."},
        {"action": "take('mug')", "observation": "You hold the dirty mug.", "subgoal_done": True},
        {"subgoal": "clean the mug", "action": "go('sink')", "observation": "You are at the sink."},
        {"action": "wash('mug')", "observation": "The mug is clean.", "subgoal_done": True},
        {"subgoal": "put it on the desk", "action": "go('desk')", "observation": "You see the desk."},
        {"action": "put('mug', 'desk')", "observation": "Done.", "meta": {"retrieve": 1}},
    ]


def make(v_max: int = 1000, mu=None, **kw) -> HiAgent:
    return HiAgent(StateSpace(mu or sizes.tokens(), v_max), **kw)


# --------------------------------------------------------------------------- Section 4, element by element


def test_E_and_D_types_and_metadata():
    trace = run(make(), kitchen(), query=QUERY)
    omega = trace.state_at(6)  # before the last step: summaries 1, 2; current subgoal 3 with one pair
    assert [(e.type, e.meta.get("subgoal"), e.meta.get("current")) for e in omega] == [
        ("task", None, False),
        ("summary", 1, False),
        ("summary", 2, False),
        ("subgoal", 3, True),
        ("pair", 3, True),
    ]
    for e in omega:
        assert isinstance(e.t, (int, float))
    pair = omega.where(type="pair")[0]
    assert pair.text == pair_text(AgentStep(**{k: kitchen()[5][k] for k in ("action", "observation")}))
    assert pair.meta["step"] == 5
    assert omega.where(type="subgoal")[0].text == "put it on the desk"
    summary = omega.where(type="summary", subgoal=1)[0]
    assert summary.meta["range"] == (0, 2) and summary.meta["goal"] == "find a mug"


def test_omega_is_current_subgoal_with_pairs_plus_summaries():
    trace = run(make(), kitchen(), query=QUERY)
    for t in range(len(trace) + 1):
        omega = trace.state_at(t)
        current = [e for e in omega if e.type == "subgoal"]
        assert len(current) <= 1
        for e in omega.where(type="pair"):
            assert current and e.meta["subgoal"] == current[0].meta["subgoal"]
        ts = [e.t for e in omega]
        assert len(set(ts)) == len(ts)


def test_O_declared():
    assert set(HiAgent.operations.types) == {"subgoal", "observe", "summarize", "select", "retrieve"}


def test_U_summarize_replaces_finished_subgoal_and_records_why():
    trace = run(make(), kitchen(), query=QUERY)
    assert [o.type for o in trace[2].operations] == ["observe"]  # subgoal_done: the model has yet to see the result
    assert "You hold the dirty mug." in trace.project(3).text()  # ... which it does at step 3, in full
    step3 = trace[3]  # the step after subgoal_done: the finished subgoal gives way to its summary
    assert [o.type for o in step3.operations] == ["summarize", "subgoal", "observe"]
    assert step3.operations[0].reason == "subgoal_done at step 2; its last observation was seen at step 3"
    removed = {e.type for e in step3.removed}
    assert removed == {"subgoal", "pair"}
    assert [e.type for e in step3.added] == ["summary", "subgoal", "pair"]
    assert all("subgoal 1 finished" in why for why in step3.reasons)


def test_C_summary_uses_the_step_history_even_for_dropped_pairs():
    # keep_pairs=1: only the newest pair stays under the subgoal, yet the summary covers every step of it.
    seen = []

    def spy(subgoal, pairs, budget):
        seen.append((subgoal, list(pairs)))
        return "summary of " + str(len(pairs)) + " pairs", None

    steps = kitchen()[:4]
    trace = run(make(keep_pairs=1, summarize_subgoal=spy), steps, query=QUERY)
    assert len(trace.state_at(3).where(type="pair")) == 1
    subgoal, pairs = seen[-1]
    assert subgoal == "find a mug" and [p.step for p in pairs] == [0, 1, 2]
    assert [(p.action, p.observation) for p in pairs] == [(s["action"], s["observation"]) for s in steps[:3]]
    assert [p.done for p in pairs] == [False, False, True]
    summary = trace.final.where(type="summary")[0]
    assert summary.text == "find a mug → observed: summary of 3 pairs Verdict: not confirmed."
    assert summary.meta["achieved"] is None


def test_pi_order_task_summaries_subgoal_pairs():
    trace = run(make(), kitchen(), query=QUERY)
    text = trace.project(6).text()
    lines = text.splitlines()
    assert lines[0] == f"Task: {QUERY}"
    assert lines[1].startswith("Finished subgoal 1 (steps 0–2): find a mug → ")
    assert lines[2].startswith("Finished subgoal 2 (steps 3–4): clean the mug → ")
    assert lines[3] == "Current subgoal 3: put it on the desk"
    assert lines[4] == "[step 5] Action: go('desk')"


def test_projection_size_close_to_exact_count():
    m = make()
    trace = run(m, kitchen(), query=QUERY)
    for t in range(len(trace) + 1):
        omega = trace.state_at(t)
        exact = m.count_tokens(m.project(omega))
        lines = m.project(omega).count("\n") + 1
        assert abs(m.projection_size(omega) - exact) <= 2 * lines  # label/text and line-break seams



def test_projection_size_and_views_do_not_depend_on_the_states_seen_before():
    """|π(ω)| is carried from the previous ω and ω's view derived from the previous one: both equal fresh values."""
    m = make(v_max=300)
    trace = run(m, kitchen() + sample_steps(30), query=QUERY)
    order = list(range(len(trace) + 1))
    random.Random(7).shuffle(order)
    for t in order:
        omega = trace.state_at(t)
        assert m.projection_size(omega) == make(v_max=300).projection_size(omega)
        current = [e for e in omega if e.type == "subgoal" and e.meta.get("current")]
        assert HiAgent.current_subgoal(omega) == (current[0] if current else None)
        ids = [e.meta["subgoal"] for e in omega if e.type in ("subgoal", "summary")]
        context = Context(t=len(trace))
        assert HiAgent._next_id(omega, context) == (max(ids) + 1 if ids else 1)  # no history: the first subgoal


# --------------------------------------------------------------------------- trajectory retrieval


def test_retrieval_brings_pairs_back_and_the_next_switch_drops_them():
    steps = kitchen() + [{"subgoal": "report", "observation": "What did you do?", "thought": "I moved the mug."}]
    trace = run(make(), steps, query=QUERY)
    after = trace.state_at(7)
    retrieved = after.where(type="retrieved")
    assert [e.meta["step"] for e in retrieved] == [0, 1, 2]
    assert all(e.meta["subgoal"] == 1 and e.meta["current"] is False for e in retrieved)
    assert retrieved[0].text == pair_text(AgentStep.coerce(kitchen()[0]))
    # π shows them under the summary of subgoal 1
    lines = trace.project(7).text().splitlines()
    assert lines[1].startswith("Finished subgoal 1") and lines[2].startswith("  ↳ retrieved [step 0]")
    last = trace[7]
    assert not trace.final.where(type="retrieved")
    why = last.why
    for e in retrieved:
        assert why[e] == f"retrieved pair (step {e.meta['step']}) of subgoal 1 dropped at the switch to subgoal 4"


def test_retrieval_by_text_and_of_current_subgoal():
    steps = kitchen()[:6] + [{"action": "x()", "observation": "y", "meta": {"retrieve": "Clean the MUG"}}]
    final = run(make(), steps, query=QUERY).final
    assert {e.meta["subgoal"] for e in final.where(type="retrieved")} == {2}
    steps = kitchen()[:6] + [{"action": "x()", "observation": "y", "meta": {"retrieve": 3}}]
    final = run(make(), steps, query=QUERY).final
    assert not final.where(type="retrieved")  # current subgoal: a documented no-op


@pytest.mark.parametrize("target", [7, 0, "no such subgoal", 1.5, True])
def test_retrieval_of_unknown_subgoal_is_a_clear_error(target):
    steps = kitchen()[:6] + [{"action": "x()", "observation": "y", "meta": {"retrieve": target}}]
    with pytest.raises(FormatError, match=r"step 6.*retrieve"):
        run(make(), steps, query=QUERY)


def test_retrieval_that_overflows_loses_its_oldest_pairs_first():
    """Before, retrieval added only the newest pairs that fit; now it restores all, and overflow drops the oldest."""
    long = " ".join(["word"] * 60)
    steps = [
        {"subgoal": "a", "action": "a1()", "observation": long},
        {"action": "a2()", "observation": long, "subgoal_done": True},
        {"subgoal": "b", "action": "b1()", "observation": "short", "directives": {"retrieve": [1]}},
    ]
    m = make(v_max=100, mu=sizes.words)
    trace = run(m, steps, query=QUERY)
    final = trace.final
    assert [e.meta["step"] for e in final.where(type="retrieved")] == [1]  # step 0 was the oldest memory
    assert final.where(type="summary")[0].meta["expanded"]  # the header stays while a pair is left
    assert m.space.size(final) <= 100


# --------------------------------------------------------------------------- controller rules


def test_no_fixed_interval_subgoal_by_default_and_no_subgoal_from_a_thought_line():
    """Before, a rule opened a "subgoal" every 8 steps, its text taken from the thought ("Nice to meet you, Maggie!")."""
    steps = [{"thought": "Nice to meet you, Maggie!", "action": f"say({i})", "observation": f"ok {i}"} for i in range(20)]
    m = make()
    assert m.subgoal_every is None and m.params()["subgoal_every"] is None
    trace = run(m, steps)
    assert not trace.final.where(type="summary") and not trace.final.where(type="subgoal")
    # no subgoal stated: the pairs stay verbatim, under no subgoal, as in the released agent
    assert {e.meta["subgoal"] for e in trace.final.where(type="pair")} == {None}
    assert not [op for step in trace for op in step.operations if op.type in ("subgoal", "summarize")]


def test_chunking_baseline_is_named_as_such():
    steps = [{"thought": f"Plan {i}.", "action": f"step({i})", "observation": f"ok {i}"} for i in range(9)]
    trace = run(make(subgoal_every=3), steps)
    reasons = [op.reason for step in trace for op in step.operations if op.type == "summarize"]
    assert reasons and all(r.startswith("chunking baseline: ") for r in reasons)
    assert "chunking baseline" in HiAgent.__doc__ and "not HiAgent" in HiAgent.__doc__


def test_rule_subgoal_from_thought_and_every_n_steps():
    steps = [
        {"thought": "Subgoal: check the weather\nI will search.", "action": "search('weather')", "observation": "Rain."},
        {"action": "search('umbrella')", "observation": "Shop A."},
    ] + [{"thought": f"Plan {i}.", "action": f"step({i})", "observation": f"ok {i}"} for i in range(2, 9)]
    trace = run(make(subgoal_every=3), steps)
    assert trace.state_at(1).where(type="subgoal")[0].text == "check the weather"
    assert trace.state_at(1).where(type="subgoal")[0].meta["source"] == "thought"
    # the thought-opened subgoal is not closed by the N-step rule ...
    assert trace.state_at(5).where(type="subgoal")[0].meta["subgoal"] == 1
    # ... but a rule-opened one is: after subgoal_done-free steps with no marker, new ones every 3 steps
    steps2 = [{"thought": f"Plan {i}.", "action": f"step({i})", "observation": f"ok {i}"} for i in range(9)]
    trace2 = run(make(subgoal_every=3), steps2)
    starts = [e.meta["step"] for e in trace2.final.where(type="summary")] + [
        trace2.final.where(type="subgoal")[0].meta["step"]
    ]
    assert [e.meta["range"] for e in trace2.final.where(type="summary")] == [(0, 2), (3, 5)]
    assert trace2.final.where(type="subgoal")[0].text == "steps from 6 (no subgoal stated)"
    assert len(starts) == 3
    trace3 = run(make(subgoal_every=None), steps2)
    assert not trace3.final.where(type="summary")


def test_select_keeps_the_most_relevant_pairs():
    steps = [
        {"subgoal": "find the red key", "action": "look('drawer')", "observation": "a red key lies in the drawer"},
        {"action": "look('window')", "observation": "birds outside"},
        {"action": "look('table')", "observation": "a blue cup"},
        {"action": "look('floor')", "observation": "dust"},
    ]
    trace = run(make(keep_pairs=2), steps)
    pairs = trace.final.where(type="pair")
    assert [e.meta["step"] for e in pairs] == [0, 3]  # the relevant one and the newest
    assert trace[3].operations[-1] == Operation("select", {"keep": 2}, reason="more than 2 pairs")
    assert any("not among the 2 pairs most relevant" in r for r in trace[2].reasons + trace[3].reasons)


# --------------------------------------------------------------------------- overflow


def test_overflow_drops_oldest_pairs_with_the_reason():
    obs = " ".join(["data"] * 30)
    steps = [{"subgoal": "read", "action": f"read({i})", "observation": obs} for i in range(1)] + [
        {"action": f"read({i})", "observation": obs} for i in range(1, 6)
    ]
    m = make(v_max=100, mu=sizes.words)
    trace = run(m, steps, query=QUERY)
    reasons = [r for step in trace for r in step.reasons]
    assert any(re.fullmatch(r"pair \(step 0\) dropped, the oldest memory first: Σμ = \d+ > V_max = 100", r) for r in reasons)
    for t in range(len(trace) + 1):
        assert trace.size_at(t) <= 100
    assert trace.final.where(type="pair")[-1].meta["step"] == 5  # the newest pair is kept


def test_huge_pair_is_cut_to_fit():
    m = make(v_max=30, mu=sizes.words)
    trace = run(m, [{"subgoal": "g", "action": "a()", "observation": " ".join(["x"] * 500)}], query=QUERY)
    pair = trace.final.where(type="pair")[0]
    assert pair.meta["truncated"] is True and pair.text.endswith("…")
    assert m.space.size(trace.final) <= 30


# --------------------------------------------------------------------------- contract, properties, JSON


@pytest.mark.parametrize("v_max", [4096, 300, 60, 12])
@pytest.mark.parametrize("keep_pairs", [None, 2])
def test_check_mechanism(v_max, keep_pairs):
    report = check_mechanism(make(v_max=v_max, keep_pairs=keep_pairs))
    assert report, str(report)


step_strategy = st.fixed_dictionaries(
    {
        "thought": st.sampled_from(["", "Think.", "Subgoal: new plan", "Long thought " * 8]),
        "action": st.sampled_from(["", "act()", "search('x y z')"]),
        "observation": st.integers(0, 80).map(lambda n: " ".join(f"w{i}" for i in range(n))),
        "subgoal": st.one_of(st.none(), st.sampled_from(["goal A", "goal B", "goal C"])),
        "subgoal_done": st.booleans(),
        "retrieve": st.one_of(st.none(), st.integers(0, 6)),
    }
)


def _to_steps(raw: list[dict]) -> list[dict]:
    steps = []
    for r in raw:
        s = {k: r[k] for k in ("thought", "action", "observation", "subgoal", "subgoal_done")}
        if r["retrieve"] is not None:
            s["meta"] = {"retrieve": r["retrieve"]}
        steps.append(s)
    return steps


def _run_lenient(m: HiAgent, steps: list[dict]) -> Trace:
    """Run, dropping retrieval requests that name a subgoal no longer (or not yet) finished in ω."""
    kept = []
    for s in steps:
        try:
            run(m, kept + [s], query=QUERY)
        except FormatError:
            s = {k: v for k, v in s.items() if k != "meta"}
        kept.append(s)
    return run(m, kept, query=QUERY)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=st.lists(step_strategy, min_size=1, max_size=12),
    v_max=st.integers(8, 400),
    mu=st.sampled_from([sizes.words, sizes.chars, sizes.tokens()]),
    keep_pairs=st.one_of(st.none(), st.integers(1, 4)),
    every=st.one_of(st.none(), st.integers(1, 5)),
)
def test_random_streams_stay_in_omega(raw, v_max, mu, keep_pairs, every):
    m = HiAgent(StateSpace(mu, v_max), summary_budget=16, keep_pairs=keep_pairs, subgoal_every=every)
    trace = _run_lenient(m, _to_steps(raw))
    for t in range(len(trace) + 1):
        omega = trace.state_at(t)
        assert omega in m.space
        assert len(omega.where(type="subgoal")) <= 1
        ts = [e.t for e in omega]
        assert len(set(ts)) == len(ts)
        if keep_pairs is not None:
            assert len(omega.where(type="pair")) <= keep_pairs
    for step in trace:
        assert len(step.reasons) == len(step.removed) and all(step.reasons)


def test_deterministic_and_json_round_trip():
    steps = kitchen() + sample_steps(20)
    a = run(make(v_max=400, keep_pairs=3), steps, query=QUERY)
    b = run(make(v_max=400, keep_pairs=3), steps, query=QUERY)
    assert a == b
    assert [a.project(t) for t in range(len(a) + 1)] == [b.project(t) for t in range(len(b) + 1)]
    loaded = Trace.from_json(a.to_json())
    assert loaded == a
    assert isinstance(loaded.mechanism, HiAgent) and loaded.mechanism.params() == a.mechanism.params()
    assert loaded.project(len(loaded)) == a.project(len(a))


# --------------------------------------------------------------------------- bad inputs and failures


def test_failing_summarizer_leaves_state_untouched():
    def broken(texts, budget):
        raise RuntimeError("model offline")

    m = make(summarize=broken)
    with pytest.raises(UpdateFailedError, match=r"step 3.*model offline") as info:
        run(m, kitchen(), query=QUERY)  # subgoal_done at step 2: the summary is made at step 3
    assert info.value.step == 3 and len(info.value.trace) == 3
    omega = info.value.trace.final
    ctx_trace = run(make(), kitchen()[:3], query=QUERY)
    assert omega == ctx_trace.final


def test_summaries_are_cached_per_text():
    calls = []

    def counting(texts, budget):
        calls.append(tuple(texts))
        return "s"

    m = make(summarize=counting)
    trace = run(m, kitchen()[:3], query=QUERY)
    state, ctx = trace.state_at(2), trace[2].context
    after_observe = m.apply(state, Operation("observe"), ctx).state
    m.apply(after_observe, Operation("summarize"), ctx)
    m.apply(after_observe, Operation("summarize"), ctx)
    assert len(calls) == 1


@pytest.mark.parametrize("kw", [{"summary_budget": 0}, {"keep_pairs": 0}, {"subgoal_every": -1}, {"summary_budget": True}])
def test_bad_parameters(kw):
    with pytest.raises(ValueError):
        make(**kw)


def test_bad_summarizer_type():
    with pytest.raises(TypeError):
        make(summarize="summary")
    m = make(summarize=lambda texts, budget: 42)
    with pytest.raises(Exception, match="must return a string"):
        run(m, kitchen()[:4], query=QUERY)


def test_direct_operations_are_checked():
    m = make()
    ctx = run(m, kitchen()[:1], query=QUERY)[0].context
    state = m.initial_state(ctx)
    with pytest.raises(Exception, match="subgoal: text must be a non-empty text"):
        m.apply(state, Operation("subgoal", {"text": "  "}), ctx)
    with pytest.raises(Exception, match="select"):
        m.apply(state, Operation("select", {"keep": 0}), ctx)
    assert m.apply(State(), Operation("summarize"), ctx).state == State()  # nothing open: no-op


def test_retrieval_of_subgoal_evicted_for_overflow_is_a_recorded_noop():
    from stmviz.scenarios import load_scenario

    trace = run(HiAgent(StateSpace(sizes.tokens(), v_max=300)), load_scenario("household"))
    ops = [op for step in trace for op in step.operations if op.type == "retrieve"]
    evicted = [op for op in ops if "no longer in ω" in op.reason]
    assert all(op.params["subgoals"] for op in ops)
    assert evicted, [op.reason for op in ops]
    for t, step in enumerate(trace):
        if any(op in evicted for op in step.operations):
            there = {e.meta["subgoal"] for e in trace.state_at(t).where(type="summary")}
            assert {e.meta["subgoal"] for e in step.added if e.type == "retrieved"} <= there


def test_retrieval_of_a_subgoal_that_never_existed_still_raises():
    steps = [
        {"subgoal": "a", "action": "x()", "observation": "X", "subgoal_done": True},
        {"subgoal": "b", "action": "y()", "observation": "Y", "meta": {"retrieve": 7}},
    ]
    with pytest.raises(FormatError):
        run(HiAgent(StateSpace(sizes.tokens(), v_max=500)), steps)


# --------------------------------------------------------------------------- the model sees what it answers (issue 15)


def test_after_subgoal_done_the_model_still_sees_the_last_observation_in_full():
    """Before, subgoal_done summarized at once: the result of the last action reached the model only as a summary."""
    steps = [
        {"subgoal": "find the key", "action": "look()", "observation": "A mat."},
        {"action": "lift('mat')", "observation": "A key lies under the mat!", "subgoal_done": True},
        {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
    ]
    trace = run(make(summarize=lambda texts, budget: "done"), steps, query="Leave the room")
    seen = trace.project(2).text()  # what the model saw when it chose the next subgoal and use('key')
    assert "A key lies under the mat!" in seen and "Current subgoal 1: find the key" in seen
    assert trace.project(3).text().splitlines()[1] == (
        "Finished subgoal 1 (steps 0–1): find the key → observed: done Verdict: achieved."
    )


def test_a_dialogue_step_is_one_pair_reply_then_next_message():
    steps = [
        AgentStep(observation="Hi, I need a mug."),
        AgentStep(thought="Which colour?", observation="Red, please."),
        AgentStep(thought="Here is a red mug."),
    ]
    trace = run(make(), steps, query=QUERY)
    assert [e.text for e in trace.final.where(type="pair")] == [
        "Observation: Hi, I need a mug.",
        "Action: Which colour?\nObservation: Red, please.",
        "Action: Here is a red mug.",
    ]
    assert trace.project(2).text().endswith("Observation: Red, please.")


def test_a_switch_at_a_step_without_input_keeps_the_latest_observation_in_view():
    """Found by the loop-contract property: the summary replaced the pair whose observation the model still acts on."""
    steps = [
        {"subgoal": "find the key", "action": "look()", "observation": "A key lies under the mat."},
        {"thought": "Subgoal: open the door\nGo there.", "action": "go('door')"},  # a switch, and no input after it
        {"thought": "Now use the key."},  # still acting on what step 0 showed
        {"action": "use('key')", "observation": "Open."},
        {"subgoal": "leave", "action": "walk()", "observation": "Outside."},
    ]
    trace = run(make(summarize=lambda texts, budget: "done"), steps, query="Leave the room")
    for t in (1, 2, 3):
        assert "A key lies under the mat." in trace.project(t).text()
    assert trace.project(2).text().splitlines()[1:3] == [
        "  ↳ retrieved [step 0] Action: look()",
        "Observation: A key lies under the mat.",
    ]
    assert "until the next subgoal switch" in trace[1].why[trace.state_at(1).where(type="pair")[0]]
    assert not trace.state_at(5).where(type="retrieved")  # dropped at the next switch (step 4)


def test_hiagent_is_whole_in_its_module():
    """HiAgent takes no method from a helper base in another module: its one base is Mechanism, and every
    function in its class body was written in stmviz/mechanisms/hiagent.py (none assigned from elsewhere)."""
    from stmviz import Mechanism

    assert HiAgent.__bases__ == (Mechanism,)
    assert [c for c in HiAgent.__mro__ if c.__module__.startswith("stmviz.mechanisms")] == [HiAgent]
    for name, value in vars(HiAgent).items():
        function = getattr(value, "fget", None) or getattr(value, "__func__", value)
        if callable(function) and hasattr(function, "__code__"):
            assert function.__module__ == "stmviz.mechanisms.hiagent", (name, function.__module__)


def test_household_retrieval_of_a_dropped_subgoal_says_what_was_asked_and_why_nothing_came_back():
    """Issue 34 item 7: at step 29 of household the agent asks retrieve(2), whose summary overflow dropped at step 20.

    The step must record what was asked and why nothing came back, and the scenario's thought must not
    promise that the trajectory comes back in full.
    """
    from stmviz.scenarios import load_scenario

    scenario = load_scenario("household")
    trace = run(HiAgent(scenario.space()), scenario)
    dropped = [t for t, step in enumerate(trace) for e in step.removed
               if e.type == "summary" and e.meta["subgoal"] == 2 and not e.meta.get("expanded")]
    asks = [t for t, step in enumerate(trace) for op in step.operations
            if op.type == "retrieve" and op.params["subgoals"] == (2,)]
    assert asks and dropped and dropped[-1] < asks[0]
    t = asks[0]
    op = next(op for op in trace[t].operations if op.type == "retrieve")
    assert op.reason.startswith("nothing comes back for subgoal(s) 2: their summaries are no longer in ω")
    assert "retrieval requested at step 29" in op.reason
    assert not [e for e in trace[t].added if e.type == "retrieved"]
    assert not [e for e in trace.state_at(t + 1) if e.meta.get("subgoal") == 2]
    assert "back in full" not in scenario.steps[t].thought
