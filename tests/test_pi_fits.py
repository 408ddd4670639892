"""|π(ω_t)| is counted exactly on the projected text, and fits V_max wherever V_max is the model's context limit.

Definition 1 bounds the state: Σμ(ω) ≤ V_max. When μ counts tokens, V_max is
also the model's context limit, and the model input π(ω) — with the labels and
line breaks π adds — must fit it too. Every mechanism of stmviz promises
|π(ω_t)| ≤ V_max at every step when μ counts tokens: FIFO and SCM because π
adds nothing to the elements' texts, HiAgent and AgentFold because U reserves
room for π's framing.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Element, Mechanism, StateSpace, run, sizes
from stmviz.core.sizes import count_tokens
from stmviz._fast.lines import LineTokens
from stmviz.mechanisms.agentfold import AgentFold
from stmviz.mechanisms.fifo import FIFOWindow
from stmviz.mechanisms.hiagent import HiAgent
from stmviz.mechanisms.scm import SCM
from stmviz.metrics import compare, prompt_tokens
from stmviz.scenarios import list_scenarios, load_scenario


def _names() -> list[str]:
    return [getattr(info, "name", info) for info in list_scenarios()]


def _build(cls, v_max):
    space = StateSpace(sizes.tokens(), v_max)
    return cls(space, oversize="truncate") if cls is FIFOWindow else cls(space)


def exact(mechanism: Mechanism, state) -> int:
    """|π(ω)| by definition: the tokens of every message of the projected input (Mechanism's own count)."""
    return Mechanism.projection_size(mechanism, state)


def assert_fits_and_exact(trace, v_max):
    mechanism = trace.mechanism
    states = list(trace.states())
    for t, state in enumerate(states):
        size = exact(mechanism, state)
        recorded = trace[t].input_size if t < len(trace) else trace.final_input_size
        assert recorded == size, f"{mechanism}: |π(ω_{t})| recorded {recorded}, the projected text has {size} tokens"
        assert size <= v_max, f"{mechanism}: |π(ω_{t})| = {size} > V_max = {v_max}"
        assert trace.size_at(t) <= v_max


# -- every bundled scenario ------------------------------------------------------------------


@pytest.mark.parametrize("name", _names())
@pytest.mark.parametrize("cls", [FIFOWindow, SCM, HiAgent, AgentFold], ids=lambda c: c.__name__)
def test_pi_fits_v_max_and_is_exact_on_every_bundled_scenario(cls, name):
    scenario = load_scenario(name)
    trace = run(_build(cls, scenario.v_max), scenario)
    assert_fits_and_exact(trace, scenario.v_max)


@pytest.mark.parametrize("name", _names())
def test_compare_reports_exact_prompt_tokens_within_v_max(name):
    scenario = load_scenario(name)
    for record in compare([FIFOWindow, SCM, HiAgent, AgentFold], scenario):
        assert record["max_prompt_tokens"] <= scenario.v_max, record


def test_prompt_tokens_sum_the_exact_counts():
    scenario = load_scenario("web_research")
    mechanism = AgentFold(StateSpace(sizes.tokens(), scenario.v_max))
    trace = run(mechanism, scenario)
    counted = [exact(mechanism, trace.state_at(t)) for t in range(len(trace))]
    assert prompt_tokens(trace).per_step == tuple(counted)


@pytest.mark.parametrize("v_max", [120, 200, 300])
@pytest.mark.parametrize("cls", [HiAgent, AgentFold], ids=lambda c: c.__name__)
def test_tight_v_max_reserves_room_for_the_labels(cls, v_max):
    """At a V_max where Σμ alone fits but the labels would overflow, U makes room for them."""
    scenario = load_scenario("household")
    trace = run(_build(cls, v_max), scenario)
    assert_fits_and_exact(trace, v_max)
    assert any("plus π's labels" in why for step in trace for why in step.reasons)


def test_a_mechanism_with_another_size_function_keeps_only_definition_1():
    """With μ = words, |π| (tokens) and V_max (words) are not comparable: only Σμ ≤ V_max is kept."""
    scenario = load_scenario("tool_chat")
    trace = run(HiAgent(StateSpace(sizes.words, 300)), scenario)
    assert all(step.size_after <= 300 for step in trace)
    assert all(step.input_size == exact(trace.mechanism, trace.state_at(step.t)) for step in trace)


def test_fifo_with_a_per_message_overhead_counts_the_messages():
    trace = run(FIFOWindow(StateSpace(sizes.tokens(overhead=4), 300), oversize="truncate"), load_scenario("tool_chat"))
    assert_fits_and_exact(trace, 300)
    assert any(step.input_size < step.size_before for step in trace if step.t > 0)


# -- random agent streams -----------------------------------------------------------------------

TEXT = st.lists(
    st.sampled_from(["the", "key", "Mat", "door", "42", "3.5", ",", ".", "!", "  ", "\n", "\n\n", "é", "→", "'s", "(x)"]),
    min_size=0,
    max_size=40,
).map("".join)


@st.composite
def agent_steps(draw):
    n = draw(st.integers(1, 25))
    steps = []
    for t in range(n):
        directives = {}
        if draw(st.booleans()) and draw(st.booleans()):
            directives["subgoal"] = draw(st.sampled_from(["find the key", "open the door", "leave"]))
        action = draw(st.one_of(st.just(""), st.sampled_from(["look()", "open('door')", "take(key)"])))
        steps.append(
            AgentStep(thought=draw(TEXT), action=action, observation=draw(TEXT), directives=directives)
        )
    return steps


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=agent_steps(), v_max=st.integers(150, 700), query=TEXT)
def test_random_streams_pi_fits_v_max_at_every_step(steps, v_max, query):
    for cls in (FIFOWindow, SCM, HiAgent, AgentFold):
        trace = run(_build(cls, v_max), steps, query=query.strip() or "a task", tools=["look", "open"])
        assert_fits_and_exact(trace, v_max)


