"""A step's two halves (the model's output, then the input that follows it), and steps with only one of them.

Step 0 of a conversation holds the user's first message and no output; a
conversation that ends on a reply ends with a step that has an output and no
input. run(), check_mechanism, the trace's JSON round trip and the words of
the views must handle both.
"""

from __future__ import annotations

import pytest

from stmviz import AgentFold, AgentStep, FIFOWindow, HiAgent, SCM, StateSpace, Trace, check_mechanism, run, sizes
from stmviz.core.mechanism import ExampleMechanism

MECHANISMS = {
    "example": lambda: ExampleMechanism(StateSpace(sizes.words, 10**6)),
    "FIFOWindow": lambda: FIFOWindow(StateSpace(sizes.tokens(), 10**6)),
    "SCM": lambda: SCM(StateSpace(sizes.tokens(), 10**6)),
    "HiAgent": lambda: HiAgent(StateSpace(sizes.tokens(), 10**6)),
    "AgentFold": lambda: AgentFold(StateSpace(sizes.tokens(), 10**6)),
}

#: A conversation: the user speaks first (no output), a tool call, a user message after a tool result
#: without a reply in between (no output), an empty step, and a last reply (no input).
STEPS = [
    AgentStep(observation="Hi, my locker code is 7391.", meta={"role": "user"}),
    AgentStep(thought="Noted. Let me check the weather.", action="weather('Oslo')", observation="4 °C, snow",
              meta={"role": "tool"}),
    AgentStep(observation="Also, what is my code?", meta={"role": "user"}),
    AgentStep(),
    AgentStep(thought="It is 7391, and it snows in Oslo."),
]


def test_the_two_halves_of_a_step():
    first, tool, user, empty, last = STEPS
    assert (first.has_output, first.has_input, first.observation, first.output) == (False, True, STEPS[0].observation, "")
    assert tool.has_output and tool.output == "Noted. Let me check the weather.\nweather('Oslo')"
    assert (tool.observation, tool.input_role) == ("4 °C, snow", "tool")
    assert (user.has_output, user.input_role) == (False, "user")
    assert (empty.has_output, empty.has_input) == (False, False)
    assert (last.has_output, last.has_input, last.observation) == (True, False, "")


def test_a_directive_alone_is_an_output():
    step = AgentStep(directives={"fold": {"op": "condense"}})
    assert step.has_output and step.output == "" and not step.has_input


@pytest.mark.parametrize(
    "meta, action, role",
    [({}, "", "user"), ({}, "search('x')", "tool"), ({"role": "system"}, "", "system"), ({"role": "assistant"}, "", "user")],
)
def test_input_role_from_meta_or_from_the_action(meta, action, role):
    assert AgentStep(action=action, observation="x", meta=meta).input_role == role


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_run_records_steps_without_output_or_input(name):
    trace = run(MECHANISMS[name](), STEPS, query="help the user")
    assert len(trace) == len(STEPS)
    assert [s.context.step for s in trace] == STEPS
    assert all(isinstance(s.input_size, int) and s.input_size >= 0 for s in trace)
    # π(ω_4), from which the last reply was produced, holds the question of step 2 (V_max holds everything)
    assert "Also, what is my code?" in trace.project(4).text()


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_check_mechanism_accepts_steps_without_output_or_input(name):
    report = check_mechanism(MECHANISMS[name](), STEPS)
    assert report.ok, str(report)


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_json_round_trip_keeps_the_halves(name):
    mechanism = MECHANISMS[name]()
    trace = run(mechanism, STEPS, query="help the user")
    again = Trace.from_json(trace.to_json(), mechanism)
    assert again == trace
    assert [s.context.step for s in again] == STEPS
    assert [s.describe() for s in again] == [s.describe() for s in trace]


def test_describe_says_each_case_in_words():
    trace = run(MECHANISMS["example"](), STEPS)
    words = [trace.describe(t) for t in range(len(trace) + 1)]
    assert words[0] == (
        "step 0: no model call at this step: the user spoke first; "
        "then arrived the user message “Hi, my locker code is 7391.”, seen from π(ω_1) on"
    )
    assert words[1].startswith(f"step 1: the model saw π(ω_1) ({trace[1].input_size} tokens) and answered “Noted.")
    assert words[1].endswith("then arrived the tool result “4 °C, snow”, seen from π(ω_2) on")
    assert words[2] == (
        "step 2: no model call at this step; then arrived the user message “Also, what is my code?”, seen from π(ω_3) on"
    )
    assert words[3] == "step 3: no model call at this step; no input arrived either"
    assert words[4] == (
        f"step 4: the model saw π(ω_4) ({trace[4].input_size} tokens) and answered "
        "“It is 7391, and it snows in Oslo.”; no input arrived after it"
    )
    assert words[5] == f"ω_5 is the final state: the next model call would see π(ω_5) ({trace.final_input_size} tokens)"
    assert trace.describe(-1) == words[5]


def test_describe_names_directives_and_shortens():
    trace = run(MECHANISMS["example"](), [AgentStep(thought="x " * 200, directives={"subgoal": "find it"})])
    text = trace[0].describe(width=20)
    assert "(directives: subgoal)" in text and "…" in text and len(text) < 160
    bare = run(MECHANISMS["example"](), [AgentStep(directives={"fold": {"op": "condense"}})])
    assert "answered without text (directives: fold)" in bare[0].describe()
