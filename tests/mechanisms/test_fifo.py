"""Tests of FIFOWindow: the context window as a FIFO queue (Section 4 of the paper)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import (
    AgentStep,
    Context,
    Element,
    FIFOWindow,
    Message,
    ModelInput,
    Operation,
    State,
    StateSpace,
    Trace,
    check_mechanism,
    run,
    sizes,
)
from stmviz.errors import CapacityError
from stmviz.text.fit import fit_text


def words(v_max: float) -> StateSpace:
    return StateSpace(sizes.words, v_max)


def dialogue(n: int, length: int = 3) -> list[AgentStep]:
    """n turns u_t → r_t in the order of the contract: step 0 = (–, u0), step k = (r_{k−1}, u_k), last = (r_{n−1}, –)."""
    user = [" ".join([f"u{t}"] * length) for t in range(n)]
    reply = [" ".join([f"r{t}"] * length) for t in range(n)]
    return (
        [AgentStep(observation=user[0], meta={"role": "user"})]
        + [AgentStep(thought=reply[k - 1], observation=user[k], meta={"role": "user"}) for k in range(1, n)]
        + [AgentStep(thought=reply[n - 1])]
    )


# -- the paper's example: FIFO, beginning cut off, π the identity -------------------------


def test_paper_example_fifo_cuts_the_beginning_and_pi_is_identity():
    m = FIFOWindow(words(10))
    trace = run(m, dialogue(5, length=2))  # 4 words per step, window of 10 words
    for t in range(len(trace) + 1):
        state = trace.state_at(t)
        x = m.project(state)
        # π is the identity: the ordered sequence itself, message by message
        assert [msg.content for msg in x] == [e.content for e in state.ordered()]
        assert [msg.role for msg in x] == [e.meta["role"] for e in state.ordered()]
        assert m.projection_size(state) == m.space.size(state) or not m.space.counts_tokens
    final = [e.text for e in trace.final]
    assert final == ["r2 r2", "u3 u3", "r3 r3", "u4 u4", "r4 r4"]  # the newest 10 words; the beginning is gone
    # what left, left oldest first
    gone = [e.text for step in trace for e in step.removed]
    assert gone == ["u0 u0", "r0 r0", "u1 u1", "r1 r1", "u2 u2"]
    assert all(r.startswith("oldest message; Σμ = ") and "> V_max = 10" in r for s in trace for r in s.reasons)


def test_messages_of_a_step():
    m = FIFOWindow(words(100))
    steps = [
        AgentStep(thought="I will search.", action="search(x)", observation="found x"),
        AgentStep(thought="Hello!", observation="Hi there"),
        AgentStep(thought="", action="open(y)", observation=""),
        AgentStep(thought="only a thought"),
        AgentStep(observation="only an input"),
        AgentStep(thought="Noted.", observation="Be formal from now on.", meta={"role": "system"}),
    ]
    state = run(m, steps).final
    got = [(e.type, e.meta["role"], e.text, e.meta.get("call"), e.meta["step"]) for e in state]
    # the model's output first, then the input that arrived after it
    assert got == [
        ("assistant", "assistant", "I will search.\nsearch(x)", "call_0", 0),
        ("tool", "tool", "found x", "call_0", 0),
        ("assistant", "assistant", "Hello!", None, 1),
        ("user", "user", "Hi there", None, 1),
        ("assistant", "assistant", "open(y)", "call_2", 2),
        ("assistant", "assistant", "only a thought", None, 3),
        ("user", "user", "only an input", None, 4),
        ("assistant", "assistant", "Noted.", None, 5),
        ("system", "system", "Be formal from now on.", None, 5),
    ]
    ts = [e.t for e in state]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)


def test_evict_reason_names_sizes_and_tokens_projection_size_is_sum():
    space = StateSpace(sizes.tokens(), 60)
    m = FIFOWindow(space, system="You are terse.")
    steps = [AgentStep(thought="word " * 20, observation="term " * 20) for _ in range(3)]
    trace = run(m, steps)
    reasons = [r for s in trace for r in s.reasons]
    assert reasons and all("> V_max = 60" in r for r in reasons)
    for t in range(len(trace) + 1):
        state = trace.state_at(t)
        assert m.projection_size(state) == space.size(state) == trace[t].input_size if t < len(trace) else True
        assert trace.state_at(t) in space
    assert trace.final_input_size == space.size(trace.final)


# -- options ---------------------------------------------------------------------------------


def test_system_and_pins_are_never_evicted_and_come_first():
    m = FIFOWindow(words(12), system="Be brief.", pinned=["Rule one.", Message("user", "Name: Ann."),
                                                           Element("Fact x.", {"role": "assistant"})])
    trace = run(m, dialogue(10, 2))
    final = list(trace.final)
    assert [e.text for e in final[:4]] == ["Be brief.", "Rule one.", "Name: Ann.", "Fact x."]
    assert [e.meta["role"] for e in final[:4]] == ["system", "system", "user", "assistant"]
    assert all(e.meta.get("pinned") for e in final[:4])
    for step in trace:
        assert not any(e.meta.get("pinned") for e in step.removed)
    assert m.room == 12 - 8
    assert [x.role for x in m.project(trace.final)][:1] == ["system"]


def test_pins_too_large_raise_capacity_error():
    with pytest.raises(CapacityError, match=r"pinned messages alone have Σμ = 5 > V_max = 4"):
        FIFOWindow(words(4), system="one two three four five")


def test_keep_tool_pairs_evicts_call_with_result():
    steps = [AgentStep(thought="t0", action="a0", observation="o0 o0"), AgentStep(thought="x", observation="y y y")]
    paired = run(FIFOWindow(words(7)), steps)
    assert [e.text for e in paired.final] == ["x", "y y y"]
    assert "tool result of the evicted call call_0 (keep_tool_pairs)" in paired[1].reasons
    plain = run(FIFOWindow(words(7), keep_tool_pairs=False), steps)
    # without pairing the tool result can be left at the start, without its call
    assert [e.type for e in plain.final][0] == "tool"


def test_keep_tool_pairs_never_leaves_an_orphan_at_the_start():
    steps = [AgentStep(thought=f"t{i}", action=f"a{i}", observation=f"o{i} o{i}") for i in range(30)]
    for v_max in range(5, 16):
        trace = run(FIFOWindow(words(v_max)), steps)
        for state in trace.states():
            ordered = list(state)
            if ordered:
                first = ordered[0]
                if first.type == "tool":
                    assert any(e.type == "assistant" and e.meta["call"] == first.meta["call"] for e in ordered)


def test_orphan_in_a_given_state_is_cleaned_up():
    m = FIFOWindow(words(6))
    orphan = Element("old result", {"t": 0.5, "type": "tool", "role": "tool", "call": "call_0", "step": 0})
    filler = Element("a b", {"t": 1, "type": "user", "role": "user", "step": 1})
    out = m.apply(State([orphan, filler]), Operation("evict_oldest", {"count": 0}), Context(t=2))
    assert orphan not in out.state and out.reasons[orphan].startswith("orphaned tool result")


def test_oversize_error_is_clear():
    m = FIFOWindow(words(6), system="be kind")
    big = AgentStep(thought="ok", observation="w " * 9)
    with pytest.raises(CapacityError) as info:
        run(m, [big])
    text = str(info.value)
    assert "step 0" in text and "μ = 9 > 4" in text and "oversize='truncate'" in text


def test_oversize_skip_is_recorded_in_the_trace():
    m = FIFOWindow(words(6), oversize="skip")
    trace = run(m, [AgentStep(thought="ok", observation="w " * 9)])
    assert [e.text for e in trace.final] == ["ok"]
    op = trace[0].operations[-1]
    assert op.type == "append" and op["skipped"] == 1 and "skipped the user message of step 0" in op.reason
    loaded = Trace.from_json(trace.to_json())
    assert loaded[0].operations[-1].reason == op.reason


def test_oversize_skip_of_a_call_skips_its_result():
    m = FIFOWindow(words(5), oversize="skip")
    trace = run(m, [AgentStep(thought="a b c d e f", action="go", observation="r")])
    assert len(trace.final) == 0
    assert "its tool call call_0 was skipped" in trace[0].operations[-1].reason


@pytest.mark.parametrize("mu, v_max", [(sizes.words, 5), (sizes.chars, 20), (sizes.tokens(), 6)])
def test_oversize_truncate_fits_the_room(mu, v_max):
    space = StateSpace(mu, v_max)
    m = FIFOWindow(space, oversize="truncate")
    obs = "the quick brown fox jumps over the lazy dog " * 3
    trace = run(m, [AgentStep(observation=obs)])
    (e,) = list(trace.final)
    assert e.meta["truncated"] is True and e.meta["original_size"] > v_max
    assert space.measure(e) <= v_max and e.text.endswith("…")
    assert obs.startswith(e.text[:-1].rstrip())
    assert trace[0].operations[-1]["truncated"] == 1


def test_truncated_tool_result_leaves_room_for_its_call():
    space = words(8)
    m = FIFOWindow(space, oversize="truncate")
    trace = run(m, [AgentStep(thought="call it", action="now", observation="x " * 20)])
    assert [e.type for e in trace.final] == ["assistant", "tool"]
    assert space.size(trace.final) <= 8


def test_fit_text_returns_none_when_nothing_fits():
    space = words(10)
    assert fit_text(space, Element("a b c", {"t": 0}), 0) is None
    assert fit_text(space, Element(("a", "b")), 3) is None


def test_evict_oldest_count_and_bad_params():
    m = FIFOWindow(words(100))
    trace = run(m, dialogue(3, 1))
    state = trace.final
    out = m.apply(state, Operation("evict_oldest", {"count": 2}), Context(t=3))
    assert [e.text for e in state][:2] == [e.text for e in out.reasons]
    assert all(r == "oldest message (evict_oldest, count = 2)" for r in out.reasons.values())
    assert m.apply(state, Operation("evict_oldest"), Context(t=3)).state == state - {state.ordered()[0]}
    with pytest.raises(ValueError, match="room must be a finite number"):
        m.apply(state, Operation("evict_oldest", {"room": -1}), Context(t=3))
    with pytest.raises(ValueError, match="count must be a whole number"):
        m.apply(state, Operation("evict_oldest", {"count": 1.5}), Context(t=3))


# -- bad inputs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"oversize": "drop"}, ValueError, "oversize must be one of 'error', 'skip', 'truncate'"),
        ({"oversize": None}, ValueError, "oversize must be one of"),
        ({"keep_tool_pairs": "yes"}, TypeError, "keep_tool_pairs must be True or False, got str 'yes'"),
        ({"system": 3}, TypeError, "system must be a non-empty text or None, got int 3"),
        ({"system": "  "}, ValueError, "system must be a non-empty text or None, got str ' *'"),
        ({"pinned": [3]}, TypeError, r"pinned\[0\] is a int"),
        ({"pinned": [""]}, ValueError, r"pinned\[0\] must be a non-empty text, got str ''"),
        ({"pinned": [{"role": "user"}]}, ValueError, "has no 'content'"),
        ({"pinned": [Message("tool", "r")]}, ValueError,
         r"pinned\[0\]: role must be one of 'system', 'user', 'assistant', got str 'tool': .*a tool result needs its call"),
        ({"pinned": 5}, TypeError, "pinned must be a list .* got 5"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        FIFOWindow(words(10), **kwargs)


def test_space_must_be_a_state_space():
    with pytest.raises(TypeError, match="needs a StateSpace"):
        FIFOWindow(100)  # type: ignore[arg-type]


def test_single_pin_string_and_dict_pins():
    m = FIFOWindow(words(10), pinned="Always cite.")
    assert [e.text for e in m.pins] == ["Always cite."]
    m2 = FIFOWindow(words(10), pinned=[{"role": "user", "content": "I am Ann."}])
    assert m2.pins[0].meta["role"] == "user"


# -- contract, properties, determinism, JSON ------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [{}, {"system": "Be brief."}, {"keep_tool_pairs": False}, {"oversize": "skip"}, {"oversize": "truncate"}]
)
def test_check_mechanism_passes(kwargs):
    report = check_mechanism(FIFOWindow(StateSpace(sizes.tokens(), 400), **kwargs))
    assert report, str(report)


def test_params_rebuild_the_mechanism_and_json_round_trip():
    m = FIFOWindow(words(30), system="Be brief.", pinned=["Rule."], oversize="truncate", keep_tool_pairs=False)
    rebuilt = FIFOWindow(words(30), **m.params())
    assert rebuilt.pins == m.pins and rebuilt.params() == m.params()
    import json

    json.dumps(m.params())
    trace = run(m, dialogue(12, 3) + [AgentStep(thought="x", action="y", observation="z " * 50)])
    loaded = Trace.from_json(trace.to_json())
    assert loaded == trace
    assert isinstance(loaded.mechanism, FIFOWindow) and loaded.mechanism.params() == m.params()
    assert loaded.project(5) == trace.project(5)


def test_two_runs_are_equal():
    steps = [AgentStep(thought=f"t{i} " * (i % 7 + 1), action="a" if i % 3 == 0 else "", observation=f"o{i} " * (i % 5 + 1))
             for i in range(60)]
    a = run(FIFOWindow(words(25), system="s"), steps)
    b = run(FIFOWindow(words(25), system="s"), steps)
    assert a == b and a.to_json() == b.to_json()


_step = st.builds(
    AgentStep,
    thought=st.integers(0, 12).map(lambda n: " ".join(["t"] * n)),
    action=st.sampled_from(["", "", "call()"]),
    observation=st.integers(0, 12).map(lambda n: " ".join(["o"] * n)),
)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(_step, max_size=25),
    v_max=st.integers(1, 40),
    pairs=st.booleans(),
    oversize=st.sampled_from(["skip", "truncate"]),
    system=st.sampled_from([None, "be brief"]),
)
def test_streams_never_leave_omega(steps, v_max, pairs, oversize, system):
    space = words(max(v_max, 2))
    m = FIFOWindow(space, system=system, keep_tool_pairs=pairs, oversize=oversize)
    trace = run(m, steps)
    last_t = -1.0
    for t, state in enumerate(trace.states()):
        assert state in space
        if system:
            assert any(e.meta.get("pinned") for e in state)
        x = m.project(state)
        assert isinstance(x, ModelInput) and len(x) == len(state)
    for step in trace:
        for e in step.added:
            assert e.t > last_t
            last_t = e.t
        if pairs:
            ordered = [e for e in trace.state_at(step.t + 1) if not e.meta.get("pinned")]
            if ordered and ordered[0].type == "tool":
                assert any(e.meta.get("call") == ordered[0].meta["call"] and e.type == "assistant" for e in ordered)


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(_step, max_size=15), v_max=st.integers(1, 30))
def test_oversize_error_raises_only_when_a_message_cannot_fit(steps, v_max):
    space = words(v_max)
    m = FIFOWindow(space, keep_tool_pairs=False)
    sizes_ = [len(p.split()) for s in steps for p in ((s.output, s.observation) if s.action else (s.observation, s.thought)) if p]
    if any(n > v_max for n in sizes_):
        with pytest.raises(CapacityError):
            run(m, steps)
    else:
        assert all(s in space for s in run(m, steps).states())


# -- the model sees what it answers (issue 15) ---------------------------------------------------


def test_each_reply_is_produced_from_a_window_that_ends_with_the_message_it_answers():
    m = FIFOWindow(words(1000), system="Be brief.")
    steps = dialogue(4, 2)
    trace = run(m, steps)
    for k in range(4):  # reply r_k is the output of step k + 1, produced from π(ω_{k+1})
        assert steps[k + 1].thought == f"r{k} r{k}"
        assert trace.project(k + 1)[-1].to_dict() == {"role": "user", "content": f"u{k} u{k}"}
    # the conversation in its order: u0 r0 u1 r1 …; the last reply, with no input after it, ends the window
    assert [msg.content for msg in trace.project(len(trace))][1:] == [
        "u0 u0", "r0 r0", "u1 u1", "r1 r1", "u2 u2", "r2 r2", "u3 u3", "r3 r3"
    ]


def test_a_tool_result_is_the_last_message_before_the_next_action():
    steps = [
        AgentStep(observation="Find x.", meta={"role": "user"}),
        AgentStep(thought="Search.", action="search(x)", observation="x is 4", meta={"role": "tool"}),
        AgentStep(thought="It is 4.", observation="Thanks!", meta={"role": "user"}),
    ]
    trace = run(FIFOWindow(words(100)), steps)
    assert [(msg.role, msg.content) for msg in trace.project(2)] == [
        ("user", "Find x."),
        ("assistant", "Search.\nsearch(x)"),
        ("tool", "x is 4"),
    ]


class _Uncached(FIFOWindow):
    """The plain definition: the step's messages built afresh at every call, |π(ω)| counted from π's text."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._last_step = lambda context, compute: compute(context)

    def projection_size(self, state):
        return super(FIFOWindow, self).projection_size(state)


@settings(max_examples=25, deadline=None)
@given(
    v_max=st.integers(20, 120),
    lengths=st.lists(st.integers(1, 30), min_size=1, max_size=25),
    tools=st.lists(st.booleans(), min_size=25, max_size=25),
)
def test_the_caches_and_the_size_fast_path_equal_the_plain_definition(v_max, lengths, tools):
    steps = [
        AgentStep(thought=f"t{k} " * 3, action=f"do({k})" if tools[k] else "", observation=f"o{k} " * n)
        for k, n in enumerate(lengths)
    ]
    space = StateSpace(sizes.tokens(), v_max)
    fast = run(FIFOWindow(space, system="Be brief.", oversize="truncate"), steps)
    plain = run(_Uncached(space, system="Be brief.", oversize="truncate"), steps)
    for t in range(len(steps) + 1):
        assert fast.state_at(t) == plain.state_at(t)
        assert fast.project(t) == plain.project(t)
    assert [s.input_size for s in fast] == [s.input_size for s in plain]
    assert [dict(s.why) for s in fast] == [dict(s.why) for s in plain]