# -- the exact sum of line counts ---------------------------------------------------------------

LINE = st.lists(
    st.sampled_from(list("ab AZ09.,;:!?'\"-_/\\()[]\t\n\r éß中→↳…") + ["'s", "'ll", "😀", "\u00a0", "\r\n", "  "]),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=6))
def test_line_tokens_sum_is_the_count_of_the_joined_text(lines):
    pieces = LineTokens("cl100k_base")
    with_breaks = [pieces.with_break(line) for line in lines]
    if any(n is None for n in with_breaks):
        return  # a line starting with a break: the mechanisms count the whole text then
    total = sum(with_breaks[:-1]) + pieces.alone(lines[-1])
    assert total == count_tokens("\n".join(lines))


def test_line_tokens_flags_lines_that_start_with_a_break_and_unknown_encodings():
    pieces = LineTokens("cl100k_base")
    assert pieces.splits and LineTokens("gpt-4").splits  # a model name resolves to its encoding
    assert all(pieces.with_break(line) is None for line in ("\nhello", "  \nhello", "", "\r\n"))
    assert pieces.with_break("  hello") == count_tokens("  hello\n")
    assert pieces.with_break("hello\n") == count_tokens("hello\n\n")
    assert not LineTokens("o200k_base").splits  # not known to split so (and not installed offline)


def test_a_line_starting_with_a_break_is_counted_with_the_whole_text():
    m = HiAgent(StateSpace(sizes.tokens(), 500))
    trace = run(m, [AgentStep(action="look()", observation="A")], query="\n\n  task on its own line")
    for t in range(len(trace) + 1):
        assert m.projection_size(trace.state_at(t)) == exact(m, trace.state_at(t))


def test_foreign_elements_in_agentfold_are_counted_with_the_whole_text():
    m = AgentFold(StateSpace(sizes.tokens(), 500))
    state = run(m, [{"observation": "hello"}]).final | {Element("a note", {"t": 5, "type": "note"})}
    assert m.projection_size(state) == exact(m, state)
