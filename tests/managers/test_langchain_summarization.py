"""LangChainSummarization: LangChain's SummarizationMiddleware as U (trigger, keep, safe cut, summary message)."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, LangChainSummarization, StateSpace, check_mechanism, run, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.managers.langchain_summarization import SUMMARY_PREFIX, SUMMARY_PROMPT

from _managers import SPACE, agent_streams, chat, counter, langchain_messages, pairs, role_of, stmviz_pairs, tool_step

HAS_LANGCHAIN = importlib.util.find_spec("langchain") is not None
needs_langchain = pytest.mark.skipif(not HAS_LANGCHAIN, reason="peer library langchain not installed (pip install stmviz[peers])")


def label(texts, budget):
    """A deterministic stand-in summary: how many messages (XML elements), and how the text starts and ends."""
    joined = "\n".join(texts)
    return f"{joined.count('<message ') or len(texts)} messages from {joined[:40]!r} to {joined[-40:]!r}"



def test_no_trigger_never_summarizes_langchains_default():
    trace = run(LangChainSummarization(SPACE), chat(30))
    assert all(op == "append" for op in (s.operation for s in trace))
    assert len(trace.project(31)) == 61


def test_messages_trigger_keeps_the_last_keep_messages_and_puts_the_summary_message_first():
    m = LangChainSummarization(SPACE, system="sys", trigger=("messages", 10), keep=("messages", 4), summarizer=label)
    trace = run(m, chat(12))
    x = trace.project(5)  # 1 + 2·4 = 9 messages stored before step 5's input: no trigger yet
    assert not any(msg.text.startswith(SUMMARY_PREFIX) for msg in x)
    x = trace.project(6)  # 11 messages ≥ 10: summarized down to the summary + 4 kept
    assert x[0].role == "system" and x[1].role == "user" and x[1].text.startswith(SUMMARY_PREFIX)
    assert len(x) == 1 + 1 + 4
    # 11 − 4 kept = 7 messages, given to the summarizer as LangChain's XML (get_buffer_string(format="xml"))
    assert x[1].text == SUMMARY_PREFIX + "7 messages from '<message type=\"human\">user 0 says hello ' to " \
        "' type=\"human\">user 3 asks more</message>'"


def test_the_cut_moves_back_so_a_tool_result_keeps_its_call():
    steps = [AgentStep(observation="go")] + [tool_step("search", f"q{k}", f"result {k}", f"t{k}") for k in range(6)]
    steps.append(AgentStep(thought="done"))
    # messages before step 4: user, (call, result) × 3 = 7; keep 2 → the cut at index 5 is a result: moves back to its call
    m = LangChainSummarization(SPACE, trigger=("messages", 7), keep=("messages", 2), summarizer=label)
    x = run(m, steps).project(4)
    kept = [msg for msg in x if not msg.text.startswith(SUMMARY_PREFIX)]
    assert [msg.role for msg in kept] == ["assistant", "tool"]


def test_token_trigger_and_token_keep():
    m = LangChainSummarization(StateSpace(sizes.words, v_max=1000), trigger=("tokens", 20), keep=("tokens", 8), summarizer=label)
    trace = run(m, chat(10))
    for t in range(len(trace)):
        messages = [e for e in trace.state_at(t) if e.type != "summary_message"]
        assert sum(len(e.text.split()) for e in messages) <= 20 + 8  # below the trigger, or just cut to 8


def test_fraction_is_of_v_max_and_and_or_clauses():
    m = LangChainSummarization(StateSpace(sizes.words, v_max=100), trigger=("fraction", 0.2), keep=("messages", 2))
    assert m.triggered(run(m, chat(1)).final.ordered()) is None
    clause = LangChainSummarization(SPACE, trigger={"messages": 5, "tokens": 1000})
    either = LangChainSummarization(SPACE, trigger=[{"messages": 5, "tokens": 1000}, ("messages", 7)])
    msgs = run(LangChainSummarization(SPACE), chat(3)).final.ordered()  # 8 messages, few tokens
    assert clause.triggered(msgs) is None
    assert either.triggered(msgs) == "8 messages ≥ 7"


def test_the_prompt_is_langchains():
    assert "{messages}" in SUMMARY_PROMPT and SUMMARY_PROMPT.startswith("<role>")


def test_bad_parameters_get_clear_errors():
    with pytest.raises(InvalidArgumentError, match="keep"):
        LangChainSummarization(SPACE, keep=("turns", 3))
    with pytest.raises(InvalidArgumentError, match="fraction"):
        LangChainSummarization(SPACE, trigger=("fraction", 1.5))
    with pytest.raises(InvalidArgumentError, match="trigger clause"):
        LangChainSummarization(SPACE, trigger={})


def test_check_mechanism_passes():
    m = LangChainSummarization(StateSpace(sizes.words, v_max=300), trigger=("fraction", 0.5), keep=("messages", 4))
    assert check_mechanism(m).ok


@given(agent_streams(), st.integers(3, 12), st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_property_no_tool_result_without_its_call_and_at_most_one_summary_first(steps, trigger, keep):
    m = LangChainSummarization(SPACE, trigger=("messages", trigger), keep=("messages", keep), summarizer=label)
    trace = run(m, steps)
    for t in range(len(trace)):
        x = trace.project(t)
        calls = set()
        for e in trace.state_at(t).ordered():
            if e.type == "assistant" and "call" in e.meta:
                calls.add(e.meta["call"])
            if e.type == "tool":
                assert e.meta["call"] in calls
        summaries = [k for k, msg in enumerate(x) if msg.text.startswith(SUMMARY_PREFIX)]
        assert summaries in ([], [0])


# ---------------------------------------------------------------- equivalence with LangChain


def langchain_inputs(steps, summarize=None, **options):
    """The messages LangChain's SummarizationMiddleware leaves in the state before each step's output."""
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import RemoveMessage

    from langchain_core.messages import get_buffer_string

    summarizer = lambda messages: (summarize or label)([get_buffer_string(messages, format="xml")], 0)  # noqa: E731  (what its model reads)
    middleware = SummarizationMiddleware(FakeListChatModel(responses=["-"]), token_counter=counter(), summarizer=summarizer, **options)
    state, seen = [], {}
    for t, step in enumerate(steps):
        if step.has_output:
            update = middleware.before_model({"messages": state}, None)
            if update is not None:
                state = [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
            seen[t] = pairs(state)
        state = state + langchain_messages(step, t)
    return seen


@needs_langchain
@given(agent_streams(max_steps=20), st.sampled_from([
    dict(trigger=("messages", 6), keep=("messages", 3)),
    dict(trigger=[{"messages": 4, "tokens": 40}, ("messages", 9)], keep=("messages", 2)),
    dict(trigger=("tokens", 60), keep=("tokens", 25)),
    dict(trigger=("tokens", 50), keep=("messages", 1), trim_tokens_to_summarize=20),
]))
@settings(max_examples=40, deadline=None)
def test_langchain_summarization_middleware_gives_the_same_model_input_at_every_step(steps, options):
    theirs = langchain_inputs(steps, **options)
    mine = run(LangChainSummarization(SPACE, summarizer=label, **options), steps)
    for t, expected in theirs.items():
        assert stmviz_pairs(mine.project(t)) == expected, f"step {t}"


def multi_line(texts, budget):
    """A summary on several lines, as a model writes one (sections, a list)."""
    joined = "\n".join(texts)
    return f"## Session intent\n{joined.count('<message ')} messages\n## Next steps\n- go on\n- from {joined[-20:]!r}"


@needs_langchain
@given(agent_streams(max_steps=16))
@settings(max_examples=20, deadline=None)
def test_a_multi_line_summary_reaches_the_model_as_written_in_stmviz_and_langchain(steps):
    options = dict(trigger=("messages", 6), keep=("messages", 3))
    theirs = langchain_inputs(steps, summarize=multi_line, **options)
    mine = run(LangChainSummarization(SPACE, summarizer=multi_line, **options), steps)
    for t, expected in theirs.items():
        assert stmviz_pairs(mine.project(t)) == expected, f"step {t}"


@needs_langchain
def test_the_prompt_is_exactly_langchains():
    from langchain.agents.middleware.summarization import DEFAULT_SUMMARY_PROMPT

    assert SUMMARY_PROMPT == DEFAULT_SUMMARY_PROMPT
    assert role_of  # the helpers are shared with the other managers' tests


def test_thinking_belongs_to_its_ai_message_it_is_not_counted_and_leaves_with_it():
    steps = [AgentStep(observation="hi")]
    steps += [AgentStep(thought=f"reply {k}", observation=f"next {k}", meta={"thinking": f"I think {k}"}) for k in range(5)]
    m = LangChainSummarization(SPACE, trigger=("messages", 7), keep=("messages", 2), summarizer=label)
    trace = run(m, steps + [AgentStep(thought="end")])
    state = trace.state_at(4)  # before step 4's output: hi + 3 × (reply, next) = 7 messages (thinking not counted)
    assert any(e.type == "summary_message" for e in state)
    replies = {e.meta["step"] for e in state if e.type == "assistant"}
    assert {e.meta["step"] for e in state if e.type == "thinking"} == replies
    assert [e.type for e in trace.state_at(3).ordered()].count("summary_message") == 0  # 5 messages + 2 thinking: no trigger


@needs_langchain
def test_a_previous_summary_that_does_not_fit_is_summarized_by_its_last_lines_as_langchain_does():
    """trim_messages(allow_partial=True) keeps the last lines of the next older message that fit.

    Hypothesis found this stream: at step 5 the second summary's input held the tail of the first
    summary (a multi-line human message) in LangChain, and nothing of it in stmviz.
    """
    from stmviz.core.context import AgentStep

    words = lambda n: " ".join(["alpha"] * n)  # noqa: E731
    call = {"action": 'search({"q": "alpha"})', "meta": {"tool": "search"}}
    steps = [AgentStep(observation="alpha"), AgentStep(observation=words(10), **call),
             AgentStep(thought=words(12), observation=words(12)), AgentStep(thought="alpha", observation=words(12)),
             AgentStep(thought=words(7), observation=words(12), **call)]
    steps += [AgentStep(thought="alpha", observation="alpha")] * 7 + [AgentStep(thought="alpha")]
    options = dict(trigger=("tokens", 50), keep=("messages", 1), trim_tokens_to_summarize=20)
    theirs = langchain_inputs(steps, **options)
    mine = run(LangChainSummarization(SPACE, summarizer=label, **options), steps)
    assert any("\n" in text for t in theirs for _, text in theirs[t][:1])  # a partial summary was summarized
    for t, expected in theirs.items():
        assert stmviz_pairs(mine.project(t)) == expected, f"step {t}"


@needs_langchain
@given(agent_streams(max_steps=12))
@settings(max_examples=40, deadline=None)
def test_messages_as_xml_equals_langchains_get_buffer_string_xml(steps):
    from langchain_core.messages import get_buffer_string

    from stmviz.managers.conversation import step_messages
    from stmviz.managers.langchain_summarization import messages_as_xml

    mine = [e for t, step in enumerate(steps) for e in step_messages(step, t, api=True)]
    theirs = [m for t, step in enumerate(steps) for m in langchain_messages(step, t)]
    assert messages_as_xml(mine) == get_buffer_string(theirs, format="xml")
