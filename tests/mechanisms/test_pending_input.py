"""Every mechanism puts the pending input in π: the model sees what it answers (issue 15).

A step t holds the model's output, produced from x_t = π(ω_t), then the input that
arrived after it. So with room for everything, π(ω_t) must hold the input of step t − 1
(the user message the reply answers, or the tool result the next action acts on)
whenever step t has an output.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import SCM, AgentFold, AgentStep, FIFOWindow, HiAgent, StateSpace, check_mechanism, run, sizes

MECHANISMS = {
    "FIFOWindow": lambda v_max: FIFOWindow(StateSpace(sizes.tokens(), v_max)),
    "SCM": lambda v_max: SCM(StateSpace(sizes.tokens(), v_max), k=2, flash_size=1),
    "HiAgent": lambda v_max: HiAgent(StateSpace(sizes.tokens(), v_max), subgoal_every=3),
    "AgentFold": lambda v_max: AgentFold(StateSpace(sizes.tokens(), v_max)),
}
BIG = 100_000


def dialogue(turns: list[tuple[str, str]]) -> list[AgentStep]:
    """Turns (u_k, a_k) in the order of run(): (–, u_0), (a_0, u_1), …, (a_n, –)."""
    steps = [AgentStep(observation=turns[0][0], meta={"role": "user"})]
    steps += [AgentStep(thought=turns[k - 1][1], observation=turns[k][0], meta={"role": "user"}) for k in range(1, len(turns))]
    return steps + [AgentStep(thought=turns[-1][1])]


def unanswered(steps: list[AgentStep], trace) -> list[int]:
    """The steps t with an output whose π(ω_t) lacks the input of step t − 1."""
    return [
        t
        for t in range(1, len(steps))
        if steps[t].output and steps[t - 1].observation and steps[t - 1].observation not in trace.project(t).text()
    ]


_words = st.sampled_from(["alpha", "beta", "gamma", "Lisbon", "code", "7391", "mug", "sink", "price"])
_text = st.lists(_words, min_size=1, max_size=6).map(" ".join)


@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=30, deadline=None)
@given(turns=st.lists(st.tuples(_text.map(lambda s: "user: " + s), _text.map(lambda s: "reply: " + s)), min_size=1, max_size=10))
def test_every_reply_of_a_dialogue_sees_the_message_it_answers(name, turns):
    steps = dialogue(turns)
    trace = run(MECHANISMS[name](BIG), steps)
    assert unanswered(steps, trace) == []
    for k, (user, _) in enumerate(turns):  # reply a_k is the output of step k + 1
        assert steps[k + 1].thought == turns[k][1] and user in trace.project(k + 1).text()


_agent_step = st.fixed_dictionaries(
    {
        "thought": st.one_of(st.just(""), _text.map(lambda s: "think: " + s)),
        "action": st.one_of(st.just(""), _text.map(lambda s: f"search({s!r})")),
        "observation": st.one_of(st.just(""), _text.map(lambda s: "seen: " + s)),
        "subgoal": st.one_of(st.none(), st.sampled_from(["goal A", "goal B"])),
        "subgoal_done": st.booleans(),
    }
)


@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=30, deadline=None)
@given(raw=st.lists(_agent_step, min_size=1, max_size=12))
def test_every_action_of_an_agent_stream_sees_the_observation_before_it(name, raw):
    steps = [
        AgentStep(
            thought=r["thought"],
            action=r["action"],
            observation=r["observation"],
            directives={k: r[k] for k in ("subgoal", "subgoal_done") if r[k]},
        )
        for r in raw
    ]
    trace = run(MECHANISMS[name](BIG), steps, query="Find the price.")
    assert unanswered(steps, trace) == []


@pytest.mark.parametrize("name", MECHANISMS)
def test_steps_without_output_or_without_input(name):
    steps = [
        AgentStep(observation="My locker code is 7391.", meta={"role": "user"}),  # no output: the user speaks first
        AgentStep(observation="And my bike is blue.", meta={"role": "user"}),  # no output: a second message
        AgentStep(thought="Noted both.", observation="What is my locker code?", meta={"role": "user"}),
        AgentStep(thought="It is 7391."),  # no input: the conversation ends on a reply
    ]
    trace = run(MECHANISMS[name](BIG), steps)
    assert unanswered(steps, trace) == []
    for message in ("My locker code is 7391.", "And my bike is blue."):  # "Noted both." answers both
        assert message in trace.project(2).text()
    assert "What is my locker code?" in trace.project(3).text()
    assert "It is 7391." in trace.project(4).text()  # the last reply is stored after it is made


@pytest.mark.parametrize("name", MECHANISMS)
def test_check_mechanism_passes(name):
    report = check_mechanism(MECHANISMS[name](2000))
    assert report, str(report)
