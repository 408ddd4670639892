"""The contract of Figure 1's loop (issue 15): the model sees what it answers.

A step t holds the model's output — produced from x_t = π(ω_t) — and then the
input that arrives after it, seen from x_{t+1} on. So for every recorded model
output (a step t with ``has_output``), ``trace.project(t)`` must contain the
input that output responds to:

- in a dialogue u_0, a_0, u_1, a_1, …, reply a_k answers u_k;
- in any stream of steps, an output responds to the latest earlier input
  (the observation of the latest step s < t that has one).

Checked over random dialogues (built with ``stmviz.scenarios.from_dialogue``)
and random agent streams (random thoughts, actions, observations,
directives), for FIFOWindow, SCM, HiAgent and AgentFold at a V_max that holds
everything (10**6 tokens), so no input is ever evicted for lack of room.
Every input carries a unique token, so "contains" is meaningful.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from stmviz import AgentFold, AgentStep, FIFOWindow, HiAgent, SCM, StateSpace, run, sizes
from stmviz.scenarios import from_dialogue

V_MAX = 10**6

MECHANISMS = {
    "FIFOWindow": lambda: FIFOWindow(StateSpace(sizes.tokens(), V_MAX)),
    "SCM": lambda: SCM(StateSpace(sizes.tokens(), V_MAX)),
    "HiAgent": lambda: HiAgent(StateSpace(sizes.tokens(), V_MAX)),
    "AgentFold": lambda: AgentFold(StateSpace(sizes.tokens(), V_MAX)),
}

WORDS = ("apple", "river", "stone", "cloud", "table", "green", "seven", "light", "paper", "north")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)


def _marked(kind: str, k: int, words: str) -> str:
    """A text with a unique token (``uin3q``, ``aout3q``, ...) so that finding it in π(ω_t) means this text."""
    return f"{kind}{k}q {words}"


@st.composite
def dialogues(draw: Any) -> list[str]:
    """Alternating turns [u_0, a_0, u_1, a_1, …], starting with the user, ending on either."""
    n = draw(st.integers(min_value=1, max_value=9))
    return [_marked("uin" if k % 2 == 0 else "aout", k, draw(_words)) for k in range(n)]


@st.composite
def agent_streams(draw: Any) -> list[AgentStep]:
    """Random agent steps: an output, an input or both; actions with or without a result; HiAgent's and AgentFold's directives."""
    n = draw(st.integers(min_value=1, max_value=8))
    steps = []
    for t in range(n):
        thought = _marked("th", t, draw(_words)) if draw(st.booleans()) else ""
        action = f"tool{t}q('{draw(_words)}')" if draw(st.booleans()) else ""
        observation = _marked("obs", t, draw(_words)) if (t == 0 or draw(st.integers(0, 4)) > 0) else ""
        if not (thought or action or observation):  # a step holds an output, an input, or both (never nothing)
            thought = _marked("th", t, draw(_words))
        directives: dict[str, Any] = {}
        if thought or action:
            choice = draw(st.sampled_from(("none", "none", "subgoal", "subgoal_done", "condense", "consolidate")))
            if choice == "subgoal":
                directives["subgoal"] = f"goal{t}q {draw(_words)}"
            elif choice == "subgoal_done":
                directives["subgoal_done"] = True
            elif choice == "condense" and t > 0:  # a fold folds the latest interaction I_{t−1}: none at t = 0
                directives["fold"] = {"op": "condense"}
            elif choice == "consolidate" and t > 0:
                directives["fold"] = {"op": "consolidate", "from": draw(st.integers(0, max(0, t - 1)))}
        role = "tool" if action else "user"
        steps.append(AgentStep(thought=thought, action=action, observation=observation, directives=directives,
                               meta={"role": role} if observation else {}))
    return steps


#: A tool result, then a run of outputs with no input in between: the model keeps acting on that result,
#: so every later π(ω_t) must still hold it (found by hypothesis: SCM let thoughts more relevant than the
#: result push it out of π(ω_6)).
ACTING_ON_ONE_RESULT = [
    AgentStep(action="tool0q('apple')", observation="obs0q apple", meta={"role": "tool"}),
    *(AgentStep(thought=f"th{t}q apple apple") for t in range(1, 4)),
    *(AgentStep(thought=f"th{t}q apple") for t in range(4, 7)),
]


def _unanswered(trace: Any) -> list[str]:
    """Each step t with an output whose π(ω_t) lacks the latest input before it, said in words."""
    problems = []
    latest: tuple[int, str] | None = None
    for step in trace:
        agent = step.context.step
        if agent.has_output and latest is not None:
            seen = trace.project(step.t).text()
            s, text = latest
            if text not in seen:
                problems.append(
                    f"step {step.t}: the output {agent.output!r} was produced from π(ω_{step.t}), "
                    f"which lacks the input of step {s} {text!r}; π(ω_{step.t}) = {seen!r}"
                )
        if agent.has_input:
            latest = (step.t, agent.observation)
    return problems


@pytest.mark.parametrize("name", list(MECHANISMS))
@SETTINGS
@given(steps=agent_streams())
@example(steps=ACTING_ON_ONE_RESULT)
def test_every_output_saw_the_latest_input_agent_streams(name: str, steps: list[AgentStep]) -> None:
    trace = run(MECHANISMS[name](), steps, query="qry0q find the answer", tools=("search",))
    problems = _unanswered(trace)
    assert not problems, f"{name}: " + "\n".join(problems)


@pytest.mark.parametrize("name", list(MECHANISMS))
@SETTINGS
@given(turns=dialogues())
def test_every_reply_saw_the_user_message_it_answers(name: str, turns: list[str]) -> None:
    trace = run(MECHANISMS[name](), from_dialogue(turns))
    # reply a_k (turns[2k + 1]) answers u_k (turns[2k]): the step holding a_k as its output must have seen u_k
    outputs = {step.context.step.output: step.t for step in trace if step.context.step.has_output}
    problems = []
    for k in range(1, len(turns), 2):
        reply, message = turns[k], turns[k - 1]
        assert reply in outputs, f"{name}: the reply {reply!r} is no step's output; outputs: {list(outputs)}"
        t = outputs[reply]
        seen = trace.project(t).text()
        if message not in seen:
            problems.append(f"step {t}: reply {reply!r} was produced from π(ω_{t}) without {message!r}; π = {seen!r}")
    problems += _unanswered(trace)
    assert not problems, f"{name}: " + "\n".join(problems)


def _out_of_order(trace: Any) -> list[str]:
    """Each step s whose output and input both appear verbatim in some π(ω_t), the input first."""
    problems = []
    for t in range(1, len(trace) + 1):
        seen = trace.project(t).text()
        for step in trace[:t]:
            agent = step.context.step
            if agent.output and agent.observation and agent.output in seen and agent.observation in seen:
                if seen.index(agent.output) > seen.index(agent.observation):
                    problems.append(
                        f"π(ω_{t}) shows the input of step {step.t} {agent.observation!r} before its output {agent.output!r}, "
                        f"though the output came first; π(ω_{t}) = {seen!r}"
                    )
    return problems


@pytest.mark.parametrize("name", list(MECHANISMS))
@SETTINGS
@given(steps=agent_streams())
def test_each_output_comes_before_the_input_that_followed_it(name: str, steps: list[AgentStep]) -> None:
    trace = run(MECHANISMS[name](), steps, query="qry0q find the answer", tools=("search",))
    problems = _out_of_order(trace)
    assert not problems, f"{name}: " + "\n".join(problems[:3])


@pytest.mark.parametrize("name", list(MECHANISMS))
@SETTINGS
@given(turns=dialogues())
def test_each_reply_comes_before_the_user_message_that_followed_it(name: str, turns: list[str]) -> None:
    trace = run(MECHANISMS[name](), from_dialogue(turns))
    problems = _out_of_order(trace)
    assert not problems, f"{name}: " + "\n".join(problems[:3])
